// Package storetest is the conformance suite every engine.Store must pass:
// memstore and mongostore run it from their own tests with Run.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// base is a millisecond-precision UTC instant: MongoDB keeps no more.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return base.Add(d) }
func ptr[T any](v T) *T            { return &v }

// Option adjusts the suite to a store's documented mode.
type Option func(*options)

type options struct{ noGuard bool }

// WithoutSequenceGuard leaves out the checks of Commit's sequence guard, for
// a store running as the database's only writer (mongostore.Config.SingleWriter),
// which documents that it does not check the guard.
func WithoutSequenceGuard() Option { return func(o *options) { o.noGuard = true } }

// Run runs the conformance suite; newStore returns a fresh, empty store for
// each subtest.
func Run(t *testing.T, newStore func(t *testing.T) engine.Store, opts ...Option) {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, s engine.Store)
	}{
		{"Definitions", testDefinitions},
		{"Forms", testForms},
		{"OpenTasks", testOpenTasks},
		{"SavedFilters", testSavedFilters},
		{"DefinitionEnabled", testDefinitionEnabled},
		{"VersionLifecycle", testVersionLifecycle},
		{"CreateInstance", testCreateInstance},
		{"CreateInstanceConcurrent", testCreateInstanceConcurrent},
		{"Commit", testCommit},
		{"CommitConflict", testCommitConflict},
		{"CommitUnknownInstance", testCommitUnknown},
		{"CommitConcurrent", testCommitConcurrent},
		{"CommitCreateTwice", testCommitCreateTwice},
		{"Variables", testVariables},
		{"VariablesWaiting", testVariablesWaiting},
		{"Instances", testInstances},
		{"Unfinished", testUnfinished},
		{"Events", testEvents},
		{"Tasks", testTasks},
		{"TaskPagination", testTaskPagination},
		{"TasksByDue", testTasksByDue},
		{"Incidents", testIncidents},
		{"DeadLetters", testDeadLetters},
		{"Limits", testLimits},
		{"StepCache", testStepCache},
		{"Schedules", testSchedules},
		{"ScheduleBatch", testScheduleBatch},
		{"BufferedMessages", testBufferedMessages},
		{"Places", testPlaces},
		{"Ping", func(t *testing.T, s engine.Store) { require.NoError(t, s.Ping(t.Context())) }},
	}
	for _, tc := range tests {
		if o.noGuard && (tc.name == "CommitConflict" || tc.name == "CommitConcurrent" || tc.name == "CommitCreateTwice") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

func ctx(t *testing.T) context.Context { return t.Context() }

func def(key, checksum string) engine.DefinitionRecord {
	return engine.DefinitionRecord{
		Key: key, Name: key + " process", Format: "bpmn", Checksum: checksum,
		Source: []byte("<definitions/>"), Enabled: true, Deployed: base, Deployer: "alice",
		Processes: []string{key},
	}
}

func testDefinitions(t *testing.T, s engine.Store) {
	c := ctx(t)
	v1, created, err := s.SaveDefinition(c, def("order", "a"))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 1, v1.Version)
	require.Equal(t, "order:1", v1.ID)

	v2, created, err := s.SaveDefinition(c, def("order", "b"))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 2, v2.Version)
	require.Equal(t, "order:2", v2.ID)

	again, created, err := s.SaveDefinition(c, def("order", "b"))
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, v2.ID, again.ID)
	require.Equal(t, 2, again.Version)

	_, _, err = s.SaveDefinition(c, def("invoice", "x"))
	require.NoError(t, err)

	latest, err := s.Definition(c, "order", 0)
	require.NoError(t, err)
	require.Equal(t, 2, latest.Version)
	require.Equal(t, "b", latest.Checksum)

	first, err := s.Definition(c, "order", 1)
	require.NoError(t, err)
	require.Equal(t, "a", first.Checksum)
	require.Equal(t, []byte("<definitions/>"), first.Source)
	require.Equal(t, []string{"order"}, first.Processes)
	require.True(t, first.Deployed.Equal(base))
	require.Equal(t, "alice", first.Deployer)

	byID, err := s.DefinitionByID(c, "order:1")
	require.NoError(t, err)
	require.Equal(t, "a", byID.Checksum)

	for _, probe := range []func() error{
		func() error { _, err := s.Definition(c, "nope", 0); return err },
		func() error { _, err := s.Definition(c, "order", 3); return err },
		func() error { _, err := s.DefinitionByID(c, "order:9"); return err },
		func() error { _, err := s.DefinitionByID(c, "garbage"); return err },
	} {
		require.ErrorIs(t, probe(), engine.ErrNotFound)
	}

	all, err := s.Definitions(c)
	require.NoError(t, err)
	var ids []string
	for _, d := range all {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []string{"invoice:1", "order:2", "order:1"}, ids)
}

func testDefinitionEnabled(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, _, err := s.SaveDefinition(c, def("order", "a"))
	require.NoError(t, err)
	latest, err := s.Definition(c, "order", 0) // a store may cache the latest now
	require.NoError(t, err)
	require.True(t, latest.Enabled)
	require.NoError(t, s.SetDefinitionEnabled(c, "order:1", false))
	d, err := s.Definition(c, "order", 1)
	require.NoError(t, err)
	require.False(t, d.Enabled)
	latest, err = s.Definition(c, "order", 0)
	require.NoError(t, err)
	require.False(t, latest.Enabled)
	require.NoError(t, s.SetDefinitionEnabled(c, "order:1", true))
	d, err = s.DefinitionByID(c, "order:1")
	require.NoError(t, err)
	require.True(t, d.Enabled)
	latest, err = s.Definition(c, "order", 0)
	require.NoError(t, err)
	require.True(t, latest.Enabled)
	require.ErrorIs(t, s.SetDefinitionEnabled(c, "order:7", true), engine.ErrNotFound)
	require.ErrorIs(t, s.SetDefinitionEnabled(c, "missing:1", true), engine.ErrNotFound)
}

