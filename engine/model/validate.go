package model

// Checks compile the expressions, scripts and timers of a definition. The
// engine supplies them; a nil func skips that check.
type Checks struct {
	Expression func(text string) error
	// Value checks a value that may be an expression or a template mixing
	// text and ${...} (assignees, candidates, priorities, correlation keys);
	// Expression when nil.
	Value  func(text string) error
	Script func(format, source string) error
	Timer  func(t *Timer) error
}

// Validate reports everything wrong with a linked definition, each problem
// naming its element. It does not stop at the first problem.
func Validate(d *Definition, c Checks) Problems {
	var probs Problems
	if d.Key == "" {
		probs.Add("", "the definition has no key: give the process (or DAG/graph) an id")
	}
	if len(d.Processes) == 0 {
		probs.Add(d.Key, "the definition has no process")
	}
	for _, p := range d.Processes {
		v := validator{p: p, c: c, probs: &probs}
		v.scope(&p.Scope)
		v.triggers()
		if !p.Executable {
			// A non-executable process documents: its structure (starts,
			// reachability, cycles) is checked, not what running it needs.
			continue
		}
		for _, n := range p.AllNodes {
			v.node(n)
		}
		for _, f := range p.AllFlows {
			v.flow(f)
		}
	}
	return probs
}

type validator struct {
	p     *Process
	c     Checks
	probs *Problems
}

func (v *validator) add(id, format string, args ...any) { v.probs.Add(id, format, args...) }

func (v *validator) scope(s *Scope) {
	starts := s.Starts()
	owner := s.ID
	switch {
	case s.Owner != nil && s.Owner.EventSub:
		v.eventSub(s)
	case s.Owner != nil && s.Owner.AdHoc != nil:
		starts = v.adHoc(s)
	case s.Owner != nil:
		owner = s.Owner.ID
		if len(s.Nodes) == 0 {
			return // an empty (collapsed) sub-process completes at once
		}
		switch n := len(s.NoneStarts()); {
		case n > 1:
			v.add(owner, "a sub-process needs exactly one start event without a trigger, found %d", n)
		case n == 0 && len(s.Starts()) > 0:
			v.add(owner, "a sub-process needs a start event without a trigger, found only ones with a trigger")
		case n == 0:
			starts = s.ImplicitStarts() // BPMN §13.3.1: it starts at every node no flow enters
		}
	case len(starts) == 0:
		if starts = s.ImplicitStarts(); len(starts) == 0 {
			v.add(owner, "the process has no start event, and no flow node without an incoming flow to start at: add a start event")
		}
	}
	v.reachability(s, starts)
	v.cycles(s)
	v.linkTargets(s)
	for _, n := range s.Nodes {
		if n.Body != nil {
			v.scope(n.Body)
		}
	}
}

// adHoc checks the body of an ad-hoc sub-process and returns the nodes it
// starts on demand: no start or end events, at least one activity.
func (v *validator) adHoc(s *Scope) []*Node {
	n := s.Owner
	activities := 0
	for _, m := range s.Nodes {
		switch {
		case m.Kind == KindStartEvent:
			v.add(m.ID, "an ad-hoc sub-process has no start events: its activities start on demand; remove it")
		case m.Kind == KindEndEvent:
			v.add(m.ID, "an ad-hoc sub-process has no end events: a path in it ends where its flows end; remove it")
		case m.Kind.IsActivity() && !m.ForCompensation:
			activities++
		}
	}
	if activities == 0 {
		v.add(n.ID, "an ad-hoc sub-process needs at least one activity to start")
	}
	if v.c.Expression != nil {
		if c := n.AdHoc.Completion; c != "" {
			if err := v.c.Expression(c); err != nil {
				v.add(n.ID, "completionCondition %q: %v", c, err)
			}
		}
	}
	v.expr(n.ID, "activeElementsCollection", n.AdHoc.ActiveElements)
	return s.ImplicitStarts()
}

