package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// Options say how to run.
type Options struct {
	Format        string // "" detects it
	ProcessID     string
	Variables     map[string]any
	CompleteTasks bool           // complete every user task as it appears
	TaskVariables map[string]any // merged into each completion
	Messages      []engine.Message
	Signals       []Signal // broadcast, each once something waits for it
	Deploy        [][]byte // definitions deployed first: called processes, linked forms
	Strict        bool     // leave service tasks without a handler waiting (else complete them with no output)
	Timeout       time.Duration
	Handlers      map[string]engine.Handler
	Start         time.Time // the virtual clock's start; zero: now
	MaxTimers     int       // timer firings before giving up on an endless cycle; 0: 10,000
}

// Signal is a signal to broadcast.
type Signal struct {
	Name      string         `json:"name"`
	Variables map[string]any `json:"variables"`
}

// Result is what `wfpp run` prints.
type Result struct {
	InstanceID string           `json:"-"`
	Status     string           `json:"status"`
	Visited    []string         `json:"visited"`
	Activated  []string         `json:"activated"`
	Variables  map[string]any   `json:"variables"`
	Tasks      []TaskResult     `json:"tasks"`
	Incidents  []IncidentResult `json:"incidents"`
	Events     []engine.Event   `json:"-"`
	Children   []ChildResult    `json:"children,omitempty"`
}

// ChildResult is an instance a call activity started, and what it did.
type ChildResult struct {
	ElementID string         `json:"elementId"` // the call activity
	Process   string         `json:"process"`
	Status    string         `json:"status"`
	Visited   []string       `json:"visited"`
	Variables map[string]any `json:"variables"`
	Children  []ChildResult  `json:"children,omitempty"`
}

// TaskResult is an open user task.
type TaskResult struct {
	ID              string   `json:"id"`
	ElementID       string   `json:"elementId"`
	Name            string   `json:"name"`
	Assignee        string   `json:"assignee"`
	CandidateGroups []string `json:"candidateGroups"`
	CandidateUsers  []string `json:"candidateUsers"`
}

// IncidentResult is an open incident.
type IncidentResult struct {
	ElementID string `json:"elementId"`
	Message   string `json:"message"`
}

// Run deploys src, starts one instance and runs it to its end or to a wait
// state nothing given can end. The error is model.Problems for an invalid definition.
func Run(ctx context.Context, src []byte, o Options) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, time.Minute))
	defer cancel()
	start := o.Start
	if start.IsZero() {
		start = time.Now().UTC().Truncate(time.Second)
	}
	clock := engine.NewVirtualClock(start)
	var (
		mu     sync.Mutex
		events []engine.Event
	)
	unhandled := engine.JobsNoop
	if o.Strict {
		unhandled = engine.JobsExternal
	}
	e, err := engine.New(engine.Config{
		Store: memstore.New(), Clock: clock, Unhandled: unhandled, NoStartTimers: true, Partitions: 1,
		Exporter: engine.ExporterFunc(func(evs []engine.Event) {
			mu.Lock()
			events = append(events, evs...)
			mu.Unlock()
		}),
	})
	if err != nil {
		return nil, err
	}
	for typ, h := range o.Handlers {
		e.RegisterHandler(typ, h)
	}
	if err := e.Run(ctx); err != nil {
		return nil, err
	}
	defer e.Close()
	for _, more := range o.Deploy {
		if _, _, err := e.Deploy(ctx, engine.DeployRequest{Source: more}); err != nil {
			return nil, fmt.Errorf("deploying a --deploy file: %w", err)
		}
	}
	rec, _, err := e.Deploy(ctx, engine.DeployRequest{Source: src, Format: o.Format})
	if err != nil {
		return nil, err
	}
	snap, _, err := e.Start(ctx, engine.StartRequest{Definition: rec.Key, Version: rec.Version, ProcessID: o.ProcessID, Variables: o.Variables})
	if err != nil {
		return nil, err
	}
	d := driver{e: e, clock: clock, id: snap.ID, o: o, messages: slices.Clone(o.Messages), signals: slices.Clone(o.Signals)}
	if err := d.run(ctx); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	return d.result(ctx, events)
}

type driver struct {
	e        *engine.Engine
	clock    *engine.VirtualClock
	id       string
	o        Options
	messages []engine.Message
	signals  []Signal
}

func (d *driver) run(ctx context.Context) error {
	fired := 0
	maxTimers := cmp.Or(d.o.MaxTimers, 10_000)
	for {
		if err := d.e.WaitIdle(ctx); err != nil {
			return fmt.Errorf("waiting for the instance: %w", err)
		}
		snap, err := d.e.Instance(ctx, d.id)
		if err != nil {
			return err
		}
		if snap.Status.Done() {
			return nil
		}
		moved, err := d.completeTasks(ctx)
		if err != nil || moved {
			if err != nil {
				return err
			}
			continue
		}
		if d.deliverMessage(ctx) || d.deliverSignal(ctx) {
			continue
		}
		if fired >= maxTimers || !d.clock.AdvanceToNext() {
			return nil
		}
		fired++
	}
}