func snap(id, key string) *engine.Snapshot {
	return &engine.Snapshot{
		ID: id, DefinitionID: key + ":1", DefinitionKey: key, Version: 1, ProcessID: key,
		Status: engine.StatusRunning, Seq: 0, NextID: 1,
		Variables: map[string]any{"amount": int64(10)},
		Tokens:    []engine.TokenState{{ID: 1, ElementID: "start", Status: engine.TokenActive}},
		Started:   base, Updated: base,
	}
}

func testCreateInstance(t *testing.T, s engine.Store) {
	c := ctx(t)
	a := snap("i-1", "order")
	a.RequestID, a.BusinessKey = "req-1", "bk-1"
	a.Subscriptions = []engine.Subscription{{ID: 3, Token: 2, ElementID: "espStart", Scope: 4, Message: "nudge"}}
	existing, err := s.CreateInstance(c, a)
	require.NoError(t, err)
	require.Nil(t, existing)

	got, err := s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, "req-1", got.RequestID)
	require.Equal(t, "bk-1", got.BusinessKey)
	require.Equal(t, engine.StatusRunning, got.Status)
	require.Equal(t, a.Tokens, got.Tokens)
	require.Equal(t, a.Subscriptions, got.Subscriptions)
	require.True(t, got.Started.Equal(base))

	b := snap("i-2", "order")
	b.RequestID = "req-1"
	existing, err = s.CreateInstance(c, b)
	require.ErrorIs(t, err, engine.ErrDuplicate)
	require.NotNil(t, existing)
	require.Equal(t, "i-1", existing.ID)
	_, err = s.Instance(c, "i-2")
	require.ErrorIs(t, err, engine.ErrNotFound)

	// The same request id under another definition key is another request.
	other := snap("i-3", "invoice")
	other.RequestID = "req-1"
	_, err = s.CreateInstance(c, other)
	require.NoError(t, err)

	// Without a request id, no idempotency applies.
	_, err = s.CreateInstance(c, snap("i-4", "order"))
	require.NoError(t, err)
	_, err = s.CreateInstance(c, snap("i-5", "order"))
	require.NoError(t, err)

	_, err = s.Instance(c, "nope")
	require.ErrorIs(t, err, engine.ErrNotFound)
}

func testCreateInstanceConcurrent(t *testing.T, s engine.Store) {
	c := ctx(t)
	const n = 20
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		created  []string
		dupOf    []string
		failures []error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sn := snap(fmt.Sprintf("c-%02d", i), "order")
			sn.RequestID = "same"
			existing, err := s.CreateInstance(c, sn)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created = append(created, sn.ID)
			case errors.Is(err, engine.ErrDuplicate) && existing != nil:
				dupOf = append(dupOf, existing.ID)
			default:
				failures = append(failures, err)
			}
		}()
	}
	wg.Wait()
	require.Empty(t, failures)
	require.Len(t, created, 1)
	require.Len(t, dupOf, n-1)
	for _, id := range dupOf {
		require.Equal(t, created[0], id)
	}
	page, _, err := s.Instances(c, engine.InstanceFilter{DefinitionKey: "order"})
	require.NoError(t, err)
	require.Len(t, page, 1)
}

func ev(id string, seq uint64, typ engine.EventType) engine.Event {
	return engine.Event{InstanceID: id, Seq: seq, Type: typ, Time: at(time.Duration(seq) * time.Second), ElementID: "e", TokenID: 1}
}

