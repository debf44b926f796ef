package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrDeadLetterSettled is what replaying or discarding a dead letter that is
// not pending returns: it is being replayed, or settled.
var ErrDeadLetterSettled = errors.New("dead letter settled")

// ErrDeadLetterOpen is what deleting a dead letter that is not settled
// returns: its incident is open or its job runs again, and the two would go
// out of step.
var ErrDeadLetterOpen = errors.New("dead letter open")

// ReplayDeadLetter runs a pending dead letter's job again with fresh retries
// (and vars merged first) by resolving its incident, on behalf of user; the
// letter is replaying until the job ends. Any other letter is
// ErrDeadLetterSettled.
func (e *Engine) ReplayDeadLetter(ctx context.Context, id, user string, vars map[string]any) (DeadLetter, *Snapshot, error) {
	d, err := e.pendingLetter(ctx, id, "replay")
	if err != nil {
		return d, nil, err
	}
	snap, err := e.control(ctx, command{kind: cmdResolve, inst: d.InstanceID, incidentID: d.IncidentID, vars: vars, user: user})
	if errors.Is(err, ErrNotFound) { // settled meanwhile
		return d, nil, fmt.Errorf("dead letter %s: its incident %s closed meanwhile: %w", d.ID, d.IncidentID, ErrDeadLetterSettled)
	}
	if err != nil {
		return d, nil, err
	}
	d.Apply(DeadLetterTransition{Status: DeadLetterReplaying, At: snap.Updated, By: user})
	return d, snap, nil
}

// DiscardDeadLetter settles a pending dead letter as discarded, on behalf of
// user: the operator gives up on replaying it. Nothing else changes: its
// incident stays open and the instance waits on it, to be cancelled or
// retried as a decision of its own. Any other letter is ErrDeadLetterSettled.
func (e *Engine) DiscardDeadLetter(ctx context.Context, id, user string) (DeadLetter, error) {
	d, err := e.pendingLetter(ctx, id, "discard")
	if err != nil {
		return d, err
	}
	snap, err := e.control(ctx, command{kind: cmdDiscardDeadLetter, inst: d.InstanceID, letter: d.ID, user: user})
	if err != nil {
		return d, err
	}
	d.Apply(DeadLetterTransition{Status: DeadLetterDiscarded, At: snap.Updated, By: user})
	return d, nil
}

func (e *Engine) pendingLetter(ctx context.Context, id, verb string) (DeadLetter, error) {
	d, err := e.store.DeadLetter(ctx, id)
	if err != nil {
		return d, err
	}
	if d.Status != DeadLetterPending {
		return d, fmt.Errorf("dead letter %s is %s, not pending: only a pending letter can be %s: %w", d.ID, d.Status, pastTense(verb), ErrDeadLetterSettled)
	}
	return d, nil
}

func pastTense(verb string) string {
	if verb == "replay" {
		return "replayed"
	}
	return verb + "ed"
}

// DeleteDeadLetter removes a settled dead letter. One that is not settled is
// ErrDeadLetterOpen: replay or discard it first (or cancel its instance).
func (e *Engine) DeleteDeadLetter(ctx context.Context, id string) error {
	d, err := e.store.DeadLetter(ctx, id)
	if err != nil {
		return err
	}
	if !d.Status.Settled() {
		return fmt.Errorf("dead letter %s is %s (incident %s of instance %s): replay or discard it, or cancel the instance, then delete it: %w",
			d.ID, d.Status, d.IncidentID, d.InstanceID, ErrDeadLetterOpen)
	}
	return e.store.DeleteDeadLetter(ctx, id)
}

// DeadLetterSample is how many ids a bulk operation's answer lists.
const DeadLetterSample = 20

// DeadLetterPurge is what PurgeDeadLetters did, or would do on a dry run.
type DeadLetterPurge struct {
	Matched int      `json:"matched"`
	IDs     []string `json:"ids"` // the first DeadLetterSample of them, newest first
}

