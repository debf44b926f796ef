package engine

import (
	"context"
	"errors"
	"fmt"
)

// ErrDeadLetterSettled is what replaying a dead letter whose incident is
// closed returns: the job ran again, or its token went away.
var ErrDeadLetterSettled = errors.New("dead letter settled")

// ErrDeadLetterOpen is what deleting a dead letter whose incident is still
// open returns: the two would go out of step.
var ErrDeadLetterOpen = errors.New("dead letter open")

// ReplayDeadLetter runs a dead letter's job again with fresh retries (and
// vars merged first) by resolving its incident; the letter stays, with
// status replayed. A settled letter is ErrDeadLetterSettled.
func (e *Engine) ReplayDeadLetter(ctx context.Context, id string, vars map[string]any) (DeadLetter, *Snapshot, error) {
	d, err := e.store.DeadLetter(ctx, id)
	if err != nil {
		return d, nil, err
	}
	if d.Status != DeadLetterOpen {
		return d, nil, fmt.Errorf("dead letter %s was settled as %s at %s: %w", d.ID, d.Status, d.Settled.UTC().Format("2006-01-02T15:04:05Z"), ErrDeadLetterSettled)
	}
	snap, err := e.ResolveIncident(ctx, d.InstanceID, d.IncidentID, vars)
	if errors.Is(err, ErrNotFound) { // settled meanwhile
		return d, nil, fmt.Errorf("dead letter %s: its incident %s closed meanwhile: %w", d.ID, d.IncidentID, ErrDeadLetterSettled)
	}
	if err != nil {
		return d, nil, err
	}
	d.Status = DeadLetterReplayed
	return d, snap, nil
}

// DeleteDeadLetter removes a settled dead letter. An open one is
// ErrDeadLetterOpen: replay it, or cancel its instance, first.
func (e *Engine) DeleteDeadLetter(ctx context.Context, id string) error {
	d, err := e.store.DeadLetter(ctx, id)
	if err != nil {
		return err
	}
	if d.Status == DeadLetterOpen {
		return fmt.Errorf("dead letter %s: its incident %s is open; replay the letter (or resolve the incident), or cancel instance %s, then delete it: %w",
			d.ID, d.IncidentID, d.InstanceID, ErrDeadLetterOpen)
	}
	return e.store.DeleteDeadLetter(ctx, id)
}