// eventSub checks the body of an event sub-process: one start event, whose
// trigger starts it, and no flow into or out of the sub-process.
func (v *validator) eventSub(s *Scope) {
	n := s.Owner
	if len(n.Incoming)+len(n.Outgoing) > 0 {
		v.add(n.ID, "an event sub-process has no sequence flows in or out: its start event's trigger starts it")
	}
	if n.Loop != nil || n.Repeat != nil {
		v.add(n.ID, "an event sub-process cannot loop or be multi-instance: its start event's trigger runs it, once per trigger; put the loop on a sub-process inside it")
	}
	starts := s.Starts()
	if len(starts) != 1 {
		v.add(n.ID, "an event sub-process needs exactly one start event, found %d", len(starts))
		return
	}
	switch starts[0].Trigger {
	case TriggerMessage, TriggerTimer, TriggerSignal, TriggerError, TriggerEscalation, TriggerConditional, TriggerMultiple:
	case TriggerNone:
		v.add(starts[0].ID, "the start event of an event sub-process needs a trigger: a message, timer, signal, error or escalation")
	case TriggerCompensation:
		if s.Owner.Scope == nil || s.Owner.Scope.Owner == nil {
			v.add(starts[0].ID, "a compensation event sub-process undoes the sub-process it is in: put it in an embedded sub-process, not at process level")
		}
	default:
		v.add(starts[0].ID, "an event sub-process started by a %s event is not supported yet: use a message, timer, signal, error, escalation or conditional start", starts[0].Trigger)
	}
}

// linkTargets refuses two link catch events of one name in a scope: a link
// name has one target (BPMN §10.4.5).
func (v *validator) linkTargets(s *Scope) {
	first := map[string]string{}
	for _, n := range s.Nodes {
		if n.Kind != KindIntermediateCatchEvent || n.Trigger != TriggerLink {
			continue
		}
		if id, ok := first[n.LinkName]; ok {
			v.add(n.ID, "link catch events %q and %q share the name %q: a link has one target, rename one", id, n.ID, n.LinkName)
			continue
		}
		first[n.LinkName] = n.ID
	}
}

// reachability reports nodes no token can reach from a start event of the scope.
func (v *validator) reachability(s *Scope, starts []*Node) {
	seen := map[*Node]bool{}
	var visit func(n *Node)
	visit = func(n *Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, f := range n.Outgoing {
			visit(f.Target)
		}
		for _, b := range n.Boundaries {
			visit(b)
		}
		if n.Kind == KindIntermediateThrowEvent && n.Trigger == TriggerLink {
			for _, m := range s.Nodes {
				if m.Kind == KindIntermediateCatchEvent && m.Trigger == TriggerLink && m.LinkName == n.LinkName {
					visit(m)
				}
			}
		}
	}
	for _, st := range starts {
		visit(st)
	}
	for _, n := range s.Nodes {
		if !seen[n] && !n.EventSub && !n.ForCompensation { // an event starts an event sub-process, compensation a handler; not a flow
			v.add(n.ID, "cannot be reached from a start event: connect it or remove it")
		}
	}
}

// cycles reports loops that no gateway or condition can leave: such a loop
// would run forever.
func (v *validator) cycles(s *Scope) {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*Node]int{}
	var visit func(n *Node) bool
	visit = func(n *Node) bool {
		state[n] = active
		for _, f := range n.Outgoing {
			t := f.Target
			if t.Kind.IsGateway() || f.Condition != "" || len(t.Boundaries) > 0 || t.IsWaitState() {
				continue
			}
			switch state[t] {
			case active:
				v.add(t.ID, "is on a loop without a gateway, condition or wait state, which would never end: loop through a gateway")
				return true
			case unvisited:
				if visit(t) {
					return true
				}
			}
		}
		state[n] = done
		return false
	}
	for _, n := range s.Nodes {
		if state[n] == unvisited && !n.Kind.IsGateway() {
			visit(n)
		}
	}
}

