package engine

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// startJob creates the work of a service or script task and hands it to the
// node's workers once the round is stored.
func (x *instance) startJob(t *token) {
	n := t.node
	if !x.takeInputs(t) {
		return
	}
	t.attempt++
	t.status = TokenJob
	if t.attempt == 1 && t.outer == 0 {
		x.armBoundaries(t)
	}
	x.emit(EventJobCreated, n, t, x.dep.firstAttempt(n))
	x.dispatch(t)
}

// unlockExternal drops the token's job from the external workers' list.
func (x *instance) unlockExternal(t *token) {
	if t.external {
		x.p.effects.unlock = append(x.p.effects.unlock, externalKey(x.id, t.job))
		t.external = false
	}
}

// dispatch queues the token's current attempt.
func (x *instance) dispatch(t *token) {
	x.nextID++
	t.job = x.nextID
	j := &jobRun{
		inst: x.id, token: t.id, job: t.job, attempt: t.attempt, node: t.node,
		defKey: x.head.DefinitionKey, vars: x.sharedVars(t), listener: t.listener, priority: x.jobPriority(t),
		readModel: x.readModel(),
	}
	fx := &x.p.effects
	if (j.listener == nil && x.e.handlers.has(j.node)) || (j.listener != nil && j.listener.Exec && x.e.handlers.get(j.listener.Type) != nil) ||
		x.e.cfg.Unhandled == JobsNoop {
		t.external = false
		fx.jobs = append(fx.jobs, j)
		return
	}
	t.external = true
	fx.external = append(fx.external, j)
}

// jobPriority is the priority of token t's job: its node's, evaluated, from
// 0 to 100; 50 when it has none or it does not give a number in range.
func (x *instance) jobPriority(t *token) int {
	text := t.node.Job.Priority
	if text == "" {
		return 50
	}
	v, err := x.eval(x.evalVars(t), text) // a number is a JavaScript expression too
	if err != nil {
		return 50
	}
	n, ok := toInt(v)
	if !ok || n < 0 || n > 100 {
		return 50
	}
	return n
}

func jobType(n *model.Node) string {
	if n.Kind == model.KindScriptTask {
		return scriptJobType
	}
	return n.Job.Type
}

// jobDone completes the token's activity with the job's result.
func (x *instance) jobDone(c command) {
	t := x.token(c.token)
	if t == nil || t.status != TokenJob || t.job != c.job {
		return // stale: the activity was interrupted or already done
	}
	x.unlockExternal(t)
	x.moveLetter(t, DeadLetterReplayed, "")
	if t.listener != nil {
		x.listenerDone(t, c.vars)
		return
	}
	if c.cache != nil {
		x.emit(c.cache.event(), t.node, t, c.cache.detail())
	}
	result := c.vars
	if t.node.Job.Type == model.ValidateJobType {
		x.validationWarned(t, result)
	}
	if x.readModel() {
		result = x.recordOutputs(t.node, result)
	}
	x.finishActivity(t, result)
}

// jobFailed retries the job, throws its BPMN error, or raises an incident.
func (x *instance) jobFailed(c command) {
	t := x.token(c.token)
	if t == nil || t.status != TokenJob || t.job != c.job {
		return
	}
	n := t.node
	x.unlockExternal(t)
	var be *BPMNError
	if errors.As(c.err, &be) {
		x.recordFailure(t, be.Code, be.Message)
		x.setVars(be.Variables)
		x.moveLetter(t, DeadLetterReplayed, "") // the process handles what the job answered
		if be.Code == model.CircuitOpenCode && x.takeFallback(t, n, be.Message) {
			return
		}
		x.throwError(t, n, be.Code, be.Message)
		return
	}
	msg := c.err.Error()
	x.emit(EventJobFailed, n, t, map[string]any{"attempt": t.attempt, "error": msg})
	policy := n.Retry.WithDefaults()
	retry := !errors.Is(c.err, errPermanent) && policy.Allows(t.attempt, errorCode(c.err))
	if retry && !x.spendRetry() {
		retry, msg = false, x.budgetSpent(msg)
	}
	if retry {
		delay := c.after
		if delay == 0 {
			delay = jittered(policy.DelayFor(t.attempt), policy.Jitter, x.e.cfg.Random)
		}
		due := x.now.Add(delay)
		t.status, t.due = TokenRetry, &due
		x.emit(EventJobRetrying, n, t, map[string]any{"attempt": t.attempt + 1, "delayMs": delay.Milliseconds()})
		if delay <= 0 { // an immediate retry: no timer to wait for
			x.retryJob(command{token: t.id})
			return
		}
		sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Timer: &due})
		x.armTimer(sub)
		return
	}
	x.recordFailure(t, errorCode(c.err), msg)
	if b := catchAllErrorBoundary(n); b != nil {
		x.emit(EventErrorThrown, n, t, map[string]any{"error": msg, "boundary": b.ID})
		holder := x.activityToken(t)
		if holder != t {
			x.removeToken(t)
		}
		x.interrupt(holder)
		x.setVars(failureContext(b, n, t.attempt, errorCode(c.err), msg))
		x.work = append(x.work, step{tok: holder, node: b})
		return
	}
	if t.outer != 0 && x.innerFailed(t, msg) {
		return // the multi-instance activity's error policy goes on without it
	}
	if x.innerBodyFailed(t, msg) {
		return // the same, for work inside a multi-instance sub-process
	}
	if x.branchFailed(t, errorCode(c.err), msg) {
		return // the branch of a policy join failed: the join counts it
	}
	if x.failsFast() {
		x.failFast(t, errorCode(c.err), msg)
		return
	}
	inc := x.incidentAt(t, "job", fmt.Sprintf("%s failed after %d attempt(s): %s", jobType(n), t.attempt, msg), phaseJob)
	x.deadLetter(t, inc, msg)
}

