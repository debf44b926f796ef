package model

import "time"

// Node is a flow node: an event, a gateway or an activity.
//
// Fields ending in ID are what a parser fills in; Link resolves them into the
// pointer fields next to them.
type Node struct {
	ID            string
	Name          string
	Documentation string
	Kind          Kind
	Trigger       Trigger // events: what they wait for or throw

	Index    int    // dense index, unique within the Process across all scopes
	Scope    *Scope // the scope the node sits in
	Incoming []*Flow
	Outgoing []*Flow

	DefaultID string // gateways and activities: the flow taken when no condition holds
	Default   *Flow
	// ActivationCondition is when a complex gateway joins: an expression
	// that sees activationCount, the incoming flows with a token waiting.
	ActivationCondition string

	// Events.
	Timer        *Timer
	Message      *Message
	ErrorCode    string // error end event: the code thrown; error boundary: the code caught ("" catches all)
	ErrorMessage string
	// ErrorCodeVariable and ErrorMessageVariable name the variables an error
	// catch sets to the caught error's code and message (errorCode and
	// errorMessage when empty).
	ErrorCodeVariable    string
	ErrorMessageVariable string
	// EscalationCode is what an escalation throw event escalates, and what
	// an escalation boundary event catches ("" catches all);
	// EscalationCodeVariable names the variable a catch sets to the code.
	EscalationCode         string
	EscalationCodeVariable string
	// Alternatives are the definitions of a multiple event (TriggerMultiple),
	// each a node of the same id with one trigger: any one of them triggers
	// a catch, all of them when ParallelMultiple; a throw throws them all.
	Alternatives     []*Node
	ParallelMultiple bool
	// Compensation: a handler activity (ForCompensation) undoes the work of
	// the activity whose compensation boundary event is associated with it
	// (HandlerID, Handler); a compensation throw or end event compensates
	// every completed activity of its scope, or only ActivityRef.
	ForCompensation bool
	HandlerID       string
	Handler         *Node
	ActivityRef     string
	// Conditional events: the condition, and the variables (all when
	// empty) and kinds of change ("create", "update", "delete"; all when
	// empty) after which it is evaluated again.
	Condition      string
	VariableNames  []string
	VariableEvents []string
	LinkName       string // link events pair a throw and a catch by name
	SignalName     string
	AttachedToID   string // boundary events
	AttachedTo     *Node
	Interrupting   bool    // boundary events and event sub-process starts: cancel the activity (the scope's work) when they fire
	Boundaries     []*Node // activities: the boundary events attached to them

	// Activities.
	Job     Job    // service tasks
	Script  Script // script tasks
	Human   Human  // user tasks
	Inputs  []Mapping
	Outputs []Mapping
	Retry   RetryPolicy
	Body    *Scope // embedded sub-process
	// EventSub marks an event sub-process (triggeredByEvent): no flow
	// reaches it; its start event's trigger starts it inside the scope
	// that holds it.
	EventSub bool
	// AdHoc makes a sub-process ad hoc: its activities start on demand.
	AdHoc *AdHoc
	// Transaction marks a transaction sub-process: a cancel end event in it
	// compensates its completed activities, ends it and takes its cancel
	// boundary event.
	Transaction bool
	Call        *Call // call activity
	Loop        *MultiInstance
	Repeat      *StandardLoop // standardLoopCharacteristics
	// Circuit puts the task's jobs through a circuit breaker (nil: none).
	Circuit *CircuitPolicy
	// Cache lets a service task reuse a stored result (nil: none).
	Cache *CachePolicy
	// Webhook makes a receive task or message catch wait for a POST to a
	// URL of its own (nil: a correlated message).
	Webhook *Webhook

	// Gateways: JoinPolicy makes a parallel or inclusive join go on with
	// some of its branches (nil: all of them).
	JoinPolicy *JoinPolicy

	// ExecListeners run JavaScript when a token starts or ends the node
	// (Camunda 7 execution listeners); ExecJobs are jobs the token waits
	// for then (Camunda 8 zeebe:executionListener), in order.
	ExecListeners []ExecListener
	ExecJobs      []JobListener

	// Attrs keeps format-specific details worth showing (e.g. a DAG actionType).
	Attrs map[string]string
}

