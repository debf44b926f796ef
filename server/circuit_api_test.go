package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// circuitXML calls its url variable with the http handler behind a
// circuit breaker that two failures open; a boundary catches CIRCUIT_OPEN.
const circuitXML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="breaker" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="call" wf:type="http" wf:retries="0" wf:circuitBreaker="true" wf:circuitFailureThreshold="2"/>
    <boundaryEvent id="open" attachedToRef="call"><errorEventDefinition errorRef="circuitOpen"/></boundaryEvent>
    <endEvent id="done"/>
    <endEvent id="skipped"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <sequenceFlow id="f2" sourceRef="call" targetRef="done"/>
    <sequenceFlow id="f3" sourceRef="open" targetRef="skipped"/>
  </process>
  <error id="circuitOpen" errorCode="CIRCUIT_OPEN"/>
</definitions>`

type circuitItem struct {
	Key      string     `json:"key"`
	State    string     `json:"state"`
	Failures int        `json:"failures"`
	OpenedAt *time.Time `json:"openedAt"`
	Config   struct {
		FailureThreshold int   `json:"failureThreshold"`
		OpenTimeoutMs    int64 `json:"openTimeoutMs"`
	} `json:"config"`
}

// TestCircuitsAPI: an http task's failures open the breaker of its host;
// GET /api/v1/circuits lists it, /metrics and the WebSocket tell of it,
// jobs fail fast into the boundary without calling, and a reset closes it.
func TestCircuitsAPI(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	host := strings.TrimPrefix(down.URL, "http://")
	key := "http:" + host

	f := setupLive(t)
	f.deployXML(circuitXML)
	ws := f.client(nil)
	ws.subscribe(map[string]any{"circuits": true})

	status := func(id string) engine.Status {
		snap, err := f.eng.Instance(context.Background(), id)
		require.NoError(t, err)
		return snap.Status
	}
	for range 2 {
		id := f.start("breaker", map[string]any{"url": down.URL})
		require.Eventually(t, func() bool { return status(id) == engine.StatusIncident }, 10*time.Second, 5*time.Millisecond)
	}
	m := ws.read()
	require.Equal(t, "event", m.Type)
	require.Equal(t, engine.EventCircuitOpened, m.Event.Type)
	require.Equal(t, key, m.Event.Detail["key"])

	var page struct{ Items []circuitItem }
	f.getJSON("/api/v1/circuits", &page)
	require.Len(t, page.Items, 1)
	c := page.Items[0]
	require.Equal(t, key, c.Key)
	require.Equal(t, "open", c.State)
	require.NotNil(t, c.OpenedAt)
	require.Equal(t, 2, c.Config.FailureThreshold)
	require.Equal(t, time.Minute.Milliseconds(), c.Config.OpenTimeoutMs, "the default")
	require.Contains(t, f.getText("/metrics"), fmt.Sprintf("wfpp_circuit_state{key=%q} 1", key))

	id := f.start("breaker", map[string]any{"url": down.URL})
	require.Eventually(t, func() bool { return status(id) == engine.StatusCompleted }, 10*time.Second, 5*time.Millisecond)
	snap, err := f.eng.Instance(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, "CIRCUIT_OPEN", snap.Variables["errorCode"])
	require.EqualValues(t, 2, calls.Load(), "the open breaker did not call the host")

	resp, err := http.Post("http://"+f.addr+"/api/v1/circuits/"+url.PathEscape(key)+"/reset", "application/json", nil)
	require.NoError(t, err)
	var reset circuitItem
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reset))
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "closed", reset.State)
	require.Nil(t, reset.OpenedAt)
	m = ws.read()
	require.Equal(t, engine.EventCircuitClosed, m.Event.Type)
	require.Contains(t, f.getText("/metrics"), fmt.Sprintf("wfpp_circuit_state{key=%q} 0", key))

	resp, err = http.Post("http://"+f.addr+"/api/v1/circuits/nobody/reset", "application/json", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func (f *liveFixture) getText(path string) string {
	f.t.Helper()
	resp, err := http.Get("http://" + f.addr + path)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	require.Equal(f.t, http.StatusOK, resp.StatusCode, "%s: %s", path, b)
	return string(b)
}

func (f *liveFixture) getJSON(path string, out any) {
	f.t.Helper()
	require.NoError(f.t, json.Unmarshal([]byte(f.getText(path)), out))
}
