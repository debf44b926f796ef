package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// calls records the rendered parameters each handler of a job type got.
type calls struct {
	mu     sync.Mutex
	byType map[string][]map[string]any
}

func (c *calls) record(typ string, params map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byType == nil {
		c.byType = map[string][]map[string]any{}
	}
	c.byType[typ] = append(c.byType[typ], params)
}

func (c *calls) of(typ string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byType[typ]
}

// stubConnectors registers stand-ins for the Monday, Slack and Confluence
// actions the DataWorkflows spec's examples use: monday.get-items gives
// items back (or fails, with mondayErr), the others record what they got.
func stubConnectors(h *harness, items []any, mondayErr error) *calls {
	c := &calls{}
	h.e.RegisterHandler("monday.get-items", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		c.record(j.Type, j.Parameters)
		if mondayErr != nil {
			return nil, mondayErr
		}
		return map[string]any{"items": items}, nil
	}))
	for _, typ := range []string{"slack.post-message", "confluence.create-page"} {
		h.e.RegisterHandler(typ, handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
			c.record(j.Type, j.Parameters)
			return map[string]any{"ok": true}, nil
		}))
	}
	return c
}

func (h *harness) deploySeed(name string) string {
	h.t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "seeds", name))
	require.NoError(h.t, err)
	return h.deploySource(src).Key
}

// TestDataWorkflowsLinear runs the DataWorkflows spec's example 15.1 as
// printed: the Slack message counts the items Monday gave back, in the
// channel the trigger names.
func TestDataWorkflowsLinear(t *testing.T) {
	t.Parallel()
	h := setup(t)
	items := []any{
		map[string]any{"Name": "Alpha", "Status": "In Progress"},
		map[string]any{"Name": "Beta", "Status": "In Progress"},
		map[string]any{"Name": "Gamma", "Status": "In Progress"},
	}
	c := stubConnectors(h, items, nil)
	key := h.deploySeed("dataworkflows-15.1.json")
	require.Equal(t, "get-monday-status-report", key)
	inst := h.start(key, map[string]any{"boardId": 4711, "channelId": "C-status"})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)

	monday := c.of("monday.get-items")
	require.Len(t, monday, 1)
	require.EqualValues(t, 4711, monday[0]["boardId"], "one placeholder keeps its type")
	require.Equal(t, map[string]any{"rules": []any{map[string]any{"column": "Status", "operator": "eq", "value": "In Progress"}}},
		monday[0]["filter"])
	require.Equal(t, []map[string]any{{"channelId": "C-status", "message": "Found 3 items in progress."}}, c.of("slack.post-message"))

	// The read model is kept with the variables; outputs are variables too.
	require.Equal(t, map[string]any{"boardId": 4711, "channelId": "C-status"}, snap.Variables["trigger"])
	data := snap.Variables["context"].(map[string]any)["data"].(map[string]any)
	require.Equal(t, map[string]any{"items": items}, data["fetch-monday-items"])
	require.Equal(t, items, snap.Variables["items"])
}

