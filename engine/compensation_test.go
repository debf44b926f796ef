package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// bookingProcess books a hotel then a flight (each with a compensation
// handler that appends to undone, seeing the booking as it was), then
// throws compensation as given.
func bookingProcess(throw string) []byte {
	return callBPMN(`<process id="trip" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="hotel" scriptFormat="javascript"><script>return {booking: "hotel-" + n, n: n + 1}</script></scriptTask>
    <boundaryEvent id="hotelComp" attachedToRef="hotel"><compensateEventDefinition/></boundaryEvent>
    <scriptTask id="cancelHotel" scriptFormat="javascript" isForCompensation="true"><script>return {undone: (typeof undone === 'object' ? undone : []).concat(["cancel " + booking])}</script></scriptTask>
    <scriptTask id="flight" scriptFormat="javascript"><script>return {booking: "flight-" + n, n: n + 1}</script></scriptTask>
    <boundaryEvent id="flightComp" attachedToRef="flight"><compensateEventDefinition/></boundaryEvent>
    <scriptTask id="cancelFlight" scriptFormat="javascript" isForCompensation="true"><script>return {undone: (typeof undone === 'object' ? undone : []).concat(["cancel " + booking])}</script></scriptTask>
    ` + throw + `
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="hotel"/><sequenceFlow id="f2" sourceRef="hotel" targetRef="flight"/>
    <sequenceFlow id="f3" sourceRef="flight" targetRef="undo"/><sequenceFlow id="f4" sourceRef="undo" targetRef="e"/>
    <association id="a1" sourceRef="hotelComp" targetRef="cancelHotel"/><association id="a2" sourceRef="flightComp" targetRef="cancelFlight"/>
  </process>`)
}

func TestCompensationUndoesNewestFirst(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(bookingProcess(`<intermediateThrowEvent id="undo"><compensateEventDefinition/></intermediateThrowEvent>`))
	inst := h.start("trip", map[string]any{"n": 1})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{"cancel flight-2", "cancel hotel-1"}, snap.Variables["undone"],
		"handlers run newest first, each with the variables of its activity's completion")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"), "the throw went on afterwards")
}

func TestCompensationOfOneActivity(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(bookingProcess(`<intermediateThrowEvent id="undo"><compensateEventDefinition activityRef="hotel"/></intermediateThrowEvent>`))
	inst := h.start("trip", map[string]any{"n": 1})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{"cancel hotel-1"}, snap.Variables["undone"])
}

func TestCompensationOfACompletedSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="book">
      <startEvent id="bs"/>
      <scriptTask id="seat" scriptFormat="javascript"><script>return {seat: "12A"}</script></scriptTask>
      <boundaryEvent id="seatComp" attachedToRef="seat"><compensateEventDefinition/></boundaryEvent>
      <scriptTask id="freeSeat" scriptFormat="javascript" isForCompensation="true"><script>return {freed: seat}</script></scriptTask>
      <endEvent id="be"/>
      <sequenceFlow id="bf1" sourceRef="bs" targetRef="seat"/><sequenceFlow id="bf2" sourceRef="seat" targetRef="be"/>
      <association id="a1" sourceRef="seatComp" targetRef="freeSeat"/>
    </subProcess>
    <endEvent id="undo"><compensateEventDefinition activityRef="book"/></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="book"/><sequenceFlow id="f2" sourceRef="book" targetRef="undo"/></process>`))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "12A", snap.Variables["freed"], "compensating the sub-process undid what it held")
}

// TestCompensationWaitsForItsHandlers: a compensation throw waits while a
// handler that takes time (a user task) runs, then goes on.
func TestCompensationWaitsForItsHandlers(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="charge" scriptFormat="javascript"><script>return {charged: 10}</script></scriptTask>
    <boundaryEvent id="chargeComp" attachedToRef="charge"><compensateEventDefinition/></boundaryEvent>
    <userTask id="refund" isForCompensation="true"/>
    <intermediateThrowEvent id="undo"><compensateEventDefinition/></intermediateThrowEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="charge"/><sequenceFlow id="f2" sourceRef="charge" targetRef="undo"/>
    <sequenceFlow id="f3" sourceRef="undo" targetRef="e"/>
    <association id="a1" sourceRef="chargeComp" targetRef="refund"/></process>`))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "e"), "the throw waits for its handler")
	require.Len(t, snap.Tasks, 1)
	h.complete(inst.ID, "refund", map[string]any{"refunded": true})
	done := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, true, done.Variables["refunded"])
}
