package engine

import "time"

// EventType names a state change of an instance.
type EventType string

const (
	EventInstanceStarted   EventType = "instance.started"
	EventInstanceCompleted EventType = "instance.completed"
	EventInstanceCancelled EventType = "instance.cancelled"
	EventInstancePaused    EventType = "instance.paused"
	EventInstanceResumed   EventType = "instance.resumed"
	EventInstanceFailed    EventType = "instance.failed"
	EventInstanceQueued    EventType = "instance.queued" // over its definition's cap: it starts when a place is free

	EventElementActivated  EventType = "element.activated"  // a token entered a node
	EventElementCompleted  EventType = "element.completed"  // a token left a node
	EventElementTerminated EventType = "element.terminated" // a token was removed without completing (cancel, interrupt, terminate)
	EventFlowTaken         EventType = "flow.taken"
	EventGatewayDecided    EventType = "gateway.decided"   // which conditions held and which flows were chosen
	EventGatewayActivated  EventType = "gateway.activated" // a complex gateway's activation condition held, or a join's policy (join_policy.go) was met: it joined
	EventGatewayReset      EventType = "gateway.reset"     // a complex gateway's other branches came (or cannot): it waits for start again

	EventJobCreated    EventType = "job.created"
	EventCallStarted   EventType = "call.started"  // a call activity started its child instance
	EventCallEnded     EventType = "call.ended"    // the child completed; the call activity goes on
	EventChainStarted  EventType = "chain.started" // an ending instance's trigger started another (chain.go)
	EventChainRefused  EventType = "chain.refused" // a trigger did not start one: the chain depth limit
	EventChainFailed   EventType = "chain.failed"  // a trigger could not start one (no such definition, a failing mapping)
	EventJobFailed     EventType = "job.failed"
	EventJobRetrying   EventType = "job.retrying"
	EventTaskCreated   EventType = "task.created"
	EventTaskClaimed   EventType = "task.claimed"
	EventTaskReleased  EventType = "task.released"
	EventTaskDelegated EventType = "task.delegated"
	EventTaskCommented EventType = "task.commented"
	EventTaskDenied    EventType = "task.denied" // a job listener refused an assignment or completion
	EventTaskDone      EventType = "task.completed"
	EventTaskCanceled  EventType = "task.cancelled"

	EventJobCached      EventType = "job.cached"       // the step cache answered: the job did not run (key hash, ageMs)
	EventJobCacheStored EventType = "job.cache_stored" // the job's result went into the step cache (key hash)

	EventTimerScheduled       EventType = "timer.scheduled"
	EventTimerFired           EventType = "timer.fired"
	EventMessageSubscribed    EventType = "message.subscribed"
	EventMessageCorrelated    EventType = "message.correlated"
	EventSignalSubscribed     EventType = "signal.subscribed"
	EventSignalReceived       EventType = "signal.received"
	EventSignalThrown         EventType = "signal.thrown"
	EventVariablesChanged     EventType = "variables.changed"
	EventIncidentCreated      EventType = "incident.created"
	EventIncidentResolved     EventType = "incident.resolved"
	EventErrorThrown          EventType = "error.thrown"
	EventConditionMet         EventType = "condition.met"     // a conditional event's condition became true
	EventConditionFailed      EventType = "condition.failed"  // a JSON DAG edge condition threw: it counts as false
	EventTriggerAwaited       EventType = "trigger.awaited"   // a catch with no message or signal name waits for Engine.Trigger
	EventTriggered            EventType = "triggered"         // Engine.Trigger moved a catch by its element id
	EventWebhookOpened        EventType = "webhook.opened"    // a webhook catch waits for a POST to its URL (webhook.go)
	EventWebhookDelivered     EventType = "webhook.delivered" // a POST to a webhook URL matched and moved the catch
	EventEscalationThrown     EventType = "escalation.thrown" // caught or not: an uncaught escalation is no error
	EventCompensationThrown   EventType = "compensation.thrown"
	EventValidationWarned     EventType = "validation.warned"     // a validation step in warn mode found violations (detail: warnings) and went on
	EventAdHocActivated       EventType = "adhoc.activated"       // an element of an ad-hoc sub-process was started
	EventAdHocCompleting      EventType = "adhoc.completing"      // an ad-hoc sub-process's completion condition held
	EventTransactionCancelled EventType = "transaction.cancelled" // a cancel end event: compensation, then the cancel boundary
	EventDeadLettered         EventType = "job.deadlettered"
	EventDeadLetterDiscarded  EventType = "job.deadletter.discarded" // an operator gave up on its dead letter
	EventBoundaryTriggered    EventType = "boundary.triggered"
	EventSubProcessEntered    EventType = "subprocess.entered"
	EventSubProcessCompleted  EventType = "subprocess.completed"

	EventMultiInstanceStarted   EventType = "multiinstance.started"
	EventMultiInstanceCompleted EventType = "multiinstance.completed"

	// A circuit breaker changed state (package circuit). These events
	// belong to no instance: no InstanceID, no Seq, never stored; the
	// exporters get them as they happen, from the replica that made the
	// change. Detail: key, from, state.
	EventCircuitOpened     EventType = "circuit.opened"
	EventCircuitHalfOpened EventType = "circuit.half_opened"
	EventCircuitClosed     EventType = "circuit.closed"

	// Progress events are transient (see Event.Transient): a job reported
	// how far it is (detail: percent, message), and the instance's estimate
	// that follows (detail: percent, eta, basis). See progress.go.
	EventElementProgress  EventType = "element.progress"
	EventInstanceProgress EventType = "instance.progress"
)