// Job says how a service task's work is done: by a handler registered for
// Type, by the built-in handlers, or by an external worker polling for Type.
type Job struct {
	Type       string
	Headers    map[string]string
	Parameters map[string]any // values may hold ${...} templates
	Timeout    time.Duration  // 0: the engine's default
	// Concurrency caps how many jobs of this node run at once (0: the
	// engine's default); RateLimit caps how many start per second (0: none).
	Concurrency int
	RateLimit   float64
	// Priority orders a node's queued jobs and external fetches: a number
	// from 0 to 100 (50 when empty), or an expression giving one per job.
	Priority string
}

// Script is the body of a script task.
type Script struct {
	Format         string // "javascript", "feel" (zeebe:script) or ScriptExpression
	Source         string
	ResultVariable string // when set the result is stored here, else an object result is merged
}

// Human describes the inbox task a user task creates. Values may be
// expressions (=expr or ${expr}); lists given as one expression are evaluated to a list.
type Human struct {
	Assignee        string
	CandidateUsers  []string
	CandidateGroups []string
	FormKey         string // a form key the engine does not resolve, passed to clients
	Form            string // inline form-js schema (JSON)
	// FormID links a deployed form (a .form resource) by its id; which
	// version is picked is FormBinding's choice (latest, deployment,
	// versionTag with FormVersionTag).
	FormID         string
	FormBinding    string
	FormVersionTag string
	Priority       string
	DueDate        string
	FollowUpDate   string
	// InboxVariables are up to three variables the inbox shows on the task's card.
	InboxVariables []string
	// Listeners run JavaScript when the task is created, assigned,
	// completed or cancelled (Camunda 7 task listeners).
	Listeners []TaskListener
	// JobListeners are jobs (Camunda 8 zeebe:taskListener) the task's
	// creation, assignment and completion wait for, in order; cancelling
	// notifies them without waiting.
	JobListeners []JobListener
}

// ScriptExpression is the Script.Format of a Camunda 7 service task whose
// camunda:expression is a plain expression: it is evaluated, not run.
const ScriptExpression = "expression"

// ExecListener is one execution listener: Script runs on Event,
// ListenStart or ListenEnd.
type ExecListener struct {
	Event  string
	Script string
}

// Execution listener events.
const (
	ListenStart = "start"
	ListenEnd   = "end"
)

// JobListener is one Camunda 8 listener: a job of Type (an expression when
// it starts with =) run on Event.
type JobListener struct {
	Event string // task listeners: ListenCreate, ListenAssign, ListenComplete or ListenCancel; execution listeners: ListenStart or ListenEnd
	Type  string
}

// TaskListener events.
const (
	ListenCreate   = "create"
	ListenAssign   = "assignment"
	ListenComplete = "complete"
	ListenCancel   = "delete"
)

// TaskListener is a script run on one event of a user task's life. It may
// change the assignee, candidates or priority, set variables, or deny the
// assignment or completion it runs for.
type TaskListener struct {
	Event  string
	Script string // JavaScript
}

// Message names what a message event or receive task waits for and how an
// incoming message is matched to an instance.
type Message struct {
	Name           string
	CorrelationKey string // expression evaluated when the subscription opens
}

// Mapping copies the value of an expression into a variable.
// Inputs build the local variables of an activity; outputs write back to the scope.
type Mapping struct {
	Source string // expression: =FEEL, ${JUEL} or JavaScript (parsers quote literals)
	Target string // variable name, dotted path allowed
}