func testCommit(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)

	next := snap("i-1", "order")
	next.Seq, next.Status = 3, engine.StatusWaiting
	next.Variables = map[string]any{"amount": int64(20)}
	next.Pending = []engine.Event{ev("i-1", 1, "a"), ev("i-1", 2, "b"), ev("i-1", 3, "c")}
	task := engine.Task{
		ID: "t-1", InstanceID: "i-1", DefinitionKey: "order", ElementID: "review", TokenID: 1,
		Name: "Review", CandidateGroups: []string{"clerks"}, Priority: 50, Status: engine.TaskOpen, Created: base,
	}
	inc := engine.Incident{ID: "inc-1", InstanceID: "i-1", ElementID: "pay", TokenID: 2, Kind: "job", Message: "boom", Phase: "job", Created: base}
	dl := engine.DeadLetter{
		ID: "dl-1", InstanceID: "i-1", ElementID: "pay", IncidentID: "inc-1", JobType: "pay", Attempts: 3,
		LastError: "boom", Errors: []string{"a", "b", "boom"}, Created: base,
	}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{
		Snapshot: next, PrevSeq: 0, Tasks: []engine.Task{task}, Incidents: []engine.Incident{inc}, DeadLetters: []engine.DeadLetter{dl},
	}}}))

	got, err := s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, uint64(3), got.Seq)
	require.Equal(t, engine.StatusWaiting, got.Status)
	require.Equal(t, map[string]any{"amount": int64(20)}, got.Variables)
	require.Empty(t, got.Pending, "Instance returns no pending events")

	evs, err := s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{1, 2, 3}, seqs(evs))
	require.Equal(t, engine.EventType("b"), evs[1].Type)
	require.True(t, evs[1].Time.Equal(at(2*time.Second)))

	gotTask, err := s.Task(c, "t-1")
	require.NoError(t, err)
	require.Equal(t, "Review", gotTask.Name)
	require.Equal(t, []string{"clerks"}, gotTask.CandidateGroups)
	_, err = s.Task(c, "t-9")
	require.ErrorIs(t, err, engine.ErrNotFound)

	incs, err := s.Incidents(c, engine.IncidentFilter{InstanceID: "i-1"})
	require.NoError(t, err)
	require.Len(t, incs, 1)
	require.Equal(t, "boom", incs[0].Message)
	dls, err := s.DeadLetters(c, engine.DeadLetterFilter{})
	require.NoError(t, err)
	require.Len(t, dls, 1)
	require.Equal(t, []string{"a", "b", "boom"}, dls[0].Errors)

	// A second change upserts the projections it touches.
	next2 := snap("i-1", "order")
	next2.Seq, next2.Status = 4, engine.StatusCompleted
	next2.Ended = ptr(at(time.Minute))
	next2.Pending = []engine.Event{ev("i-1", 4, "d")}
	task.Status, task.Ended, task.CompletedBy = engine.TaskCompleted, ptr(at(time.Minute)), "bob"
	inc.Resolved = ptr(at(time.Minute))
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{
		Snapshot: next2, PrevSeq: 3, Tasks: []engine.Task{task}, Incidents: []engine.Incident{inc},
	}}}))
	gotTask, err = s.Task(c, "t-1")
	require.NoError(t, err)
	require.Equal(t, engine.TaskCompleted, gotTask.Status)
	require.Equal(t, "bob", gotTask.CompletedBy)
	incs, err = s.Incidents(c, engine.IncidentFilter{InstanceID: "i-1", Open: true})
	require.NoError(t, err)
	require.Empty(t, incs)
	got, err = s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, engine.StatusCompleted, got.Status)
	require.NotNil(t, got.Ended)
	require.True(t, got.Ended.Equal(at(time.Minute)))
	evs, err = s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{1, 2, 3, 4}, seqs(evs))

	// Several changes in one batch, for several instances.
	_, err = s.CreateInstance(c, snap("i-2", "order"))
	require.NoError(t, err)
	_, err = s.CreateInstance(c, snap("i-3", "order"))
	require.NoError(t, err)
	a, b := snap("i-2", "order"), snap("i-3", "order")
	a.Seq, b.Seq = 1, 1
	a.Pending, b.Pending = []engine.Event{ev("i-2", 1, "x")}, []engine.Event{ev("i-3", 1, "y")}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: a}, {Snapshot: b}}}))
	for _, id := range []string{"i-2", "i-3"} {
		got, err := s.Instance(c, id)
		require.NoError(t, err)
		require.Equal(t, uint64(1), got.Seq)
		evs, err := s.Events(c, id, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
	}
}

func seqs(evs []engine.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func testCommitConflict(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)
	next := snap("i-1", "order")
	next.Seq = 2
	next.Pending = []engine.Event{ev("i-1", 1, "a"), ev("i-1", 2, "b")}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: 0}}}))

	stale := snap("i-1", "order")
	stale.Seq, stale.Status = 3, engine.StatusCompleted
	stale.Pending = []engine.Event{ev("i-1", 3, "c")}
	err = s.Commit(c, &engine.Batch{Changes: []engine.Change{{
		Snapshot: stale, PrevSeq: 1,
		Tasks: []engine.Task{{ID: "t-x", InstanceID: "i-1", Status: engine.TaskOpen, Created: base}},
	}}})
	require.ErrorIs(t, err, engine.ErrConflict)

	got, err := s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, uint64(2), got.Seq)
	require.Equal(t, engine.StatusRunning, got.Status)
	evs, err := s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{1, 2}, seqs(evs))
	_, err = s.Task(c, "t-x")
	require.ErrorIs(t, err, engine.ErrNotFound)
}

func testCommitUnknown(t *testing.T, s engine.Store) {
	c := ctx(t)
	ghost := snap("ghost", "order")
	ghost.Seq = 3
	err := s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: ghost, PrevSeq: 2}}})
	require.Error(t, err)
	require.True(t, errors.Is(err, engine.ErrNotFound) || errors.Is(err, engine.ErrConflict), "got %v", err)

	// A change with Create stores its instance (a start without request id).
	born := snap("born", "order")
	born.Seq = 2
	born.Pending = []engine.Event{ev("born", 1, engine.EventInstanceStarted), ev("born", 2, engine.EventElementActivated)}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: born, Create: true}}}))
	got, err := s.Instance(c, "born")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Seq)
	evs, err := s.Events(c, "born", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
}

// testCommitCreateTwice: two creations of one instance cannot
// both win.
func testCommitCreateTwice(t *testing.T, s engine.Store) {
	c := ctx(t)
	first := snap("twice", "order")
	first.Seq = 1
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: first, Create: true}}}))
	again := snap("twice", "order")
	again.Seq = 1
	err := s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: again, Create: true}}})
	require.ErrorIs(t, err, engine.ErrConflict)
}

