package engine

import (
	"hash/maphash"

	"github.com/google/uuid"
)

// newID returns a new unique id. UUIDv7 ids sort by creation time, which
// keeps indexes and cursors in the order people expect.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// idIn makes a new instance id that the partition p applies, so that a
// call activity's child shares its caller's applier (and can run in its
// round); after a few tries any id does.
func (e *Engine) idIn(p *partition) string {
	id := newID()
	if len(e.partitions) == 1 {
		return id
	}
	// The last hex digit of a UUIDv7 is random: trying the 16 digits there
	// keeps the id a valid, unique-enough v7 and costs no new random bits.
	b := []byte(id)
	for _, d := range []byte("0123456789abcdef") {
		b[len(b)-1] = d
		if e.partitions[maphash.Bytes(e.seed, b)%uint64(len(e.partitions))] == p { // partitionOf, without a string per try
			return string(b)
		}
	}
	return id
}
