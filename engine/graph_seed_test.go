package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// The Execution Engine document's example graph (§4.2), with its scripts
// in JavaScript, run as its authors would: on its daily schedule, and
// started by hand with the files to ingest.

func seedGraph(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "seeds", name))
	require.NoError(t, err)
	return src
}

func TestGraphSeedRunsWhenStarted(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"execution-engine-4.2.json", "execution-engine-4.2.yaml"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			rec := h.deploySource(seedGraph(t, name))
			inst := h.start(rec.Key, map[string]any{"inputFiles": []any{"a.etl", "b.etl", "c.etl", "d.etl"}})
			h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, []any{`C:\logs\a.etl`, `C:\logs\b.etl`, `C:\logs\c.etl`, `C:\logs\d.etl`}, inst.Variables["processed"], "the ForEach processes every file")
			require.EqualValues(t, 4, inst.Variables["fileCount"])
			require.Equal(t, 4, h.count(inst.ID, engine.EventElementCompleted, "task-2"))
			require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "timer-1"), "a plain start does not wait for the schedule")
		})
	}
}

func TestGraphSeedRunsOnSchedule(t *testing.T) {
	t.Parallel()
	h := setup(t)
	rec := h.deploySource(seedGraph(t, "execution-engine-4.2.yaml"))
	started := func() []*engine.Snapshot {
		page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: rec.Key})
		require.NoError(t, err)
		return page
	}
	h.advance(14 * time.Hour) // 23:00, from 09:00
	require.Empty(t, started(), "nothing before midnight")
	h.advance(time.Hour) // "0 0 * * *": midnight
	insts := started()
	require.Len(t, insts, 1)
	inst := h.requireStatus(insts[0].ID, engine.StatusCompleted)
	require.Equal(t, "timer-1", inst.StartElement)
	require.Equal(t, []any{`C:\logs\app.etl`, `C:\logs\kernel.etl`, `C:\logs\network.etl`}, inst.Variables["processed"])
	h.advance(24 * time.Hour)
	require.Len(t, started(), 2, "every midnight")
}

// An OnFail handler learns what failed: the error's code and message, the
// node and the attempts made, whether its edge says type OnFail or
// messageType Fail.
func TestGraphOnFailSeesFailure(t *testing.T) {
	t.Parallel()
	for _, edge := range []string{"type: OnFail", "messageType: Fail"} {
		t.Run(edge, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("ingest", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
				return nil, &engine.CodedError{Code: "KUSTO_DOWN", Err: errors.New("cluster unreachable")}
			}))
			rec := h.deploySource([]byte(`
graphId: fails
nodes:
  - nodeId: ingest
    type: Task
    configuration: {actionType: ingest, retry: {maxAttempts: 2, strategy: immediate}}
  - nodeId: report
    type: Task
    configuration:
      language: JavaScript
      script: |
        ({report: failedNodeId + " failed " + errorCode + " after " + attempt + ": " + context.Variables["errorMessage"]})
edges:
  - {sourceNodeId: ingest, targetNodeId: report, ` + edge + `}
`))
			inst := h.start(rec.Key, nil)
			h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, "ingest failed KUSTO_DOWN after 2: KUSTO_DOWN: cluster unreachable", inst.Variables["report"])
		})
	}
}

// messageType All takes the edge whether the source completes or fails.
func TestGraphMessageTypeAll(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		h := setup(t)
		h.e.RegisterHandler("work", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
			if fail {
				return nil, engine.Permanent(errors.New("no"))
			}
			return map[string]any{"worked": true}, nil
		}))
		rec := h.deploySource([]byte(`
graphId: always
nodes:
  - {nodeId: work, type: Task, configuration: {actionType: work}}
  - {nodeId: cleanup, type: Task, configuration: {language: JavaScript, script: '({cleaned: true})'}}
edges:
  - {sourceNodeId: work, targetNodeId: cleanup, messageType: All}
`))
		inst := h.start(rec.Key, nil)
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, true, inst.Variables["cleaned"], "failed: %v", fail)
		require.Equal(t, !fail, inst.Variables["worked"] == true)
	}
}

// A Timer with a schedule that an edge enters waits for the next tick.
func TestGraphScheduledTimerWaitsForTick(t *testing.T) {
	t.Parallel()
	h := setup(t)
	rec := h.deploySource([]byte(`
graphId: nightly
nodes:
  - {nodeId: prepare, type: Task, configuration: {language: JavaScript, script: '({prepared: true})'}}
  - {nodeId: midnight, type: Timer, configuration: {schedule: "0 0 * * *"}}
  - {nodeId: run, type: Task, configuration: {language: JavaScript, script: '({ran: true})'}}
edges:
  - {sourceNodeId: prepare, targetNodeId: midnight}
  - {sourceNodeId: midnight, targetNodeId: run}
`))
	inst := h.start(rec.Key, nil)
	h.requireStatus(inst.ID, engine.StatusWaiting)
	h.advance(14 * time.Hour)
	h.requireStatus(inst.ID, engine.StatusWaiting)
	h.advance(time.Hour)
	require.Equal(t, true, h.requireStatus(inst.ID, engine.StatusCompleted).Variables["ran"])
}

