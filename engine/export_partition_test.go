package engine

// Queued is how many commands wait in the inbox of partition p.
func Queued(e *Engine, p int) int { return len(e.partitions[p].inbox) }
