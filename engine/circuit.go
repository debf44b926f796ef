package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/circuit"
	"github.com/workflowpp/wfpp/engine/model"
)

// Circuit breakers (package circuit) guard the jobs of service tasks that
// set Node.Circuit. A breaker is shared by every task with the same key:
// the policy's Key, else "http:"+host for the http handler, else the job
// type. While it is open a job fails at once, without running, with the
// BPMN error model.CircuitOpenCode: an error boundary naming that code takes
// it, else the task's fallback flows (Flow.Fallback), else a catch-all error
// boundary, else it is an unhandled BPMN error. A handler's BPMN error is the service's answer and counts as
// a success; any other error as a failure.
//
// An external worker's job goes through its breaker when a worker fetches
// it: an open breaker fails it with CircuitOpenCode instead of handing it
// out, and the worker's complete or fail counts as the outcome (a fail with
// an error code as a success). Jobs nobody fetches wait, as they do
// without a breaker. The admission lives in memory: the outcome of a job
// fetched before a restart does not count.

// circuitKey is the breaker a job of n goes through.
func circuitKey(n *model.Node, job *Job) string {
	if k := n.Circuit.Key; k != "" {
		return k
	}
	if n.Job.Type == JobTypeHTTP && job != nil {
		p := job.Parameters
		if len(p) == 0 {
			p = job.Variables // as the http handler reads them
		}
		raw, _ := p["url"].(string)
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			return JobTypeHTTP + ":" + u.Host
		}
	}
	return n.Job.Type
}

// circuitOpen is the error a job fails with while its breaker is open.
func circuitOpen(key string) error {
	return ThrowError(model.CircuitOpenCode, fmt.Sprintf("circuit breaker %q is open: the job did not run", key))
}

// handle runs job with h, through n's breaker when it has one.
func (e *Engine) handle(ctx context.Context, h Handler, n *model.Node, job *Job) (map[string]any, error) {
	if n.Circuit == nil {
		return h.Handle(ctx, job)
	}
	p := circuit.WithDefaults(*n.Circuit)
	t, ok := e.circuitAllow(circuitKey(n, job), p)
	if !ok {
		return nil, circuitOpen(t.Key)
	}
	vars, err := h.Handle(ctx, job)
	if e.ctx.Err() == nil { // a handler the engine's stop interrupted did not fail
		e.circuitRecord(t, p, err)
	}
	return vars, err
}

// circuitAllow asks key's breaker whether a call may run. A store that
// fails lets it run: the breaker protects the service, it must not stop
// the work by failing itself.
func (e *Engine) circuitAllow(key string, p model.CircuitPolicy) (circuit.Ticket, bool) {
	d, err := e.cfg.Circuits.Allow(e.ctx, key, p)
	if err != nil {
		e.cfg.Logger.Warn("circuit breaker unavailable: the job runs", "circuit", key, "err", err)
		return circuit.Ticket{Key: key}, true
	}
	e.circuitChanged(d.Change)
	return d.Ticket, d.Allowed
}

// circuitRecord counts the outcome of a call t admitted.
func (e *Engine) circuitRecord(t circuit.Ticket, p model.CircuitPolicy, err error) {
	var be *BPMNError
	failed := err != nil && !errors.As(err, &be)
	ch, err := e.cfg.Circuits.Record(e.ctx, t, p, failed)
	if err != nil {
		e.cfg.Logger.Warn("circuit breaker unavailable: an outcome was not counted", "circuit", t.Key, "err", err)
		return
	}
	e.circuitChanged(ch)
}

// circuitEvents are the events of the states a breaker moves to.
var circuitEvents = [...]EventType{
	circuit.Closed:   EventCircuitClosed,
	circuit.Open:     EventCircuitOpened,
	circuit.HalfOpen: EventCircuitHalfOpened,
}

// circuitChanged publishes a transition, if ch is one, to the exporters.
func (e *Engine) circuitChanged(ch circuit.Change) {
	if !ch.Moved() {
		return
	}
	e.cfg.Logger.Info("circuit breaker "+ch.To.String(), "circuit", ch.Key, "from", ch.From.String())
	e.export([]Event{{
		Type: circuitEvents[ch.To], Time: ch.At,
		Detail: map[string]any{"key": ch.Key, "from": ch.From.String(), "state": ch.To.String()},
	}})
}

