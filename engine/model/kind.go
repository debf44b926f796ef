package model

// Kind is what a flow node is.
type Kind uint8

const (
	KindUnknown Kind = iota
	KindStartEvent
	KindEndEvent
	KindIntermediateCatchEvent
	KindIntermediateThrowEvent
	KindBoundaryEvent
	KindExclusiveGateway
	KindParallelGateway
	KindInclusiveGateway
	KindEventBasedGateway
	KindTask // none task and manual task: completes at once
	KindUserTask
	KindServiceTask // also send task and business rule task with a job type
	KindScriptTask
	KindReceiveTask
	KindSubProcess
	KindCallActivity // starts another process as an instance of its own and waits for it
	// KindComplexGateway joins when its activation condition holds (n of
	// m branches) and splits like an inclusive gateway.
	KindComplexGateway
)

var kindNames = [...]string{
	KindUnknown:                "unknown",
	KindStartEvent:             "startEvent",
	KindEndEvent:               "endEvent",
	KindIntermediateCatchEvent: "intermediateCatchEvent",
	KindIntermediateThrowEvent: "intermediateThrowEvent",
	KindBoundaryEvent:          "boundaryEvent",
	KindExclusiveGateway:       "exclusiveGateway",
	KindParallelGateway:        "parallelGateway",
	KindInclusiveGateway:       "inclusiveGateway",
	KindEventBasedGateway:      "eventBasedGateway",
	KindTask:                   "task",
	KindUserTask:               "userTask",
	KindServiceTask:            "serviceTask",
	KindScriptTask:             "scriptTask",
	KindReceiveTask:            "receiveTask",
	KindSubProcess:             "subProcess",
	KindCallActivity:           "callActivity",
	KindComplexGateway:         "complexGateway",
}

// String returns the BPMN element name of the kind, e.g. "exclusiveGateway".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// IsGateway reports whether the kind is one of the five gateways.
func (k Kind) IsGateway() bool {
	return k >= KindExclusiveGateway && k <= KindEventBasedGateway || k == KindComplexGateway
}

// IsActivity reports whether tokens wait on the node for work to finish.
func (k Kind) IsActivity() bool {
	return k >= KindTask && k <= KindCallActivity
}

// IsEvent reports whether the kind is an event.
func (k Kind) IsEvent() bool {
	return k >= KindStartEvent && k <= KindBoundaryEvent
}

// Trigger is what an event waits for or throws.
type Trigger uint8

const (
	TriggerNone Trigger = iota
	TriggerTimer
	TriggerMessage
	TriggerError
	TriggerTerminate
	TriggerLink
	TriggerSignal
	TriggerEscalation
	TriggerConditional
	TriggerCompensation
	TriggerMultiple // several definitions: Node.Alternatives
	TriggerCancel   // cancel end events and boundary events of transactions
)

var triggerNames = [...]string{"none", "timer", "message", "error", "terminate", "link", "signal", "escalation", "conditional", "compensation", "multiple", "cancel"}

func (t Trigger) String() string {
	if int(t) < len(triggerNames) {
		return triggerNames[t]
	}
	return "unknown"
}
