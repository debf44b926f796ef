package mongostore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
	"github.com/workflowpp/wfpp/engine/store/storetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(embedded.WithTestServer(m))
}

func newStore(t *testing.T) *mongostore.Store {
	t.Helper()
	s, err := mongostore.New(t.Context(), embedded.NewTestDatabase(t), mongostore.Config{})
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) engine.Store { return newStore(t) })
}

func snapshot(id string, seq uint64, pending ...engine.Event) *engine.Snapshot {
	return &engine.Snapshot{
		ID: id, DefinitionID: "order:1", DefinitionKey: "order", Version: 1, Status: engine.StatusWaiting,
		Seq: seq, Variables: map[string]any{}, Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Pending: pending,
	}
}

func event(id string, seq uint64) engine.Event {
	return engine.Event{InstanceID: id, Seq: seq, Type: "x", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// A crash after the snapshot (the commit point) and before the log append
// leaves the events in the snapshot's pending; Unfinished puts them in the
// log before the engine sees the instance.
func TestUnfinishedRecoversPendingEvents(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	_, err = s.CreateInstance(ctx, snapshot("i-1", 0))
	require.NoError(t, err)
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: snapshot("i-1", 2, event("i-1", 1), event("i-1", 2)), PrevSeq: 0}}}))

	// The crash: the next commit's snapshot is stored, its events are not.
	crashed := snapshot("i-1", 5, event("i-1", 3), event("i-1", 4), event("i-1", 5))
	require.NoError(t, s.CrashAfterSnapshots(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: crashed, PrevSeq: 2}}}))

	logged := func() int64 {
		n, err := db.Collection("events").CountDocuments(ctx, bson.D{})
		require.NoError(t, err)
		return n
	}
	require.EqualValues(t, 1, logged(), "the crashed commit's batch is not in the log")
	evs, err := s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 5, "readers see no gap: the last commit's events come from its snapshot")

	var seen []string
	require.NoError(t, s.Unfinished(ctx, func(snap *engine.Snapshot) error {
		seen = append(seen, snap.ID)
		require.Empty(t, snap.Pending)
		require.Equal(t, uint64(5), snap.Seq)
		got, err := s.Events(ctx, snap.ID, 0, 0)
		require.NoError(t, err)
		require.Len(t, got, 5, "no gap when fn runs")
		return nil
	}))
	require.Equal(t, []string{"i-1"}, seen)
	require.EqualValues(t, 2, logged(), "recovery wrote the batch")
	evs, err = s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	for i, e := range evs {
		require.Equal(t, uint64(i+1), e.Seq)
	}
	// Recovering twice changes nothing.
	require.NoError(t, s.Unfinished(ctx, func(*engine.Snapshot) error { return nil }))
	evs, err = s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 5)
}

// Documents written by other code (or older drivers) hold int32, nested
// documents and dates: the engine still sees JSON-like Go values.
func TestVariablesFromRawBSON(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	when := time.Date(2026, 2, 3, 4, 5, 6, 7e6, time.UTC)
	_, err = db.Collection("instances").InsertOne(ctx, bson.D{
		{Key: "_id", Value: "raw"},
		{Key: "definition_key", Value: "order"},
		{Key: "status", Value: "waiting"},
		{Key: "seq", Value: int32(3)},
		{Key: "variables", Value: bson.D{
			{Key: "i32", Value: int32(7)},
			{Key: "i64", Value: int64(1) << 40},
			{Key: "f", Value: 2.5},
			{Key: "whole", Value: 3.0},
			{Key: "doc", Value: bson.D{{Key: "list", Value: bson.A{int32(1), bson.D{{Key: "x", Value: "y"}}, nil}}}},
			{Key: "when", Value: bson.NewDateTimeFromTime(when)},
		}},
	})
	require.NoError(t, err)
	snap, err := s.Instance(ctx, "raw")
	require.NoError(t, err)
	require.Equal(t, uint64(3), snap.Seq)
	require.Equal(t, map[string]any{
		"i32":   int64(7),
		"i64":   int64(1) << 40,
		"f":     2.5,
		"whole": 3.0,
		"doc":   map[string]any{"list": []any{int64(1), map[string]any{"x": "y"}, nil}},
		"when":  when,
	}, snap.Variables)
}

func TestIndexes(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	_, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	// New is idempotent: a restart creates the same indexes again.
	_, err = mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	unique := func(coll string) map[string]bool {
		cur, err := db.Collection(coll).Indexes().List(ctx)
		require.NoError(t, err)
		var specs []bson.M
		require.NoError(t, cur.All(ctx, &specs))
		out := map[string]bool{}
		for _, sp := range specs {
			u, _ := sp["unique"].(bool)
			out[sp["name"].(string)] = u
		}
		return out
	}
	require.True(t, unique("definitions")["key_1_version_1"])
	require.Equal(t, map[string]bool{"_id_": false}, unique("events"), "event batches are unique by _id")
	tasks := unique("tasks")
	for _, name := range []string{"instance_id_1", "status_1_assignee_1", "status_1_candidate_groups_1"} {
		require.Contains(t, tasks, name)
	}

	// The embedded configuration drops the query-only indexes and keeps the unique ones.
	_, err = mongostore.New(ctx, db, mongostore.Config{NoQueryIndexes: true})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"_id_": false}, unique("tasks"))
	require.Equal(t, map[string]bool{"_id_": false}, unique("instances"))
	require.Equal(t, map[string]bool{"_id_": false, "key_1_version_1": true}, unique("definitions"))
	names, err := db.ListCollectionNames(ctx, bson.D{})
	require.NoError(t, err)
	require.Subset(t, names, []string{"definitions", "instances", "requests", "events", "tasks", "incidents", "dead_letters", "meta"})
}

