package engine

import (
	"slices"
	"time"
)

// Snapshot is the stored state of one instance at sequence Seq: enough to
// carry on after a restart.
type Snapshot struct {
	ID            string         `json:"id" bson:"_id"`
	DefinitionID  string         `json:"definitionId" bson:"definition_id"`
	DefinitionKey string         `json:"definition" bson:"definition_key"`
	Version       int            `json:"version" bson:"version"`
	ProcessID     string         `json:"processId" bson:"process_id"`
	BusinessKey   string         `json:"businessKey,omitempty" bson:"business_key,omitempty"`
	RequestID     string         `json:"requestId,omitempty" bson:"request_id,omitempty"`
	Status        Status         `json:"status" bson:"status"`
	Seq           uint64         `json:"seq" bson:"seq"`
	Variables     map[string]any `json:"variables" bson:"variables"`
	Tokens        []TokenState   `json:"tokens" bson:"tokens"`
	Scopes        []ScopeState   `json:"scopes,omitempty" bson:"scopes,omitempty"`
	Subscriptions []Subscription `json:"subscriptions,omitempty" bson:"subscriptions,omitempty"`
	Incidents     []Incident     `json:"incidents,omitempty" bson:"incidents,omitempty"`
	Tasks         []Task         `json:"tasks,omitempty" bson:"tasks,omitempty"` // open inbox tasks
	StartElement  string         `json:"startElement,omitempty" bson:"start_element,omitempty"`
	Parent        *ParentRef     `json:"parent,omitempty" bson:"parent,omitempty"` // the call activity that started it
	// TriggeredBy: the instance whose end started it through a trigger (chain.go).
	TriggeredBy *ChainRef `json:"triggeredBy,omitempty" bson:"triggered_by,omitempty"`
	// Compensable are the completed activities a compensation can undo, in
	// the order they completed (compensation.go).
	Compensable []Compensable `json:"compensable,omitempty" bson:"compensable,omitempty"`
	NextID      uint64        `json:"-" bson:"next_id"`
	Started     time.Time     `json:"startedAt" bson:"started_at"`
	Updated     time.Time     `json:"updatedAt" bson:"updated_at"`
	Ended       *time.Time    `json:"endedAt,omitempty" bson:"ended_at,omitempty"`
	// Pending are the events of the change that produced this snapshot, kept
	// with it so the log can be completed after a crash.
	Pending []Event `json:"-" bson:"pending,omitempty"`

	// Queued: the instance waits for a place under its definition's cap of
	// running instances (StatusQueued), and this says how it starts (limits.go).
	Queued *QueuedStart `json:"queued,omitempty" bson:"queued,omitempty"`
	// Deadline is when the instance times out (Limits.Timeout; timeout.go).
	Deadline *time.Time `json:"deadline,omitempty" bson:"deadline,omitempty"`
	// RetriesUsed counts the retries its jobs took, against Limits.RetryBudget.
	RetriesUsed int `json:"retriesUsed,omitempty" bson:"retries_used,omitempty"`

	// Partition is PartitionOf(ID) among the cluster's partitions, stored
	// so a replica reads the unfinished instances of one partition.
	Partition int `json:"partition" bson:"partition"`
	// Epoch is the partition lease epoch of the last commit or fence
	// (lease.go); a commit at an older epoch is refused with ErrFenced.
	Epoch int64 `json:"-" bson:"epoch,omitempty"`
}

// Head returns a copy of the snapshot without what can be large: the
// variables, scopes and subscriptions, the tokens' local variables and the
// tasks' variables. Lists hold heads; Store.Instance returns everything.
func (s *Snapshot) Head() *Snapshot {
	h := *s
	h.Variables, h.Scopes, h.Subscriptions, h.Pending, h.Compensable = nil, nil, nil, nil, nil
	h.Tokens = make([]TokenState, len(s.Tokens))
	for i, t := range s.Tokens {
		t.Local, t.Compensating = nil, nil // both hold variables
		h.Tokens[i] = t
	}
	h.Tasks = make([]Task, len(s.Tasks))
	for i, t := range s.Tasks {
		t.Variables, t.InboxVariables = nil, nil
		h.Tasks[i] = t
	}
	h.Incidents = append([]Incident(nil), s.Incidents...)
	return &h
}