func (v *validator) node(n *Node) {
	in, out := len(n.Incoming), len(n.Outgoing)
	switch n.Kind {
	case KindStartEvent:
		if in > 0 {
			v.add(n.ID, "a start event cannot have incoming sequence flows")
		}
		// Without an outgoing flow it ends at once (an implicit end).
	case KindEndEvent:
		if out > 0 {
			v.add(n.ID, "an end event cannot have outgoing sequence flows")
		}
	case KindBoundaryEvent:
		if in > 0 {
			v.add(n.ID, "a boundary event cannot have incoming sequence flows")
		}
		switch {
		case n.Trigger == TriggerCompensation && out > 0:
			v.add(n.ID, "a compensation boundary event has no outgoing sequence flow: associate it with its handler, an activity marked isForCompensation")
		case n.Trigger == TriggerCompensation && n.Handler == nil:
			v.add(n.ID, "a compensation boundary event needs a handler: associate it with an activity marked isForCompensation")
		case n.Trigger == TriggerCompensation && !n.Handler.ForCompensation:
			v.add(n.ID, "the compensation handler %q is not marked isForCompensation", n.Handler.ID)
		case out == 0 && n.Trigger != TriggerCompensation:
			v.add(n.ID, "a boundary event needs an outgoing sequence flow")
		}
		switch n.Trigger {
		case TriggerTimer, TriggerError, TriggerMessage, TriggerSignal, TriggerEscalation, TriggerConditional, TriggerCompensation, TriggerMultiple, TriggerCancel:
		default:
			v.add(n.ID, "a %s boundary event cannot run: use a timer, error, message, signal, escalation or conditional boundary event", n.Trigger)
		}
	case KindComplexGateway:
		if in == 0 || out == 0 {
			v.add(n.ID, "a complexGateway needs at least one incoming and one outgoing sequence flow")
		}
		if n.ActivationCondition != "" && v.c.Expression != nil {
			if err := v.c.Expression(n.ActivationCondition); err != nil {
				v.add(n.ID, "activationCondition %q: %v", n.ActivationCondition, err)
			}
		}
	case KindExclusiveGateway, KindInclusiveGateway, KindParallelGateway:
		if in == 0 {
			v.add(n.ID, "a %s needs at least one incoming sequence flow", n.Kind)
		}
		if out == 0 && n.Kind != KindParallelGateway { // a parallel gateway with none ends its tokens: an implicit end
			v.add(n.ID, "a %s needs at least one outgoing sequence flow", n.Kind)
		}
	case KindEventBasedGateway:
		v.eventGateway(n)
	}
	if n.Default != nil && n.Default.Condition != "" {
		v.add(n.Default.ID, "the default flow of %q cannot have a condition: remove it", n.ID)
	}
	if n.Kind == KindParallelGateway {
		for _, f := range n.Outgoing {
			if f.Condition != "" {
				v.add(f.ID, "flows leaving a parallel gateway cannot have conditions: use an inclusive gateway")
			}
		}
	}
	if n.ForCompensation && len(n.Incoming)+len(n.Outgoing) > 0 {
		v.add(n.ID, "a compensation handler (isForCompensation) has no sequence flows: only its compensation boundary event starts it")
	}
	v.trigger(n)
	v.activity(n)
	if n.Circuit != nil {
		v.circuit(n)
	}
	if n.Cache != nil {
		v.cache(n)
	}
	v.joinPolicy(n)
	v.webhook(n)
	for _, l := range n.ExecListeners {
		if v.c.Script == nil {
			break
		}
		if err := v.c.Script("javascript", l.Script); err != nil {
			v.add(n.ID, "%s execution listener: %v", l.Event, err)
		}
	}
}

func (v *validator) eventGateway(n *Node) {
	if len(n.Outgoing) < 2 {
		v.add(n.ID, "an event-based gateway needs at least two outgoing sequence flows")
	}
	for _, f := range n.Outgoing {
		t := f.Target
		ok := t.Kind == KindReceiveTask ||
			t.Kind == KindIntermediateCatchEvent && (t.Trigger == TriggerTimer || t.Trigger == TriggerMessage || t.Trigger == TriggerSignal)
		if !ok {
			v.add(t.ID, "follows event-based gateway %q but is a %s: only message, timer or signal catch events and receive tasks may", n.ID, t.Kind)
		}
		if f.Condition != "" {
			v.add(f.ID, "flows leaving an event-based gateway cannot have conditions")
		}
	}
}