// Call is what a call activity starts and how variables pass between the
// caller and the called instance (the child).
type Call struct {
	ProcessID string // the called process (calledElement); an expression when it starts with = or ${
	// Binding picks the called definition's version: BindingLatest (the
	// default), BindingDeployment (the caller's own definition, whose file
	// holds the called process) or BindingVersion (Version).
	Binding    string
	Version    int
	VersionTag string // BindingVersionTag
	// Variables in: all the caller sees at the call activity (AllIn), then
	// In; out: all of the child's (AllOut), then Out, evaluated on the
	// child's variables. Camunda 8 passes all both ways unless told not
	// to; Camunda 7 only what camunda:in and camunda:out name.
	AllIn, AllOut bool
	In, Out       []Mapping
	BusinessKey   string // expression for the child's business key; "": none
	// ParentBusinessKey gives the child the caller's business key.
	ParentBusinessKey bool
}

// Bindings of a call activity.
const (
	BindingLatest     = "latest"
	BindingDeployment = "deployment"
	BindingVersion    = "version"
	BindingVersionTag = "versionTag"
)

// IsWaitState reports whether a token on the node waits for something outside the instance.
func (n *Node) IsWaitState() bool {
	switch n.Kind {
	case KindUserTask, KindServiceTask, KindReceiveTask, KindEventBasedGateway, KindSubProcess, KindCallActivity:
		return true
	case KindIntermediateCatchEvent:
		return n.Trigger != TriggerLink && n.Trigger != TriggerNone
	}
	return false
}

// Label is the name when set, else the id: what messages show a person.
func (n *Node) Label() string {
	if n.Name != "" {
		return n.Name
	}
	return n.ID
}

// StandardLoop runs an activity again while a condition holds: checked
// after each run (do-while), or before each run, the first too, when
// TestBefore; at most Maximum runs when it is above 0. The condition sees
// loopCounter, the runs done so far; each run sees loopCounter, its number
// from 1. Without a condition (BPMN makes it optional; such a marker is
// often only drawn) the activity runs Maximum times, or once.
type StandardLoop struct {
	Condition  string
	TestBefore bool
	Maximum    int
}

// AdHoc is how an ad-hoc sub-process runs. Its activities (the nodes of its
// body no flow enters) start on demand: those ActiveElements lists when it
// is entered, and those Engine.ActivateAdHoc names while it runs, all at
// once or, when Sequential, one after another. Each time one of its paths
// ends, Completion is evaluated: when it holds, the sub-process completes,
// cancelling what still runs when CancelRemaining. Without Completion it
// completes when what was started has ended.
type AdHoc struct {
	ActiveElements  string // expression giving a list of element ids (zeebe:adHoc activeElementsCollection)
	Completion      string // completionCondition
	CancelRemaining bool   // cancelRemainingInstances (default true)
	Sequential      bool   // ordering="Sequential"
}

// Multi-instance error policies.
const (
	ErrorPolicyStop     = "stop"
	ErrorPolicyContinue = "continue"
	ErrorPolicyCollect  = "collect"
)

// MultiInstance makes an activity run once per item of a collection (or a
// number of times), all at once or one after another.
type MultiInstance struct {
	// CounterFrom is the loopCounter of the first instance: 1 by Camunda
	// 8's rule, 0 by Camunda 7's (its files are read that way).
	CounterFrom int
	Sequential  bool
	// MaxParallel caps how many instances of a parallel one run at once
	// (wf:maxParallelism); the next starts when one completes. 0: no cap.
	MaxParallel int
	// ErrorPolicy is what an instance whose work fails for good does
	// (wf:errorPolicy): ErrorPolicyStop (the default: an incident),
	// ErrorPolicyContinue (its item is skipped) or ErrorPolicyCollect
	// (skipped, and the error added to the list ErrorsVariable names,
	// "errors" when empty).
	ErrorPolicy      string
	ErrorsVariable   string
	Collection       string // expression giving the list of items
	Element          string // variable each instance sees its item as
	Cardinality      string // expression giving how many instances, when there is no collection
	Completion       string // expression: when it holds after an instance completes, the rest are cancelled
	OutputCollection string // variable that receives the list of outputs, in item order
	OutputElement    string // expression evaluated per instance for its output
}
