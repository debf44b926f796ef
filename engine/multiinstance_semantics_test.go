package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine"
)

// TestMultiInstance: a parallel multi-instance service task runs once per
// item and collects its outputs in item order; a sequential multi-instance
// user task creates one task after another, stops early when the completion
// condition holds, and an interrupting boundary timer cancels it whole.
func TestMultiInstance(t *testing.T) {
	t.Parallel()
	prices := engine.HandlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		item := j.Variables["item"].(map[string]any)
		qty, err := number(item["qty"]) // numbers come back from expressions as int64 or float64
		if err != nil {
			return nil, engine.Permanent(err)
		}
		return map[string]any{"price": qty * 10}, nil
	})
	vars := func() map[string]any {
		return map[string]any{
			"items":     []any{map[string]any{"qty": 1.0}, map[string]any{"qty": 2.0}, map[string]any{"qty": 3.0}},
			"approvers": []any{"ann", "bob", "cy"},
		}
	}

	t.Run("parallel outputs, then sequential tasks to the end", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("price", prices)
		inst := h.run("multi_instance", vars())
		snap := h.requireStatus(inst.ID, engine.StatusWaiting)
		var got []float64
		for _, p := range snap.Variables["prices"].([]any) {
			f, err := number(p)
			require.NoError(t, err)
			got = append(got, f)
		}
		require.Equal(t, []float64{10, 20, 30}, got, "outputs in item order")
		require.Equal(t, 3, h.count(inst.ID, engine.EventJobCreated, "price"))
		for _, who := range []string{"ann", "bob", "cy"} {
			open := h.tasks(inst.ID, engine.TaskOpen)
			require.Len(t, open, 1, "sequential: one task at a time")
			require.Equal(t, who, open[0].Assignee)
			h.complete(inst.ID, "approve", map[string]any{"rejected": false})
		}
		h.requireStatus(inst.ID, engine.StatusCompleted)
	})
	t.Run("completion condition stops early", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("price", prices)
		inst := h.run("multi_instance", vars())
		h.complete(inst.ID, "approve", map[string]any{"rejected": true})
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, 1, h.count(inst.ID, engine.EventTaskCreated, "approve"), "bob and cy never got a task")
	})
	t.Run("boundary timer cancels every instance", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("price", prices)
		inst := h.run("multi_instance", vars())
		h.complete(inst.ID, "approve", map[string]any{"rejected": false})
		h.advance(2 * time.Hour)
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Contains(t, h.elements(inst.ID, engine.EventElementCompleted), "timedOut")
		require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "bob's task is cancelled")
		require.Equal(t, 2, h.count(inst.ID, engine.EventTaskCreated, "approve"))
	})
	t.Run("empty collection completes at once", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("price", prices)
		inst := h.run("multi_instance", map[string]any{"items": []any{}, "approvers": []any{}})
		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, []any{}, snap.Variables["prices"])
	})
	t.Run("an error boundary on the activity ends every instance", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("check", engine.HandlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
			if j.Variables["item"] == "b" {
				return nil, engine.ThrowError("BAD_ITEM", "item b is bad")
			}
			return nil, nil
		}))
		inst := h.run("multi_instance_error", map[string]any{"items": []any{"a", "b", "c"}})
		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Empty(t, snap.Tokens)
		done := h.elements(inst.ID, engine.EventElementCompleted)
		require.Contains(t, done, "rejected")
		require.NotContains(t, done, "ok")
	})
	for name, items := range map[string]any{"null collection": nil, "not a list": "a,b"} {
		t.Run(name+" is an incident", func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("price", prices)
			inst := h.run("multi_instance", map[string]any{"items": items, "approvers": []any{}})
			snap := h.requireStatus(inst.ID, engine.StatusIncident)
			require.Len(t, snap.Incidents, 1)
			require.Contains(t, snap.Incidents[0].Message, `input collection "=items" gave`)
		})
	}
}

func number(v any) (float64, error) {
	switch v := v.(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case int:
		return float64(v), nil
	}
	return 0, fmt.Errorf("%v (%T) is not a number", v, v)
}