// TestConformanceSingleWriter runs the suite with the configuration of the
// embedded server: guard-free commits, no query-only indexes.
func TestConformanceSingleWriter(t *testing.T) {
	storetest.Run(t, func(t *testing.T) engine.Store {
		s, err := mongostore.New(t.Context(), embedded.NewTestDatabase(t), mongostore.Config{SingleWriter: true, NoQueryIndexes: true})
		require.NoError(t, err)
		return s
	}, storetest.WithoutSequenceGuard())
}

// Definitions stored without a head (by an older version, or by a deployment
// that crashed before recording its head) are still found, and a redeploy of
// the crashed content returns that version instead of failing.
func TestDefinitionHeads(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	rec := func(version int, checksum string) engine.DefinitionRecord {
		return engine.DefinitionRecord{
			ID: engine.DefinitionID("order", version), Key: "order", Version: version,
			Checksum: checksum, Source: []byte("<bpmn/>"), Enabled: true,
		}
	}
	_, err = db.Collection("definitions").InsertOne(ctx, rec(1, "a"))
	require.NoError(t, err)

	latest, err := s.Definition(ctx, "order", 0)
	require.NoError(t, err)
	require.Equal(t, 1, latest.Version)

	_, err = db.Collection("definitions").InsertOne(ctx, rec(2, "b")) // crashed before its head
	require.NoError(t, err)
	again, created, err := s.SaveDefinition(ctx, rec(0, "b"))
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, 2, again.Version)

	next, created, err := s.SaveDefinition(ctx, rec(0, "c"))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 3, next.Version)
	latest, err = s.Definition(ctx, "order", 0)
	require.NoError(t, err)
	require.Equal(t, "c", latest.Checksum)
}

// A single writer puts events into the log before the snapshot. An attempt
// that failed after that step leaves batches behind; the log as read stays
// the committed one, whether a later commit covers the same seqs or not.
func TestEventsFirstIgnoresFailedAttempts(t *testing.T) {
	ctx := t.Context()
	s, err := mongostore.New(ctx, embedded.NewTestDatabase(t), mongostore.Config{SingleWriter: true, NoQueryIndexes: true})
	require.NoError(t, err)
	typed := func(seq uint64, typ engine.EventType) engine.Event {
		e := event("i-1", seq)
		e.Type = typ
		return e
	}
	change := func(prev uint64, evs ...engine.Event) *engine.Batch {
		return &engine.Batch{Changes: []engine.Change{{Snapshot: snapshot("i-1", evs[len(evs)-1].Seq, evs...), PrevSeq: prev, Create: prev == 0}}}
	}
	require.NoError(t, s.Commit(ctx, change(0, typed(1, "a"), typed(2, "a"))))

	// Failed attempts: one ending where the next commit ends, one not.
	require.NoError(t, s.FailAfterEvents(ctx, change(2, typed(3, "stale"), typed(4, "stale"), typed(5, "stale"))))
	require.NoError(t, s.FailAfterEvents(ctx, change(2, typed(3, "stale"))))
	require.NoError(t, s.Commit(ctx, change(2, typed(3, "b"), typed(4, "b"), typed(5, "b"))))

	evs, err := s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprint(e.Seq, e.Type))
	}
	require.Equal(t, []string{"1a", "2a", "3b", "4b", "5b"}, got)
}

// A large batch commits on the embedded server, whose update commands of
// about 100 statements never return: 110 task upserts, then 110 replaces.
func TestLargeBatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // slow under -race; a deadlock never ends
	defer cancel()
	s, err := mongostore.New(ctx, embedded.NewTestDatabase(t), mongostore.Config{SingleWriter: true, NoQueryIndexes: true})
	require.NoError(t, err)
	const n = 110
	batch := func(seq uint64) *engine.Batch {
		b := &engine.Batch{}
		for i := range n {
			id := fmt.Sprint("i-", i)
			c := engine.Change{Snapshot: snapshot(id, seq, event(id, seq)), PrevSeq: seq - 1, Create: seq == 1}
			if seq == 1 {
				c.Tasks = []engine.Task{{ID: "t" + id, InstanceID: id, Status: engine.TaskOpen, CandidateUsers: []string{}, CandidateGroups: []string{}}}
			}
			b.Changes = append(b.Changes, c)
		}
		return b
	}
	require.NoError(t, s.Commit(ctx, batch(1)))
	require.NoError(t, s.Commit(ctx, batch(2)))
	got, err := s.Instance(ctx, "i-109")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Seq)
	task, err := s.Task(ctx, "ti-109")
	require.NoError(t, err)
	require.Equal(t, engine.TaskOpen, task.Status)
}