func (d *driver) completeTasks(ctx context.Context) (bool, error) {
	if !d.o.CompleteTasks {
		return false, nil
	}
	// The run's own store holds only this instance and those it called.
	tasks, _, err := d.e.Queries().Tasks(ctx, engine.TaskFilter{Status: engine.TaskOpen})
	if err != nil {
		return false, err
	}
	for _, t := range tasks {
		if _, err := d.e.CompleteTask(ctx, t.ID, "wfpp-run", d.o.TaskVariables); err != nil && !errors.Is(err, engine.ErrTaskNotOpen) {
			return false, fmt.Errorf("completing task %s (%s): %w", t.ID, t.ElementID, err)
		}
	}
	return len(tasks) > 0, nil
}

// deliverMessage delivers the first given message that the instance, or
// one it called, waits for.
func (d *driver) deliverMessage(ctx context.Context) bool {
	if len(d.messages) == 0 {
		return false
	}
	ids, err := d.tree(ctx, d.id)
	if err != nil {
		return false
	}
	for i, m := range d.messages {
		for _, id := range ids {
			m.InstanceID = id
			if _, err := d.e.Correlate(ctx, m); err == nil {
				d.messages = slices.Delete(d.messages, i, i+1)
				return true
			}
		}
	}
	return false
}

// deliverSignal broadcasts the first given signal something waits for.
func (d *driver) deliverSignal(ctx context.Context) bool {
	for i, sig := range d.signals {
		if n, err := d.e.Signal(ctx, sig.Name, sig.Variables); err == nil && n > 0 {
			d.signals = slices.Delete(d.signals, i, i+1)
			return true
		}
	}
	return false
}

// tree lists id and the instances it called, and those they called.
func (d *driver) tree(ctx context.Context, id string) ([]string, error) {
	out := []string{id}
	kids, _, err := d.e.Queries().Instances(ctx, engine.InstanceFilter{ParentID: id})
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		sub, err := d.tree(ctx, k.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

func (d *driver) result(ctx context.Context, events []engine.Event) (*Result, error) {
	snap, err := d.e.Instance(ctx, d.id)
	if err != nil {
		return nil, err
	}
	def, err := d.definition(ctx, snap)
	if err != nil {
		return nil, err
	}
	r := &Result{
		InstanceID: d.id, Status: string(snap.Status), Variables: snap.Variables,
		Visited: []string{}, Activated: []string{}, Tasks: []TaskResult{}, Incidents: []IncidentResult{},
	}
	switch snap.Status {
	case engine.StatusRunning, engine.StatusPaused:
		r.Status = string(engine.StatusWaiting)
	}
	if r.Variables == nil {
		r.Variables = map[string]any{}
	}
	for _, ev := range events {
		if ev.InstanceID != d.id {
			continue
		}
		r.Events = append(r.Events, ev)
		switch ev.Type {
		case engine.EventElementCompleted:
			r.Visited = append(r.Visited, ev.ElementID)
		case engine.EventElementActivated:
			if n := def.Node(ev.ElementID); n != nil && isTask(n.Kind) {
				r.Activated = append(r.Activated, ev.ElementID)
			}
		}
	}
	for _, t := range snap.Tasks {
		r.Tasks = append(r.Tasks, TaskResult{
			ID: t.ID, ElementID: t.ElementID, Name: t.Name, Assignee: t.Assignee,
			CandidateGroups: t.CandidateGroups, CandidateUsers: t.CandidateUsers,
		})
	}
	for _, inc := range snap.Incidents {
		r.Incidents = append(r.Incidents, IncidentResult{ElementID: inc.ElementID, Message: inc.Message})
	}
	if r.Children, err = d.children(ctx, d.id, events); err != nil {
		return nil, err
	}
	return r, nil
}

// children reports the instances id called, oldest first.
func (d *driver) children(ctx context.Context, id string, events []engine.Event) ([]ChildResult, error) {
	kids, _, err := d.e.Queries().Instances(ctx, engine.InstanceFilter{ParentID: id})
	if err != nil {
		return nil, err
	}
	var out []ChildResult
	for i := len(kids) - 1; i >= 0; i-- { // lists are newest first
		k, err := d.e.Instance(ctx, kids[i].ID)
		if err != nil {
			return nil, err
		}
		c := ChildResult{ElementID: k.Parent.ElementID, Process: k.ProcessID, Status: string(k.Status), Visited: []string{}, Variables: k.Variables}
		if c.Variables == nil {
			c.Variables = map[string]any{}
		}
		for _, ev := range events {
			if ev.InstanceID == k.ID && ev.Type == engine.EventElementCompleted {
				c.Visited = append(c.Visited, ev.ElementID)
			}
		}
		if c.Children, err = d.children(ctx, k.ID, events); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (d *driver) definition(ctx context.Context, snap *engine.Snapshot) (*model.Process, error) {
	_, def, err := d.e.Definition(ctx, snap.DefinitionKey, snap.Version)
	if err != nil {
		return nil, err
	}
	return def.Process(snap.ProcessID), nil
}

func isTask(k model.Kind) bool {
	switch k {
	case model.KindTask, model.KindUserTask, model.KindServiceTask, model.KindScriptTask, model.KindReceiveTask:
		return true
	}
	return false
}