// TestMultiInstanceMaxParallelism: wf:maxParallelism caps how many instances
// of a parallel multi-instance activity run at once; the next starts as one
// completes.
func TestMultiInstanceMaxParallelism(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>
    <userTask id="review">
      <multiInstanceLoopCharacteristics wf:maxParallelism="2">
        <extensionElements><zeebe:loopCharacteristics inputCollection="=docs" inputElement="doc"/></extensionElements>
      </multiInstanceLoopCharacteristics>
    </userTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="review"/><sequenceFlow id="f2" sourceRef="review" targetRef="e"/></process>`))
	inst := h.start("p", map[string]any{"docs": []any{"a", "b", "c", "d", "e"}})
	for done := 0; done < 5; done++ {
		h.idle()
		open := h.tasks(inst.ID, engine.TaskOpen)
		require.Len(t, open, min(2, 5-done), "at most two at once, after %d done", done)
		_, err := h.e.CompleteTask(h.ctx, open[0].ID, "tester", nil)
		require.NoError(t, err)
	}
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 5, h.count(inst.ID, engine.EventTaskDone, "review"))

	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: callBPMN(`<process id="q" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><task id="t"><multiInstanceLoopCharacteristics wf:maxParallelism="none"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></task>
    <sequenceFlow id="f1" sourceRef="s" targetRef="t"/></process>`)})
	require.ErrorContains(t, err, `wf:maxParallelism "none" is not a positive whole number`)
}

// TestMultiInstanceErrorPolicy: an instance whose job fails for good raises
// an incident (stop, the default), is skipped (continue), or is skipped
// with its error gathered (collect).
func TestMultiInstanceErrorPolicy(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"", "continue", "collect"} {
		t.Run("policy "+policy, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("square", engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
				n, _ := job.Variables["n"].(int64)
				if n == 2 {
					return nil, engine.Permanent(errors.New("two is not allowed"))
				}
				return map[string]any{"sq": n * n}, nil
			}))
			attr := ""
			if policy != "" {
				attr = ` wf:errorPolicy="` + policy + `" wf:errorsVariable="failures"`
			}
			h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>
    <serviceTask id="work" wf:type="square">
      <multiInstanceLoopCharacteristics` + attr + `>
        <extensionElements><zeebe:loopCharacteristics inputCollection="=[1, 2, 3]" inputElement="n" outputCollection="squares" outputElement="=sq"/></extensionElements>
      </multiInstanceLoopCharacteristics>
    </serviceTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`))
			inst := h.start("p", nil)
			if policy == "" {
				h.requireStatus(inst.ID, engine.StatusIncident)
				return
			}
			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, []any{int64(1), nil, int64(9)}, normalizeList(snap.Variables["squares"]), "the failed item has no output")
			if policy == "continue" {
				require.NotContains(t, snap.Variables, "failures")
				return
			}
			failures := snap.Variables["failures"].([]any)
			require.Len(t, failures, 1)
			f := failures[0].(map[string]any)
			require.EqualValues(t, 2, f["item"])
			require.Contains(t, f["error"], "two is not allowed")
		})
	}
}

// TestMultiInstanceSubProcessErrorPolicy: a multi-instance sub-process's
// error policy applies to work that fails inside its body: the item's
// instance ends (its other work cancelled) and the rest go on.
func TestMultiInstanceSubProcessErrorPolicy(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"", "continue", "collect"} {
		t.Run("policy "+policy, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("check", engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
				if n, _ := job.Variables["n"].(int64); n == 2 {
					return nil, engine.Permanent(errors.New("two is not allowed"))
				}
				return nil, nil
			}))
			h.e.RegisterHandler("after", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil }))
			attr := ""
			if policy != "" {
				attr = ` wf:errorPolicy="` + policy + `"`
			}
			h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>
    <subProcess id="each">
      <multiInstanceLoopCharacteristics` + attr + `>
        <extensionElements><zeebe:loopCharacteristics inputCollection="=[1, 2, 3]" inputElement="n"/></extensionElements>
      </multiInstanceLoopCharacteristics>
      <startEvent id="bs"/><serviceTask id="check" wf:type="check"/><serviceTask id="after" wf:type="after"/><endEvent id="be"/>
      <sequenceFlow id="b1" sourceRef="bs" targetRef="check"/><sequenceFlow id="b2" sourceRef="check" targetRef="after"/><sequenceFlow id="b3" sourceRef="after" targetRef="be"/>
    </subProcess>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="each"/><sequenceFlow id="f2" sourceRef="each" targetRef="e"/></process>`))
			inst := h.start("p", nil)
			if policy == "" {
				h.requireStatus(inst.ID, engine.StatusIncident)
				return
			}
			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, 2, h.count(inst.ID, engine.EventElementCompleted, "after"), "the failed item's instance ended at its failure")
			if policy == "continue" {
				require.NotContains(t, snap.Variables, "errors")
				return
			}
			failures := snap.Variables["errors"].([]any)
			require.Len(t, failures, 1)
			require.Contains(t, failures[0].(map[string]any)["error"], "two is not allowed")
		})
	}
}
