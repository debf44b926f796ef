package queue

import "fmt"

// Priority orders items of one NodeQueue: all ready PriorityHigh items are
// leased before any PriorityNormal item, and those before PriorityLow. The
// zero value is PriorityNormal.
type Priority uint8

const (
	PriorityNormal Priority = iota
	PriorityHigh
	PriorityLow

	// NumPriorities is the number of priority levels, for indexing
	// Stats.Depth.
	NumPriorities = 3
)

// leaseOrder is the order in which Lease looks at the priority rings.
var leaseOrder = [NumPriorities]Priority{PriorityHigh, PriorityNormal, PriorityLow}

func (p Priority) String() string {
	switch p {
	case PriorityHigh:
		return "high"
	case PriorityNormal:
		return "normal"
	case PriorityLow:
		return "low"
	}
	return fmt.Sprintf("Priority(%d)", uint8(p))
}

// Item is a unit of work on a NodeQueue.
type Item[T any] struct {
	// ID identifies the work for the caller (a job or token id); the queue
	// does not interpret it.
	ID       uint64
	Payload  T
	Priority Priority
	// Attempts counts the leases of this item so far; Lease increments it.
	Attempts int
}
