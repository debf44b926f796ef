package server_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// limitedProcess waits at a user task; it starts from the API or by the
// message "order", in a process with the given wf: limits.
func limitedProcess(id, attrs string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <message id="m" name="order-%[1]s"/>
  <process id="%[1]s" isExecutable="true" %[2]s>
    <startEvent id="start"/>
    <startEvent id="byMessage"><messageEventDefinition messageRef="m"/></startEvent>
    <userTask id="review"/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <sequenceFlow id="f2" sourceRef="byMessage" targetRef="review"/>
    <sequenceFlow id="f3" sourceRef="review" targetRef="end"/>
  </process>
</definitions>`, id, attrs)
}

// TestStartOverLimit: a start over wf:maxConcurrentInstances is refused
// with 429 and Retry-After, from the instances route and by a message.
func TestStartOverLimit(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploySource(limitedProcess("capped", `wf:maxConcurrentInstances="1" wf:overLimit="refuse"`))
	first, resp := f.start(map[string]any{"definition": "capped"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	_, resp = f.start(map[string]any{"definition": "capped"})
	env := requireEnvelope(t, resp, http.StatusTooManyRequests, "over_limit")
	require.Contains(t, env.Error.Message, "wf:maxConcurrentInstances")
	require.Equal(t, "5", resp.Header.Get("Retry-After"))

	resp = f.json(http.MethodPost, "/api/v1/messages", map[string]any{"name": "order-capped"}, nil)
	requireEnvelope(t, resp, http.StatusTooManyRequests, "over_limit")
	require.NotEmpty(t, resp.Header.Get("Retry-After"))

	tk := f.waitTask(first.ID)
	resp = f.json(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", map[string]any{}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	f.waitStatus(first.ID, "completed")
	_, resp = f.start(map[string]any{"definition": "capped"})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "a place is free again")
}

// TestStartQueued: over the cap with wf:overLimit="queue", a start is
// accepted as queued, listed by that status, and runs when a place frees up.
func TestStartQueued(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploySource(limitedProcess("queued", `wf:maxConcurrentInstances="1" wf:overLimit="queue"`))
	first, resp := f.start(map[string]any{"definition": "queued"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	second, resp := f.start(map[string]any{"definition": "queued"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, "queued", second.Status)

	var page instancePage
	resp = f.json(http.MethodGet, "/api/v1/instances?status=queued", nil, &page)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, page.Items, 1)
	require.Equal(t, second.ID, page.Items[0].ID)

	tk := f.waitTask(first.ID)
	f.json(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", map[string]any{}, nil)
	f.waitTask(second.ID)
	got := f.waitStatus(second.ID, "waiting")
	types := map[any]int{}
	for _, ev := range got.History {
		types[ev["type"]]++
	}
	require.Equal(t, 1, types["instance.queued"])
	require.Equal(t, 1, types["instance.started"])
}

// TestDeployBadLimits: a bad limit is refused at deploy, naming the attribute.
func TestDeployBadLimits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for attr, bad := range map[string]string{
		"wf:maxConcurrentInstances": `wf:maxConcurrentInstances="many"`,
		"wf:overLimit":              `wf:maxConcurrentInstances="2" wf:overLimit="drop"`,
		"wf:timeout":                `wf:timeout="an hour"`,
		"wf:retryBudget":            `wf:retryBudget="-1"`,
		"wf:onFailure":              `wf:onFailure="ignore"`,
	} {
		resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", limitedProcess("bad", bad), nil)
		env := requireEnvelope(t, resp, http.StatusUnprocessableEntity, "invalid_definition")
		require.Contains(t, env.Error.Message, attr)
	}
}
