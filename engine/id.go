package engine

import "github.com/google/uuid"

// newID returns a new unique id. UUIDv7 ids sort by creation time, which
// keeps indexes and cursors in the order people expect.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// idIn makes a new instance id that the partition p applies, so that a
// call activity's child shares its caller's applier (and can run in its
// round, and in a cluster lives in a partition its caller's replica holds);
// should no try land there, any id does.
func (e *Engine) idIn(p *partition) string {
	if len(e.partitions) == 1 {
		return newID()
	}
	if id, ok := e.idWhere(func(q *partition) bool { return q == p }); ok {
		return id
	}
	return newID()
}
