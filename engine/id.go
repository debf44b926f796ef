package engine

import "github.com/google/uuid"

// newID returns a new unique id. UUIDv7 ids sort by creation time, which
// keeps indexes and cursors in the order people expect.
func newID() string { return uuid.Must(uuid.NewV7()).String() }
