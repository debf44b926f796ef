package server_test

import (
	"context"
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
