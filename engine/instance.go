package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// instance is the live state of one instance, owned by one partition's
// applier. Nothing else reads or writes it.
type instance struct {
	p    *partition
	e    *Engine
	id   string
	dep  *deployment
	proc *model.Process
	head Snapshot // identity and times; tokens and the rest live below

	status      Status
	seq         uint64
	vars        map[string]any
	varsOwned   bool // vars is not shared with a stored snapshot and may be written in place
	tokens      []*token
	scopes      []*scope
	subs        []*Subscription
	tasks       map[string]*Task
	incidents   []*Incident
	nextID      uint64
	timers      map[uint64]Timer  // armed clock timers by subscription id
	held        []command         // commands that arrived while paused
	changed     map[string]string // variables changed since conditions were last checked: name → create or update
	newConds    []uint64          // conditional subscriptions not evaluated yet
	adhocDirty  []uint64          // ad-hoc scopes in which an activity completed: their completion conditions are due (adhoc.go)
	compensable []Compensable     // completed activities a compensation can undo (compensation.go)
	endCode     string            // a called instance ended by a BPMN error it passes to its caller
	endMsg      string
	joins       []*policyJoin // the process's joins with a join policy (join_policy.go); nil for most
	deadline    Timer         // the armed clock timer of Limits.Timeout, to stop when the instance ends

	// the change being built
	ctx         context.Context
	now         time.Time // read once per command: every event of a command has its time
	snap        *Snapshot // the snapshot of the current state, when built since the last change (snapSeq)
	snapSeq     uint64
	events      []Event
	taskChanges []Task
	incChanges  []Incident
	deadLetters []DeadLetter
	letterMoves []DeadLetterUpdate
	work        []step
	joinsDirty  bool
	steps       int
	dirty       bool
	prevSeq     uint64
	unstored    bool // not in the store yet: its next change creates it
}

// token sits on a node inside a scope instance.
type token struct {
	id       uint64
	node     *model.Node
	scope    uint64 // 0: the process
	via      *model.Flow
	status   TokenStatus
	attempt  int    // attempts of the current activity's work, from 1
	job      uint64 // id of the job run under way; results of any other are stale
	external bool   // the job waits for an external worker
	outer    uint64 // an instance of a multi-instance activity: the token waiting for all of them
	taskID   string
	listener *PendingTransition // a task transition waiting for its job listeners
	due      *time.Time
	local    map[string]any
	incident string
	child    string        // the instance its call activity started
	removed  bool          // taken out of the instance: a step still queued for it is void
	loops    int           // a standard loop's runs started, 0 when not looping
	watch    bool          // waits at an event sub-process's start for its scope (eventsub.go)
	comp     []Compensable // a compensation throw: the handlers still to run
	compFor  uint64        // a compensation handler: the throw it runs for
	awaits   []string      // a complex gateway waiting for reset: the flows it waits on (complex.go)
	// deadLetter is the dead letter its job made, while the letter is
	// pending or being replayed, or discarded (dead_letter_ops.go).
	deadLetter string
}

// scope is a running embedded sub-process.
type scope struct {
	id     uint64
	node   *model.Node
	parent uint64
	token  uint64         // waits at node in the parent scope
	vars   map[string]any // its own variables (an instance of a multi-instance sub-process); nil for most
	// view marks vars as a read view (a compensation event sub-process
	// sees its sub-process's variables as they were): writes pass through.
	view  bool
	adhoc *AdHocState // an ad-hoc sub-process's (adhoc.go); nil for others
}

// step is a token about to enter a node.
type step struct {
	tok  *token
	node *model.Node
	via  *model.Flow
}

func newInstance(p *partition, req *startRequest) *instance {
	x := &instance{
		p: p, e: p.e, id: req.snap.ID, dep: req.dep, proc: req.proc,
		head: *req.snap, status: req.snap.Status, joins: req.dep.joins[req.proc], // running, or queued (limits.go)
		vars: req.snap.Variables,
		// A start with a request id stored its instance (CreateInstance) before it ran.
		unstored: !req.claimed,
	}
	if x.vars == nil {
		x.vars = map[string]any{}
	}
	return x // vars is shared with the stored snapshot until the first write copies it
}

