package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// epoch is where every test's virtual clock starts.
var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// harness is one engine on its own memory store, with a virtual clock unless
// the test asked for the real one, and a log of every exported event.
type harness struct {
	t     *testing.T
	ctx   context.Context
	e     *engine.Engine
	store *memstore.Store
	clock *engine.VirtualClock // nil with the real clock
	log   *eventLog
}

type option func(*engine.Config)

// withRealClock runs the engine on the wall clock (no timers may be used).
func withRealClock(c *engine.Config) { c.Clock = engine.RealClock{} }

func withConfig(f func(*engine.Config)) option { return f }

// setup starts an engine for one test and stops it when the test ends. At the
// end it checks that every instance's event log is numbered 1..N without gap
// and that the exporter saw the same events as the store holds.
func setup(t *testing.T, opts ...option) *harness {
	t.Helper()
	clock := engine.NewVirtualClock(epoch)
	st := memstore.New()
	log := &eventLog{byInstance: map[string][]engine.Event{}}
	cfg := engine.Config{
		Store:       st,
		Clock:       clock,
		Partitions:  2,
		NodeWorkers: 2,
		Exporter:    log,
		Random:      func() float64 { return 0.5 }, // no jitter: the delay as configured
	}
	for _, o := range opts {
		o(&cfg)
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	require.NoError(t, e.Run(context.Background()))
	t.Cleanup(e.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	h := &harness{t: t, ctx: ctx, e: e, store: st, log: log}
	if c, ok := cfg.Clock.(*engine.VirtualClock); ok {
		h.clock = c
	}
	t.Cleanup(h.checkLogs)
	return h
}

// engineOn starts an engine on st with the real clock, as a restarted
// server does, and stops it when the test ends (stopping it before is fine).
func engineOn(t *testing.T, st engine.Store) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.Config{Store: st, Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2})
	require.NoError(t, err)
	require.NoError(t, e.Run(context.Background()))
	t.Cleanup(e.Close)
	return e
}

// deploy deploys testdata/<name>.bpmn and returns its key.
func (h *harness) deploy(name string) string {
	h.t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".bpmn"))
	require.NoError(h.t, err)
	rec, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: src})
	require.NoError(h.t, err, "deploying %s", name)
	return rec.Key
}

// start starts an instance of key and returns it once the engine is idle.
func (h *harness) start(key string, vars map[string]any) *engine.Snapshot {
	h.t.Helper()
	snap, created, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key, Variables: vars})
	require.NoError(h.t, err)
	require.True(h.t, created)
	h.idle()
	return h.instance(snap.ID)
}

// run deploys name, starts it with vars and returns the instance once idle.
func (h *harness) run(name string, vars map[string]any) *engine.Snapshot {
	h.t.Helper()
	return h.start(h.deploy(name), vars)
}

func (h *harness) idle() {
	h.t.Helper()
	require.NoError(h.t, h.e.WaitIdle(h.ctx), "engine did not become idle")
}

func (h *harness) instance(id string) *engine.Snapshot {
	h.t.Helper()
	snap, err := h.e.Instance(h.ctx, id)
	require.NoError(h.t, err)
	return snap
}

// advance moves the virtual clock on by d and waits for what fired.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.clock.Advance(d)
	h.idle()
}

// fireAll fires timers in due order until none is left (at most max).
func (h *harness) fireAll(max int) {
	h.t.Helper()
	for range max {
		if !h.clock.AdvanceToNext() {
			return
		}
		h.idle()
	}
}

// events returns the stored event log of an instance.
func (h *harness) events(id string) []engine.Event {
	h.t.Helper()
	evs, err := h.store.Events(h.ctx, id, 0, 0)
	require.NoError(h.t, err)
	return evs
}

// elements returns, in order, the element ids of the instance's events of type typ.
func (h *harness) elements(id string, typ engine.EventType) []string {
	h.t.Helper()
	var out []string
	for _, ev := range h.events(id) {
		if ev.Type == typ {
			out = append(out, ev.ElementID)
		}
	}
	return out
}

// activated is the order in which tokens entered nodes.
func (h *harness) activated(id string) []string {
	h.t.Helper()
	return h.elements(id, engine.EventElementActivated)
}

// count counts the events of type typ (on element, when not empty).
func (h *harness) count(id string, typ engine.EventType, element string) int {
	h.t.Helper()
	n := 0
	for _, ev := range h.events(id) {
		if ev.Type == typ && (element == "" || ev.ElementID == element) {
			n++
		}
	}
	return n
}

// firstIndex is the position of the first event of type typ on element, -1 if none.
func (h *harness) firstIndex(id string, typ engine.EventType, element string) int {
	h.t.Helper()
	return slices.IndexFunc(h.events(id), func(ev engine.Event) bool {
		return ev.Type == typ && (element == "" || ev.ElementID == element)
	})
}

// eventsOf returns the events of type typ (on element, when not empty).
func (h *harness) eventsOf(id string, typ engine.EventType, element string) []engine.Event {
	h.t.Helper()
	var out []engine.Event
	for _, ev := range h.events(id) {
		if ev.Type == typ && (element == "" || ev.ElementID == element) {
			out = append(out, ev)
		}
	}
	return out
}