// testTasksByDue: ByDue orders by due date (none last), then priority, and
// pages through that order.
func testTasksByDue(t *testing.T, s engine.Store) {
	c := ctx(t)
	sn := snap("i-due", "order")
	sn.Seq, sn.Status = 1, engine.StatusWaiting
	task := func(id string, prio int, due *time.Time) engine.Task {
		return engine.Task{
			ID: id, InstanceID: "i-due", DefinitionKey: "order", ElementID: "review", Name: id,
			Priority: prio, Due: due, Status: engine.TaskOpen, CandidateUsers: []string{}, CandidateGroups: []string{}, Created: base,
		}
	}
	tasks := []engine.Task{task("a", 90, nil), task("b", 10, ptr(at(time.Hour))), task("c", 50, ptr(at(2*time.Hour))), task("d", 50, ptr(at(time.Hour)))}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: sn, Create: true, Tasks: tasks}}}))
	var got []string
	f := engine.TaskFilter{InstanceID: "i-due", ByDue: true, Limit: 2}
	for {
		page, next, err := s.Tasks(c, f)
		require.NoError(t, err)
		for _, tk := range page {
			got = append(got, tk.ID)
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	require.Equal(t, []string{"d", "b", "c", "a"}, got)
	page, _, err := s.Tasks(c, engine.TaskFilter{InstanceID: "i-due"})
	require.NoError(t, err)
	ids := []string{}
	for _, tk := range page {
		ids = append(ids, tk.ID)
	}
	require.Equal(t, []string{"a", "d", "c", "b"}, ids, "the default order: priority, then due date")
}

// testVariablesWaiting: a waiting instance (which a store may keep in another
// form) gives back the same values, tokens, tasks and counters.
func testVariablesWaiting(t *testing.T, s engine.Store) {
	c := ctx(t)
	vars := map[string]any{
		"int": int64(42), "float": 1.5, "whole": 2.0, "null": nil,
		"list": []any{int64(1), "two"}, "nested": map[string]any{"a": []any{true}}, "when": base,
	}
	sn := snap("w-1", "order")
	sn.Seq, sn.Status, sn.NextID, sn.Variables = 3, engine.StatusWaiting, 7, vars
	sn.Tokens = []engine.TokenState{{
		ID: 4, ElementID: "review", Status: engine.TokenTask, TaskID: "t-9",
		Local: map[string]any{"item": int64(3)},
	}}
	sn.Tasks = []engine.Task{{
		ID: "t-9", InstanceID: "w-1", Status: engine.TaskOpen, CandidateUsers: []string{},
		CandidateGroups: []string{"clerks"}, Created: base,
	}}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: sn, Create: true}}}))
	got, err := s.Instance(c, "w-1")
	require.NoError(t, err)
	require.Equal(t, engine.StatusWaiting, got.Status)
	require.EqualValues(t, 3, got.Seq)
	require.EqualValues(t, 7, got.NextID)
	require.Equal(t, vars["int"], got.Variables["int"])
	require.Equal(t, vars["float"], got.Variables["float"])
	require.Equal(t, vars["whole"], got.Variables["whole"], "a whole float64 stays float64")
	require.Contains(t, got.Variables, "null")
	require.Equal(t, vars["list"], got.Variables["list"])
	require.Equal(t, vars["nested"], got.Variables["nested"])
	require.True(t, base.Equal(got.Variables["when"].(time.Time)))
	require.Equal(t, sn.Tokens[0].Local, got.Tokens[0].Local)
	require.Equal(t, "t-9", got.Tokens[0].TaskID)
	require.Len(t, got.Tasks, 1)
	require.Equal(t, []string{"clerks"}, got.Tasks[0].CandidateGroups)
	require.Equal(t, []string{}, got.Tasks[0].CandidateUsers)

	// The next change finds its guard, and the instance moves on.
	next := snap("w-1", "order")
	next.Seq, next.Status = 5, engine.StatusRunning
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: 3}}}))
	got, err = s.Instance(c, "w-1")
	require.NoError(t, err)
	require.EqualValues(t, 5, got.Seq)
}

// testVariables checks that JSON-like values come back in the shapes the
// engine and its expression language work with.
func testVariables(t *testing.T, s engine.Store) {
	c := ctx(t)
	vars := map[string]any{
		"int":    int64(42),
		"big":    int64(1) << 40,
		"float":  1.5,
		"str":    "x",
		"bool":   true,
		"null":   nil,
		"list":   []any{int64(1), "two", 3.5, map[string]any{"k": "v"}},
		"nested": map[string]any{"a": map[string]any{"b": []any{true, int64(-1)}}},
		"empty":  map[string]any{},
		"none":   []any{},
	}
	sn := snap("i-1", "order")
	sn.Variables = vars
	sn.Tokens[0].Local = map[string]any{"item": map[string]any{"n": int64(2)}}
	_, err := s.CreateInstance(c, sn)
	require.NoError(t, err)
	got, err := s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, vars, got.Variables)
	require.Equal(t, map[string]any{"item": map[string]any{"n": int64(2)}}, got.Tokens[0].Local)

	next := snap("i-1", "order")
	next.Seq = 1
	next.Variables = vars
	e := ev("i-1", 1, "vars")
	e.Detail = map[string]any{"written": map[string]any{"x": int64(1)}, "flows": []any{"f1", "f2"}}
	next.Pending = []engine.Event{e}
	task := engine.Task{ID: "t-1", InstanceID: "i-1", Status: engine.TaskOpen, Created: base, Variables: vars}
	next.Tasks = []engine.Task{task}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: 0, Tasks: []engine.Task{task}}}}))

	evs, err := s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, e.Detail, evs[0].Detail)
	gotTask, err := s.Task(c, "t-1")
	require.NoError(t, err)
	require.Equal(t, vars, gotTask.Variables)
	got, err = s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Len(t, got.Tasks, 1)
	require.Equal(t, vars, got.Tasks[0].Variables)
}