func restoreInstance(ctx context.Context, p *partition, s *Snapshot) (*instance, error) {
	dep, err := p.e.defs.byID(ctx, s.DefinitionID)
	if err != nil {
		return nil, fmt.Errorf("restoring instance %s: %w", s.ID, err)
	}
	proc := dep.def.Process(s.ProcessID)
	if proc == nil {
		return nil, fmt.Errorf("restoring instance %s: process %q is not in definition %s", s.ID, s.ProcessID, s.DefinitionID)
	}
	x := &instance{
		p: p, e: p.e, id: s.ID, dep: dep, proc: proc, head: *s,
		status: s.Status, seq: s.Seq, vars: s.Variables, nextID: s.NextID, compensable: s.Compensable, joins: dep.joins[proc],
	}
	if x.vars == nil {
		x.vars = map[string]any{}
	}
	for _, ts := range s.Tokens {
		n := proc.Node(ts.ElementID)
		if n == nil {
			return nil, fmt.Errorf("restoring instance %s: element %q is not in the process", s.ID, ts.ElementID)
		}
		t := &token{
			id: ts.ID, node: n, scope: ts.Scope, status: ts.Status, attempt: ts.Attempt,
			taskID: ts.TaskID, due: ts.Due, local: ts.Local, incident: ts.Incident, outer: ts.Outer, listener: ts.Listener, deadLetter: ts.DeadLetter,
			child: ts.Child, loops: ts.Loops, watch: ts.Watch, comp: ts.Compensating, compFor: ts.CompensationFor, awaits: ts.Awaits,
		}
		if ts.Via != "" {
			t.via = proc.Flow(ts.Via)
		}
		x.tokens = append(x.tokens, t)
	}
	for _, sc := range s.Scopes {
		x.scopes = append(x.scopes, &scope{id: sc.ID, node: proc.Node(sc.ElementID), parent: sc.Parent, token: sc.Token, vars: sc.Variables, view: sc.View, adhoc: sc.AdHoc})
	}
	for i := range s.Subscriptions {
		sub := s.Subscriptions[i]
		x.subs = append(x.subs, &sub)
		if x.token(sub.Token) == nil { // a watcher of an event sub-process start: not stored as a token
			n := proc.Node(sub.ElementID)
			if n == nil {
				return nil, fmt.Errorf("restoring instance %s: event sub-process start %q is not in the process", s.ID, sub.ElementID)
			}
			x.tokens = append(x.tokens, &token{id: sub.Token, node: n, scope: sub.Scope, status: TokenEvent, watch: true})
		}
	}
	for i := range s.Incidents {
		inc := s.Incidents[i]
		x.incidents = append(x.incidents, &inc)
		// Stored before tokens named their dead letter: a job incident's
		// letter has the incident's id.
		if t := x.token(inc.TokenID); t != nil && inc.Kind == "job" && t.deadLetter == "" {
			t.deadLetter = inc.ID
		}
	}
	for i := range s.Tasks {
		t := s.Tasks[i]
		x.addTask(&t)
	}
	return x, nil
}