// PurgeDeadLetters deletes the settled letters f selects that were settled
// more than olderThan ago; dryRun only counts them. f.Status defaults to
// every settled status; one that is not settled is ErrInvalidInput, since
// its letters still follow an incident or a job.
func (e *Engine) PurgeDeadLetters(ctx context.Context, olderThan time.Duration, f DeadLetterFilter, dryRun bool) (DeadLetterPurge, error) {
	var res DeadLetterPurge
	if olderThan < 0 {
		return res, fmt.Errorf("purging dead letters older than %s: the age must not be negative: %w", olderThan, ErrInvalidInput)
	}
	if len(f.Status) == 0 {
		f.Status = SettledDeadLetters
	}
	if i := slices.IndexFunc(f.Status, func(s DeadLetterStatus) bool { return !s.Settled() }); i >= 0 {
		return res, fmt.Errorf("dead letters that are %s are not settled and cannot be purged: replay or discard them first: %w", f.Status[i], ErrInvalidInput)
	}
	f.SettledBefore, f.Limit = e.clock.Now().Add(-olderThan), DeadLetterSample
	sample, err := e.store.DeadLetters(ctx, f)
	if err != nil {
		return res, err
	}
	res.IDs = make([]string, len(sample))
	for i, d := range sample {
		res.IDs[i] = d.ID
	}
	f.Limit = 0
	if dryRun {
		res.Matched, err = e.store.CountDeadLetters(ctx, f)
		return res, err
	}
	res.Matched, err = e.store.DeleteDeadLetters(ctx, f)
	if err == nil && res.Matched > 0 {
		e.cfg.Logger.Info("dead letters purged", "count", res.Matched, "older_than", olderThan.String())
	}
	return res, err
}

// moveLetter records a transition of the dead letter token t carries, if
// any. A replayed or cancelled letter leaves the token; a discarded one
// stays with it, as its incident does: what the token does next moves
// nothing (the store keeps a settled letter as it is), and no failure of a
// later retry of the incident makes a second letter for the same job.
func (x *instance) moveLetter(t *token, status DeadLetterStatus, by string) {
	if t.deadLetter == "" {
		return
	}
	x.letterMoves = append(x.letterMoves, DeadLetterUpdate{ID: t.deadLetter, DeadLetterTransition: DeadLetterTransition{Status: status, At: x.now, By: by}})
	if status == DeadLetterReplayed || status == DeadLetterCancelled {
		t.deadLetter = ""
	}
}

// deadLetter files a job that failed for good and raised incident inc: as a
// new letter, or, when the job was a replay of one, as that letter pending
// again with the new error.
func (x *instance) deadLetter(t *token, inc *Incident, msg string) {
	fail := DeadLetterTransition{Status: DeadLetterPending, At: x.now, Error: msg, IncidentID: inc.ID, Attempts: t.attempt}
	detail := map[string]any{"jobType": jobType(t.node), "attempts": t.attempt}
	if t.deadLetter != "" {
		x.letterMoves = append(x.letterMoves, DeadLetterUpdate{ID: t.deadLetter, DeadLetterTransition: fail})
		detail["deadLetterId"], detail["replayFailed"] = t.deadLetter, true
		x.emit(EventDeadLettered, t.node, t, detail)
		return
	}
	dl := DeadLetter{
		ID: inc.ID, InstanceID: x.id, Definition: x.head.DefinitionKey, ElementID: t.node.ID, IncidentID: inc.ID, JobType: jobType(t.node),
		Attempts: t.attempt, LastError: msg, Errors: []string{msg}, Created: x.now, Status: DeadLetterPending,
		History: []DeadLetterTransition{fail},
	}
	t.deadLetter = dl.ID
	x.deadLetters = append(x.deadLetters, dl)
	detail["deadLetterId"] = dl.ID
	x.emit(EventDeadLettered, t.node, t, detail)
}

// discardLetter settles the pending letter c.letter as discarded, leaving
// its token and incident as they are.
func (x *instance) discardLetter(c command) error {
	i := slices.IndexFunc(x.tokens, func(t *token) bool { return t.deadLetter == c.letter })
	if i < 0 {
		return fmt.Errorf("dead letter %s: no token of instance %s carries it any more: %w", c.letter, x.id, ErrDeadLetterSettled)
	}
	t := x.tokens[i]
	if t.status != TokenIncident {
		return fmt.Errorf("dead letter %s is being replayed: %w", c.letter, ErrDeadLetterSettled)
	}
	x.moveLetter(t, DeadLetterDiscarded, c.user)
	x.emit(EventDeadLetterDiscarded, t.node, t, map[string]any{"deadLetterId": c.letter, "incidentId": t.incident, "user": c.user})
	return nil
}
