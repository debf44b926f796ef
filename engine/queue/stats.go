package queue

// Stats is a snapshot of a NodeQueue for metrics. Counts taken while other
// goroutines use the queue are approximate.
type Stats struct {
	// Depth is the number of items ready to lease, indexed by Priority.
	Depth [NumPriorities]int
	// Leased is the number of outstanding leases.
	Leased int
	// Delayed is the number of nacked or expired items waiting to be ready
	// again.
	Delayed int
	// DeadLettered counts items handed to DeadLetter since creation.
	DeadLettered uint64
}

// Stats returns a snapshot of the queue.
func (q *NodeQueue[T]) Stats() Stats {
	var s Stats
	for p, r := range q.rings {
		s.Depth[p] = r.Len()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	s.Leased = len(q.leases)
	s.Delayed = len(q.retries)
	s.DeadLettered = q.deadLettered
	return s
}
