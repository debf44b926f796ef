package engine

import "context"

// ResyncSchedules reads every schedule again, as a replica does every
// scheduleResync.
func ResyncSchedules(ctx context.Context, e *Engine) error { return e.sched.resync(ctx) }
