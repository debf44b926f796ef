package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// letterHarness runs "retries" (two retries, one second apart) with a charge
// handler that fails while fail is set, and brings an instance to a pending
// dead letter.
type letterHarness struct {
	*harness
	fail  atomic.Bool
	calls atomic.Int32
}

func setupLetters(t *testing.T) *letterHarness {
	t.Helper()
	h := &letterHarness{harness: setup(t)}
	h.fail.Store(true)
	h.e.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		n := h.calls.Add(1)
		if h.fail.Load() {
			return nil, fmt.Errorf("card service down (call %d)", n)
		}
		return map[string]any{"charged": true}, nil
	}))
	h.deploy("retries")
	return h
}

// deadLettered starts an instance and fires its retries until its job is
// dead-lettered; it returns the instance and its pending letter.
func (h *letterHarness) deadLettered() (*engine.Snapshot, engine.DeadLetter) {
	h.t.Helper()
	inst := h.start("retries", nil)
	h.fireAll(10)
	h.requireStatus(inst.ID, engine.StatusIncident)
	dls, err := h.store.DeadLetters(h.ctx, engine.DeadLetterFilter{InstanceID: inst.ID})
	require.NoError(h.t, err)
	require.Len(h.t, dls, 1)
	require.Equal(h.t, engine.DeadLetterPending, dls[0].Status)
	return inst, dls[0]
}

func (h *letterHarness) letter(id string) engine.DeadLetter {
	h.t.Helper()
	d, err := h.e.DeadLetter(h.ctx, id)
	require.NoError(h.t, err)
	return d
}

func historyOf(d engine.DeadLetter) []engine.DeadLetterStatus {
	out := make([]engine.DeadLetterStatus, len(d.History))
	for i, tr := range d.History {
		out[i] = tr.Status
	}
	return out
}

