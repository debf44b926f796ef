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

// TestCompensationEventSubProcess: a sub-process with a compensation event
// sub-process is undone by it, in its stead; it sees the sub-process's
// variables as they were, its writes reach the process, and its own
// compensation throw undoes the sub-process's inner activities.
func TestCompensationEventSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="book">
      <startEvent id="bs"/>
      <scriptTask id="seat" scriptFormat="javascript"><script>return {seat: "12A", price: 10}</script></scriptTask>
      <boundaryEvent id="seatComp" attachedToRef="seat"><compensateEventDefinition/></boundaryEvent>
      <scriptTask id="freeSeat" scriptFormat="javascript" isForCompensation="true"><script>return {log: log.concat(["free " + seat])}</script></scriptTask>
      <endEvent id="be"/>
      <sequenceFlow id="bf1" sourceRef="bs" targetRef="seat"/><sequenceFlow id="bf2" sourceRef="seat" targetRef="be"/>
      <association id="a1" sourceRef="seatComp" targetRef="freeSeat"/>
      <subProcess id="undoBooking" triggeredByEvent="true">
        <startEvent id="us"><compensateEventDefinition/></startEvent>
        <scriptTask id="refund" scriptFormat="javascript"><script>return {log: log.concat(["refund " + price]), refunded: price}</script></scriptTask>
        <intermediateThrowEvent id="undoInner"><compensateEventDefinition/></intermediateThrowEvent>
        <endEvent id="ue"/>
        <sequenceFlow id="uf1" sourceRef="us" targetRef="refund"/><sequenceFlow id="uf2" sourceRef="refund" targetRef="undoInner"/>
        <sequenceFlow id="uf3" sourceRef="undoInner" targetRef="ue"/>
      </subProcess>
    </subProcess>
    <scriptTask id="reprice" scriptFormat="javascript"><script>return {price: 99, log: []}</script></scriptTask>
    <endEvent id="undo"><compensateEventDefinition/></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="book"/><sequenceFlow id="f2" sourceRef="book" targetRef="reprice"/>
    <sequenceFlow id="f3" sourceRef="reprice" targetRef="undo"/></process>`))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{"refund 10", "free 12A"}, snap.Variables["log"],
		"the event sub-process ran in the sub-process's stead, then undid the seat with its own throw")
	require.EqualValues(t, 10, snap.Variables["refunded"], "it saw the price as it was at completion, and its writes reached the process")
	require.EqualValues(t, 99, snap.Variables["price"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "freeSeat"), "the seat was undone once")
}

func TestCompensationInAMultipleThrow(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(bookingProcess(`<intermediateThrowEvent id="undo"><signalEventDefinition/><compensateEventDefinition/></intermediateThrowEvent>`))
	inst := h.start("trip", map[string]any{"n": 1})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{"cancel flight-2", "cancel hotel-1"}, snap.Variables["undone"], "its compensation definition undid both")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"))
}