func testInstances(t *testing.T, s engine.Store) {
	c := ctx(t)
	for i := range 7 {
		key := "order"
		if i%3 == 2 {
			key = "invoice"
		}
		sn := snap(fmt.Sprintf("i-%02d", i), key)
		sn.Started = at(time.Duration(i) * time.Hour)
		sn.Updated = at(time.Duration(10-i) * time.Hour)
		if i%2 == 1 {
			sn.Status = engine.StatusCompleted
		}
		if i == 4 {
			sn.BusinessKey = "bk-4"
		}
		if i == 5 || i == 6 {
			sn.Parent = &engine.ParentRef{InstanceID: "i-04", Token: uint64(i), ElementID: "call", Depth: 1}
		}
		if i == 3 {
			sn.TriggeredBy = &engine.ChainRef{InstanceID: "i-01", Definition: "order", Trigger: 0, Depth: 1}
		}
		sn.Variables = map[string]any{"big": strings.Repeat("v", 1<<20)}
		sn.Tokens = []engine.TokenState{{ID: 1, ElementID: "task", Local: map[string]any{"item": "x"}}}
		sn.Tasks = []engine.Task{{ID: fmt.Sprintf("t-%02d", i), InstanceID: sn.ID, Variables: map[string]any{"v": 1}}}
		_, err := s.CreateInstance(c, sn)
		require.NoError(t, err)
	}
	ids := func(page []*engine.Snapshot) []string {
		out := []string{}
		for _, sn := range page {
			out = append(out, sn.ID)
			require.Empty(t, sn.Pending)
			require.Nil(t, sn.Variables, "lists hold heads, without variables")
			require.Len(t, sn.Tokens, 1)
			require.Equal(t, "task", sn.Tokens[0].ElementID)
			require.Nil(t, sn.Tokens[0].Local)
			require.Len(t, sn.Tasks, 1)
			require.Nil(t, sn.Tasks[0].Variables)
		}
		return out
	}
	list := func(f engine.InstanceFilter) ([]string, string) {
		page, next, err := s.Instances(c, f)
		require.NoError(t, err)
		return ids(page), next
	}

	all, next := list(engine.InstanceFilter{})
	require.Equal(t, []string{"i-06", "i-05", "i-04", "i-03", "i-02", "i-01", "i-00"}, all)
	require.Empty(t, next)

	got, _ := list(engine.InstanceFilter{DefinitionKey: "invoice"})
	require.Equal(t, []string{"i-05", "i-02"}, got)
	got, _ = list(engine.InstanceFilter{Status: []engine.Status{engine.StatusCompleted}})
	require.Equal(t, []string{"i-05", "i-03", "i-01"}, got)
	got, _ = list(engine.InstanceFilter{Status: []engine.Status{engine.StatusCompleted, engine.StatusRunning}, DefinitionKey: "order"})
	require.Equal(t, []string{"i-06", "i-04", "i-03", "i-01", "i-00"}, got)
	got, _ = list(engine.InstanceFilter{BusinessKey: "bk-4"})
	require.Equal(t, []string{"i-04"}, got)
	got, _ = list(engine.InstanceFilter{BusinessKey: "none"})
	require.Empty(t, got)
	got, _ = list(engine.InstanceFilter{ParentID: "i-04"})
	require.Equal(t, []string{"i-06", "i-05"}, got, "the instances i-04 called")
	got, _ = list(engine.InstanceFilter{ParentID: "i-05"})
	require.Empty(t, got)
	got, _ = list(engine.InstanceFilter{TriggeredBy: "i-01"})
	require.Equal(t, []string{"i-03"}, got, "the instances the end of i-01 triggered")
	got, _ = list(engine.InstanceFilter{TriggeredBy: "i-03"})
	require.Empty(t, got)
	got, _ = list(engine.InstanceFilter{StartedAfter: at(2 * time.Hour), StartedBefore: at(5 * time.Hour)})
	require.Equal(t, []string{"i-04", "i-03"}, got)
	got, _ = list(engine.InstanceFilter{UpdatedAfter: at(8 * time.Hour)})
	require.Equal(t, []string{"i-01", "i-00"}, got, "updated after 8 h: i-00 at 10 h, i-01 at 9 h")

	var pages [][]string
	f := engine.InstanceFilter{Limit: 3}
	for {
		page, next := list(f)
		pages = append(pages, page)
		if next == "" {
			break
		}
		require.Less(t, len(pages), 5)
		f.Cursor = next
	}
	require.Equal(t, [][]string{{"i-06", "i-05", "i-04"}, {"i-03", "i-02", "i-01"}, {"i-00"}}, pages)

	page, next := list(engine.InstanceFilter{DefinitionKey: "order", Limit: 2})
	require.Equal(t, []string{"i-06", "i-04"}, page)
	page, next = list(engine.InstanceFilter{DefinitionKey: "order", Limit: 2, Cursor: next})
	require.Equal(t, []string{"i-03", "i-01"}, page)
	page, next = list(engine.InstanceFilter{DefinitionKey: "order", Limit: 2, Cursor: next})
	require.Equal(t, []string{"i-00"}, page)
	require.Empty(t, next)
}

func testUnfinished(t *testing.T, s engine.Store) {
	c := ctx(t)
	statuses := []engine.Status{
		engine.StatusRunning, engine.StatusWaiting, engine.StatusIncident, engine.StatusPaused,
		engine.StatusCompleted, engine.StatusFailed, engine.StatusCancelled,
	}
	for i, st := range statuses {
		sn := snap(fmt.Sprintf("i-%d", i), "order")
		sn.Status = st
		_, err := s.CreateInstance(c, sn)
		require.NoError(t, err)
	}
	seen := map[string]engine.Status{}
	require.NoError(t, s.Unfinished(c, func(sn *engine.Snapshot) error {
		seen[sn.ID] = sn.Status
		require.Empty(t, sn.Pending)
		return nil
	}))
	require.Equal(t, map[string]engine.Status{
		"i-0": engine.StatusRunning, "i-1": engine.StatusWaiting,
		"i-2": engine.StatusIncident, "i-3": engine.StatusPaused,
	}, seen)

	stop := errors.New("stop")
	calls := 0
	err := s.Unfinished(c, func(*engine.Snapshot) error { calls++; return stop })
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1, calls)
}

