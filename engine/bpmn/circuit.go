package bpmn

import (
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// A service task's circuit breaker (model.CircuitPolicy): wf:circuitBreaker
// is "true" (keyed by the job type, or the host for http) or the key that
// tasks sharing a breaker name; the other wf:circuit* attributes tune it and
// need it. A sequence flow leaving the task with wf:fallback="true" is taken
// when the open breaker fails the job fast and no boundary names CIRCUIT_OPEN
// (a catch-all error boundary yields to it).

// circuitBreaker reads wf:circuitBreaker.
func (x *extension) circuitBreaker(v string) {
	switch v = strings.TrimSpace(v); {
	case v == "false":
		return
	case x.n.Kind != model.KindServiceTask:
		x.problem("wf:circuitBreaker is for service tasks, whose jobs call other services; this is a %s: remove it", x.n.Kind)
		return
	}
	c := x.circuitPolicy()
	if v != "true" {
		c.Key = v
	}
}

// circuitPolicy is the node's policy, made on first use.
func (x *extension) circuitPolicy() *model.CircuitPolicy {
	if x.n.Circuit == nil {
		x.n.Circuit = &model.CircuitPolicy{}
	}
	return x.n.Circuit
}

// circuitTuned returns the policy an attribute tunes, or nil (reported)
// when the task has no breaker for it to tune.
func (x *extension) circuitTuned(attr string) *model.CircuitPolicy {
	if on := strings.TrimSpace(x.e.attr(nsWF, "circuitBreaker")); on == "" || on == "false" {
		x.problem("%s tunes a circuit breaker, and the task has none: set wf:circuitBreaker=\"true\" (or a key) or remove %s", attr, attr)
		return nil
	}
	return x.circuitPolicy()
}

// circuitCount reads a positive whole number of a breaker.
func (x *extension) circuitCount(attr, v, what string, dst func(*model.CircuitPolicy) *int) {
	c := x.circuitTuned(attr)
	if c == nil {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		x.problem("%s %q is not a positive whole number: write %s, e.g. 5", attr, v, what)
		return
	}
	*dst(c) = n
}

// circuitDuration reads an ISO-8601 duration of a breaker.
func (x *extension) circuitDuration(attr, v string, dst func(*model.CircuitPolicy) *time.Duration) {
	if c := x.circuitTuned(attr); c != nil {
		x.duration(attr, v, dst(c))
	}
}

// circuitFailureRate reads wf:circuitFailureRate, a share of failed calls.
func (x *extension) circuitFailureRate(v string) {
	c := x.circuitTuned("wf:circuitFailureRate")
	if c == nil {
		return
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(r > 0 && r <= 1) {
		x.problem("wf:circuitFailureRate %q is not a share of failed calls above 0 and at most 1: write e.g. 0.5", v)
		return
	}
	c.FailureRate = r
}

// fallbackFlow reads wf:fallback on a sequence flow.
func (c *converter) fallbackFlow(f *model.Flow, e *element) {
	switch v := strings.TrimSpace(e.attr(nsWF, "fallback")); v {
	case "", "false":
	case "true":
		f.Fallback = true
	default:
		c.probs.Add(f.ID, "wf:fallback %q is not true or false: write true to take this flow when the task's circuit breaker is open", v)
	}
}