// Event is one recorded state change of one instance. Seq numbers the events
// of an instance from 1 without gaps; the log is append-only.
type Event struct {
	InstanceID   string    `json:"instanceId" bson:"instance_id,omitempty"`
	Seq          uint64    `json:"seq" bson:"seq"`
	Type         EventType `json:"type" bson:"type"`
	Time         time.Time `json:"time" bson:"time"`
	DefinitionID string    `json:"definitionId,omitempty" bson:"definition_id,omitempty"`
	ElementID    string    `json:"elementId,omitempty" bson:"element_id,omitempty"`
	FlowID       string    `json:"flowId,omitempty" bson:"flow_id,omitempty"`
	TokenID      uint64    `json:"tokenId,omitempty" bson:"token_id,omitempty"`
	// Detail holds what the change saw or decided: condition results, chosen
	// flows, variables written, the error message. JSON values only.
	Detail map[string]any `json:"detail,omitempty" bson:"detail,omitempty"`
}

// Transient reports whether the event is outside the instance's log: it
// went out to exporters as it happened but is never stored, and has no
// sequence number (Seq 0). Progress events are transient.
func (e *Event) Transient() bool { return e.Seq == 0 }

// Exporter receives every event after it is stored, in sequence order per
// instance, and transient events (Event.Transient) as they happen. Export must
// not block for long: it runs on the engine's applier (a circuit breaker's
// event, of no instance, on the job's or request's goroutine that moved the
// breaker).
// The slice is only valid during the call (the engine reuses it): copy the
// events you keep (the Detail maps are never changed and may be kept).
type Exporter interface {
	Export(events []Event)
}

// TaskExporter is an Exporter that also receives, after each commit and
// before the commands of the round are answered, the inbox tasks the commit
// created or changed (a projection such as the inbox stays current for the
// caller who just claimed or completed a task). Same rules as Export.
type TaskExporter interface {
	Exporter
	ExportTasks(tasks []Task)
}

// ExporterFunc adapts a function to Exporter.
type ExporterFunc func(events []Event)

func (f ExporterFunc) Export(events []Event) { f(events) }

// TaskDetail is the detail of a task event (task.*), typed: the engine
// writes it and the inbox, the task history and the live hub read it.
type TaskDetail struct {
	TaskID    string
	By        string         // who acted
	Assignee  string         // the task's assignee after the event
	Previous  string         // the assignee before (claimed, released, delegated)
	Text      string         // a comment
	Reason    string         // why a listener denied an assignment or completion
	Event     string         // the transition a listener denied
	Variables map[string]any // the values a completion submitted
}

// detail is d as an event's Detail, without empty fields.
func (d TaskDetail) detail() map[string]any {
	m := map[string]any{"taskId": d.TaskID}
	for k, v := range map[string]string{
		"by": d.By, "assignee": d.Assignee, "previous": d.Previous, "text": d.Text,
		"reason": d.Reason, "event": d.Event,
	} {
		if v != "" {
			m[k] = v
		}
	}
	if d.Variables != nil {
		m["variables"] = d.Variables
	}
	return m
}

// Task returns the detail of a task event; ok is false for other events.
func (e *Event) Task() (d TaskDetail, ok bool) {
	if d.TaskID, ok = e.Detail["taskId"].(string); !ok || d.TaskID == "" {
		return TaskDetail{}, false
	}
	d.By, _ = e.Detail["by"].(string)
	d.Assignee, _ = e.Detail["assignee"].(string)
	d.Previous, _ = e.Detail["previous"].(string)
	d.Text, _ = e.Detail["text"].(string)
	d.Reason, _ = e.Detail["reason"].(string)
	d.Event, _ = e.Detail["event"].(string)
	d.Variables, _ = e.Detail["variables"].(map[string]any)
	return d, true
}

// StartedDefinition is the definition key an instance.started event names,
// or "" for other events.
func (e *Event) StartedDefinition() string {
	if e.Type != EventInstanceStarted {
		return ""
	}
	key, _ := e.Detail["definition"].(string)
	return key
}