func testEvents(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)
	_, err = s.CreateInstance(c, snap("i-2", "order"))
	require.NoError(t, err)
	var prev uint64
	for round := range 3 {
		next := snap("i-1", "order")
		next.Seq = prev + 4
		for q := prev + 1; q <= next.Seq; q++ {
			next.Pending = append(next.Pending, ev("i-1", q, engine.EventType(fmt.Sprint("r", round))))
		}
		require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: prev}}}))
		prev = next.Seq
	}
	other := snap("i-2", "order")
	other.Seq, other.Pending = 1, []engine.Event{ev("i-2", 1, "z")}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: other}}}))

	evs, err := s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, seqs(evs))
	for _, e := range evs {
		require.Equal(t, "i-1", e.InstanceID)
	}
	evs, err = s.Events(c, "i-1", 5, 3)
	require.NoError(t, err)
	require.Equal(t, []uint64{6, 7, 8}, seqs(evs))
	evs, err = s.Events(c, "i-1", 2, 7) // across commits
	require.NoError(t, err)
	require.Equal(t, []uint64{3, 4, 5, 6, 7, 8, 9}, seqs(evs))
	evs, err = s.Events(c, "i-1", 12, 10)
	require.NoError(t, err)
	require.Empty(t, evs)
	evs, err = s.Events(c, "nope", 0, 0)
	require.NoError(t, err)
	require.Empty(t, evs)
}

func addTasks(t *testing.T, s engine.Store, tasks ...engine.Task) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)
	next := snap("i-1", "order")
	next.Seq = 1
	next.Pending = []engine.Event{ev("i-1", 1, "tasks")}
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: 0, Tasks: tasks}}}))
}

func testTasks(t *testing.T, s engine.Store) {
	c := ctx(t)
	mk := func(id, inst, assignee string, users, groups []string, prio int, due *time.Time, st engine.TaskStatus) engine.Task {
		return engine.Task{
			ID: id, InstanceID: inst, DefinitionKey: "order", ElementID: "review", Name: id,
			Assignee: assignee, CandidateUsers: users, CandidateGroups: groups, Priority: prio, Due: due, Status: st, Created: base,
		}
	}
	addTasks(t, s,
		mk("t-a", "i-1", "bob", nil, []string{"clerks"}, 50, nil, engine.TaskOpen),
		mk("t-b", "i-1", "", []string{"bob"}, nil, 50, ptr(at(2*time.Hour)), engine.TaskOpen),
		mk("t-c", "i-1", "", nil, []string{"clerks", "admins"}, 90, nil, engine.TaskOpen),
		mk("t-d", "i-2", "carol", []string{"bob"}, []string{"clerks"}, 10, nil, engine.TaskOpen),
		mk("t-e", "i-2", "", nil, []string{"admins"}, 50, ptr(at(time.Hour)), engine.TaskOpen),
		mk("t-f", "i-2", "", nil, []string{"clerks"}, 10, nil, engine.TaskCompleted),
	)
	ids := func(f engine.TaskFilter) []string {
		page, _, err := s.Tasks(c, f)
		require.NoError(t, err)
		out := []string{}
		for _, tk := range page {
			out = append(out, tk.ID)
		}
		return out
	}
	// priority desc, then due soonest first with none last, then id.
	require.Equal(t, []string{"t-c", "t-e", "t-b", "t-a", "t-d", "t-f"}, ids(engine.TaskFilter{}))
	require.Equal(t, []string{"t-c", "t-b", "t-a"}, ids(engine.TaskFilter{InstanceID: "i-1"}))
	require.Equal(t, []string{"t-d"}, ids(engine.TaskFilter{Assignee: "carol"}))
	require.Equal(t, []string{"t-c", "t-e", "t-b", "t-a", "t-d"}, ids(engine.TaskFilter{Status: engine.TaskOpen}))
	require.Equal(t, []string{"t-f"}, ids(engine.TaskFilter{Status: engine.TaskCompleted}))
	// bob: assigned to him (t-a) or unassigned with him as candidate user (t-b);
	// not t-d (assigned to carol though bob is a candidate).
	require.Equal(t, []string{"t-b", "t-a"}, ids(engine.TaskFilter{User: "bob"}))
	// groups only: unassigned tasks with one of the groups.
	require.Equal(t, []string{"t-c", "t-f"}, ids(engine.TaskFilter{Groups: []string{"clerks"}}))
	require.Equal(t, []string{"t-c", "t-e", "t-f"}, ids(engine.TaskFilter{Groups: []string{"clerks", "admins"}}))
	require.Equal(t, []string{"t-c", "t-b", "t-a"}, ids(engine.TaskFilter{User: "bob", Groups: []string{"clerks"}, Status: engine.TaskOpen}))
	require.Equal(t, []string{"t-c", "t-b", "t-a"}, ids(engine.TaskFilter{User: "bob", Groups: []string{"clerks"}, InstanceID: "i-1"}))
	require.Empty(t, ids(engine.TaskFilter{User: "nobody", Groups: []string{"nogroup"}}))
}

func testTaskPagination(t *testing.T, s engine.Store) {
	c := ctx(t)
	var tasks []engine.Task
	for i := range 7 {
		tk := engine.Task{ID: fmt.Sprintf("t-%d", i), InstanceID: "i-1", Status: engine.TaskOpen, Priority: 50 - (i/3)*10, Created: base}
		if i%2 == 0 {
			tk.Due = ptr(at(time.Duration(10-i) * time.Hour))
		}
		tasks = append(tasks, tk)
	}
	addTasks(t, s, tasks...)
	full, next, err := s.Tasks(c, engine.TaskFilter{})
	require.NoError(t, err)
	require.Empty(t, next)
	var want []string
	for _, tk := range full {
		want = append(want, tk.ID)
	}
	require.Equal(t, []string{"t-2", "t-0", "t-1", "t-4", "t-3", "t-5", "t-6"}, want)

	var got []string
	f := engine.TaskFilter{Limit: 2}
	for range 10 {
		page, next, err := s.Tasks(c, f)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), 2)
		for _, tk := range page {
			got = append(got, tk.ID)
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	require.Equal(t, want, got)
}

