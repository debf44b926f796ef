package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// transactionProcess books a hotel inside a transaction (its handler
// appends to undone), while a user task waits beside it; then, when ok
// is false, the cancel end event cancels the transaction; when ok is
// "hazard", an error end event leaves it.
func transactionProcess() []byte {
	return callBPMN(`<process id="trip" isExecutable="true">
    <startEvent id="s"/>
    <transaction id="tx">
      <startEvent id="ts"/>
      <parallelGateway id="fork"/>
      <userTask id="confirm"/>
      <scriptTask id="hotel" scriptFormat="javascript"><script>return {booking: "hotel-" + n}</script></scriptTask>
      <boundaryEvent id="hotelComp" attachedToRef="hotel"><compensateEventDefinition/></boundaryEvent>
      <scriptTask id="cancelHotel" scriptFormat="javascript" isForCompensation="true"><script>return {undone: "cancel " + booking}</script></scriptTask>
      <exclusiveGateway id="check" default="toDone"/>
      <endEvent id="cancelled"><cancelEventDefinition/></endEvent>
      <endEvent id="hazard"><errorEventDefinition errorRef="Err"/></endEvent>
      <endEvent id="done"/>
      <sequenceFlow id="t1" sourceRef="ts" targetRef="fork"/>
      <sequenceFlow id="t2" sourceRef="fork" targetRef="confirm"/><sequenceFlow id="t3" sourceRef="confirm" targetRef="done"/>
      <sequenceFlow id="t4" sourceRef="fork" targetRef="hotel"/><sequenceFlow id="t5" sourceRef="hotel" targetRef="check"/>
      <sequenceFlow id="toCancel" sourceRef="check" targetRef="cancelled"><conditionExpression>ok === false</conditionExpression></sequenceFlow>
      <sequenceFlow id="toHazard" sourceRef="check" targetRef="hazard"><conditionExpression>ok === "hazard"</conditionExpression></sequenceFlow>
      <sequenceFlow id="toDone" sourceRef="check" targetRef="done"/>
      <association id="a1" sourceRef="hotelComp" targetRef="cancelHotel"/>
    </transaction>
    <boundaryEvent id="onCancel" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>
    <boundaryEvent id="onError" attachedToRef="tx"><errorEventDefinition/></boundaryEvent>
    <endEvent id="booked"/><endEvent id="rolledBack"/><endEvent id="failed"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="tx"/><sequenceFlow id="f2" sourceRef="tx" targetRef="booked"/>
    <sequenceFlow id="f3" sourceRef="onCancel" targetRef="rolledBack"/><sequenceFlow id="f4" sourceRef="onError" targetRef="failed"/>
  </process><error id="Err" errorCode="E1"/>`)
}

func TestTransactionCancelCompensatesThenTakesTheCancelBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(transactionProcess())
	inst := h.start("trip", map[string]any{"n": 7, "ok": false})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "cancel hotel-7", snap.Variables["undone"], "the completed booking was compensated")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "rolledBack"), "the cancel boundary event's path ran")
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "booked"))
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "the transaction's other work ended")
	require.Less(t, h.firstIndex(inst.ID, engine.EventElementCompleted, "cancelHotel"), h.firstIndex(inst.ID, engine.EventBoundaryTriggered, "onCancel"),
		"compensation runs before the cancel boundary event fires")
}

func TestTransactionHazardCompensatesNothing(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(transactionProcess())
	inst := h.start("trip", map[string]any{"n": 7, "ok": "hazard"})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.NotContains(t, snap.Variables, "undone", "an error leaving a transaction is a hazard: nothing is compensated")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "failed"))
}

func TestTransactionCompletes(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(transactionProcess())
	inst := h.start("trip", map[string]any{"n": 7, "ok": true})
	h.complete(inst.ID, "confirm", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.NotContains(t, snap.Variables, "undone")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "booked"))
}

func TestCancelEventsOutsideTransactionsAreRefused(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/><subProcess id="sub"><startEvent id="ss"/><endEvent id="c"><cancelEventDefinition/></endEvent>
    <sequenceFlow id="sf" sourceRef="ss" targetRef="c"/></subProcess>
    <boundaryEvent id="b" attachedToRef="sub"><cancelEventDefinition/></boundaryEvent><endEvent id="e"/><endEvent id="e2"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><sequenceFlow id="f3" sourceRef="b" targetRef="e2"/></process>`)})
	require.ErrorContains(t, err, "put it directly inside a transaction sub-process")
	require.ErrorContains(t, err, "attach it to a transaction sub-process, not a subProcess")
}