// tasks lists the instance's inbox tasks with the given status ("" any).
func (h *harness) tasks(id string, status engine.TaskStatus) []engine.Task {
	h.t.Helper()
	ts, _, err := h.store.Tasks(h.ctx, engine.TaskFilter{InstanceID: id, Status: status})
	require.NoError(h.t, err)
	return ts
}

// openTask returns the one open task of the instance at element.
func (h *harness) openTask(id, element string) engine.Task {
	h.t.Helper()
	var found []engine.Task
	for _, t := range h.tasks(id, engine.TaskOpen) {
		if t.ElementID == element {
			found = append(found, t)
		}
	}
	require.Len(h.t, found, 1, "open tasks at %s", element)
	return found[0]
}

// task returns a task by id from the store.
func (h *harness) task(taskID string) engine.Task {
	h.t.Helper()
	t, err := h.store.Task(h.ctx, taskID)
	require.NoError(h.t, err)
	return t
}

// complete completes the open task at element and waits for what follows.
func (h *harness) complete(id, element string, vars map[string]any) {
	h.t.Helper()
	task := h.openTask(id, element)
	_, err := h.e.CompleteTask(h.ctx, task.ID, "tester", vars)
	require.NoError(h.t, err)
	h.idle()
}

// openIncidents lists the open incidents of an instance.
func (h *harness) openIncidents(id string) []engine.Incident {
	h.t.Helper()
	incs, err := h.store.Incidents(h.ctx, engine.IncidentFilter{InstanceID: id, Open: true})
	require.NoError(h.t, err)
	return incs
}

// requireStatus checks an instance's stored status.
func (h *harness) requireStatus(id string, want engine.Status) *engine.Snapshot {
	h.t.Helper()
	snap := h.instance(id)
	if snap.Status != want {
		for _, ev := range h.events(id) {
			h.t.Logf("%3d %-22s %-14s %v", ev.Seq, ev.Type, ev.ElementID, ev.Detail)
		}
	}
	require.Equal(h.t, want, snap.Status, "status of %s; open incidents: %+v", id, snap.Incidents)
	return snap
}

// checkLogs: every instance's stored log is numbered 1..N and matches what the exporter saw.
func (h *harness) checkLogs() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.e.WaitIdle(ctx); err != nil {
		h.t.Errorf("engine not idle at the end of the test: %v", err)
		return
	}
	for id, exported := range h.log.all() {
		if id == "" {
			continue // events of no instance (circuit.*) are not stored
		}
		stored, err := h.store.Events(ctx, id, 0, 0)
		if err != nil {
			h.t.Errorf("events of %s: %v", id, err)
			continue
		}
		requireContiguous(h.t, stored)
		requireContiguous(h.t, exported)
		if len(stored) != len(exported) {
			h.t.Errorf("instance %s: the store holds %d events, the exporter saw %d", id, len(stored), len(exported))
		}
	}
}

// requireContiguous checks that events are numbered 1..N in order.
func requireContiguous(t testing.TB, evs []engine.Event) {
	t.Helper()
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Errorf("instance %s: event %d (%s on %q) has seq %d, want %d", ev.InstanceID, i, ev.Type, ev.ElementID, ev.Seq, i+1)
			return
		}
	}
}

// eventLog is an Exporter that keeps every event per instance.
type eventLog struct {
	mu         sync.Mutex
	byInstance map[string][]engine.Event
}

func (l *eventLog) Export(evs []engine.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range evs {
		if ev.Transient() && ev.InstanceID != "" {
			continue // not in the store's log, which checkLogs compares with; circuit.* events (no instance) are kept for circuitEvents
		}
		l.byInstance[ev.InstanceID] = append(l.byInstance[ev.InstanceID], ev)
	}
}

func (l *eventLog) all() map[string][]engine.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string][]engine.Event, len(l.byInstance))
	for id, evs := range l.byInstance {
		out[id] = slices.Clone(evs)
	}
	return out
}

func (l *eventLog) of(id string) []engine.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.byInstance[id])
}

// handlerFunc is a short name for engine.HandlerFunc.
type handlerFunc = engine.HandlerFunc

// noop completes a job with no result.
var noop = handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil })

// detailStrings reads a []any of strings out of an event detail.
func detailStrings(t testing.TB, d map[string]any, key string) []string {
	t.Helper()
	raw, ok := d[key].([]any)
	require.True(t, ok, "detail %q is %T, want []any", key, d[key])
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i], ok = v.(string)
		require.True(t, ok, "detail %q[%d] is %T", key, i, v)
	}
	return out
}

// TestDeployRecordsWhoAndWhen: a deployed version says when and by whom, and
// keeps its own copy of the source (the caller's buffer may be reused).
func TestDeployRecordsWhoAndWhen(t *testing.T) {
	t.Parallel()
	h := setup(t)
	src, err := os.ReadFile(filepath.Join("testdata", "message_correlation.bpmn"))
	require.NoError(t, err)
	buf := append([]byte(nil), src...)
	rec, created, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: buf, Deployer: "dora"})
	require.NoError(t, err)
	require.True(t, created)
	clear(buf) // the caller reuses its buffer
	stored, err := h.store.Definition(h.ctx, rec.Key, rec.Version)
	require.NoError(t, err)
	require.Equal(t, "dora", stored.Deployer)
	require.Equal(t, epoch, stored.Deployed)
	require.Equal(t, src, stored.Source)
}