// snapshot is the state to store, sharing the variables map (which is
// copied before the next write).
func (x *instance) snapshot() *Snapshot {
	if x.snap != nil && x.snapSeq == x.seq {
		return x.snap
	}
	s := x.head
	s.Status, s.Seq, s.Variables, s.NextID, s.Compensable = x.status, x.seq, x.vars, x.nextID, x.compensable
	s.Updated = x.now
	x.varsOwned = false
	s.Tokens = make([]TokenState, 0, len(x.tokens))
	for _, t := range x.tokens {
		if t.watch && t.status == TokenEvent && x.subscribed(t) {
			continue // its subscriptions say all there is (Snapshot.TokenStates)
		}
		ts := TokenState{
			ID: t.id, ElementID: t.node.ID, Scope: t.scope, Status: t.status,
			Attempt: t.attempt, TaskID: t.taskID, Due: t.due, Local: t.local, Incident: t.incident, Outer: t.outer, Listener: t.listener, DeadLetter: t.deadLetter,
			Child: t.child, Loops: t.loops, Watch: t.watch, Compensating: t.comp, CompensationFor: t.compFor, Awaits: t.awaits,
		}
		if t.via != nil {
			ts.Via = t.via.ID
		}
		s.Tokens = append(s.Tokens, ts)
	}
	s.Scopes, s.Subscriptions, s.Incidents, s.Tasks = nil, nil, nil, nil
	for _, sc := range x.scopes {
		s.Scopes = append(s.Scopes, ScopeState{ID: sc.id, ElementID: sc.node.ID, Parent: sc.parent, Token: sc.token, Variables: sc.vars, View: sc.view, AdHoc: sc.adhoc})
	}
	for _, sub := range x.subs {
		s.Subscriptions = append(s.Subscriptions, *sub)
	}
	for _, inc := range x.incidents {
		s.Incidents = append(s.Incidents, *inc)
	}
	if len(x.tasks) > 0 {
		for _, id := range slices.Sorted(maps.Keys(x.tasks)) {
			s.Tasks = append(s.Tasks, *x.tasks[id])
		}
	}
	x.snap, x.snapSeq = &s, x.seq
	return &s
}

func (x *instance) addTask(t *Task) {
	if x.tasks == nil {
		x.tasks = map[string]*Task{}
	}
	x.tasks[t.ID] = t
}

// change is what the current round changed in this instance, for the store.
// The store owns the snapshot from here on; the engine builds a new one for
// the next change.
func (x *instance) change() Change {
	s := x.snapshot()
	x.snap = nil
	s.Pending = x.events
	return Change{Snapshot: s, PrevSeq: x.prevSeq, Create: x.unstored, Tasks: x.taskChanges, Incidents: x.incChanges, DeadLetters: x.deadLetters, DeadLetterUpdates: x.letterMoves}
}

// committed starts a new change after the store took the last one. The
// events buffer is reused: stores and exporters copy what they keep.
func (x *instance) committed() {
	clear(x.events)
	x.events = x.events[:0]
	x.taskChanges, x.incChanges, x.deadLetters, x.letterMoves = nil, nil, nil, nil
	x.unstored = false
}

// idle reports whether the instance waits only for things that arrive as
// commands naming it (a task completion, a message, an operator): it then
// leaves the applier's memory, and the next command loads it from the store.
// This keeps memory and GC work flat however many instances wait.
func (x *instance) idle() bool {
	if len(x.timers) > 0 || len(x.held) > 0 || x.status == StatusPaused {
		return false
	}
	for _, s := range x.subs {
		if s.Timer != nil { // its clock timer must stay stoppable
			return false
		}
	}
	for _, t := range x.tokens {
		switch t.status {
		case TokenJob, TokenRetry, TokenActive:
			return false
		}
	}
	return true
}

func (x *instance) discardTimers() {
	for id, t := range x.timers {
		t.Stop()
		delete(x.timers, id)
	}
}

// emit records an event with the next sequence number.
func (x *instance) emit(typ EventType, n *model.Node, t *token, detail map[string]any) {
	x.seq++
	ev := Event{InstanceID: x.id, Seq: x.seq, Type: typ, Time: x.now, DefinitionID: x.head.DefinitionID, Detail: detail}
	if n != nil {
		ev.ElementID = n.ID
	}
	if t != nil {
		ev.TokenID = t.id
	}
	x.events = append(x.events, ev)
}

func (x *instance) emitFlow(f *model.Flow, t *token) {
	x.seq++
	x.events = append(x.events, Event{
		InstanceID: x.id, Seq: x.seq, Type: EventFlowTaken, Time: x.now,
		DefinitionID: x.head.DefinitionID, ElementID: f.Source.ID, FlowID: f.ID, TokenID: t.id,
	})
}

func (x *instance) newToken(scope uint64) *token {
	x.nextID++
	t := &token{id: x.nextID, scope: scope, status: TokenActive}
	x.tokens = append(x.tokens, t)
	return t
}