func (v *validator) trigger(n *Node) {
	switch n.Trigger {
	case TriggerTimer:
		switch {
		case n.Timer == nil || n.Timer.Expr == "":
			v.add(n.ID, "the timer has no definition: set a timeDuration, timeDate or timeCycle")
		case v.c.Timer != nil:
			if err := v.c.Timer(n.Timer); err != nil {
				v.add(n.ID, "timer %s %q: %v", n.Timer.Kind, n.Timer.Expr, err)
			}
		}
	case TriggerMessage:
		if n.Kind == KindIntermediateThrowEvent || n.Kind == KindEndEvent {
			break // a message throw sends; it needs no subscription
		}
		if n.Message != nil { // without one, only a trigger by its id moves it
			v.expr(n.ID, "correlation key", n.Message.CorrelationKey)
		}
	case TriggerSignal:
		// Without a signal a catch waits for a trigger by its id, and a
		// throw reaches no one (engine/signal.go).
	case TriggerMultiple:
		throws := n.Kind == KindIntermediateThrowEvent || n.Kind == KindEndEvent
		for _, alt := range n.Alternatives {
			// Errors and escalations are caught only where an activity or a
			// scope ends up throwing them: boundary events and event
			// sub-process starts.
			catchesThrown := n.Kind == KindBoundaryEvent || n.Kind == KindStartEvent && n.Scope != nil && n.Scope.Owner != nil && n.Scope.Owner.EventSub
			switch {
			case throws && (alt.Trigger == TriggerSignal || alt.Trigger == TriggerEscalation || alt.Trigger == TriggerCompensation || alt.Trigger == TriggerMessage):
			case !throws && (alt.Trigger == TriggerMessage || alt.Trigger == TriggerSignal || alt.Trigger == TriggerTimer || alt.Trigger == TriggerConditional):
			case !throws && catchesThrown && (alt.Trigger == TriggerError || alt.Trigger == TriggerEscalation):
			default:
				v.add(n.ID, "this event with several definitions cannot have a definition of kind %s: catch with message, signal, timer and conditional definitions (error and escalation on boundary events and event sub-process starts), throw signals, escalations and compensation", alt.Trigger)
				continue
			}
			if n.ParallelMultiple && (alt.Trigger == TriggerError || alt.Trigger == TriggerEscalation) {
				v.add(n.ID, "a parallel multiple event cannot wait for a %s as well: an error or escalation is caught the moment it is thrown", alt.Trigger)
			}
			v.trigger(alt)
		}
	case TriggerCancel:
		switch {
		case n.Kind == KindEndEvent && (n.Scope == nil || n.Scope.Owner == nil || !n.Scope.Owner.Transaction):
			v.add(n.ID, "a cancel end event cancels a transaction: put it directly inside a transaction sub-process")
		case n.Kind == KindBoundaryEvent && n.AttachedTo != nil && !n.AttachedTo.Transaction:
			v.add(n.ID, "a cancel boundary event catches the cancelling of a transaction: attach it to a transaction sub-process, not a %s", n.AttachedTo.Kind)
		case n.Kind == KindBoundaryEvent && !n.Interrupting:
			v.add(n.ID, "a cancel boundary event always interrupts: remove cancelActivity=\"false\"")
		case n.Kind != KindEndEvent && n.Kind != KindBoundaryEvent:
			v.add(n.ID, "a %s cannot be a cancel event: only end events inside a transaction and boundary events on one can", n.Kind)
		}
	case TriggerCompensation:
		switch n.Kind {
		case KindStartEvent:
			if n.Scope == nil || n.Scope.Owner == nil || !n.Scope.Owner.EventSub {
				v.add(n.ID, "a compensation start event starts an event sub-process: put it in one (triggeredByEvent)")
			}
		case KindIntermediateCatchEvent:
			v.add(n.ID, "an intermediate event cannot catch compensation: attach a compensation boundary event to the activity")
		}
	case TriggerConditional:
		if n.Condition != "" && v.c.Expression != nil {
			if err := v.c.Expression(n.Condition); err != nil {
				v.add(n.ID, "condition %q: %v", n.Condition, err)
			}
		}
		for _, ev := range n.VariableEvents {
			if ev != "create" && ev != "update" && ev != "delete" {
				v.add(n.ID, "variable event %q: use create, update or delete", ev)
			}
		}
	case TriggerEscalation:
		switch n.Kind {
		case KindStartEvent:
			if n.Scope == nil || n.Scope.Owner == nil || !n.Scope.Owner.EventSub {
				v.add(n.ID, "an escalation start event starts an event sub-process: put it in one (triggeredByEvent)")
			}
		case KindIntermediateCatchEvent:
			v.add(n.ID, "an intermediate event cannot catch an escalation: attach an escalation boundary event to the activity")
		}
	case TriggerLink:
		if n.LinkName == "" {
			v.add(n.ID, "the link event has no name: name the link")
		}
		if n.Kind == KindIntermediateThrowEvent && !v.hasLinkCatch(n) {
			v.add(n.ID, "no link catch event named %q in this scope", n.LinkName)
		}
	}
	if n.Kind == KindReceiveTask {
		if n.Message != nil { // without one, only a trigger by its id moves it, as Camunda 7 does
			v.expr(n.ID, "correlation key", n.Message.CorrelationKey)
		}
	}
}

