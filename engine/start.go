package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// StartRequest asks for a new instance.
type StartRequest struct {
	Definition   string // the key
	Version      int    // 0: the default version (DefaultVersion)
	ProcessID    string // "": the definition's main process
	StartElement string // "": the none start event (else the first start event)
	Variables    map[string]any
	// RequestID makes the start idempotent: starting again with the same id
	// returns the instance the first start created.
	RequestID   string
	BusinessKey string
	// Triggered says the start event's timer or message has happened already
	// (scheduled and message starts): the token leaves it at once.
	Triggered bool

	id     string        // a call activity's child: the id its caller holds
	parent *ParentRef    // a call activity's child: its caller
	fired  model.Trigger // Triggered: the definition of the start event that happened
	// triggeredBy: a chained start, the instance whose end made it (chain.go)
	triggeredBy *ChainRef
}

// startRequest is a start the applier carries out.
type startRequest struct {
	dep       *deployment
	proc      *model.Process
	start     *model.Node
	snap      *Snapshot
	triggered bool
	fired     model.Trigger
	claimed   bool // the store holds the instance already (its request id was claimed)
	warning   string
}

// Started is what StartInstance did: the instance, whether this call created
// it, and warnings for the caller (a deprecated version).
type Started struct {
	Snapshot *Snapshot
	Created  bool
	Warnings []string
}

// Start creates an instance and runs it to its first wait state. It returns
// the instance and whether this call created it (false: a start with the same
// RequestID did).
func (e *Engine) Start(ctx context.Context, req StartRequest) (*Snapshot, bool, error) {
	s, err := e.StartInstance(ctx, req)
	return s.Snapshot, s.Created, err
}

// StartInstance is Start telling the warnings too.
func (e *Engine) StartInstance(ctx context.Context, req StartRequest) (Started, error) {
	sr, err := e.prepareStart(ctx, req)
	if err != nil {
		return Started{}, err
	}
	var warnings []string
	if sr.warning != "" {
		warnings = []string{sr.warning}
	}
	place, err := e.limits.admit(sr)
	if err != nil {
		return Started{}, err
	}
	if place != nil { // the count needs the outcome: the caller leaving must not make it unknown
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), loadTimeout+commitTimeout)
		defer cancel()
	}
	snap, created, err := e.startPrepared(ctx, req, sr)
	place.settle(snap, created, err)
	return Started{Snapshot: snap, Created: created, Warnings: warnings}, err
}

// startPrepared stores and runs a prepared start.
func (e *Engine) startPrepared(ctx context.Context, req StartRequest, sr *startRequest) (*Snapshot, bool, error) {
	snap := sr.snap
	if req.RequestID != "" { // claim the request id first; without one the first commit creates the instance
		existing, err := e.store.CreateInstance(ctx, snap)
		switch {
		case errors.Is(err, ErrDuplicate):
			return existing, false, nil
		case errors.Is(err, ErrFenced) && e.cluster != nil:
			return nil, false, fmt.Errorf("starting %s: %w", snap.DefinitionID, e.cluster.refusedNew(ctx, snap))
		case err != nil:
			return nil, false, fmt.Errorf("starting %s: %w", snap.DefinitionID, err)
		}
		sr.claimed = true
	}
	r, err := e.call(ctx, command{kind: cmdStart, inst: snap.ID, start: sr})
	if err != nil {
		return nil, false, fmt.Errorf("starting %s: %w", snap.DefinitionID, err)
	}
	return r.snap, true, nil
}

// prepareStart checks a start request and makes the new instance's first
// snapshot, storing nothing.
func (e *Engine) prepareStart(ctx context.Context, req StartRequest) (*startRequest, error) {
	rec, err := e.startVersion(ctx, req.Definition, req.Version)
	if err != nil {
		return nil, err
	}
	if !rec.Enabled {
		return nil, fmt.Errorf("definition %s: %w", rec.ID, ErrDisabled)
	}
	warning := ""
	switch rec.Status {
	case VersionDeprecated:
		warning = fmt.Sprintf("definition %s is deprecated: it still starts, but move to the default version", rec.ID)
	case VersionDraft, VersionArchived:
		return nil, fmt.Errorf("definition %s is %s and starts no instances: %s it, or start another version: %w",
			rec.ID, rec.Status, map[VersionStatus]string{VersionDraft: "activate", VersionArchived: "unarchive and reactivate"}[rec.Status], ErrNotStartable)
	}
	dep, err := e.defs.byID(ctx, rec.ID)
	if err != nil {
		return nil, err
	}
	proc := dep.def.Process(req.ProcessID)
	switch {
	case proc == nil && req.ProcessID == "":
		return nil, fmt.Errorf("definition %s has no executable process: mark one isExecutable=\"true\" to run it: %w", rec.ID, ErrInvalidInput)
	case proc == nil:
		return nil, fmt.Errorf("process %q is not in definition %s: %w", req.ProcessID, rec.ID, ErrNotFound)
	case !proc.Executable:
		return nil, fmt.Errorf("process %q of definition %s is not executable (isExecutable=\"false\"): it documents and does not run: %w", proc.ID, rec.ID, ErrInvalidInput)
	}
	start, err := startNode(proc, req.StartElement)
	if err != nil {
		return nil, err
	}
	vars := maps.Clone(dep.def.Variables)
	if vars == nil {
		vars = make(map[string]any, len(req.Variables))
	}
	maps.Copy(vars, req.Variables)
	if dep.def.ReadModel == model.ReadModelDataWorkflows {
		withReadModel(vars)
	}
	if err := e.checkVariables(vars); err != nil { // before a request id stores anything
		return nil, err
	}
	if err := (&instance{e: e}).checkTotal(vars); err != nil {
		return nil, err
	}
	now := e.clock.Now()
	id := req.id
	if id == "" {
		if id, err = e.newInstanceID(ctx); err != nil {
			return nil, err
		}
	}
	snap := &Snapshot{
		ID: id, Parent: req.parent, TriggeredBy: req.triggeredBy, DefinitionID: rec.ID, DefinitionKey: rec.Key, Version: rec.Version, ProcessID: proc.ID,
		BusinessKey: req.BusinessKey, RequestID: req.RequestID, Status: StatusRunning, Variables: vars,
		Started: now, Updated: now, StartElement: startID(start),
	}
	e.placeNew(snap)
	return &startRequest{dep: dep, proc: proc, start: start, snap: snap, triggered: req.Triggered, fired: req.fired, warning: warning}, nil
}