// TokenState is a token as stored.
type TokenState struct {
	ID        uint64         `json:"id" bson:"id"`
	ElementID string         `json:"elementId" bson:"element_id"`
	Scope     uint64         `json:"scope,omitempty" bson:"scope,omitempty"`
	Via       string         `json:"via,omitempty" bson:"via,omitempty"` // the flow it arrived by
	Status    TokenStatus    `json:"status" bson:"status"`
	Attempt   int            `json:"attempt,omitempty" bson:"attempt,omitempty"`
	TaskID    string         `json:"taskId,omitempty" bson:"task_id,omitempty"`
	Due       *time.Time     `json:"due,omitempty" bson:"due,omitempty"` // retry backoff
	Local     map[string]any `json:"local,omitempty" bson:"local,omitempty"`
	Incident  string         `json:"incident,omitempty" bson:"incident,omitempty"`
	Outer     uint64         `json:"outer,omitempty" bson:"outer,omitempty"` // a multi-instance activity's instance: the token waiting for it
	// Listener is the task transition the token waits on job listeners for.
	Listener *PendingTransition `json:"listener,omitempty" bson:"listener,omitempty"`
	Child    string             `json:"child,omitempty" bson:"child,omitempty"` // the instance its call activity started
	Loops    int                `json:"loops,omitempty" bson:"loops,omitempty"` // a standard loop's runs started
	Watch    bool               `json:"watch,omitempty" bson:"watch,omitempty"` // waits at an event sub-process's start for its scope
	// Compensating: the handlers still to run for the compensation this
	// throw event waits for; CompensationFor: the throw a handler runs for.
	Compensating    []Compensable `json:"compensating,omitempty" bson:"compensating,omitempty"`
	CompensationFor uint64        `json:"compensationFor,omitempty" bson:"compensation_for,omitempty"`
	// Awaits: a complex gateway that fired and waits for reset, the ids
	// of the incoming flows it waits on.
	Awaits []string `json:"awaits,omitempty" bson:"awaits,omitempty"`
	// DeadLetter is the dead letter its job made, while the letter is
	// pending or being replayed, or discarded (dead_letter_ops.go).
	DeadLetter string `json:"deadLetter,omitempty" bson:"dead_letter,omitempty"`
}

// TokenStates lists every token: Tokens, then the watchers of event
// sub-process starts, which are not stored as tokens (there is one per
// armed start per waiting instance, and all it holds its subscriptions
// say): a subscription whose token is not among Tokens is a watcher's.
func (s *Snapshot) TokenStates() []TokenState {
	var out []TokenState
	for _, sub := range s.Subscriptions {
		if !slices.ContainsFunc(s.Tokens, func(t TokenState) bool { return t.ID == sub.Token }) &&
			!slices.ContainsFunc(out, func(t TokenState) bool { return t.ID == sub.Token }) {
			out = append(out, TokenState{ID: sub.Token, ElementID: sub.ElementID, Scope: sub.Scope, Status: TokenEvent, Watch: true})
		}
	}
	if len(out) == 0 {
		return s.Tokens
	}
	return append(slices.Clip(s.Tokens), out...)
}

// ScopeState is a running embedded sub-process: the token that waits for it
// at the sub-process node, in its parent scope.
type ScopeState struct {
	ID        uint64 `json:"id" bson:"id"`
	ElementID string `json:"elementId" bson:"element_id"`
	Parent    uint64 `json:"parent,omitempty" bson:"parent,omitempty"`
	Token     uint64 `json:"token" bson:"token"`
	// Variables are the scope's own: an instance of a multi-instance
	// sub-process keeps its item, loopCounter and inputs here.
	Variables map[string]any `json:"variables,omitempty" bson:"variables,omitempty"`
	// View: Variables are only read (a compensation event sub-process's
	// view of its sub-process as it completed); writes go past them.
	View  bool        `json:"view,omitempty" bson:"view,omitempty"`
	AdHoc *AdHocState `json:"adHoc,omitempty" bson:"adhoc,omitempty"` // an ad-hoc sub-process's state
}

// Subscription is an armed timer or an open message subscription that moves a token when it fires.
type Subscription struct {
	ID             uint64     `json:"id" bson:"id"`
	Token          uint64     `json:"token" bson:"token"`
	ElementID      string     `json:"elementId" bson:"element_id"`            // the catch event, boundary event or receive task
	Scope          uint64     `json:"scope,omitempty" bson:"scope,omitempty"` // a watcher's (eventsub.go): the scope it watches
	Timer          *time.Time `json:"due,omitempty" bson:"due,omitempty"`
	Repeat         int        `json:"repeat,omitempty" bson:"repeat,omitempty"` // cycles still to come; -1 forever
	Message        string     `json:"message,omitempty" bson:"message,omitempty"`
	Signal         string     `json:"signal,omitempty" bson:"signal,omitempty"`
	CorrelationKey string     `json:"correlationKey,omitempty" bson:"correlation_key,omitempty"`
	// Conditional: a conditional event, which fires when its condition
	// becomes true; Held is what it was at the last evaluation.
	Conditional bool `json:"conditional,omitempty" bson:"conditional,omitempty"`
	Held        bool `json:"held,omitempty" bson:"held,omitempty"`
	// Webhook: a webhook catch, waiting for a POST to its URL (webhook.go).
	Webhook *WebhookWait `json:"webhook,omitempty" bson:"webhook,omitempty"`
}

