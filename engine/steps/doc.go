// Package steps reads the steps format of the advanced-features design
// (its WorkflowStep, ParallelBlock, ConditionalStep, LoopStep, ForkJoinStep,
// SubWorkflowStep, EventDrivenStep and ValidationStep), in JSON or YAML, and
// converts it into a model.Definition the token engine runs.
//
// # Format
//
// Parse reads JSON when the document starts with "{", YAML otherwise; both
// give the same Definition (YAML is re-encoded as JSON first):
//
//	workflow_id: research        # required (id is the same); the definition key
//	name: Research a topic       # optional
//	description: ...             # optional
//	version: 1                   # optional, informative
//	start_step: search           # the first step listed by default; required when steps is a map
//	variables: {topic: ai}       # optional; default variables of every instance
//	steps:                       # a list of steps, or a map of steps by id
//	  - id: search               # required in a list; unique
//	    type: agent              # agent|parallel|conditional|loop|fork_join|sub_workflow|wait_for_event|validate
//	    name: ..., description: ...
//	    input_mapping: {query: topic}   # variable: expression, the step's local variables
//	    next_step: summarise     # optional, see Flow below
//
// Fields by type (a field of another type is an error):
//
//	agent           agent_name (the job type a handler or external worker serves),
//	                timeout_seconds, retry: {max_retries, strategy|type:
//	                exponential_backoff|fixed_delay|linear_backoff|immediate (or
//	                exponential, fixed, linear), initial_delay_ms, max_delay_ms,
//	                backoff_multiplier, jitter, retry_on_errors, retry_on_status_codes},
//	                circuit_breaker: {enabled, key, failure_threshold,
//	                failure_rate_threshold, timeout_seconds, half_open_max_calls,
//	                window_size_seconds, min_calls},
//	                cache: {enabled, key, ttl_seconds, condition, scope: global|workflow|instance}
//	parallel        parallel_steps (step ids), max_parallelism
//	conditional     condition, then, else (step ids)
//	loop            items|collection (an expression giving a list), item_variable
//	                (default item), body|loop_body|loop_steps (step ids, in order),
//	                execution_mode: sequential|parallel, max_parallelism,
//	                max_iterations, on_error: stop|continue|collect, errors_variable
//	fork_join       branches: {name: {steps: [...], timeout_seconds}}, join_policy:
//	                all|any|majority|n_of_m, n_required, branch_timeout_seconds,
//	                cancel_remaining
//	sub_workflow    workflow_id|workflow, workflow_version (a number or latest),
//	                input_mapping, timeout_seconds, on_timeout: fail|continue
//	wait_for_event  event_source: webhook|message|signal|timer, event_filter
//	                (webhook: an expression over payload, or an object of fields
//	                and the values they must have), multi_use (webhook),
//	                event_name and correlation_key (message; event_name for
//	                signal), duration (timer, ISO-8601), timeout_seconds (the
//	                design's default: 86400), on_timeout: fail (default)|continue
//	validate        schema|validation_schema (JSON Schema), rules|assertions
//	                (expressions), mode|validation_mode: strict (default)|warn,
//	                target|data_source
//
// Expressions (condition, items, correlation_key, a cache's condition)
// are written as the design writes them: ${workflow.input.topic} reads the
// variables the instance started with, ${step-1.output.results[0].score}
// what step-1 gave back, ${loop.item} and ${loop.index} the loop's item and
// index (from 0), combined with JavaScript's operators or Python's and, or,
// not, True, False and None. The converter rewrites them into JavaScript
// over the DataWorkflows read model (model.ReadModelDataWorkflows): trigger,
// context.data["step-1"], the item variable, loopCounter. So, as in the
// design, a condition that throws (a missing step output) is false. Any
// other ${x} is x; text without ${ is the engine's own expression
// (JavaScript, ${...} or =FEEL) over the variables by name, where a step's
// outputs are merged too. An input_mapping value is, as the design
// resolves it, a reference's value, text with references written in, or
// else a literal ("fast", 3). Validation rules are the validate handler's
// expressions, kept as written; loop.total, loop.is_first and loop.is_last
// are not rewritten.
//
// Unknown fields are errors (they are usually typos). A type: state_machine
// document is another format (package statemachine): Parse refuses it with
// a message that says so.
//
// # Flow
//
// A step runs, then its next_step. Where a chain of next_steps ends, what
// holds the step decides: the workflow ends; a conditional's then and else
// chains go on to the conditional's next_step (or end where it ends); a
// parallel step's branch (each of parallel_steps and its next_steps) ends
// at the join before the parallel's next_step; a loop's body and a
// fork_join branch are lists run in order, ending at the end of the
// iteration or at the join. A chain may also reach a step by its
// next_step that another path reaches (a merge): then and else chains that
// both name the step after the conditional are fine.
//
// Every step belongs to one place: the workflow, a loop's body, or one
// branch. Every problem is reported, each naming its step (or the
// workflow_id): an unknown type, a next_step, then, else, parallel_steps,
// body or branch step that is not a step, a missing required field, a step
// used in two places, a cycle of next_step, then or else (steps repeat only
// in a loop), a step nothing leads to, and fields that contradict each other.
//
// # Conversion
//
// Steps keep their ids; what the converter adds has a readable derived id
// and Node.Attrs["generated"] = "true". Every step node has Attrs["type"].
//
//   - The workflow starts at a start event "<workflow_id>__start"; a path
//     that ends leads to an end event "<step>__end". Unhandled failures fail
//     the instance (Limits.OnFailure fail), as the design stops a workflow.
//   - agent: a service task, Job.Type = agent_name (Attrs["agentName"]),
//     Job.Timeout = timeout_seconds; retry becomes the RetryPolicy
//     (max_retries counts the retries after the first attempt, 0 none;
//     without retry the engine's defaults apply), circuit_breaker
//     Node.Circuit (shared by the steps of one agent_name unless key says
//     otherwise), cache Node.Cache (ttl 3600 s by default; the design's
//     workflow scope is model.CacheDefinition).
//   - input_mapping: the step's Inputs (see Expressions), sorted by variable name; for a
//     sub_workflow, what the called workflow gets (everything when there is
//     no input_mapping); its variables come back when it completes.
//   - validate: a service task of job type model.ValidateJobType whose
//     Job.Parameters are schema, expressions (the rules), mode and target.
//   - conditional: an exclusive gateway; then gets the condition, else is
//     the default flow (without else, the default goes where the
//     conditional goes on).
//   - parallel: a parallel gateway and an inclusive join "<step>__join"
//     (it waits for every branch). max_parallelism cannot cap a parallel
//     gateway, so one below the number of parallel_steps is refused: run
//     one step over a list with a loop, whose max_parallelism caps it.
//   - fork_join: a parallel gateway and an inclusive join "<step>__join"
//     with the model.JoinPolicy of join_policy, n_required,
//     branch_timeout_seconds (a branch's own timeout_seconds must equal
//     it: the join has one) and cancel_remaining. Each branch enters the
//     join by one flow "<step>__<branch name>" (through a merge
//     "<step>__<branch>__merge" when it ends in several places), so the
//     results the join gathers in the variable "<step>__join" are by branch
//     name. A join that cannot be met throws JOIN_FAILED.
//   - loop: a multi-instance embedded sub-process holding the body
//     ("<step>__start" leads to its first step): Collection = items (with
//     max_iterations, its first max_iterations items, as the design cuts
//     the list), Element = item_variable, loopCounter from 0 (the design's
//     loop.index), sequential unless execution_mode is parallel or
//     max_parallelism is set (then MaxParallel), ErrorPolicy = on_error
//     (collect gathers {loopCounter, item, error} in errors_variable,
//     "errors" by default, and goes on; the design raises at the end).
//   - sub_workflow: a call activity of the latest version, or of
//     workflow_version.
//   - wait_for_event: webhook, a receive task with a model.Webhook (Filter
//     from event_filter) and message name the step id; message, a receive
//     task waiting for event_name, correlated by correlation_key; both with
//     an interrupting boundary timer "<step>__timeout". signal, a signal
//     catch, racing a timer catch "<step>__timeout" behind an event-based
//     gateway when it has a timeout; timer, a timer catch of duration. A
//     timeout goes on (on_timeout continue) or ends at an error end event
//     "<step>__timedOut" throwing TimeoutCode, which fails the workflow
//     unless something catches it. sub_workflow's timeout_seconds alike.
//   - Where several paths meet at a step, an inclusive join "<step>__join"
//     is put in front of it (model.Builder.InsertJoins).
package steps