func testIncidents(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)
	_, err = s.CreateInstance(c, snap("i-2", "order"))
	require.NoError(t, err)
	mk := func(id, inst string, resolved *time.Time) engine.Incident {
		return engine.Incident{ID: id, InstanceID: inst, ElementID: "pay", Kind: "job", Message: id, Phase: "job", Created: base, Resolved: resolved}
	}
	n1, n2 := snap("i-1", "order"), snap("i-2", "order")
	n1.Seq, n2.Seq = 1, 1
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{
		{Snapshot: n1, Incidents: []engine.Incident{mk("inc-1", "i-1", nil), mk("inc-2", "i-1", ptr(at(time.Hour)))}},
		{Snapshot: n2, Incidents: []engine.Incident{mk("inc-3", "i-2", nil)}},
	}}))
	ids := func(f engine.IncidentFilter) []string {
		list, err := s.Incidents(c, f)
		require.NoError(t, err)
		out := []string{}
		for _, inc := range list {
			out = append(out, inc.ID)
		}
		return out
	}
	require.ElementsMatch(t, []string{"inc-1", "inc-2", "inc-3"}, ids(engine.IncidentFilter{}))
	require.ElementsMatch(t, []string{"inc-1", "inc-3"}, ids(engine.IncidentFilter{Open: true}))
	require.ElementsMatch(t, []string{"inc-1"}, ids(engine.IncidentFilter{Open: true, InstanceID: "i-1"}))
	require.ElementsMatch(t, []string{"inc-1", "inc-2"}, ids(engine.IncidentFilter{InstanceID: "i-1"}))
}

