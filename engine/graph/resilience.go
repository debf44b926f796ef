package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// retry converts a Task's configuration.retry into its RetryPolicy.
func (c *converter) retry(id string, r *RetryConfig) model.RetryPolicy {
	bad := func(format string, args ...any) { c.probs.Add(id, "configuration.retry."+format, args...) }
	backoff, err := backoffNamed(r.Backoff, r.Strategy)
	if err != nil {
		bad("%v", err)
	}
	delay := r.InitialDelayMs
	switch {
	case r.InitialDelayMs != 0 && r.BaseDelayMs != 0 && r.InitialDelayMs != r.BaseDelayMs:
		bad("initialDelayMs %d and baseDelayMs %d differ: keep one", r.InitialDelayMs, r.BaseDelayMs)
	case r.BaseDelayMs != 0:
		delay = r.BaseDelayMs
	}
	if r.MaxAttempts < 1 {
		bad("maxAttempts is %d: count the attempts, the first included (1 or more)", r.MaxAttempts)
	}
	if delay < 0 || r.MaxDelayMs < 0 {
		bad("delays are negative: use milliseconds, 0 or more")
	}
	if r.BackoffFactor != 0 && r.BackoffFactor < 1 {
		bad("backoffFactor is %v: each delay grows by it, so use 1 or more", r.BackoffFactor)
	}
	jitter, err := jitterShare(r.Jitter)
	if err != nil {
		bad("jitter: %v", err)
	}
	for _, code := range r.RetryOnStatusCodes {
		if code < 100 || code > 599 {
			bad("retryOnStatusCodes holds %d, not an HTTP status: use codes from 100 to 599", code)
		}
	}
	return model.RetryPolicy{
		Retries:       model.RetriesFromAttempts(r.MaxAttempts),
		Backoff:       backoff,
		Delay:         millis(delay),
		MaxDelay:      millis(r.MaxDelayMs),
		Factor:        r.BackoffFactor,
		Jitter:        jitter,
		RetryOn:       r.RetryOnErrors,
		DoNotRetryOn:  r.DoNotRetryOn,
		RetryOnStatus: r.RetryOnStatusCodes,
	}
}

// backoffNamed reads a backoff by its name, as the retry strategies of the
// advanced-features design spell them too (exponential_backoff,
// fixed_delay, linear_backoff), ignoring case.
func backoffNamed(backoff, strategy string) (model.Backoff, error) {
	if backoff != "" && strategy != "" && !strings.EqualFold(backoff, strategy) {
		return 0, fmt.Errorf("backoff %q and strategy %q differ: keep one", backoff, strategy)
	}
	written := cmp.Or(backoff, strategy)
	name := strings.ReplaceAll(strings.ToLower(written), "-", "_")
	name = strings.TrimSuffix(strings.TrimSuffix(name, "_backoff"), "_delay")
	b, ok := model.Backoffs[name]
	if !ok {
		return 0, fmt.Errorf("backoff %q is not exponential, fixed, linear or immediate: use one of them", written)
	}
	return b, nil
}

// jitterShare reads jitter: true (the default share), false (none), or the
// share of each delay that is randomised.
func jitterShare(v any) (float64, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case bool:
		if v {
			return 0, nil
		}
		return model.NoJitter, nil
	case float64:
		switch {
		case v < 0 || v > 1:
			return 0, fmt.Errorf("%v is not a share between 0 and 1: write e.g. 0.1, or true or false", v)
		case v == 0:
			return model.NoJitter, nil
		}
		return v, nil
	}
	return 0, fmt.Errorf("%v is neither true, false nor a share between 0 and 1", v)
}

// circuit converts a Task's configuration.circuitBreaker.
func (c *converter) circuit(id string, cb *CircuitConfig) *model.CircuitPolicy {
	bad := func(format string, args ...any) { c.probs.Add(id, "configuration.circuitBreaker."+format, args...) }
	if cb.FailureThreshold < 0 || cb.MinCalls < 0 || cb.HalfOpenMaxCalls < 0 {
		bad("counts are negative: failureThreshold, minCalls and halfOpenMaxCalls are 0 (the default) or more")
	}
	if cb.FailureRateThreshold < 0 || cb.FailureRateThreshold > 1 {
		bad("failureRateThreshold %v is not a share between 0 and 1: write e.g. 0.5", cb.FailureRateThreshold)
	}
	if cb.WindowMs < 0 || cb.TimeoutMs < 0 {
		bad("windowMs and timeoutMs are negative: use milliseconds, 0 (the default) or more")
	}
	return &model.CircuitPolicy{
		Key:              cb.Key,
		FailureThreshold: cb.FailureThreshold,
		FailureRate:      cb.FailureRateThreshold,
		MinCalls:         cb.MinCalls,
		Window:           millis(cb.WindowMs),
		OpenTimeout:      millis(cb.TimeoutMs),
		HalfOpenCalls:    cb.HalfOpenMaxCalls,
	}
}

// fallback checks a Task's configuration.fallbackNodeId, which names a node
// of the same (sub-)graph that a fallback flow leads to (added by leave):
// taken instead of the Task's work while its circuit is open.
func (c *converter) fallback(sc *scope, st *step) {
	cfg, ok := st.cfg.(*TaskConfig)
	if !ok || cfg.FallbackNodeID == "" {
		return
	}
	id, to := st.g.NodeID, cfg.FallbackNodeID
	switch {
	case sc.byID[to] == nil && c.ids[to] != "":
		c.probs.Add(id, "configuration.fallbackNodeId %q is inside another (sub-)graph: name a node of this one", to)
	case sc.byID[to] == nil:
		c.probs.Add(id, "configuration.fallbackNodeId %q is not a node: name one", to)
	case to == id:
		c.probs.Add(id, "configuration.fallbackNodeId names the Task itself: name the node that stands in for it")
	case cfg.CircuitBreaker == nil:
		c.probs.Add(id, "configuration.fallbackNodeId is taken while the Task's circuit is open, and it has no configuration.circuitBreaker: add one")
	default:
		st.fallback = to
	}
}

