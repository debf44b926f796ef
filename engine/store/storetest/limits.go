package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// testLimits: what the engine's limits keep with an instance survives the
// store: a queued instance (its status and how it starts) is unfinished and
// listed by status, and a running one keeps its deadline and retries used.
func testLimits(t *testing.T, s engine.Store) {
	c := ctx(t)
	q := snap("i-q", "order")
	q.Status, q.Tokens = engine.StatusQueued, nil
	q.Queued = &engine.QueuedStart{Position: 7, Triggered: true, Fired: model.TriggerMessage}
	_, err := s.CreateInstance(c, q)
	require.NoError(t, err)

	got, err := s.Instance(c, "i-q")
	require.NoError(t, err)
	require.Equal(t, engine.StatusQueued, got.Status)
	require.Equal(t, q.Queued, got.Queued)
	page, _, err := s.Instances(c, engine.InstanceFilter{DefinitionKey: "order", Status: []engine.Status{engine.StatusQueued}})
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, "i-q", page[0].ID)
	seen := map[string]engine.Status{}
	require.NoError(t, s.Unfinished(c, func(sn *engine.Snapshot) error { seen[sn.ID] = sn.Status; return nil }))
	require.Equal(t, map[string]engine.Status{"i-q": engine.StatusQueued}, seen)

	// It starts: one commit of its own document.
	next := snap("i-q", "order")
	next.Seq, next.Deadline, next.RetriesUsed = 3, ptr(base.Add(time.Hour)), 2
	next.Pending = seqEvents("i-q", 1, 3)
	require.NoError(t, s.Commit(c, &engine.Batch{Changes: []engine.Change{{Snapshot: next, PrevSeq: 0}}}))
	got, err = s.Instance(c, "i-q")
	require.NoError(t, err)
	require.Equal(t, engine.StatusRunning, got.Status)
	require.Nil(t, got.Queued)
	require.Equal(t, base.Add(time.Hour), got.Deadline.UTC())
	require.Equal(t, 2, got.RetriesUsed)
}

func seqEvents(id string, from, to uint64) []engine.Event {
	var out []engine.Event
	for s := from; s <= to; s++ {
		out = append(out, engine.Event{InstanceID: id, Seq: s, Type: engine.EventElementActivated, Time: base})
	}
	return out
}