// TestDataWorkflowsBranching runs the spec's example 15.2 as printed
// through its three routes.
func TestDataWorkflowsBranching(t *testing.T) {
	t.Parallel()
	trigger := map[string]any{"boardId": 7, "itemId": "1234", "channelId": "C-onboarding"}

	t.Run("approved", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		c := stubConnectors(h, []any{map[string]any{"Name": "Apollo", "Status": "Approved"}}, nil)
		inst := h.start(h.deploySeed("dataworkflows-15.2.json"), trigger)
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, "1234", c.of("monday.get-items")[0]["filter"].(map[string]any)["rules"].([]any)[0].(map[string]any)["value"])
		require.Equal(t, []map[string]any{{"space": "PROJECTS", "title": "Apollo - Project Brief"}}, c.of("confluence.create-page"))
		require.Empty(t, c.of("slack.post-message"))
	})

	t.Run("not approved", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		c := stubConnectors(h, []any{map[string]any{"Name": "Hermes", "Status": "Draft"}}, nil)
		inst := h.start(h.deploySeed("dataworkflows-15.2.json"), trigger)
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Empty(t, c.of("confluence.create-page"))
		require.Equal(t, []map[string]any{{"channelId": "C-onboarding", "message": "Project 'Hermes' is not 'Approved'."}},
			c.of("slack.post-message"))
	})

	t.Run("no item", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		c := stubConnectors(h, []any{}, nil)
		inst := h.start(h.deploySeed("dataworkflows-15.2.json"), trigger)
		h.requireStatus(inst.ID, engine.StatusCompleted) // both conditions throw: neither edge is taken (spec §6)
		require.Empty(t, c.of("confluence.create-page"))
		require.Empty(t, c.of("slack.post-message"))
		failed := h.eventsOf(inst.ID, engine.EventConditionFailed, "get-project-item__split")
		require.Len(t, failed, 2)
		require.Contains(t, failed[0].Detail["error"], "TypeError")
	})

	t.Run("failure", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		c := stubConnectors(h, nil, errors.New("monday.com answered 503"))
		inst := h.start(h.deploySeed("dataworkflows-15.2.json"), trigger)
		h.fireAll(10) // the retries' delays
		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Len(t, c.of("monday.get-items"), 3, "the engine's default retries")
		require.Empty(t, c.of("confluence.create-page"))
		require.Equal(t, []map[string]any{{"channelId": "C-onboarding", "message": "Onboarding failed at get-project-item."}},
			c.of("slack.post-message"))
		failed := snap.Variables["context"].(map[string]any)["data"].(map[string]any)["get-project-item"].(map[string]any)
		require.Equal(t, "get-project-item", failed["errorNode"])
		require.Contains(t, failed["error"], "answered 503")
		require.EqualValues(t, 3, failed["attempt"])
	})
}

// TestDAGTemplatesStrict: a {{ }} path that reads nothing is an error naming
// the template, the parameter and the node; the job fails without running.
// ?? gives a default, null renders as nothing inside text.
func TestDAGTemplatesStrict(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := stubConnectors(h, nil, nil)
	h.deploySource([]byte(`{"id":"strict","startNode":"post","failureMode":"incident","nodes":[{"id":"post","actionType":"slack.post-message",
		"parameters":{"channelId":"{{ trigger.channelId }}","text":"to {{ trigger.team ?? 'everyone' }}{{ trigger.suffix }}"}}]}`))

	ok := h.start("strict", map[string]any{"channelId": "C1", "suffix": nil})
	h.requireStatus(ok.ID, engine.StatusCompleted)
	require.Equal(t, []map[string]any{{"channelId": "C1", "text": "to everyone"}}, c.of("slack.post-message"))

	missing := h.start("strict", map[string]any{"suffix": "!"})
	h.requireStatus(missing.ID, engine.StatusIncident)
	incs := h.openIncidents(missing.ID)
	require.Len(t, incs, 1)
	require.Contains(t, incs[0].Message, `parameter "channelId" of "post": {{ trigger.channelId }} is undefined`)
	require.Len(t, c.of("slack.post-message"), 1, "the action did not run")

	h.deploySource([]byte(`{"id":"typeerror","startNode":"post","failureMode":"incident","nodes":[{"id":"post","actionType":"slack.post-message",
		"parameters":{"blocks":[{"text":"{{ context.data['nowhere'].items.length }} items"}]}}]}`))
	bad := h.start("typeerror", nil)
	h.requireStatus(bad.ID, engine.StatusIncident)
	incs = h.openIncidents(bad.ID)
	require.Len(t, incs, 1)
	require.Contains(t, incs[0].Message, `parameter "blocks[0].text" of "post": {{ context.data['nowhere'].items.length }}: `)
	require.Contains(t, incs[0].Message, "TypeError")
}

