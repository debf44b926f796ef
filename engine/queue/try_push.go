package queue

// TryPush appends v when there is room and reports whether it did; it never
// waits. It returns ErrClosed after Close. The engine's appliers use it so
// they never block on a full queue.
func (q *Queue[T]) TryPush(v T) (bool, error) {
	ok, err := q.tryPush(v)
	if ok {
		q.notEmpty.wake()
	}
	return ok, err
}
