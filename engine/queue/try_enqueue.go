package queue

import "fmt"

// TryEnqueue adds item when its priority's ring has room and reports whether
// it did; it never waits. Callers that must not block (the engine's
// appliers) use it and hand the item to a goroutine that waits with Enqueue
// when it reports false.
func (q *NodeQueue[T]) TryEnqueue(item Item[T]) (bool, error) {
	if item.Priority >= NumPriorities {
		return false, fmt.Errorf("enqueueing item %d: unknown %v, use PriorityHigh, PriorityNormal or PriorityLow", item.ID, item.Priority)
	}
	if !q.rings[item.Priority].TryPush(item) {
		return false, nil
	}
	q.ready.wake()
	return true, nil
}
