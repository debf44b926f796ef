package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

const chainSource = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="order" isExecutable="true">
    <extensionElements><wf:trigger on="completed" target="invoice"><wf:input source="=orderId" target="orderId"/></wf:trigger></extensionElements>
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/></process>
</definitions>`

const invoiceSource = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="invoice" isExecutable="true">
    <startEvent id="s"/><userTask id="review"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="review"/><sequenceFlow id="f2" sourceRef="review" targetRef="e"/></process>
</definitions>`

// TestChainLinks: GET /api/v1/instances/{id} names the instance whose end
// started this one (triggeredBy) and lists the instances an end started
// (triggered); the monitor pages link them both ways.
func TestChainLinks(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	f.deployXML(invoiceSource)
	f.deployXML(chainSource)
	order := f.start("order", map[string]any{"orderId": "o-7"})

	var view struct {
		Status    string
		Triggered []struct{ ID, Definition, Status, StatusURL string }
	}
	require.Eventually(t, func() bool {
		f.getJSON("/api/v1/instances/"+order, &view)
		return view.Status == "completed" && len(view.Triggered) == 1 && view.Triggered[0].Status == "waiting"
	}, 10*time.Second, 10*time.Millisecond)
	inv := view.Triggered[0]
	require.Equal(t, "invoice", inv.Definition)
	require.Equal(t, "/api/v1/instances/"+inv.ID, inv.StatusURL)

	var started struct {
		TriggeredBy *engine.ChainRef
		Variables   map[string]any
		Triggered   []struct{ ID string }
	}
	f.getJSON("/api/v1/instances/"+inv.ID, &started)
	require.Equal(t, &engine.ChainRef{InstanceID: order, Definition: "order", Trigger: 0, Depth: 1}, started.TriggeredBy)
	require.Equal(t, "o-7", started.Variables["orderId"])
	require.Empty(t, started.Triggered)

	page := f.getText("/instances/" + order)
	require.Contains(t, page, `href="/instances/`+inv.ID+`"`, "the order's monitor links the invoice")
	page = f.getText("/instances/" + inv.ID)
	require.Contains(t, page, `Triggered by the end of <a href="/instances/`+order+`"`, "the invoice's monitor links the order")
}

// TestChainDeployErrors: a trigger without target or with an unknown
// event is refused at deploy with the process named.
func TestChainDeployErrors(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	src := strings.Replace(chainSource, `on="completed" target="invoice"`, `on="ended" target=""`, 1)
	resp, err := http.Post("http://"+f.addr+"/api/v1/definitions", "application/xml", strings.NewReader(src))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%s", body)
	require.Contains(t, string(body), `trigger 1 of process \"order\" fires on \"ended\"`)
	require.Contains(t, string(body), `trigger 1 of process \"order\" has no target`)
}