func testDeadLetters(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)
	_, err = s.CreateInstance(c, snap("i-2", "order"))
	require.NoError(t, err)
	mk := func(id, inst string, d time.Duration) engine.DeadLetter {
		return engine.DeadLetter{
			ID: id, InstanceID: inst, Definition: "order", ElementID: "pay", IncidentID: id, JobType: "pay", Attempts: 3,
			LastError: "x", Errors: []string{"x"}, Created: at(d), Status: engine.DeadLetterPending,
			History: []engine.DeadLetterTransition{{Status: engine.DeadLetterPending, At: at(d), Error: "x", IncidentID: id, Attempts: 3}},
		}
	}
	n1, n2 := snap("i-1", "order"), snap("i-2", "order")
	n1.Seq, n2.Seq = 1, 1
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{
		{Snapshot: n1, DeadLetters: []engine.DeadLetter{mk("dl-1", "i-1", 0), mk("dl-2", "i-1", time.Hour)}},
		{Snapshot: n2, DeadLetters: []engine.DeadLetter{mk("dl-3", "i-2", 2*time.Hour)}},
	}}))
	ids := func(f engine.DeadLetterFilter) []string {
		list, err := s.DeadLetters(c, f)
		require.NoError(t, err)
		out := []string{}
		for _, d := range list {
			out = append(out, d.ID)
		}
		n, err := s.CountDeadLetters(c, engine.DeadLetterFilter{
			InstanceID: f.InstanceID, Definition: f.Definition, ElementID: f.ElementID, JobType: f.JobType, Error: f.Error,
			CreatedFrom: f.CreatedFrom, CreatedTo: f.CreatedTo, SettledBefore: f.SettledBefore, Status: f.Status,
		})
		require.NoError(t, err)
		if f.Limit == 0 {
			require.Equal(t, len(out), n, "the count agrees with the list")
		}
		return out
	}
	require.Equal(t, []string{"dl-3", "dl-2", "dl-1"}, ids(engine.DeadLetterFilter{}))
	require.Equal(t, []string{"dl-2", "dl-1"}, ids(engine.DeadLetterFilter{InstanceID: "i-1"}))
	require.Len(t, ids(engine.DeadLetterFilter{Limit: 2}), 2)

	// Transitions: a letter made and moved in one commit ends moved; a
	// transition from a status it may not follow changes nothing; one for
	// a letter that is not there makes none.
	n1 = snap("i-1", "order") // the store owns the committed one
	n1.Seq = 2
	move := func(id string, st engine.DeadLetterStatus, h time.Duration) engine.DeadLetterUpdate {
		return engine.DeadLetterUpdate{ID: id, DeadLetterTransition: engine.DeadLetterTransition{Status: st, At: at(h), By: "ops"}}
	}
	failed := move("dl-2", engine.DeadLetterPending, 5*time.Hour)
	failed.Error, failed.IncidentID, failed.Attempts, failed.By = "Disk Full", "inc-9", 2, ""
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{
		Snapshot: n1, PrevSeq: 1,
		DeadLetters: []engine.DeadLetter{mk("dl-4", "i-1", 3*time.Hour)},
		DeadLetterUpdates: []engine.DeadLetterUpdate{
			move("dl-1", engine.DeadLetterReplaying, 4*time.Hour),
			move("dl-1", engine.DeadLetterReplayed, 5*time.Hour),
			move("dl-1", engine.DeadLetterPending, 6*time.Hour), // settled: stays replayed
			move("dl-2", engine.DeadLetterReplaying, 4*time.Hour),
			failed, // its replay failed: pending again
			move("dl-3", engine.DeadLetterReplayed, 4*time.Hour), // not replaying: stays pending
			move("dl-4", engine.DeadLetterCancelled, 4*time.Hour),
			move("gone", engine.DeadLetterCancelled, 4*time.Hour),
		},
	}}}))
	d1, err := s.DeadLetter(c, "dl-1")
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterReplayed, d1.Status)
	require.True(t, at(5*time.Hour).Equal(*d1.Settled))
	require.Equal(t, "pay", d1.JobType)
	require.Equal(t, []string{"x"}, d1.Errors)
	require.Equal(t, []engine.DeadLetterStatus{engine.DeadLetterPending, engine.DeadLetterReplaying, engine.DeadLetterReplayed}, statuses(d1.History))
	require.Equal(t, "ops", d1.History[1].By)
	require.True(t, at(4*time.Hour).Equal(d1.History[1].At))

	d2, err := s.DeadLetter(c, "dl-2")
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterPending, d2.Status)
	require.Nil(t, d2.Settled)
	require.Equal(t, []string{"x", "Disk Full"}, d2.Errors, "the failed replay's error is appended")
	require.Equal(t, "Disk Full", d2.LastError)
	require.Equal(t, "inc-9", d2.IncidentID)
	require.Equal(t, 5, d2.Attempts)
	require.Equal(t, []engine.DeadLetterStatus{engine.DeadLetterPending, engine.DeadLetterReplaying, engine.DeadLetterPending}, statuses(d2.History))
	require.Equal(t, "Disk Full", d2.History[2].Error)

	d3, err := s.DeadLetter(c, "dl-3")
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterPending, d3.Status)
	require.Len(t, d3.History, 1)
	_, err = s.DeadLetter(c, "gone")
	require.ErrorIs(t, err, engine.ErrNotFound, "moving a letter that is not there makes none")

	// Filters, each alone and together.
	pending := []engine.DeadLetterStatus{engine.DeadLetterPending}
	require.Equal(t, []string{"dl-3", "dl-2"}, ids(engine.DeadLetterFilter{Status: pending}))
	require.Equal(t, []string{"dl-4", "dl-1"}, ids(engine.DeadLetterFilter{Status: engine.SettledDeadLetters}))
	require.Equal(t, []string{"dl-4"}, ids(engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{engine.DeadLetterCancelled}}))
	require.Equal(t, []string{"dl-2"}, ids(engine.DeadLetterFilter{Error: "disk full"}), "any case, any of its errors")
	require.Equal(t, []string{"dl-4", "dl-3", "dl-2", "dl-1"}, ids(engine.DeadLetterFilter{Error: "x"}))
	require.Empty(t, ids(engine.DeadLetterFilter{Error: "x.*"}), "the text is no pattern")
	require.Equal(t, []string{"dl-3", "dl-2"}, ids(engine.DeadLetterFilter{CreatedFrom: at(time.Hour), CreatedTo: at(3 * time.Hour)}), "from inclusive, to exclusive")
	require.Equal(t, []string{"dl-4"}, ids(engine.DeadLetterFilter{SettledBefore: at(4*time.Hour + time.Second)}), "settled before; none unsettled")
	require.Equal(t, []string{"dl-4", "dl-1"}, ids(engine.DeadLetterFilter{SettledBefore: at(6 * time.Hour)}))
	require.Equal(t, []string{"dl-4", "dl-3", "dl-2", "dl-1"}, ids(engine.DeadLetterFilter{Definition: "order", ElementID: "pay", JobType: "pay"}))
	require.Empty(t, ids(engine.DeadLetterFilter{Definition: "other"}))
	require.Empty(t, ids(engine.DeadLetterFilter{ElementID: "ship"}))
	require.Empty(t, ids(engine.DeadLetterFilter{JobType: "ship"}))
	require.Equal(t, []string{"dl-2"}, ids(engine.DeadLetterFilter{InstanceID: "i-1", Status: pending, Error: "DISK"}))

	require.NoError(t, s.DeleteDeadLetter(c, "dl-2"))
	require.Equal(t, []string{"dl-4", "dl-3", "dl-1"}, ids(engine.DeadLetterFilter{}))
	require.ErrorIs(t, s.DeleteDeadLetter(c, "dl-2"), engine.ErrNotFound)
	_, err = s.DeadLetter(c, "dl-2")
	require.ErrorIs(t, err, engine.ErrNotFound)

	// Deleting by filter removes what it selects, and only that.
	n, err := s.DeleteDeadLetters(c, engine.DeadLetterFilter{Status: engine.SettledDeadLetters, SettledBefore: at(5 * time.Hour)})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"dl-3", "dl-1"}, ids(engine.DeadLetterFilter{}))
	n, err = s.DeleteDeadLetters(c, engine.DeadLetterFilter{Status: engine.SettledDeadLetters, JobType: "ship"})
	require.NoError(t, err)
	require.Zero(t, n)
}

func statuses(h []engine.DeadLetterTransition) []engine.DeadLetterStatus {
	out := make([]engine.DeadLetterStatus, len(h))
	for i, tr := range h {
		out[i] = tr.Status
	}
	return out
}

// testCommitConcurrent races commits with the same guard: exactly one wins.
func testCommitConcurrent(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.CreateInstance(c, snap("i-1", "order"))
	require.NoError(t, err)
	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := snap("i-1", "order")
			next.Seq = 1
			next.Variables = map[string]any{"winner": int64(i)}
			next.Pending = []engine.Event{ev("i-1", 1, engine.EventType(fmt.Sprint("w", i)))}
			errs[i] = s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: 0}}})
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			require.Equal(t, -1, winner, "two commits won")
			winner = i
			continue
		}
		require.ErrorIs(t, err, engine.ErrConflict)
	}
	require.NotEqual(t, -1, winner)
	got, err := s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, int64(winner), got.Variables["winner"])
	evs, err := s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, engine.EventType(fmt.Sprint("w", winner)), evs[0].Type)
}
