package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type stateView struct {
	Status       string `json:"status"`
	CurrentState string `json:"currentState"`
	StateHistory []struct {
		State      string     `json:"state"`
		Entered    time.Time  `json:"entered"`
		Exited     *time.Time `json:"exited"`
		Transition string     `json:"transition"`
		Target     string     `json:"target"`
	} `json:"stateHistory"`
}

// post sends body to path and returns the answer's status and body.
func (f *liveFixture) post(path, contentType, body string) (int, []byte) {
	f.t.Helper()
	resp, err := http.Post("http://"+f.addr+path, contentType, strings.NewReader(body))
	require.NoError(f.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	return resp.StatusCode, b
}

// TestStateMachineOverHTTP: a YAML state machine deploys through POST
// /api/v1/definitions, and GET /api/v1/instances/{id} reports its current
// state and state history as the machine moves on a condition and a message.
func TestStateMachineOverHTTP(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "state-machine-order.yaml"))
	require.NoError(t, err)
	code, body := f.post("/api/v1/definitions", "application/yaml", string(src))
	require.Equal(t, http.StatusCreated, code, "%s", body)
	require.Contains(t, string(body), `"format":"state_machine"`)

	code, body = f.post("/api/v1/instances", "application/json", `{"definition":"order_lifecycle","variables":{"orderId":"o-7","total":80}}`)
	require.Equal(t, http.StatusCreated, code, "%s", body)
	var inst struct{ ID string }
	require.NoError(t, json.Unmarshal(body, &inst))

	view := func() stateView {
		var v stateView
		f.getJSON("/api/v1/instances/"+inst.ID, &v)
		return v
	}
	require.Eventually(t, func() bool { return view().CurrentState == "approved" }, 10*time.Second, 10*time.Millisecond)
	v := view()
	require.Len(t, v.StateHistory, 2)
	require.Equal(t, "pending", v.StateHistory[0].State)
	require.Equal(t, "condition: total <= 1000", v.StateHistory[0].Transition)
	require.Equal(t, "approved", v.StateHistory[0].Target)
	require.NotNil(t, v.StateHistory[0].Exited)
	require.Nil(t, v.StateHistory[1].Exited)

	require.Eventually(t, func() bool {
		code, _ := f.post("/api/v1/messages", "application/json", `{"name":"order.shipped","correlationKey":"o-7"}`)
		return code == http.StatusOK // the subscription opens once the reservation job is done
	}, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return view().CurrentState == "shipped" }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, "message: order.shipped", view().StateHistory[1].Transition)
}

// TestStateMachineProblemsOverHTTP: a state machine with a problem is
// refused with a 4xx naming the state.
func TestStateMachineProblemsOverHTTP(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	code, body := f.post("/api/v1/definitions", "application/yaml", "workflow_id: w\ntype: state_machine\ninitial_state: a\nstates:\n  a:\n    transitions:\n      - target: b\n")
	require.Equal(t, http.StatusUnprocessableEntity, code, "%s", body)
	require.Contains(t, string(body), `target \"b\" is not a state`)
	require.Contains(t, string(body), `"elementId":"a"`)
}
