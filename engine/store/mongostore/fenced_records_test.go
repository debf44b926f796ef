package mongostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

var fencedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestFencedIncidentsKeepTheNewerEpoch: a replica that resumes after
// another took its partition over cannot reopen an incident the new owner
// resolved; a record stored unfenced (before epochs) is replaced.
func TestFencedIncidentsKeepTheNewerEpoch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	write := func(epoch int64, message string, resolved bool) {
		t.Helper()
		inc := engine.Incident{ID: "inc-1", InstanceID: "i-1", ElementID: "charge", Kind: "job", Message: message, Phase: "job", Created: fencedAt}
		if resolved {
			inc.Resolved, inc.Resolution = &fencedAt, engine.Resolved
		}
		require.NoError(t, s.WriteRecords(ctx, epoch, engine.Change{Incidents: []engine.Incident{inc}}))
	}
	stored := func() engine.Incident {
		t.Helper()
		inc, err := s.Incident(ctx, "inc-1")
		require.NoError(t, err)
		return inc
	}
	write(0, "stored before epochs", false)
	write(2, "failed", false)
	require.Equal(t, "failed", stored().Message, "a record without epoch is replaced")
	write(2, "failed", true)
	require.NotNil(t, stored().Resolved, "the new owner resolves it, at its epoch")
	write(1, "failed", false)
	require.NotNil(t, stored().Resolved, "the old owner's late write: skipped")
	write(3, "failed again", false)
	require.Equal(t, "failed again", stored().Message, "a newer owner's write")
	require.Nil(t, stored().Resolved)
}

// TestFencedDeadLettersKeepTheNewerEpoch: the same for dead letters.
func TestFencedDeadLettersKeepTheNewerEpoch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	write := func(epoch int64, status engine.DeadLetterStatus) {
		t.Helper()
		require.NoError(t, s.WriteRecords(ctx, epoch, engine.Change{DeadLetters: []engine.DeadLetter{deadLetter(status)}}))
	}
	write(0, engine.DeadLetterPending)
	write(2, engine.DeadLetterReplaying)
	require.Equal(t, engine.DeadLetterReplaying, storedLetter(t, s).Status, "a record without epoch is replaced")
	write(2, engine.DeadLetterReplayed)
	require.Equal(t, engine.DeadLetterReplayed, storedLetter(t, s).Status, "the same epoch goes through")
	write(1, engine.DeadLetterPending)
	require.Equal(t, engine.DeadLetterReplayed, storedLetter(t, s).Status, "the old owner's late write: skipped")
	write(3, engine.DeadLetterPending)
	require.Equal(t, engine.DeadLetterPending, storedLetter(t, s).Status, "a newer owner's write")
}

// TestFencedLetterUpdatesKeepTheNewerEpoch: a move of a dead letter by a
// replica that lost the partition meets nothing once the new owner has
// written or moved the letter; a letter stored unfenced counts as older.
func TestFencedLetterUpdatesKeepTheNewerEpoch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	move := func(epoch int64, status engine.DeadLetterStatus) {
		t.Helper()
		u := engine.DeadLetterUpdate{ID: "dl-1", DeadLetterTransition: engine.DeadLetterTransition{Status: status, At: fencedAt}}
		require.NoError(t, s.WriteRecords(ctx, epoch, engine.Change{DeadLetterUpdates: []engine.DeadLetterUpdate{u}}))
	}
	require.NoError(t, s.WriteRecords(ctx, 0, engine.Change{DeadLetters: []engine.DeadLetter{deadLetter(engine.DeadLetterPending)}}))
	move(1, engine.DeadLetterReplaying)
	require.Equal(t, engine.DeadLetterReplaying, storedLetter(t, s).Status, "a letter without epoch is moved")
	move(2, engine.DeadLetterPending)
	require.Equal(t, engine.DeadLetterPending, storedLetter(t, s).Status, "the new owner moves it, at its epoch")
	move(1, engine.DeadLetterReplaying)
	require.Equal(t, engine.DeadLetterPending, storedLetter(t, s).Status, "the old owner's late move: skipped")
	move(2, engine.DeadLetterReplaying)
	require.Equal(t, engine.DeadLetterReplaying, storedLetter(t, s).Status, "the same epoch goes through")
	move(3, engine.DeadLetterReplayed)
	require.Equal(t, engine.DeadLetterReplayed, storedLetter(t, s).Status, "a newer owner's move")
	require.NoError(t, s.WriteRecords(ctx, 2, engine.Change{DeadLetters: []engine.DeadLetter{deadLetter(engine.DeadLetterPending)}}))
	got := storedLetter(t, s)
	require.Equal(t, engine.DeadLetterReplayed, got.Status, "a moved letter keeps its epoch: an older upsert is skipped")
	require.Len(t, got.History, 4)
}

// TestFencedRecordsRecoveredAtTheNewEpoch: the new owner writes the
// incident and dead-letter records of the old owner's last commit again at
// its own epoch, so the old owner's late writes cannot replace them.
func TestFencedRecordsRecoveredAtTheNewEpoch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := mongostore.New(ctx, embedded.NewTestDatabase(t), mongostore.Config{})
	require.NoError(t, err)
	first := snapshot("i-1", 2, event("i-1", 1), event("i-1", 2))
	first.Partition = 3
	require.NoError(t, s.Commit(ctx, &engine.Batch{Epoch: 1, Changes: []engine.Change{{Snapshot: first, Create: true}}}))
	inc := engine.Incident{ID: "inc-1", InstanceID: "i-1", ElementID: "charge", Kind: "job", Message: "failed", Phase: "job", Created: fencedAt}
	last := snapshot("i-1", 3, event("i-1", 3))
	last.Partition = 3
	require.NoError(t, s.CrashAfterSnapshots(ctx, &engine.Batch{Epoch: 1, Changes: []engine.Change{{
		Snapshot: last, PrevSeq: 2, Incidents: []engine.Incident{inc}, DeadLetters: []engine.DeadLetter{deadLetter(engine.DeadLetterPending)},
	}}}))

	require.NoError(t, s.FencePartition(ctx, 3, 2))
	require.NoError(t, s.UnfinishedIn(ctx, 3, func(*engine.Snapshot) error { return nil }))
	stale := inc
	stale.Message = "stale"
	require.NoError(t, s.WriteRecords(ctx, 1, engine.Change{
		Incidents: []engine.Incident{stale}, DeadLetters: []engine.DeadLetter{deadLetter(engine.DeadLetterDiscarded)},
	}), "the old owner's late writes")
	got, err := s.Incident(ctx, "inc-1")
	require.NoError(t, err)
	require.Equal(t, "failed", got.Message)
	require.Equal(t, engine.DeadLetterPending, storedLetter(t, s).Status)
}

func deadLetter(status engine.DeadLetterStatus) engine.DeadLetter {
	return engine.DeadLetter{
		ID: "dl-1", InstanceID: "i-1", ElementID: "charge", JobType: "charge", Attempts: 1,
		LastError: "boom", Errors: []string{"boom"}, Created: fencedAt, Status: status,
	}
}

func storedLetter(t *testing.T, s *mongostore.Store) engine.DeadLetter {
	t.Helper()
	d, err := s.DeadLetter(t.Context(), "dl-1")
	require.NoError(t, err)
	return d
}