func (v *validator) hasLinkCatch(n *Node) bool {
	for _, m := range n.Scope.Nodes {
		if m.Kind == KindIntermediateCatchEvent && m.Trigger == TriggerLink && m.LinkName == n.LinkName {
			return true
		}
	}
	return false
}

func (v *validator) activity(n *Node) {
	if n.Loop != nil && n.Repeat != nil {
		v.add(n.ID, "an activity is either multi-instance or a standard loop, not both: remove one marker")
	}
	if r := n.Repeat; r != nil && r.Condition != "" && v.c.Expression != nil {
		if err := v.c.Expression(r.Condition); err != nil {
			v.add(n.ID, "loop condition %q: %v", r.Condition, err)
		}
	}
	if n.Loop != nil && v.c.Expression != nil {
		for what, text := range map[string]string{
			"input collection": n.Loop.Collection, "loop cardinality": n.Loop.Cardinality,
			"completion condition": n.Loop.Completion, "output element": n.Loop.OutputElement,
		} {
			if text == "" {
				continue
			}
			if err := v.c.Expression(text); err != nil {
				v.add(n.ID, "multi-instance %s %q: %v", what, text, err)
			}
		}
	}
	for _, m := range n.Inputs {
		v.mapping(n.ID, "input", m)
	}
	for _, m := range n.Outputs {
		v.mapping(n.ID, "output", m)
	}
	if n.Kind == KindScriptTask {
		switch {
		case n.Script.Source == "":
			v.add(n.ID, "the script task has no script: write one")
		case v.c.Script != nil:
			if err := v.c.Script(n.Script.Format, n.Script.Source); err != nil {
				v.add(n.ID, "script: %v", err)
			}
		}
	}
	if n.Kind == KindCallActivity {
		v.call(n)
	}
	if n.Kind == KindUserTask {
		h := n.Human
		v.expr(n.ID, "assignee", h.Assignee)
		v.expr(n.ID, "priority", h.Priority)
		v.expr(n.ID, "due date", h.DueDate)
		for _, l := range h.Listeners {
			if v.c.Script == nil {
				break
			}
			if err := v.c.Script("javascript", l.Script); err != nil {
				v.add(n.ID, "%s task listener: %v", l.Event, err)
			}
		}
	}
}