// TestDAGRetryDelays: the spec's retry policy waits baseDelayMs ×
// backoffFactor^n between attempts, and every attempt renders its
// parameters again.
func TestDAGRetryDelays(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := &calls{}
	h.e.RegisterHandler("flaky", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		c.record(j.Type, j.Parameters)
		return nil, errors.New("not yet")
	}))
	h.deploySource([]byte(`{"id":"retry","startNode":"call","failureMode":"incident","nodes":[{"id":"call","actionType":"flaky",
		"parameters":{"note":"{{ vars.note ?? 'first' }}"},
		"policies":{"retry":{"maxAttempts":4,"baseDelayMs":300,"backoffFactor":3,"jitter":false}}}]}`))
	inst := h.start("retry", nil)
	_, err := h.e.SetVariables(h.ctx, inst.ID, "test", map[string]any{"note": "second"})
	require.NoError(t, err)
	h.fireAll(10)
	h.requireStatus(inst.ID, engine.StatusIncident)

	var delays []any
	for _, ev := range h.eventsOf(inst.ID, engine.EventJobRetrying, "call") {
		delays = append(delays, ev.Detail["delayMs"])
	}
	require.EqualValues(t, []any{int64(300), int64(900), int64(2700)}, delays)
	got := c.of("flaky")
	require.Len(t, got, 4)
	require.Equal(t, "first", got[0]["note"])
	require.Equal(t, "second", got[1]["note"], "rendered again for the second attempt")
}

// TestDAGConditionsSeeReadModel: edge conditions read trigger, context.data
// and vars like templates do.
func TestDAGConditionsSeeReadModel(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := stubConnectors(h, []any{map[string]any{"Name": "A", "Status": "Done"}}, nil)
	h.deploySource([]byte(`{"id":"conds","startNode":"get","nodes":[
		{"id":"get","actionType":"monday.get-items","edges":[
			{"targetNode":"by-trigger","condition":"trigger.level > 2"},
			{"targetNode":"by-data","condition":"context.data['get'].items[0].Status === 'Done'"},
			{"targetNode":"by-vars","condition":"vars.items.length === 1 && vars.level === 3"},
			{"targetNode":"never","condition":"trigger.level > 3"}]},
		{"id":"by-trigger","actionType":"slack.post-message","parameters":{"message":"trigger"}},
		{"id":"by-data","actionType":"slack.post-message","parameters":{"message":"data"}},
		{"id":"by-vars","actionType":"slack.post-message","parameters":{"message":"vars"}},
		{"id":"never","actionType":"slack.post-message","parameters":{"message":"never"}}]}`))
	inst := h.start("conds", map[string]any{"level": 3})
	h.requireStatus(inst.ID, engine.StatusCompleted)
	var got []any
	for _, p := range c.of("slack.post-message") {
		got = append(got, p["message"])
	}
	require.ElementsMatch(t, []any{"trigger", "data", "vars"}, got)
}

// failFastDAG forks to a branch that fails for good and one that waits for
// an external worker; both lead to a join.
const failFastDAG = `{"id":"fork","startNode":"a",%s"nodes":[
	{"id":"a","actionType":"ok","edges":[{"targetNode":"b"},{"targetNode":"c"}]},
	{"id":"b","actionType":"broken","edges":[{"targetNode":"d"}]},
	{"id":"c","actionType":"ext.slow","edges":[{"targetNode":"d"}]},
	{"id":"d","actionType":"ok"}]}`

func deployFailFast(h *harness, mode string) {
	h.t.Helper()
	h.e.RegisterHandler("ok", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil }))
	h.e.RegisterHandler("broken", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.Permanent(errors.New("the disk is full"))
	}))
	h.deploySource([]byte(fmt.Sprintf(failFastDAG, mode)))
}

// TestDAGFailFast: a failure nothing handles cancels the other branches and
// ends the instance failed, with the error and the element in the event.
func TestDAGFailFast(t *testing.T) {
	t.Parallel()
	h := setup(t)
	deployFailFast(h, "")
	inst := h.start("fork", nil)
	snap := h.requireStatus(inst.ID, engine.StatusFailed)
	require.Empty(t, snap.Incidents)

	failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
	require.Len(t, failed, 1)
	require.Equal(t, "b", failed[0].Detail["elementId"])
	require.Contains(t, failed[0].Detail["message"], "the disk is full")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "c"), "the sibling branch is cancelled")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "d"))
	jobs, err := h.e.FetchAndLock(h.ctx, "ext.slow", "w", 10, time.Minute)
	require.NoError(t, err)
	require.Empty(t, jobs, "the cancelled branch's job is withdrawn")
}

