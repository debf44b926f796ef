package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// deploySteps deploys testdata/steps/<name> (detected as the steps format)
// and returns its key.
func (h *harness) deploySteps(name string) string {
	h.t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "steps", name))
	require.NoError(h.t, err)
	rec := h.deploySource(src)
	require.Equal(h.t, engine.FormatSteps, rec.Format, name)
	return rec.Key
}

// agents registers a handler for each agent name: it records the job's
// variables and answers with what answer gives (nil: no variables).
func agents(h *harness, answer func(j *engine.Job) (map[string]any, error), names ...string) *calls {
	c := &calls{}
	for _, name := range names {
		h.e.RegisterHandler(name, handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
			c.record(j.Type, j.Variables)
			if answer == nil {
				return nil, nil
			}
			return answer(j)
		}))
	}
	return c
}

// TestStepsAgentRetries: an agent step's retry runs the agent again after
// its initial_delay_ms, with the input_mapping's variables.
func TestStepsAgentRetries(t *testing.T) {
	t.Parallel()
	h := setup(t)
	failed := false
	c := agents(h, func(j *engine.Job) (map[string]any, error) {
		if j.Type == "web.search" && !failed {
			failed = true
			return nil, &engine.CodedError{Code: "TIMEOUT", Err: errors.New("search engine busy")}
		}
		return map[string]any{"found": j.Type}, nil
	}, "web.search", "text.summarise")
	snap := h.start(h.deploySteps("agent.yaml"), nil)
	require.Len(t, c.of("web.search"), 1)
	require.Empty(t, c.of("text.summarise"), "summarise waits for the retry")
	h.advance(time.Second)
	h.requireStatus(snap.ID, engine.StatusCompleted)
	searches := c.of("web.search")
	require.Len(t, searches, 2)
	require.Equal(t, "workflows", searches[1]["query"], "input_mapping query: topic")
	require.Len(t, c.of("text.summarise"), 1)
}

// TestStepsParallel: the parallel steps all run, and next_step runs once
// after the last of them.
func TestStepsParallel(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := agents(h, nil, "crm.lookup", "news.search", "finance.lookup", "report.write")
	snap := h.start(h.deploySteps("parallel.json"), nil)
	h.requireStatus(snap.ID, engine.StatusCompleted)
	for _, typ := range []string{"crm.lookup", "news.search", "finance.lookup", "report.write"} {
		require.Len(t, c.of(typ), 1, typ)
	}
	report := h.firstIndex(snap.ID, engine.EventElementActivated, "report")
	for _, id := range []string{"crm", "news", "finance"} {
		require.Less(t, h.firstIndex(snap.ID, engine.EventElementCompleted, id), report, id)
	}
}

// TestStepsConditional: then runs when the condition holds, else when it
// does not, and both go on to the conditional's next_step.
func TestStepsConditional(t *testing.T) {
	t.Parallel()
	h := setup(t)
	score := 0.0
	c := agents(h, func(j *engine.Job) (map[string]any, error) {
		if j.Type == "lead.score" {
			return map[string]any{"score": score}, nil
		}
		return nil, nil
	}, "lead.score", "sales.call", "marketing.nurture", "team.notify")
	key := h.deploySteps("conditional.yaml")
	score = 0.9
	hot := h.start(key, nil)
	h.requireStatus(hot.ID, engine.StatusCompleted)
	require.Len(t, c.of("sales.call"), 1)
	require.Empty(t, c.of("marketing.nurture"))
	score = 0.2
	cold := h.start(key, nil)
	h.requireStatus(cold.ID, engine.StatusCompleted)
	require.Len(t, c.of("marketing.nurture"), 1)
	require.Len(t, c.of("sales.call"), 1)
	score = 0.9
	blocked := h.start(key, map[string]any{"blocked": true})
	h.requireStatus(blocked.ID, engine.StatusCompleted)
	require.Len(t, c.of("marketing.nurture"), 2, "not ${workflow.input.blocked} reads the start variables")
	require.Len(t, c.of("team.notify"), 3, "both branches go on to notify")
}