// Circuits returns every circuit breaker, by key.
func (e *Engine) Circuits(ctx context.Context) ([]circuit.Status, error) {
	all, err := e.cfg.Circuits.Statuses(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b circuit.Status) int { return strings.Compare(a.Key, b.Key) })
	return all, nil
}

// ResetCircuit closes the breaker of key and clears its counts, as if no
// call had failed; ErrNotFound when no job went through it.
func (e *Engine) ResetCircuit(ctx context.Context, key string) error {
	ch, err := e.cfg.Circuits.Reset(ctx, key)
	if errors.Is(err, circuit.ErrNotFound) {
		return fmt.Errorf("circuit breaker %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return err
	}
	e.circuitChanged(ch)
	return nil
}

// admitFetched puts the jobs a worker fetched through their breakers: those
// refused fail with CircuitOpenCode and are not handed out.
func (e *Engine) admitFetched(jobs []ExternalJob) []ExternalJob {
	kept := jobs[:0]
	for _, job := range jobs {
		r := e.external.run(job.Key)
		if r == nil || r.listener != nil || r.node.Circuit == nil {
			kept = append(kept, job)
			continue
		}
		t, ok := e.circuitAllow(circuitKey(r.node, nil), circuit.WithDefaults(*r.node.Circuit))
		if !ok {
			_ = e.submit(e.ctx, command{kind: cmdJobFailed, inst: r.inst, token: r.token, job: r.job, err: circuitOpen(t.Key)})
			continue
		}
		e.external.admitted(job.Key, t)
		kept = append(kept, job)
	}
	return kept
}

// recordFetched counts the outcome a worker reported for a job its
// breaker admitted.
func (e *Engine) recordFetched(key string, err error) {
	r, t, ok := e.external.ticket(key)
	if ok {
		e.circuitRecord(t, circuit.WithDefaults(*r.node.Circuit), err)
	}
}

// takeFallback moves the token of a task whose job failed with
// CircuitOpenCode along the task's fallback flows, when no error boundary
// of the task names that code; it reports whether it did. A catch-all
// boundary (a DAG node's failure edges, a graph Task's OnFail edge) yields:
// the fallback was written for exactly this case, the boundary for any
// failure.
func (x *instance) takeFallback(t *token, n *model.Node, message string) bool {
	if b := errorBoundary(n, model.CircuitOpenCode); b != nil && b.Definition(model.TriggerError).CaughtCode() == model.CircuitOpenCode {
		return false
	}
	var flows []*model.Flow
	for _, f := range n.Outgoing {
		if f.Fallback {
			flows = append(flows, f)
		}
	}
	if len(flows) == 0 {
		return false
	}
	x.emit(EventErrorThrown, n, t, map[string]any{"code": model.CircuitOpenCode, "message": message, "fallback": flows[0].ID})
	holder := x.activityToken(t) // a multi-instance activity falls back as a whole
	if holder != t {
		x.removeToken(t)
	}
	x.interrupt(holder)
	for i, f := range flows {
		next := holder
		if i > 0 {
			next = x.newToken(holder.scope)
		}
		x.goTo(next, f)
	}
	return true
}

// run returns the run of an open external job, nil when none.
func (x *externalJobs) run(key string) *jobRun {
	x.mu.Lock()
	defer x.mu.Unlock()
	if en := x.byKey[key]; en != nil {
		return en.run
	}
	return nil
}

// admitted notes the breaker's admission of a fetched job.
func (x *externalJobs) admitted(key string, t circuit.Ticket) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if en := x.byKey[key]; en != nil {
		en.circuit = &t
	}
}

// ticket returns the admission of a fetched job and its run, once: a
// second report of the same fetch does not count again.
func (x *externalJobs) ticket(key string) (*jobRun, circuit.Ticket, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	en := x.byKey[key]
	if en == nil || en.circuit == nil {
		return nil, circuit.Ticket{}, false
	}
	t := *en.circuit
	en.circuit = nil
	return en.run, t, true
}
