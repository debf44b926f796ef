package mongostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// A crash after the snapshot of an instance's last change (it completed a
// task and ended the instance) and before the task projection leaves the
// inbox wrong. After a start that follows a crash, Unfinished redoes the
// projection writes of every instance, ended ones too; after a clean
// shutdown (Close) it does not need to.
func TestRecoveryRedoesProjectionsAfterCrash(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	open := engine.Task{
		ID: "t-1", InstanceID: "i-1", DefinitionKey: "order", ElementID: "review", Name: "Review",
		Status: engine.TaskOpen, CandidateUsers: []string{}, CandidateGroups: []string{"clerks"}, Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	first := snapshot("i-1", 2, event("i-1", 1), event("i-1", 2))
	first.Tasks = []engine.Task{open}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: first, Create: true, Tasks: []engine.Task{open}}}}))

	// The crash: the last change's snapshot is stored, its task update is not.
	done := open
	done.Status = engine.TaskCompleted
	last := snapshot("i-1", 4, event("i-1", 3), event("i-1", 4))
	last.Status = engine.StatusCompleted
	require.NoError(t, s.CrashAfterSnapshots(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: last, PrevSeq: 2, Tasks: []engine.Task{done}}}}))
	requireTask := func(want engine.TaskStatus) {
		t.Helper()
		got, err := s.Task(ctx, "t-1")
		require.NoError(t, err)
		require.Equal(t, want, got.Status)
	}
	requireTask(engine.TaskOpen)

	var handed []string
	require.NoError(t, s.Unfinished(ctx, func(snap *engine.Snapshot) error { handed = append(handed, snap.ID); return nil }))
	require.Empty(t, handed, "an ended instance is not handed to the engine")
	requireTask(engine.TaskCompleted)
	evs, err := s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 4, "the log is complete too")

	// After a clean shutdown nothing is redone (here: a damage made on purpose stays).
	require.NoError(t, s.Close(ctx))
	_, err = db.Collection("tasks").UpdateOne(ctx, bson.D{{Key: "_id", Value: "t-1"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "open"}}}})
	require.NoError(t, err)
	require.NoError(t, s.Unfinished(ctx, func(*engine.Snapshot) error { return nil }))
	requireTask(engine.TaskOpen)
	// The mark is taken at start: the next start without a clean shutdown repairs again.
	require.NoError(t, s.Unfinished(ctx, func(*engine.Snapshot) error { return nil }))
	requireTask(engine.TaskCompleted)
}

// A start that claimed its request id and died before storing the instance
// leaves a claim behind; the retried start adopts it instead of failing.
func TestCreateInstanceAdoptsStaleClaim(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{ClaimWait: 50 * time.Millisecond})
	require.NoError(t, err)
	_, err = db.Collection("requests").InsertOne(ctx, bson.D{{Key: "_id", Value: "order\x00r-1"}, {Key: "instance_id", Value: "lost-1"}})
	require.NoError(t, err)

	retry := snapshot("new-1", 0)
	retry.RequestID = "r-1"
	existing, err := s.CreateInstance(ctx, retry)
	require.NoError(t, err)
	require.Nil(t, existing)
	require.Equal(t, "lost-1", retry.ID, "the instance takes the claimed id")
	got, err := s.Instance(ctx, "lost-1")
	require.NoError(t, err)
	require.Equal(t, "r-1", got.RequestID)

	again := snapshot("new-2", 0)
	again.RequestID = "r-1"
	existing, err = s.CreateInstance(ctx, again)
	require.ErrorIs(t, err, engine.ErrDuplicate, "one instance per request id")
	require.Equal(t, "lost-1", existing.ID)
}