// TestStepsLoop: each of the first max_iterations items runs through the
// body; the item that fails is skipped and its error collected.
func TestStepsLoop(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := agents(h, func(j *engine.Job) (map[string]any, error) {
		if j.Type == "doc.translate" && j.Variables["doc"] == "c" {
			return nil, engine.Permanent(errors.New("cannot translate c"))
		}
		return nil, nil
	}, "doc.translate", "doc.review", "doc.publish")
	snap := h.start(h.deploySteps("loop.yaml"), nil)
	h.requireStatus(snap.ID, engine.StatusCompleted)
	var docs []any
	for _, v := range c.of("doc.translate") {
		require.Equal(t, v["doc"], v["text"], "input_mapping text: ${loop.item}")
		require.Equal(t, []any{"a", "b", "c", "d"}[toInt(v["position"])], v["doc"], "input_mapping position: ${loop.index}")
		docs = append(docs, v["doc"])
	}
	require.ElementsMatch(t, []any{"a", "b", "c", "d"}, docs, "max_iterations 4 leaves e out")
	require.Len(t, c.of("doc.review"), 3, "c failed and was skipped")
	require.Len(t, c.of("doc.publish"), 1)
	errs, ok := snap.Variables["errors"].([]any)
	require.True(t, ok, "on_error collect gathers the errors: %v", snap.Variables)
	require.Len(t, errs, 1)
	require.Contains(t, fmt.Sprint(errs[0]), "cannot translate c")
}

// TestStepsForkJoin: with join_policy n_of_m and n_required 2, the workflow
// goes on when two of three branches succeed, and the join's results show
// each branch by name.
func TestStepsForkJoin(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := agents(h, func(j *engine.Job) (map[string]any, error) {
		if j.Type == "quote.beta" {
			return nil, engine.Permanent(errors.New("beta is closed"))
		}
		return map[string]any{"price": 10}, nil
	}, "quote.alpha", "quote.beta", "quote.check", "quote.gamma", "quote.choose")
	snap := h.start(h.deploySteps("fork_join.yaml"), nil)
	h.requireStatus(snap.ID, engine.StatusCompleted)
	require.Len(t, c.of("quote.choose"), 1)
	require.Empty(t, c.of("quote.check"), "the beta branch stopped at its failed step")
	results, ok := snap.Variables["ask__join"].(map[string]any)
	require.True(t, ok, "the join's results: %v", snap.Variables)
	require.Contains(t, fmt.Sprint(results["ask__alpha"]), "completed")
	require.Contains(t, fmt.Sprint(results["ask__beta"]), "failed")
}

// TestStepsForkJoinFails: when too few branches succeed for the policy,
// the workflow fails.
func TestStepsForkJoinFails(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := agents(h, func(j *engine.Job) (map[string]any, error) {
		if j.Type != "quote.alpha" {
			return nil, engine.Permanent(errors.New("closed"))
		}
		return nil, nil
	}, "quote.alpha", "quote.beta", "quote.check", "quote.gamma", "quote.choose")
	snap := h.start(h.deploySteps("fork_join.yaml"), nil)
	h.requireStatus(snap.ID, engine.StatusFailed)
	require.Empty(t, c.of("quote.choose"))
}

// TestStepsSubWorkflow: a sub_workflow step runs the named workflow with
// its input_mapping and goes on when it completes.
func TestStepsSubWorkflow(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := agents(h, func(j *engine.Job) (map[string]any, error) {
		if j.Type == "text.summarise" {
			return map[string]any{"summary": "short"}, nil
		}
		return nil, nil
	}, "web.search", "text.summarise", "mail.send")
	h.deploySteps("agent.yaml")
	snap := h.start(h.deploySteps("sub_workflow.yaml"), map[string]any{"subject": "news"})
	h.requireStatus(snap.ID, engine.StatusCompleted)
	require.Len(t, h.children(snap.ID), 1)
	require.Equal(t, "weekly news", c.of("web.search")[0]["query"])
	require.Equal(t, "short", c.of("mail.send")[0]["summary"], "the sub-workflow's variables come back")
}

// TestStepsWaitForEvent: a message wait goes on when the message comes,
// and after timeout_seconds without it (on_timeout continue).
func TestStepsWaitForEvent(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := agents(h, nil, "invoice.send", "order.ship")
	key := h.deploySteps("wait_for_event.yaml")
	paid := h.start(key, map[string]any{"orderId": "o-1"})
	late := h.start(key, map[string]any{"orderId": "o-2"})
	require.Len(t, c.of("invoice.send"), 2)
	require.Empty(t, c.of("order.ship"))
	n, err := h.e.Correlate(h.ctx, engine.Message{Name: "payment-received", CorrelationKey: "o-1", Variables: map[string]any{"paid": true}})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	h.idle()
	h.requireStatus(paid.ID, engine.StatusCompleted)
	h.requireStatus(late.ID, engine.StatusWaiting)
	h.advance(time.Hour)
	h.requireStatus(late.ID, engine.StatusCompleted)
	require.Len(t, c.of("order.ship"), 2)
}

func toInt(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case float64:
		return int(n)
	case int:
		return n
	}
	return -1
}
