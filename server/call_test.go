package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestCallActivityLinks: GET /api/v1/instances/{id} lists the instances a
// call activity started and names the caller of one; the monitor pages
// link them both ways.
func TestCallActivityLinks(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="waiter"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>
  <process id="waiter" isExecutable="true">
    <startEvent id="s"/><userTask id="wait"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process>
</definitions>`
	f.deployXML(src)
	caller := f.start("caller", nil)

	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + f.addr + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	var view struct {
		Children []struct{ ID, ProcessID, ElementID, Status, StatusURL string }
		Parent   *engine.ParentRef
	}
	require.Eventually(t, func() bool {
		_, body := get("/api/v1/instances/" + caller)
		return json.Unmarshal([]byte(body), &view) == nil && len(view.Children) == 1 && view.Children[0].Status == "waiting"
	}, 10*time.Second, 10*time.Millisecond)
	require.Nil(t, view.Parent)
	child := view.Children[0]
	require.Equal(t, "waiter", child.ProcessID)
	require.Equal(t, "call", child.ElementID)
	require.Equal(t, "/api/v1/instances/"+child.ID, child.StatusURL)

	status, body := get("/api/v1/instances/" + child.ID)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, json.Unmarshal([]byte(body), &view))
	require.Equal(t, caller, view.Parent.InstanceID)
	require.Equal(t, "call", view.Parent.ElementID)
	require.Empty(t, view.Children)

	_, page := get("/instances/" + caller)
	require.Contains(t, page, `href="/instances/`+child.ID+`"`, "the caller's monitor links the child")
	_, page = get("/instances/" + child.ID)
	require.Contains(t, page, `Called by <a href="/instances/`+caller+`"`, "the child's monitor links the caller")
}

// TestTriggerRoute: POST /api/v1/instances/{id}/trigger moves a catch that
// names no message by its element id; nothing waiting there is 404.
func TestTriggerRoute(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="waits" isExecutable="true">
    <startEvent id="s"/><receiveTask id="recv"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="recv"/><sequenceFlow id="f2" sourceRef="recv" targetRef="e"/></process>
</definitions>`
	f.deployXML(src)
	id := f.start("waits", nil)
	post := func(body string) (int, string) {
		resp, err := http.Post("http://"+f.addr+"/api/v1/instances/"+id+"/trigger", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := post(`{}`)
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Contains(t, body, `\"elementId\" is missing`)
	status, body = post(`{"elementId": "nowhere"}`)
	require.Equal(t, http.StatusNotFound, status, body)
	require.Contains(t, body, `waits for no message or signal at \"nowhere\"`)
	require.Eventually(t, func() bool {
		status, _ = post(`{"elementId": "recv", "variables": {"ok": true}}`)
		return status == http.StatusOK
	}, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		snap, err := f.eng.Instance(context.Background(), id)
		return err == nil && snap.Status == engine.StatusCompleted && snap.Variables["ok"] == true
	}, 10*time.Second, 10*time.Millisecond)
}

// deployXML deploys a BPMN source through the REST API.
func (f *liveFixture) deployXML(src string) {
	f.t.Helper()
	resp, err := http.Post("http://"+f.addr+"/api/v1/definitions", "application/xml", strings.NewReader(src))
	require.NoError(f.t, err)
	require.NoError(f.t, resp.Body.Close())
	require.Equal(f.t, http.StatusCreated, resp.StatusCode)
}

// TestConditionsRoute: POST /api/v1/conditions starts the processes whose
// conditional start holds for the variables.
func TestConditionsRoute(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	f.deployXML(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="alarm" isExecutable="true">
    <startEvent id="s"><conditionalEventDefinition><condition>temp &gt; 30</condition></conditionalEventDefinition></startEvent>
    <userTask id="check"/><sequenceFlow id="f1" sourceRef="s" targetRef="check"/></process>
</definitions>`)
	post := func(body string) string {
		resp, err := http.Post("http://"+f.addr+"/api/v1/conditions", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
		return string(b)
	}
	require.JSONEq(t, `{"started": 0}`, post(`{"variables": {"temp": 20}}`))
	require.JSONEq(t, `{"started": 1}`, post(`{"variables": {"temp": 35}}`))
}