// A ForEach's errorPolicy: continue goes on with the next item when a body
// Task fails for good; collect also notes each failure.
func TestGraphForEachErrorPolicy(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"continue", "collect"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			rec := h.deploySource([]byte(`
graphId: each
nodes:
  - nodeId: every
    type: ForEach
    configuration: {collectionExpression: 'context.Variables["orders"]', itemVariableName: order, errorPolicy: ` + policy + `}
  - nodeId: ship
    type: Task
    configuration:
      language: JavaScript
      script: |
        if (order.broken) throw new Error("order " + order.id + " is broken");
        return {shipped: (context.Variables["shipped"] || []).concat([order.id])};
      retry: {maxAttempts: 1}
  - {nodeId: done, type: Task, configuration: {language: JavaScript, script: '({done: true})'}}
edges:
  - {sourceNodeId: every, targetNodeId: ship, type: LoopBody}
  - {sourceNodeId: every, targetNodeId: done, type: LoopExit}
`))
			inst := h.start(rec.Key, map[string]any{"orders": []any{
				map[string]any{"id": "a"}, map[string]any{"id": "b", "broken": true}, map[string]any{"id": "c"},
			}})
			inst = h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, []any{"a", "c"}, inst.Variables["shipped"])
			require.Equal(t, true, inst.Variables["done"])
			if policy == "continue" {
				require.NotContains(t, inst.Variables, "errors")
				return
			}
			errs, ok := inst.Variables["errors"].([]any)
			require.True(t, ok, "errors: %#v", inst.Variables["errors"])
			require.Len(t, errs, 1)
			e := errs[0].(map[string]any)
			require.EqualValues(t, 1, e["index"])
			require.Equal(t, map[string]any{"id": "b", "broken": true}, e["item"])
			require.Contains(t, e["error"], "order b is broken")
		})
	}
}

// maxIterations: a loop that would run more often stops with an incident
// that names it.
func TestGraphMaxIterations(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		graph   string
		element string
		message string
	}{
		"While": {
			graph: `
graphId: poll
onFailure: incident
defaultVariables: {tries: 0}
nodes:
  - {nodeId: until, type: While, configuration: {condition: 'tries < 10', maxIterations: 3}}
  - {nodeId: ask, type: Task, configuration: {language: JavaScript, script: '({tries: tries + 1})'}}
edges:
  - {sourceNodeId: until, targetNodeId: ask, type: LoopBody}
`,
			element: "until__count",
			message: `While "until": its body would run more than maxIterations (3) times`,
		},
		"ForEach": {
			graph: `
graphId: many
onFailure: incident
nodes:
  - {nodeId: every, type: ForEach, configuration: {collection: [1, 2, 3, 4], maxIterations: 3}}
  - {nodeId: use, type: Task, configuration: {language: JavaScript, script: '({last: item})'}}
edges:
  - {sourceNodeId: every, targetNodeId: use, type: LoopBody}
`,
			element: "every__init",
			message: `ForEach "every": the collection has 4 items, more than maxIterations (3)`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			rec := h.deploySource([]byte(tt.graph))
			inst := h.start(rec.Key, nil)
			h.requireStatus(inst.ID, engine.StatusIncident)
			incs := h.openIncidents(inst.ID)
			require.Len(t, incs, 1)
			require.Equal(t, tt.element, incs[0].ElementID)
			require.Contains(t, incs[0].Message, tt.message)
		})
	}
	t.Run("within the limit", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		rec := h.deploySource([]byte(tests["While"].graph))
		inst := h.start(rec.Key, map[string]any{"tries": 7})
		require.EqualValues(t, 10, h.requireStatus(inst.ID, engine.StatusCompleted).Variables["tries"])
	})
}

// The document's second example (§4.3) rewritten to run: its compiled C#
// and PowerShell file nodes as actions that handlers run, its inline
// scripts in JavaScript; the edge into the Kusto ingestion gives it five
// retries, and it needs two.
func TestGraphSeedNodeDefinitionsRun(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"execution-engine-4.3.json", "execution-engine-4.3.yaml"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("data-processing", engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
				return map[string]any{"fileCount": 21, "batchSize": job.Parameters["batchSize"]}, nil
			}))
			h.e.RegisterHandler("kusto-ingest", engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
				if job.Attempt < 3 {
					return nil, errors.New("throttled")
				}
				return map[string]any{"ingestedInto": job.Parameters["database"], "attempts": job.Attempt}, nil
			}))
			rec := h.deploySource(seedGraph(t, name))
			inst := h.start(rec.Key, nil)
			h.fireAll(10) // the retries' backoff
			inst = h.requireStatus(inst.ID, engine.StatusCompleted)
			require.EqualValues(t, 1000, inst.Variables["batchSize"])
			require.EqualValues(t, 3, inst.Variables["attempts"])
			require.Equal(t, "EtwLogs", inst.Variables["ingestedInto"])
			require.EqualValues(t, 42, inst.Variables["doubled"])
			require.Equal(t, "success", inst.Variables["result"])
		})
	}
}