// TaskStatus is where an inbox task stands.
type TaskStatus string

const (
	TaskOpen      TaskStatus = "open"
	TaskCompleted TaskStatus = "completed"
	TaskCancelled TaskStatus = "cancelled"
)

// Task is an inbox task created by a user task.
type Task struct {
	ID              string     `json:"id" bson:"_id"`
	InstanceID      string     `json:"instanceId" bson:"instance_id"`
	DefinitionKey   string     `json:"definition" bson:"definition_key"`
	ElementID       string     `json:"elementId" bson:"element_id"`
	TokenID         uint64     `json:"-" bson:"token_id"`
	Name            string     `json:"name" bson:"name"`
	Assignee        string     `json:"assignee,omitempty" bson:"assignee,omitempty"`
	CandidateUsers  []string   `json:"candidateUsers" bson:"candidate_users"`
	CandidateGroups []string   `json:"candidateGroups" bson:"candidate_groups"`
	FormKey         string     `json:"formKey,omitempty" bson:"form_key,omitempty"`
	Form            string     `json:"form,omitempty" bson:"form,omitempty"`
	FormID          string     `json:"formId,omitempty" bson:"form_id,omitempty"` // a linked deployed form
	FormBinding     string     `json:"formBinding,omitempty" bson:"form_binding,omitempty"`
	FormVersionTag  string     `json:"formVersionTag,omitempty" bson:"form_version_tag,omitempty"`
	Priority        int        `json:"priority" bson:"priority"`
	Due             *time.Time `json:"dueDate,omitempty" bson:"due,omitempty"`
	FollowUp        *time.Time `json:"followUpDate,omitempty" bson:"follow_up,omitempty"`
	BusinessKey     string     `json:"businessKey,omitempty" bson:"business_key,omitempty"`
	// InboxVariables are the values, when the task was created, of the
	// variables its user task names in wf:inboxVariables: its card shows them.
	InboxVariables map[string]any `json:"inboxVariables,omitempty" bson:"inbox_variables,omitempty"`
	Status         TaskStatus     `json:"status" bson:"status"`
	Created        time.Time      `json:"createdAt" bson:"created_at"`
	Ended          *time.Time     `json:"endedAt,omitempty" bson:"ended_at,omitempty"`
	CompletedBy    string         `json:"completedBy,omitempty" bson:"completed_by,omitempty"`
	Variables      map[string]any `json:"variables,omitempty" bson:"variables,omitempty"` // the instance's variables when created
	Comments       []TaskComment  `json:"comments,omitempty" bson:"comments,omitempty"`
	// Pending names a transition (create, assignment, complete) waiting for
	// the task's job listeners; the task takes no other command meanwhile.
	Pending string `json:"pending,omitempty" bson:"pending,omitempty"`
}

// TaskComment is a note left on a task by someone who may see it.
type TaskComment struct {
	User string    `json:"user" bson:"user"`
	Time time.Time `json:"time" bson:"time"`
	Text string    `json:"text" bson:"text"`
}

// Incident is a token stuck on something a person must look at.
type Incident struct {
	ID         string     `json:"id" bson:"_id"`
	InstanceID string     `json:"instanceId" bson:"instance_id"`
	Definition string     `json:"definition,omitempty" bson:"definition_key,omitempty"`
	ElementID  string     `json:"elementId" bson:"element_id"`
	TokenID    uint64     `json:"tokenId" bson:"token_id"`
	Kind       string     `json:"kind" bson:"kind"` // job, condition, expression, error, ...
	Message    string     `json:"message" bson:"message"`
	Attempts   int        `json:"attempts,omitempty" bson:"attempts,omitempty"`
	Phase      string     `json:"phase" bson:"phase"` // what resolving does again: enter, leave or job
	Created    time.Time  `json:"createdAt" bson:"created_at"`
	Resolved   *time.Time `json:"resolvedAt,omitempty" bson:"resolved_at,omitempty"`
	// Resolution says how a closed incident closed: "resolved" (an operator
	// retried it) or "cancelled" (its token went away).
	Resolution Resolution `json:"resolution,omitempty" bson:"resolution,omitempty"`
}

// Resolution is how an incident, and the dead letter it raised, closed.
type Resolution string

const (
	Resolved  Resolution = "resolved"  // retried by an operator: the job ran again
	Cancelled Resolution = "cancelled" // its token went away (cancel, interrupt, move)
)
