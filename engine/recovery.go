package engine

import (
	"context"
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
)

// recover brings every unfinished instance back after a restart: each is
// loaded into its applier, which re-arms its timers and subscriptions and
// runs again the work that was under way (in a cluster, only those of the
// partitions this replica takes: cluster.load). The default version of each
// definition gets its timer start events armed again.
func (e *Engine) recover(ctx context.Context) error {
	defaults, err := e.defaultVersions(ctx)
	if err != nil {
		return fmt.Errorf("recovering definitions: %w", err)
	}
	for _, rec := range defaults {
		dep, err := e.defs.byID(ctx, rec.ID)
		if err != nil {
			return err
		}
		if hasTimerStart(dep.def) {
			e.scheduleStarts(rec, dep.def)
		}
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

func hasTimerStart(def *model.Definition) bool {
	p := def.Main()
	if p == nil {
		return false
	}
	for _, s := range p.Starts() {
		if s.Trigger == model.TriggerTimer {
			return true
		}
	}
	return false
}
