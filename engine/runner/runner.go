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
	Strict        bool // leave service tasks without a handler waiting (else complete them with no output)
	Timeout       time.Duration
	Handlers      map[string]engine.Handler
	Start         time.Time // the virtual clock's start; zero: now
	MaxTimers     int       // timer firings before giving up on an endless cycle; 0: 10,000
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
	rec, _, err := e.Deploy(ctx, engine.DeployRequest{Source: src, Format: o.Format})
	if err != nil {
		return nil, err
	}
	snap, _, err := e.Start(ctx, engine.StartRequest{Definition: rec.Key, Version: rec.Version, ProcessID: o.ProcessID, Variables: o.Variables})
	if err != nil {
		return nil, err
	}
	d := driver{e: e, clock: clock, id: snap.ID, o: o, messages: slices.Clone(o.Messages)}
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
		if d.deliverMessage(ctx) {
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
	tasks, _, err := d.e.Queries().Tasks(ctx, engine.TaskFilter{InstanceID: d.id, Status: engine.TaskOpen})
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

// deliverMessage delivers the first given message that the instance waits for.
func (d *driver) deliverMessage(ctx context.Context) bool {
	for i, m := range d.messages {
		m.InstanceID = d.id
		if _, err := d.e.Correlate(ctx, m); err == nil {
			d.messages = slices.Delete(d.messages, i, i+1)
			return true
		}
	}
	return false
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
	return r, nil
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
