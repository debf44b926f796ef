package engine

import (
	"context"
)

// Pause stops new work in an instance: running work finishes, its results and
// due timers wait until Resume.
func (e *Engine) Pause(ctx context.Context, id string) (*Snapshot, error) {
	return e.control(ctx, command{kind: cmdPause, inst: id})
}

// Resume lets a paused instance carry on, applying what waited.
func (e *Engine) Resume(ctx context.Context, id string) (*Snapshot, error) {
	return e.control(ctx, command{kind: cmdResume, inst: id})
}

// Cancel ends an instance: tokens removed, tasks cancelled, timers disarmed.
func (e *Engine) Cancel(ctx context.Context, id string) (*Snapshot, error) {
	return e.control(ctx, command{kind: cmdCancel, inst: id})
}

// SetVariables merges variables into an instance.
func (e *Engine) SetVariables(ctx context.Context, id, user string, vars map[string]any) (*Snapshot, error) {
	return e.control(ctx, command{kind: cmdSetVariables, inst: id, vars: vars, user: user})
}

// Move takes a token off its node and puts it on another node of its scope.
func (e *Engine) Move(ctx context.Context, id string, token uint64, elementID, user string) (*Snapshot, error) {
	return e.control(ctx, command{kind: cmdMove, inst: id, token: token, target: elementID, user: user})
}

// ResolveIncident retries what an incident stopped, after merging vars (the fix).
func (e *Engine) ResolveIncident(ctx context.Context, instanceID, incidentID string, vars map[string]any) (*Snapshot, error) {
	return e.control(ctx, command{kind: cmdResolve, inst: instanceID, incidentID: incidentID, vars: vars})
}

func (e *Engine) control(ctx context.Context, c command) (*Snapshot, error) {
	r, err := e.call(ctx, c)
	if err != nil {
		return nil, err
	}
	return r.snap, nil
}

// Instance returns the latest stored state of an instance.
func (e *Engine) Instance(ctx context.Context, id string) (*Snapshot, error) {
	return e.store.Instance(ctx, id)
}

// Queries returns the read side of the engine's store. Changes go through
// the engine's methods.
func (e *Engine) Queries() Queries { return e.store }

// SaveFilter keeps a user's named inbox filter, replacing one of that name.
func (e *Engine) SaveFilter(ctx context.Context, f SavedFilter) error {
	return e.store.SaveFilter(ctx, f)
}

// DeleteFilter removes a user's filter; ErrNotFound when there is none.
func (e *Engine) DeleteFilter(ctx context.Context, user, name string) error {
	return e.store.DeleteFilter(ctx, user, name)
}
