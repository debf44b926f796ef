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

// TestAdHocActivateRoute: POST /api/v1/instances/{id}/adhoc/{elementId}/activate
// starts elements of a running ad-hoc sub-process; a wrong element is 400,
// a sub-process that does not run 404.
func TestAdHocActivateRoute(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	f.deployXML(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="case" isExecutable="true">
    <startEvent id="s"/>
    <adHocSubProcess id="work">
      <scriptTask id="note" scriptFormat="javascript"><script>return {noted: topic}</script></scriptTask>
      <userTask id="review"/>
    </adHocSubProcess>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>
</definitions>`)
	id := f.start("case", nil)
	post := func(element, body string) (int, string) {
		resp, err := http.Post("http://"+f.addr+"/api/v1/instances/"+id+"/adhoc/"+element+"/activate", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := post("work", `{}`)
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Contains(t, body, `\"elements\" is missing`)
	require.Eventually(t, func() bool {
		status, body = post("work", `{"elements": ["nope"]}`)
		return status == http.StatusBadRequest
	}, 10*time.Second, 10*time.Millisecond, body)
	require.Contains(t, body, `cannot start \"nope\": it starts note, review`)
	status, body = post("s", `{"elements": ["note"]}`)
	require.Equal(t, http.StatusNotFound, status, body)

	status, body = post("work", `{"elements": ["note"], "variables": {"topic": "bpmn"}}`)
	require.Equal(t, http.StatusOK, status, body)
	require.Eventually(t, func() bool {
		snap, err := f.eng.Instance(context.Background(), id)
		return err == nil && snap.Status == engine.StatusCompleted && snap.Variables["noted"] == "bpmn"
	}, 10*time.Second, 10*time.Millisecond, "note ran and, nothing else started, the ad-hoc sub-process completed")
}

// TestInstanceViewListsWatchers: the token waiting at an event
// sub-process's start shows in GET /api/v1/instances/{id} (the monitor
// draws it), though the store keeps it as its subscription.
func TestInstanceViewListsWatchers(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	f.deployXML(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="m" name="nudge"/>
  <process id="watched" isExecutable="true">
    <startEvent id="s"/><userTask id="work"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    <subProcess id="esp" triggeredByEvent="true">
      <startEvent id="espStart" isInterrupting="false"><messageEventDefinition messageRef="m"/></startEvent><endEvent id="espEnd"/>
      <sequenceFlow id="ef" sourceRef="espStart" targetRef="espEnd"/>
    </subProcess>
  </process>
</definitions>`)
	id := f.start("watched", nil)
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + f.addr + "/api/v1/instances/" + id)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var view struct {
			Tokens []struct {
				ElementID string `json:"elementId"`
				Watch     bool   `json:"watch"`
			} `json:"tokens"`
		}
		if json.NewDecoder(resp.Body).Decode(&view) != nil {
			return false
		}
		watching, working := false, false
		for _, tk := range view.Tokens {
			watching = watching || tk.ElementID == "espStart" && tk.Watch
			working = working || tk.ElementID == "work"
		}
		return watching && working
	}, 10*time.Second, 10*time.Millisecond)
}
