package server_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestWSProgressEvents: a job's report reaches the followers of its
// instance as element.progress and instance.progress events without a
// sequence number; followers of the whole definition do not get them.
func TestWSProgressEvents(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	jobs := make(chan *engine.Job)
	release := make(chan struct{})
	f.eng.RegisterHandler("progress.copy", engine.HandlerFunc(func(ctx context.Context, job *engine.Job) (map[string]any, error) {
		select {
		case jobs <- job:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}))
	key := f.deploy("testdata/browser_progress.bpmn")
	byDefinition := f.client(nil)
	byDefinition.subscribe(map[string]any{"definition": key})
	id := f.start(key, nil)
	job := <-jobs
	byInstance := f.client(nil)
	byInstance.subscribe(map[string]any{"instance": id, "since": 0})
	byInstance.eventsUntil(id, engine.EventJobCreated)

	require.NoError(t, job.ReportProgress(40, "copied 4 of 10 files"))
	el := byInstance.read().Event
	require.Equal(t, engine.EventElementProgress, el.Type)
	require.True(t, el.Transient())
	require.Equal(t, "copy", el.ElementID)
	require.Equal(t, map[string]any{"percent": 40.0, "message": "copied 4 of 10 files"}, el.Detail)
	inst := byInstance.read().Event
	require.Equal(t, engine.EventInstanceProgress, inst.Type)
	require.True(t, inst.Transient())
	require.Contains(t, inst.Detail, "percent")
	require.Contains(t, inst.Detail, "eta")

	release <- struct{}{}
	rest := byInstance.eventsUntil(id, engine.EventInstanceCompleted)
	all := byDefinition.eventsUntil(id, engine.EventInstanceCompleted)
	stored := seqs(f.stored(id))
	require.Equal(t, stored, seqs(all), "the definition's followers get the log, no progress")
	require.Equal(t, stored[len(stored)-len(rest):], seqs(rest))
}