func (v *validator) call(n *Node) {
	c := n.Call
	switch {
	case c == nil || c.ProcessID == "":
		v.add(n.ID, "the call activity names no process to call: set calledElement (zeebe:calledElement processId) to the id of a process")
		return
	case c.Binding == BindingVersionTag && c.VersionTag == "":
		v.add(n.ID, "the call activity's binding is a version tag but it names none: set the version tag")
	case c.Binding == BindingVersion && c.Version < 1:
		v.add(n.ID, "the call activity's binding is a version but it names none: set the version (camunda:calledElementVersion) to a number from 1")
	}
	v.expr(n.ID, "called element", c.ProcessID)
	v.expr(n.ID, "business key", c.BusinessKey)
	for _, m := range c.In {
		v.mapping(n.ID, "in", m)
	}
	for _, m := range c.Out {
		v.mapping(n.ID, "out", m)
	}
}

func (v *validator) mapping(id, dir string, m Mapping) {
	if m.Target == "" {
		v.add(id, "%s mapping from %q has no target variable", dir, m.Source)
		return
	}
	if m.Source == "" {
		v.add(id, "%s mapping to %q has no source expression", dir, m.Target)
		return
	}
	if v.c.Expression != nil {
		if err := v.c.Expression(m.Source); err != nil {
			v.add(id, "%s mapping %q: %v", dir, m.Target, err)
		}
	}
}

// expr checks text when it is an expression (=expr or ${...}); plain values are literals.
func (v *validator) expr(id, what, text string) {
	check := v.c.Value
	if check == nil {
		check = v.c.Expression
	}
	if text == "" || check == nil || !IsExpression(text) {
		return
	}
	if err := check(text); err != nil {
		v.add(id, "%s: %v", what, err)
	}
}

func (v *validator) flow(f *Flow) {
	if f.Fallback {
		v.fallback(f)
	}
	if f.Condition == "" || v.c.Expression == nil {
		return
	}
	if err := v.c.Expression(f.Condition); err != nil {
		v.add(f.ID, "condition %q: %v", f.Condition, err)
	}
}

// fallback checks a fallback flow: it leaves an activity, whose breaker
// alone sends tokens along it.
func (v *validator) fallback(f *Flow) {
	switch {
	case f.Source == nil || !f.Source.Kind.IsActivity():
		kind := "nothing"
		if f.Source != nil {
			kind = "a " + f.Source.Kind.String()
		}
		v.add(f.ID, "a fallback flow (wf:fallback) must leave a task, whose open circuit breaker sends the token along it; it leaves %s: remove wf:fallback or draw the flow from the task", kind)
	case f.Condition != "":
		v.add(f.ID, "a fallback flow is taken when the task's circuit breaker is open, not by a condition: remove the condition")
	case f.IsDefault():
		v.add(f.ID, "a fallback flow cannot be its task's default flow: make another flow the default or remove wf:fallback")
	}
}

// circuit checks a circuit breaker policy's numbers (zero: the default).
func (v *validator) circuit(n *Node) {
	c := n.Circuit
	if c.FailureThreshold < 0 || c.MinCalls < 0 || c.HalfOpenCalls < 0 {
		v.add(n.ID, "circuit breaker: failure threshold, minimum calls and half-open calls must not be negative (0 takes the default)")
	}
	if !(c.FailureRate >= 0 && c.FailureRate <= 1) {
		v.add(n.ID, "circuit breaker: failure rate %v is not a share between 0 and 1: write e.g. 0.5", c.FailureRate)
	}
	if c.Window < 0 || c.OpenTimeout < 0 {
		v.add(n.ID, "circuit breaker: window and open timeout must not be negative (0 takes the default)")
	}
}

// IsExpression reports whether a value is an expression (FEEL-style =expr or
// a JUEL-style ${...}) rather than a literal.
func IsExpression(text string) bool {
	if len(text) > 1 && text[0] == '=' {
		return true
	}
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '$' && text[i+1] == '{' {
			return true
		}
	}
	return false
}