// retryJob runs the next attempt once the backoff has passed.
func (x *instance) retryJob(c command) {
	t := x.token(c.token)
	if t == nil || t.status != TokenRetry {
		return
	}
	t.due = nil
	t.status = TokenJob
	t.attempt++
	x.emit(EventJobCreated, t.node, t, map[string]any{"type": jobType(t.node), "attempt": t.attempt})
	x.dispatch(t)
}

// failureContext is what a catch-all error boundary tells the path it
// starts about the work that failed for good: the error's code and message
// (in the variables the boundary names, errorCode and errorMessage when it
// names none), the failed node's id and the attempts made.
func failureContext(b, failed *model.Node, attempt int, code, msg string) map[string]any {
	d := b.Definition(model.TriggerError)
	return map[string]any{
		cmp.Or(d.ErrorCodeVariable, "errorCode"):       code,
		cmp.Or(d.ErrorMessageVariable, "errorMessage"): msg,
		"failedNodeId": failed.ID,
		"attempt":      attempt,
	}
}

func catchAllErrorBoundary(n *model.Node) *model.Node {
	for _, b := range n.Boundaries {
		if b.Trigger == model.TriggerError && b.ErrorCode == "" {
			return b
		}
	}
	return nil
}

// finishActivity applies the result of an activity (or of a catch event:
// its message's variables) through the node's output mappings and moves the
// token on.
func (x *instance) finishActivity(t *token, result map[string]any) {
	n := t.node
	if t.outer != 0 {
		x.innerDone(t, result)
		return
	}
	if err := x.outputs(t, n, result); err != nil {
		x.incidentAt(t, "expression", err.Error(), phaseJob)
		return
	}
	x.disarmToken(t)
	t.local, t.job, t.taskID = nil, 0, ""
	x.leave(t)
}

// takeInputs sets the token's local variables from its activity's input
// mappings; when a mapping fails it raises an incident and reports false.
func (x *instance) takeInputs(t *token) bool {
	local, err := x.inputs(t, t.node)
	if err != nil {
		x.incidentAt(t, "expression", err.Error(), phaseEnter)
		return false
	}
	t.local = local
	return true
}

// inputs evaluates an activity's input mappings into its local variables.
func (x *instance) inputs(t *token, n *model.Node) (map[string]any, error) {
	if len(n.Inputs) == 0 {
		return t.local, nil
	}
	local := maps.Clone(t.local)
	if local == nil {
		local = map[string]any{}
	}
	vars := x.evalVars(t)
	for _, m := range n.Inputs {
		v, err := x.eval(vars, m.Source)
		if err != nil {
			return nil, fmt.Errorf("input mapping %q of %q: %w", m.Target, n.ID, err)
		}
		setPath(local, m.Target, v)
	}
	return local, nil
}

// outputs writes an activity's result into the instance's variables: through
// its output mappings when it has any, else the whole result.
func (x *instance) outputs(t *token, n *model.Node, result map[string]any) error {
	if len(n.Outputs) == 0 {
		x.setVarsAt(t, result)
		if len(result) > 0 {
			x.emit(EventVariablesChanged, n, t, map[string]any{"variables": keys(result)})
		}
		return nil
	}
	scope := x.jobVars(t)
	for k, v := range result {
		scope[k] = v
	}
	out := map[string]any{}
	for _, m := range n.Outputs {
		v, err := x.eval(scope, m.Source)
		if err != nil {
			return fmt.Errorf("output mapping %q of %q: %w", m.Target, n.ID, err)
		}
		root := rootOf(m.Target)
		if _, ok := out[root]; !ok {
			if cur, ok := x.vars[root]; ok {
				out[root] = deepCopy(cur)
			}
		}
		setPath(out, m.Target, v)
	}
	x.setVarsAt(t, out)
	x.emit(EventVariablesChanged, n, t, map[string]any{"variables": keys(out)})
	return nil
}

func jittered(d time.Duration, jitter float64, random func() float64) time.Duration {
	if jitter <= 0 {
		return d
	}
	spread := float64(d) * jitter
	return time.Duration(float64(d) - spread + 2*spread*random())
}