// TestDAGFailureModeIncident: failureMode incident keeps the instance
// running with an incident, the other branch still waiting.
func TestDAGFailureModeIncident(t *testing.T) {
	t.Parallel()
	h := setup(t)
	deployFailFast(h, `"failureMode":"incident",`)
	inst := h.start("fork", nil)
	h.requireStatus(inst.ID, engine.StatusIncident)
	incs := h.openIncidents(inst.ID)
	require.Len(t, incs, 1)
	require.Equal(t, "b", incs[0].ElementID)
	jobs, err := h.e.FetchAndLock(h.ctx, "ext.slow", "w", 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Equal(t, "c", jobs[0].ElementID)
}

// TestDAGReadModelSurvivesRestart: trigger and context.data are stored with
// the instance: a node that runs after a restart renders what a node before
// it gave back.
func TestDAGReadModelSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := engineOn(t, st)
	first.RegisterHandler("give", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return map[string]any{"items": []any{"x", "y", "z"}}, nil
	}))
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: []byte(`{"id":"restart","startNode":"a","nodes":[
		{"id":"a","actionType":"give","edges":[{"targetNode":"b"}]},
		{"id":"b","actionType":"ext.wait","edges":[{"targetNode":"c"}]},
		{"id":"c","actionType":"rec","parameters":{"text":"{{ trigger.channelId }}: {{ context.data['a'].items.length }}"}}]}`)})
	require.NoError(t, err)
	inst, _, err := first.Start(ctx, engine.StartRequest{Definition: "restart", Variables: map[string]any{"channelId": "C9"}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		jobs, err := first.FetchAndLock(ctx, "ext.wait", "w", 1, time.Millisecond) // a short lock: the next engine fetches it again
		return err == nil && len(jobs) == 1
	}, 10*time.Second, 5*time.Millisecond)
	first.Close()

	second := engineOn(t, st)
	got := make(chan any, 1)
	second.RegisterHandler("rec", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		got <- j.Parameters["text"]
		return nil, nil
	}))
	var job engine.ExternalJob
	require.Eventually(t, func() bool {
		jobs, err := second.FetchAndLock(ctx, "ext.wait", "w", 1, time.Minute)
		if err != nil || len(jobs) != 1 {
			return false
		}
		job = jobs[0]
		return true
	}, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, second.CompleteJob(ctx, job.Key, "w", nil))
	select {
	case text := <-got:
		require.Equal(t, "C9: 3", text)
	case <-ctx.Done():
		t.Fatal("c never ran")
	}
	require.Eventually(t, func() bool {
		snap, err := second.Instance(ctx, inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted
	}, 10*time.Second, 5*time.Millisecond)
}

// TestDAGFailFastOnUncaughtError: a BPMN error nothing catches fails the
// instance too.
func TestDAGFailFastOnUncaughtError(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.e.RegisterHandler("refuse", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.ThrowError("NOT_ALLOWED", "the board is archived")
	}))
	h.deploySource([]byte(`{"id":"thrower","startNode":"a","nodes":[{"id":"a","actionType":"refuse"}]}`))
	inst := h.start("thrower", nil)
	h.requireStatus(inst.ID, engine.StatusFailed)
	failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
	require.Len(t, failed, 1)
	require.Equal(t, "NOT_ALLOWED", failed[0].Detail["error"])
	require.Equal(t, "the board is archived", failed[0].Detail["message"])
	require.Equal(t, "a", failed[0].Detail["elementId"])
}

// TestDAGTemplateErrorTakesFailureRoute: a parameter that does not render
// fails the job for good, through the node's failure route, which learns
// the error.
func TestDAGTemplateErrorTakesFailureRoute(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := stubConnectors(h, nil, nil)
	h.deploySource([]byte(`{"id":"route","startNode":"post","nodes":[
		{"id":"post","actionType":"confluence.create-page","parameters":{"title":"{{ trigger.title }}"},"onFailure":"report"},
		{"id":"report","actionType":"slack.post-message","parameters":{"message":"{{ context.data['post'].error }}"}}]}`))
	inst := h.start("route", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Empty(t, c.of("confluence.create-page"))
	sent := c.of("slack.post-message")
	require.Len(t, sent, 1)
	require.Contains(t, sent[0]["message"], `parameter "title" of "post": {{ trigger.title }} is undefined`)
	require.Equal(t, 1, h.count(inst.ID, engine.EventJobCreated, "post"), "not retried: it would fail the same way")
}
