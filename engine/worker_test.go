package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine"
)

// TestNodeConcurrencyLimit: wf:concurrency="1" lets one job of the node run
// at a time, however many instances reach it and however many workers the
// engine has by default.
func TestNodeConcurrencyLimit(t *testing.T) {
	t.Parallel()
	h := setup(t, withConfig(func(c *engine.Config) { c.NodeWorkers = 8 }))
	var running, most atomic.Int32
	h.e.RegisterHandler("slow", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		// Hold the job until a second one runs beside it, or 20 ms pass: with
		// the limit working, none ever does.
		deadline := time.Now().Add(20 * time.Millisecond)
		for running.Load() < 2 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		running.Add(-1)
		return nil, nil
	}))
	key := h.deploy("node_concurrency")
	var ids []string
	for range 20 {
		snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
		require.NoError(t, err)
		ids = append(ids, snap.ID)
	}
	h.idle()
	for _, id := range ids {
		h.requireStatus(id, engine.StatusCompleted)
	}
	require.EqualValues(t, 1, most.Load(), "at most one job of the node ran at once")
}

// TestJobPriority: wf:priority (here an expression per instance) orders
// the jobs external workers fetch: highest first, in arrival order among
// equals.
func TestJobPriority(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><serviceTask id="work" wf:type="remote" wf:priority="=prio"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`))
	byID := map[string]int{}
	for _, prio := range []int{10, 90, 50, 90} {
		inst := h.start("p", map[string]any{"prio": prio})
		byID[inst.ID] = prio
	}
	h.idle()
	jobs, err := h.e.FetchAndLock(h.ctx, "remote", "w", 10, time.Minute)
	require.NoError(t, err)
	var got []int
	for _, j := range jobs {
		got = append(got, byID[j.InstanceID])
	}
	require.Equal(t, []int{90, 90, 50, 10}, got)
}

// TestJobPriorityInTheNodeQueue: jobs a handler runs leave the node's queue
// by priority when they have to wait (one at a time here).
func TestJobPriorityInTheNodeQueue(t *testing.T) {
	t.Parallel()
	h := setup(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	h.e.RegisterHandler("local", engine.HandlerFunc(func(ctx context.Context, job *engine.Job) (map[string]any, error) {
		p := fmt.Sprint(job.Variables["prio"])
		if p == "100" {
			<-release // the first job holds the only slot while the others queue
		}
		mu.Lock()
		order = append(order, p)
		mu.Unlock()
		return nil, nil
	}))
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><serviceTask id="work" wf:type="local" wf:priority="=prio" wf:concurrency="1"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`))
	for _, prio := range []int{100, 10, 90, 50} { // not h.start: it waits for an idle engine
		_, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "p", Variables: map[string]any{"prio": prio}})
		require.NoError(t, err)
	}
	close(release)
	h.idle()
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"100", "90", "50", "10"}, order, "high, normal, then low priority, not the order they came in")
}
