// Package engine is the Workflow++ token engine.
//
// An instance holds tokens that sit on flow nodes inside scopes. Everything
// that happens to an instance is a command applied to its state, producing
// events. The rules the code keeps:
//
//   - One applier per partition changes the state of its instances, one
//     command at a time, so joins never race. Instances are spread over the
//     partitions by id.
//   - The applier never waits on slow work and never blocks on a queue: jobs
//     (service and script tasks) run on per-node worker pools and come back as
//     commands; timers fire as commands.
//   - A change is stored (Store.Commit, one call per applier round for every
//     instance it touched) before anything it caused is visible: events go to
//     the Exporter, jobs to their queues and timers to the clock only after.
//   - Every change is an Event with the instance's next sequence number; the
//     log has no gaps. Decisions record what they saw (condition results,
//     chosen flows). Only progress reports change no state: they go to the
//     Exporter as transient events (Seq 0, never stored), rate limited.
//   - Variables live in one map per instance. Activity inputs are local to the
//     activity; outputs (or, without output mappings, the whole result) are
//     merged into the instance's variables.
//   - Time comes from the Clock in Config; nothing reads time.Now directly.
//   - Failed work is retried by the activity's RetryPolicy; when retries run
//     out the token gets an incident (and the job a dead letter), unless the
//     activity has a catch-all error boundary event, which then takes the token,
//     or the process fails fast (Limits.OnFailure fail, a JSON DAG's default):
//     the instance's other branches are cancelled and it ends failed
//     (failfast.go).
//   - A parallel or inclusive join with a join policy (join_policy.go) counts
//     its branches' outcomes instead of waiting for all: work failing for good
//     in a branch, with nothing to catch it, fails that branch (not an
//     incident), and the join throws JOIN_FAILED once the policy is out of
//     reach. Processes without one pay nothing for it.
package engine