// startVersion is the version a start asks for: version v, or the default (0).
func (e *Engine) startVersion(ctx context.Context, key string, v int) (DefinitionRecord, error) {
	if v == 0 {
		return e.DefaultVersion(ctx, key)
	}
	rec, err := e.store.Definition(ctx, key, v)
	if err != nil && errors.Is(err, ErrNotFound) {
		return rec, fmt.Errorf("definition %q version %d: %w", key, v, err)
	}
	return rec, err
}

func startNode(p *model.Process, id string) (*model.Node, error) {
	if id != "" {
		n := p.Node(id)
		if n == nil || n.Kind != model.KindStartEvent || n.Scope.Owner != nil {
			return nil, fmt.Errorf("%q is not a start event of process %q: %w", id, p.ID, ErrNotFound)
		}
		return n, nil
	}
	if starts := p.NoneStarts(); len(starts) > 0 {
		return starts[0], nil
	}
	if starts := p.Starts(); len(starts) > 0 {
		return starts[0], nil
	}
	if len(p.ImplicitStarts()) > 0 {
		return nil, nil // an implicit start: every node no flow enters (instance.start)
	}
	return nil, fmt.Errorf("process %q has no start event", p.ID)
}

// startByEvent starts the default version of every definition whose main
// process has a start event with the given trigger (message or signal) and
// name, and returns how many it started.
func (e *Engine) startByEvent(ctx context.Context, trigger model.Trigger, name string, vars map[string]any, businessKey string) (int, error) {
	defaults, err := e.defaultVersions(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rec := range defaults {
		dep, err := e.defs.byID(ctx, rec.ID)
		if err != nil {
			return n, err
		}
		main := dep.def.Main()
		if main == nil {
			continue
		}
		for _, s := range main.Starts() {
			if !startsOn(s, trigger, name) {
				continue
			}
			_, _, err := e.Start(ctx, StartRequest{
				Definition: rec.Key, Version: rec.Version, StartElement: s.ID,
				Variables: vars, BusinessKey: businessKey, Triggered: true, fired: trigger,
			})
			if err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// startsOn reports whether start event s starts on the trigger and name:
// its own, or one of a multiple start's.
func startsOn(s *model.Node, trigger model.Trigger, name string) bool {
	if s.Trigger == model.TriggerMultiple {
		return slices.ContainsFunc(s.Alternatives, func(a *model.Node) bool { return startsOn(a, trigger, name) })
	}
	return s.Trigger == trigger && startName(s) == name
}

func startName(s *model.Node) string {
	if s.Trigger == model.TriggerSignal {
		return s.SignalName
	}
	if s.Message != nil {
		return s.Message.Name
	}
	return ""
}

// startDue returns when a timer start event fires next and how many firings
// remain after it (0: none).
func startDue(t *model.Timer, from time.Time, repeat int) (time.Time, int, error) {
	switch t.Kind {
	case model.TimerDate:
		if repeat != -2 {
			return time.Time{}, 0, nil
		}
		due, err := parseDate(t.Expr)
		return due, 0, err
	case model.TimerDuration:
		if repeat != -2 {
			return time.Time{}, 0, nil
		}
		d, err := model.ParseISODuration(t.Expr)
		return d.AddTo(from), 0, err
	}
	c, err := parseCycle(t.Expr, t.TimeZone)
	if err != nil {
		return time.Time{}, 0, err
	}
	if repeat == -2 {
		repeat = c.repeat
	}
	if repeat == 0 {
		return time.Time{}, 0, nil
	}
	left := repeat - 1
	if repeat < 0 {
		left = -1
	}
	return c.next(from), left, nil
}

func startID(n *model.Node) string {
	if n == nil {
		return "" // an implicit start
	}
	return n.ID
}