// subscribed reports whether token t holds a subscription.
func (x *instance) subscribed(t *token) bool {
	return slices.ContainsFunc(x.subs, func(s *Subscription) bool { return s.Token == t.id })
}

func (x *instance) token(id uint64) *token {
	for _, t := range x.tokens {
		if t.id == id {
			return t
		}
	}
	return nil
}

func (x *instance) removeToken(t *token) {
	x.moveLetter(t, DeadLetterCancelled, "")
	t.removed = true
	if i := slices.Index(x.tokens, t); i >= 0 {
		x.tokens = slices.Delete(x.tokens, i, i+1)
	}
}

func (x *instance) scope(id uint64) *scope {
	for _, s := range x.scopes {
		if s.id == id {
			return s
		}
	}
	return nil
}

// setVars merges values into the instance's variables, copying the map first
// when a stored snapshot still shares it.
func (x *instance) setVars(values map[string]any) {
	if len(values) == 0 {
		return
	}
	if !x.varsOwned {
		x.vars = maps.Clone(x.vars)
		if x.vars == nil {
			x.vars = map[string]any{}
		}
		x.varsOwned = true
	}
	track := slices.ContainsFunc(x.subs, func(s *Subscription) bool { return s.Conditional })
	for k, v := range values {
		if track { // for conditional events (conditional.go)
			if x.changed == nil {
				x.changed = map[string]string{}
			}
			if _, ok := x.vars[k]; ok {
				x.changed[k] = "update"
			} else {
				x.changed[k] = "create"
			}
		}
		x.vars[k] = v
	}
}

// jobVars is what work for a token sees: the instance's variables with the
// token's local inputs on top, as a copy the work may keep.
func (x *instance) jobVars(t *token) map[string]any {
	m := make(map[string]any, len(x.vars)+len(t.local))
	maps.Copy(m, x.vars)
	for _, sc := range x.scopesWithVars(t) { // outermost first: inner ones win
		maps.Copy(m, sc.vars)
	}
	maps.Copy(m, t.local)
	return m
}

// sharedVars is what a job sees: the instance's variables themselves when
// the activity has no inputs (the map is then treated as immutable here:
// the next write copies it), else a merged copy.
func (x *instance) sharedVars(t *token) map[string]any {
	if len(t.local) > 0 || x.scopesWithVars(t) != nil {
		return x.jobVars(t)
	}
	x.varsOwned = false
	return x.vars
}

// evalVars is what expressions on a token see (read only).
func (x *instance) evalVars(t *token) map[string]any {
	if t == nil || len(t.local) == 0 && x.scopesWithVars(t) == nil {
		return x.vars
	}
	return x.jobVars(t)
}

// scopesWithVars are the scopes around t that have variables of their own,
// outermost first; nil when none has (the common case, which costs no
// allocation).
func (x *instance) scopesWithVars(t *token) []*scope {
	var out []*scope
	for id := t.scope; id != 0; {
		sc := x.scope(id)
		if sc == nil {
			break
		}
		if sc.vars != nil {
			out = append(out, sc)
		}
		id = sc.parent
	}
	slices.Reverse(out)
	return out
}

// setVarsAt writes values as seen from token t: a variable that a scope
// around t holds as its own changes there, any other in the instance.
func (x *instance) setVarsAt(t *token, values map[string]any) {
	if x.joins != nil {
		x.branchSet(t, values) // for the join's results (join_policy.go)
	}
	scs := x.scopesWithVars(t)
	if len(scs) == 0 {
		x.setVars(values)
		return
	}
	rest := map[string]any{}
	for k, v := range values {
		held := false
		for i := len(scs) - 1; i >= 0 && !held; i-- { // innermost first
			if _, ok := scs[i].vars[k]; ok && !scs[i].view {
				scs[i].vars = maps.Clone(scs[i].vars) // a stored snapshot may share it
				scs[i].vars[k] = v
				held = true
			}
		}
		if !held {
			rest[k] = v
		}
	}
	x.setVars(rest)
}
