package engine

import (
	"context"
	"fmt"
)

// recover brings every unfinished instance back after a restart: each is
// loaded into its applier, which re-arms its timers and subscriptions and
// runs again the work that was under way (in a cluster, only those of the
// partitions this replica takes: cluster.load). The schedules of the timer
// start events are brought in line with the default versions first (a store
// written by an older version, or a deploy that stopped half-way).
func (e *Engine) recover(ctx context.Context) error {
	if err := e.syncTimerStarts(ctx, ""); err != nil {
		return fmt.Errorf("recovering the timer start events: %w", err)
	}
	if e.cluster != nil { // instances come back partition by partition, as this replica takes them
		return e.cluster.start(ctx)
	}
	e.limits.beginRecovery()
	defer e.limits.endRecovery()
	return e.store.Unfinished(ctx, func(s *Snapshot) error {
		if waitsForItsTrigger(ctx, e, s) {
			return nil
		}
		e.recoverLimits(ctx, s)
		return e.submit(ctx, command{kind: cmdLoad, inst: s.ID, snap: s})
	})
}