func TestDeadLetterReplay(t *testing.T) {
	t.Parallel()
	t.Run("replayed: the job succeeds", func(t *testing.T) {
		t.Parallel()
		h := setupLetters(t)
		inst, dl := h.deadLettered()
		require.Equal(t, 3, dl.Attempts)
		require.Equal(t, []engine.DeadLetterStatus{engine.DeadLetterPending}, historyOf(dl))

		h.fail.Store(false)
		got, snap, err := h.e.ReplayDeadLetter(h.ctx, dl.ID, "olga", map[string]any{"fixed": true})
		require.NoError(t, err)
		require.Equal(t, engine.DeadLetterReplaying, got.Status, "the answer says what the replay did")
		require.Equal(t, true, snap.Variables["fixed"])
		h.idle()

		h.requireStatus(inst.ID, engine.StatusCompleted)
		d := h.letter(dl.ID)
		require.Equal(t, engine.DeadLetterReplayed, d.Status)
		require.NotNil(t, d.Settled)
		require.Equal(t, []engine.DeadLetterStatus{engine.DeadLetterPending, engine.DeadLetterReplaying, engine.DeadLetterReplayed}, historyOf(d))
		require.Equal(t, "olga", d.History[1].By, "who replayed it is kept")
		require.Empty(t, d.History[2].By, "the engine settled it")
		_, _, err = h.e.ReplayDeadLetter(h.ctx, dl.ID, "olga", nil)
		require.ErrorIs(t, err, engine.ErrDeadLetterSettled, "no second replay")
		require.NoError(t, h.e.DeleteDeadLetter(h.ctx, dl.ID), "a settled letter may be deleted")
	})
	t.Run("a failed replay is pending again with its error", func(t *testing.T) {
		t.Parallel()
		h := setupLetters(t)
		inst, dl := h.deadLettered()

		_, _, err := h.e.ReplayDeadLetter(h.ctx, dl.ID, "olga", nil)
		require.NoError(t, err)
		h.idle()
		require.Equal(t, engine.DeadLetterReplaying, h.letter(dl.ID).Status, "replaying while its retries wait")
		require.ErrorIs(t, h.e.DeleteDeadLetter(h.ctx, dl.ID), engine.ErrDeadLetterOpen, "a letter being replayed stays")
		_, err = h.e.DiscardDeadLetter(h.ctx, dl.ID, "olga")
		require.ErrorIs(t, err, engine.ErrDeadLetterSettled, "nor can it be discarded while it runs")
		h.fireAll(10)

		h.requireStatus(inst.ID, engine.StatusIncident)
		d := h.letter(dl.ID)
		require.Equal(t, engine.DeadLetterPending, d.Status)
		require.Nil(t, d.Settled)
		require.Len(t, d.Errors, 2, "the replay's error is appended")
		require.Contains(t, d.LastError, "(call 6)")
		require.Equal(t, 6, d.Attempts, "three attempts, three more on replay")
		incs := h.openIncidents(inst.ID)
		require.Len(t, incs, 1)
		require.Equal(t, incs[0].ID, d.IncidentID, "the letter names the new incident")
		require.NotEqual(t, dl.IncidentID, d.IncidentID)
		all, err := h.store.DeadLetters(h.ctx, engine.DeadLetterFilter{InstanceID: inst.ID})
		require.NoError(t, err)
		require.Len(t, all, 1, "no second letter for the same job")
		require.Equal(t, 2, h.count(inst.ID, engine.EventDeadLettered, "charge"))

		// the second replay runs against the new incident and succeeds
		h.fail.Store(false)
		_, _, err = h.e.ReplayDeadLetter(h.ctx, dl.ID, "olga", nil)
		require.NoError(t, err)
		h.idle()
		h.requireStatus(inst.ID, engine.StatusCompleted)
		d = h.letter(dl.ID)
		require.Equal(t, []engine.DeadLetterStatus{
			engine.DeadLetterPending, engine.DeadLetterReplaying, engine.DeadLetterPending, engine.DeadLetterReplaying, engine.DeadLetterReplayed,
		}, historyOf(d))
		require.Equal(t, d.IncidentID, d.History[2].IncidentID)
	})
	t.Run("resolving its incident replays it too", func(t *testing.T) {
		t.Parallel()
		h := setupLetters(t)
		inst, dl := h.deadLettered()
		h.fail.Store(false)
		_, err := h.e.ResolveIncident(h.ctx, inst.ID, dl.IncidentID, nil)
		require.NoError(t, err)
		h.idle()
		require.Equal(t, engine.DeadLetterReplayed, h.letter(dl.ID).Status)
	})
}

// TestDeadLetterReplayThrowsBPMNError: a replayed job that answers with a
// BPMN error the process catches has been replayed: the process took its
// answer.
func TestDeadLetterReplayThrowsBPMNError(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var replayed atomic.Bool
	h.e.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		if replayed.Load() {
			return nil, engine.ThrowError("E1", "card declined")
		}
		return nil, errors.New("card service down")
	}))
	inst := h.run("error_boundary", nil)
	h.requireStatus(inst.ID, engine.StatusIncident)
	dls, err := h.store.DeadLetters(h.ctx, engine.DeadLetterFilter{InstanceID: inst.ID})
	require.NoError(t, err)
	require.Len(t, dls, 1)

	replayed.Store(true)
	_, _, err = h.e.ReplayDeadLetter(h.ctx, dls[0].ID, "olga", nil)
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "charge", "declined", "notify", "failed"}, h.activated(inst.ID))
	d, err := h.e.DeadLetter(h.ctx, dls[0].ID)
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterReplayed, d.Status)
}