// joinPolicies is how a Parallel's joinPolicy may be written.
var joinPolicies = []string{model.JoinAll, model.JoinAny, model.JoinMajority, model.JoinNOfM}

// parallelConfig checks a Parallel's join settings.
func (c *converter) parallelConfig(id string, cfg *ParallelConfig) {
	p := strings.ToLower(strings.ReplaceAll(cfg.JoinPolicy, "-", "_"))
	switch {
	case p != "" && !slices.Contains(joinPolicies, p):
		c.probs.Add(id, "configuration.joinPolicy %q is not all, any, majority or n_of_m: use one of them", cfg.JoinPolicy)
	case p == model.JoinNOfM && cfg.N < 1:
		c.probs.Add(id, "configuration.joinPolicy n_of_m needs n, the branches to wait for: set n to 1 or more")
	case p != model.JoinNOfM && cfg.N != 0:
		c.probs.Add(id, "configuration.n counts the branches of joinPolicy n_of_m only: remove it or set joinPolicy n_of_m")
	}
	if cfg.BranchTimeoutMs < 0 {
		c.probs.Add(id, "configuration.branchTimeoutMs is negative: use milliseconds, 0 (none) or more")
	}
	cfg.JoinPolicy = p
}

// joinPolicy puts a Parallel's join settings on the join where its
// branches meet: the generated "<node>__join" (model.Builder.InsertJoins)
// that every branch reaches, the nearest when there are several.
func (c *converter) joinPolicy(sc *scope, st *step) {
	cfg := st.cfg.(*ParallelConfig)
	if cfg.JoinPolicy == "" && cfg.BranchTimeoutMs == 0 && !cfg.CancelRemaining {
		return
	}
	id := st.g.NodeID
	out := map[string][]string{}
	nodes := map[string]*model.Node{}
	for _, n := range sc.s.Nodes {
		nodes[n.ID] = n
	}
	for _, f := range sc.s.Flows {
		out[f.SourceID] = append(out[f.SourceID], f.TargetID)
	}
	// distance from each branch to every join it reaches
	var reach []map[string]int
	for _, first := range out[id] {
		dist := map[string]int{first: 1, id: 0}
		queue := []string{first}
		for len(queue) > 0 {
			at := queue[0]
			queue = queue[1:]
			for _, next := range out[at] {
				if _, seen := dist[next]; !seen {
					dist[next] = dist[at] + 1
					queue = append(queue, next)
				}
			}
		}
		reach = append(reach, dist)
	}
	var meet *model.Node
	best := 0
	for _, n := range sc.s.Nodes {
		if n.Kind != model.KindInclusiveGateway || n.Attrs[model.GeneratedAttr] != "true" || !strings.HasSuffix(n.ID, "__join") {
			continue
		}
		far := 0
		for _, dist := range reach {
			d, ok := dist[n.ID]
			if !ok {
				far = -1
				break
			}
			far = max(far, d)
		}
		if far > 0 && (meet == nil || far < best) {
			meet, best = n, far
		}
	}
	if meet == nil {
		c.probs.Add(id, "configuration.joinPolicy applies where the Parallel's branches meet, and they never meet at one node: lead them to one, or remove the join settings")
		return
	}
	meet.JoinPolicy = &model.JoinPolicy{
		Policy:          cfg.JoinPolicy,
		N:               cfg.N,
		BranchTimeout:   millis(cfg.BranchTimeoutMs),
		CancelRemaining: cfg.CancelRemaining,
	}
}

// onFailures and overLimits are how the graph's limits may be written.
var (
	onFailures = []string{model.FailureFail, model.FailureIncident}
	overLimits = []string{model.OverLimitQueue, model.OverLimitRefuse}
)

// limits converts the graph's limits. An unhandled failure fails the
// instance by default, as the Execution Engine stops a graph when a node
// fails with no OnFail edge; onFailure: incident keeps the token waiting
// with an incident instead.
func (c *converter) limits(g *Graph) model.Limits {
	bad := func(format string, args ...any) { c.probs.Add(g.GraphID, format, args...) }
	onFailure, ok := canonical(cmp.Or(g.OnFailure, model.FailureFail), onFailures)
	if !ok {
		bad("onFailure %q is not fail or incident: use one of them", g.OnFailure)
	}
	overLimit, ok := canonical(g.OverLimit, append([]string{""}, overLimits...))
	if !ok {
		bad("overLimit %q is not queue or refuse: use one of them", g.OverLimit)
	}
	if g.TimeoutMs < 0 || g.MaxConcurrentInstances < 0 || g.RetryBudget < 0 {
		bad("timeoutMs, maxConcurrentInstances and retryBudget are negative: use 0 (no limit) or more")
	}
	if overLimit != "" && g.MaxConcurrentInstances == 0 {
		bad("overLimit says what a start over maxConcurrentInstances does, and there is no maxConcurrentInstances: set it, or remove overLimit")
	}
	return model.Limits{
		Timeout:       millis(g.TimeoutMs),
		MaxConcurrent: g.MaxConcurrentInstances,
		OverLimit:     overLimit,
		RetryBudget:   g.RetryBudget,
		OnFailure:     onFailure,
	}
}
