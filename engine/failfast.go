package engine

import "github.com/workflowpp/wfpp/engine/model"

// failsFast reports whether work that fails for good with nothing to catch
// it fails the instance (model.FailureFail, the JSON DAG's default: the
// DataWorkflows spec's fail-fast) rather than raising an incident.
func (x *instance) failsFast() bool {
	return x.proc != nil && x.proc.Limits.OnFailure == model.FailureFail
}

// failFast ends the instance failed because the work of token t failed for
// good (its job, or a BPMN error it threw) and nothing handles it: every
// other branch is cancelled (their
// tasks closed, timers stopped, external jobs withdrawn; a handler still
// running finds its token gone and its result is dropped), and the
// instance.failed event carries the error and the element. A call activity
// waiting for the instance gets an incident, as for any failed child.
func (x *instance) failFast(t *token, code, msg string) {
	x.terminateAll()
	x.finish(StatusFailed, EventInstanceFailed, map[string]any{
		"error": code, "message": msg, "elementId": t.node.ID, "attempt": t.attempt,
	})
}