func TestDeadLetterDiscard(t *testing.T) {
	t.Parallel()
	h := setupLetters(t)
	inst, dl := h.deadLettered()

	got, err := h.e.DiscardDeadLetter(h.ctx, dl.ID, "olga")
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterDiscarded, got.Status)
	d := h.letter(dl.ID)
	require.Equal(t, engine.DeadLetterDiscarded, d.Status)
	require.NotNil(t, d.Settled)
	require.Equal(t, "olga", d.History[1].By)
	evs := h.eventsOf(inst.ID, engine.EventDeadLetterDiscarded, "charge")
	require.Len(t, evs, 1)
	require.Equal(t, "olga", evs[0].Detail["user"])

	// nothing else changed: the incident stays open, the instance waits on it
	h.requireStatus(inst.ID, engine.StatusIncident)
	require.Len(t, h.openIncidents(inst.ID), 1)
	require.EqualValues(t, 3, h.calls.Load(), "the job did not run")

	_, err = h.e.DiscardDeadLetter(h.ctx, dl.ID, "olga")
	require.ErrorIs(t, err, engine.ErrDeadLetterSettled, "discarded once")
	_, _, err = h.e.ReplayDeadLetter(h.ctx, dl.ID, "olga", nil)
	require.ErrorIs(t, err, engine.ErrDeadLetterSettled, "a discarded letter is not replayed")

	// retrying the incident later is the instance's business: the letter stays discarded
	h.fail.Store(false)
	_, err = h.e.ResolveIncident(h.ctx, inst.ID, dl.IncidentID, nil)
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, engine.DeadLetterDiscarded, h.letter(dl.ID).Status)
	require.Len(t, h.letter(dl.ID).History, 2)
}

func TestDeadLetterCancelled(t *testing.T) {
	t.Parallel()
	t.Run("pending", func(t *testing.T) {
		t.Parallel()
		h := setupLetters(t)
		inst, dl := h.deadLettered()
		_, err := h.e.Cancel(h.ctx, inst.ID)
		require.NoError(t, err)
		h.idle()
		d := h.letter(dl.ID)
		require.Equal(t, engine.DeadLetterCancelled, d.Status)
		require.NotNil(t, d.Settled)
	})
	t.Run("replaying", func(t *testing.T) {
		t.Parallel()
		h := setupLetters(t)
		inst, dl := h.deadLettered()
		_, _, err := h.e.ReplayDeadLetter(h.ctx, dl.ID, "olga", nil)
		require.NoError(t, err)
		h.idle() // its first attempt failed: a retry waits
		require.Equal(t, engine.DeadLetterReplaying, h.letter(dl.ID).Status)
		_, err = h.e.Cancel(h.ctx, inst.ID)
		require.NoError(t, err)
		h.idle()
		d := h.letter(dl.ID)
		require.Equal(t, engine.DeadLetterCancelled, d.Status)
		require.Equal(t, []engine.DeadLetterStatus{engine.DeadLetterPending, engine.DeadLetterReplaying, engine.DeadLetterCancelled}, historyOf(d))
	})
}

// TestDeadLetterSurvivesRestart: a restarted engine knows which letter a
// token's job made, so a replay after the restart still settles it.
func TestDeadLetterSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := engineOn(t, st)
	first.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.Permanent(errors.New("card service gone"))
	}))
	src, err := os.ReadFile(filepath.Join("testdata", "retries.bpmn"))
	require.NoError(t, err)
	_, _, err = first.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	inst, _, err := first.Start(ctx, engine.StartRequest{Definition: "retries"})
	require.NoError(t, err)
	require.NoError(t, first.WaitIdle(ctx))
	dls, err := st.DeadLetters(ctx, engine.DeadLetterFilter{InstanceID: inst.ID})
	require.NoError(t, err)
	require.Len(t, dls, 1)
	first.Close()

	second := engineOn(t, st)
	second.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil }))
	_, _, err = second.ReplayDeadLetter(ctx, dls[0].ID, "olga", nil)
	require.NoError(t, err)
	require.NoError(t, second.WaitIdle(ctx))
	snap, err := second.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusCompleted, snap.Status)
	d, err := second.DeadLetter(ctx, dls[0].ID)
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterReplayed, d.Status)
}

func TestPurgeDeadLetters(t *testing.T) {
	t.Parallel()
	h := setupLetters(t)
	_, replayed := h.deadLettered()
	_, discarded := h.deadLettered()
	_, pending := h.deadLettered()
	h.fail.Store(false)
	_, _, err := h.e.ReplayDeadLetter(h.ctx, replayed.ID, "olga", nil)
	require.NoError(t, err)
	h.idle()
	_, err = h.e.DiscardDeadLetter(h.ctx, discarded.ID, "olga")
	require.NoError(t, err)
	h.advance(48 * time.Hour)

	// a dry run counts and names them, and changes nothing
	res, err := h.e.PurgeDeadLetters(h.ctx, 24*time.Hour, engine.DeadLetterFilter{}, true)
	require.NoError(t, err)
	require.Equal(t, 2, res.Matched)
	require.ElementsMatch(t, []string{replayed.ID, discarded.ID}, res.IDs)
	n, err := h.store.CountDeadLetters(h.ctx, engine.DeadLetterFilter{})
	require.NoError(t, err)
	require.Equal(t, 3, n)

	res, err = h.e.PurgeDeadLetters(h.ctx, 72*time.Hour, engine.DeadLetterFilter{}, false)
	require.NoError(t, err)
	require.Zero(t, res.Matched, "none settled three days ago")
	_, err = h.e.PurgeDeadLetters(h.ctx, time.Hour, engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{engine.DeadLetterPending}}, false)
	require.ErrorIs(t, err, engine.ErrInvalidInput, "pending letters follow an open incident")

	res, err = h.e.PurgeDeadLetters(h.ctx, 24*time.Hour, engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{engine.DeadLetterDiscarded}}, false)
	require.NoError(t, err)
	require.Equal(t, 1, res.Matched)
	_, err = h.e.DeadLetter(h.ctx, discarded.ID)
	require.ErrorIs(t, err, engine.ErrNotFound)
	res, err = h.e.PurgeDeadLetters(h.ctx, 24*time.Hour, engine.DeadLetterFilter{}, false)
	require.NoError(t, err)
	require.Equal(t, 1, res.Matched)
	left, err := h.store.DeadLetters(h.ctx, engine.DeadLetterFilter{})
	require.NoError(t, err)
	require.Len(t, left, 1)
	require.Equal(t, pending.ID, left[0].ID, "the pending letter stays")
}

// TestDeadLetterPurger: the purger deletes settled letters once they are
// older than the retention, on the engine's clock, and keeps pending ones.
func TestDeadLetterPurger(t *testing.T) {
	t.Parallel()
	h := setupLetters(t)
	_, discarded := h.deadLettered()
	_, pending := h.deadLettered()
	_, err := h.e.DiscardDeadLetter(h.ctx, discarded.ID, "olga")
	require.NoError(t, err)

	require.Error(t, h.e.RunDeadLetterPurger(h.ctx, engine.DeadLetterPurgerConfig{}), "a retention is required")
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- h.e.RunDeadLetterPurger(ctx, engine.DeadLetterPurgerConfig{Retention: 24 * time.Hour}) }()
	require.Equal(t, discarded.ID, h.letter(discarded.ID).ID, "a day has not passed")

	h.clock.Advance(25 * time.Hour)
	require.Eventually(t, func() bool {
		_, err := h.store.DeadLetter(h.ctx, discarded.ID)
		return errors.Is(err, engine.ErrNotFound)
	}, 10*time.Second, 5*time.Millisecond, "the discarded letter is purged after a day")
	require.Equal(t, engine.DeadLetterPending, h.letter(pending.ID).Status)
	cancel()
	require.NoError(t, <-done)
}

func TestParseAge(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"P30D": 30 * 24 * time.Hour, "PT12H": 12 * time.Hour, "720h": 720 * time.Hour, "0s": 0} {
		got, err := engine.ParseAge(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "P1M", "-1h", "a month", "30"} {
		_, err := engine.ParseAge(in)
		require.ErrorIs(t, err, engine.ErrInvalidInput, in)
	}
}
