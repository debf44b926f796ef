// Package graph reads the graph format (seeded by the Execution Engine
// design), in JSON or YAML, and converts it into a model.Definition the token
// engine runs.
//
// # Format
//
// Parse reads JSON when the document starts with "{", YAML otherwise; both
// spell the same document and give the same Definition (YAML is re-encoded
// as JSON first, so numbers, maps and lists read alike):
//
//	graphId: loan                 # required; the definition key
//	name: Loan application        # optional
//	description: ...              # optional
//	version: 3                    # optional, informative
//	startNodeId: score            # optional; default: every node no edge enters, see Start below
//	defaultVariables: {amount: 1} # optional; default variables of every instance
//	timeoutMs: 3600000            # optional limits of the instances, see Limits below
//	maxConcurrentInstances: 5     #   (overLimit: queue|refuse, retryBudget: 10,
//	onFailure: fail               #    onFailure: fail (default)|incident)
//	triggers:                     # optional; start another definition when an instance ends
//	  - {on: completed, target: invoice, version: latest, condition: approved,
//	     input: {orderId: "=orderId"}, allVariables: false}   # (model.ChainTrigger)
//	nodes:
//	  - nodeId: score             # required; unique in the document, sub-flows included
//	    type: Task                # Task|Timer|Manual|Subflow|IfElse|Switch|While|ForEach|Parallel|Validate
//	    name: Score               # optional; nodeName is the same
//	    description: ...          # optional
//	    configuration: {...}      # depends on type, see below
//	edges:
//	  - sourceNodeId: score
//	    targetNodeId: decide
//	    type: OnComplete          # OnComplete (default)|OnFail|TrueBranch|FalseBranch|SwitchCase|LoopBody|LoopExit
//	    messageType: Complete     # optional: Complete|Fail|All, see Edges below
//	    condition: score > 50     # optional; JavaScript, ${...} or =expr
//	    case: gold                # SwitchCase only: compared with the Switch expression
//	    edgeId: e1                # optional; the flow id, else "<source>__to__<target>"
//	    name: ...                 # optional
//	    maxRetries: 5             # optional, into a Task: see Edges below
//	    visibilityTimeout: "00:10:00"
//	    sourcePort: out           # optional text, kept in the flow's Attrs
//	    targetPort: in
//
// Type names match ignoring case. Unknown fields, at any level and in
// configuration, are errors (they are usually typos).
//
// Configuration by node type:
//
//	Task      language|scriptLanguage: JavaScript, script, resultVariable      -> script task
//	          actionType|handler, parameters, headers, timeoutMs               -> service task
//	          retry: {maxAttempts, backoff|strategy: exponential|fixed|linear|immediate
//	                  (also exponential_backoff, fixed_delay, linear_backoff),
//	                  initialDelayMs|baseDelayMs, maxDelayMs, backoffFactor,
//	                  jitter: true|false|0..1, retryOnErrors, doNotRetryOn,
//	                  retryOnStatusCodes}
//	          circuitBreaker: {failureThreshold, failureRateThreshold, minCalls,
//	                  windowMs, timeoutMs, halfOpenMaxCalls, key}  (actions only)
//	          fallbackNodeId: a node taken while the circuit is open
//	          cache: {key: "${sku}", ttlMs, condition, scope: global|definition|instance}
//	Timer     duration|delay: ISO-8601 (PT5M), an expression, or milliseconds (5000); or date;
//	          or schedule: cron, 5 or 6 fields ("0 0 * * *") or @daily, with timeZone
//	Manual    assignee, candidateUsers, candidateGroups (list or "a, b"), formKey,
//	          form (form-js schema object or JSON text), priority, dueDate, followUpDate
//	Subflow   graph: {startNodeId?, nodes, edges}, or nodes/edges/startNodeId directly;
//	          graphId|ref (a reference to another graph) is not supported yet
//	IfElse    condition
//	Switch    expression (JavaScript), compared with each SwitchCase edge's case
//	While     condition, maxIterations
//	ForEach   collection|collectionExpression (expression or literal list),
//	          itemVariable|itemVariableName (default item), indexVariable
//	          (default <itemVariable>Index), maxIterations, errorPolicy:
//	          stop (default)|continue|collect, errorsVariable (default errors)
//	Parallel  joinPolicy: all (default)|any|majority|n_of_m, n, branchTimeoutMs,
//	          cancelRemaining
//	Validate  schema (JSON Schema object or JSON text), mode: strict (default)|warn,
//	          target (expression; default all variables), rules: [{expression, message}]
//
// # Rules
//
// Every problem is reported (not just the first) as a model.Problems naming
// the nodeId, or the graphId for the graph as a whole: unknown node or edge
// types, edges whose endpoints are not nodes of the same (sub-)graph, edge
// types the source cannot start (Task/Manual/Subflow: OnComplete, OnFail;
// Timer: OnComplete; IfElse: one TrueBranch, at most one FalseBranch; Switch:
// SwitchCase; While/ForEach: one LoopBody, at most one LoopExit; Parallel:
// OnComplete without conditions), tasks in a language other than JavaScript
// ("language \"CSharp\" does not run: write the task in JavaScript"),
// Subflows by reference, and loops nothing can leave (a cycle of
// unconditional OnComplete edges that passes no While, ForEach, IfElse or
// Switch).
//
// The Execution Engine's C# and PowerShell nodes are refused with a
// message that says only JavaScript runs and how to rewrite them: types
// CSharpTask and PowerShellTask, a runtimeType other than JavaScript, and
// assemblyPath, typeName, scriptPath, requiredModules and modulePaths.
//
// # Edges
//
// messageType says which outcome of its source an edge carries: Complete is
// the default (an OnComplete edge, or a control node's branch), Fail is an
// OnFail edge, All is taken on both (an OnComplete and an OnFail edge to the
// same node). Progress is refused: progress reports reach the monitor, not
// other nodes. A type that contradicts the messageType is refused.
//
// maxRetries and visibilityTimeout are, in the Execution Engine, settings
// of the queue the edge delivers into: the target's. So they apply to the
// target, which must be a Task: maxRetries is its retries after the first
// attempt (0: none), visibilityTimeout (a TimeSpan "00:10:00" or ISO-8601
// "PT10M") its job timeout, the lease of its node queue. A Task takes them
// from one edge, and not beside its own retry or timeoutMs.
//
// sourcePort and targetPort are kept in the flow's Attrs. Nodes have one
// output here, so ports do not route: edges that leave one node by
// different ports without conditions are refused.
//
// # Expressions
//
// Conditions, Switch expressions, ForEach collections and Task scripts are
// JavaScript. The Execution Engine's C# reads variables as
// context.Variables["name"]; the converter rewrites context.Variables into
// variables (the object of all variables, see package script), so that
// context.Variables["files"] works as written. Assigning to it in a script
// is refused: scripts return their outputs.
//
// # Conversion
//
// Nodes keep their nodeIds; what the converter adds has a readable derived
// id and Node.Attrs["generated"] = "true". Every node has Attrs["type"].
//
//   - Start: a start event "<graphId>__start" leads to startNodeId, or to
//     every node no edge enters (edges from a While's or ForEach's body back
//     to it do not count; a fallbackNodeId does), through a parallel gateway
//     "<graphId>__fork" when there are several. Sub-flows alike with
//     "<subflowId>__start".
//   - Task: a script task (Script.Format "javascript") or a service task
//     (Job.Type = actionType, Parameters kept as written).
//   - Timer: an intermediate timer catch event; milliseconds become an
//     ISO-8601 duration (5000 -> PT5S). With a schedule it is a trigger: a
//     Timer no edge enters becomes a timer start event with the cron as its
//     time cycle, starting an instance at every tick, and a plain start (the
//     none start event) goes on from where the Timer leads, as if it had
//     fired; a Timer an edge enters waits for the next tick. A scheduled
//     Timer inside a Subflow is refused.
//   - Task resilience: configuration.retry fills Node.Retry,
//     circuitBreaker Node.Circuit, and fallbackNodeId adds a fallback flow
//     (model.Builder.Fallback) to that node; cache fills Node.Cache.
//   - Manual: a user task; configuration fills model.Human.
//   - Validate: a service task of job type core.validate (model.ValidateJobType)
//     whose parameters are its configuration; strict violations fail it
//     with VALIDATION_FAILED, which an OnFail edge catches.
//   - Subflow: an embedded sub-process holding the converted inline graph.
//   - OnComplete edges leave an activity with DAG semantics: every satisfied
//     edge is taken, in parallel; several edges or conditions go through an
//     inclusive gateway "<node>__split"; no edge leads to an end event
//     "<node>__end" (see model.Builder.Split).
//   - OnFail edges: an interrupting error boundary "<node>__onFail" catching
//     every error, taken when the work fails after its retries; its edges
//     leave by the same rules.
//   - IfElse: an exclusive gateway; TrueBranch gets the condition (from
//     configuration, or from the edge), FalseBranch is the default flow. No
//     FalseBranch: the default flow ends the path at "<node>__end".
//   - Switch: an exclusive gateway; a SwitchCase with a condition keeps it,
//     one with a case gets "(<expression>) === <case as JSON>", and the one
//     with neither is the default flow. No default: a value no case matches
//     is an incident.
//   - While: an exclusive gateway that is the loop header: LoopBody gets the
//     condition, LoopExit is the default flow (none: "<node>__end"). The body
//     loops by an edge back to the While node. With maxIterations, edges
//     from outside enter at a script task "<node>__init" that sets the
//     counter "__<node>_iterations" to 0, and the LoopBody goes through
//     "<node>__count", which counts and fails, naming the loop, when the
//     body would run more often (an incident, or the instance fails, per
//     onFailure).
//   - Loop bodies: a body with no edge back to its loop (the Execution
//     Engine's example) returns to the loop from every path that ends: a
//     Task without OnComplete edges, the default of a split whose edges all
//     have conditions, an IfElse without FalseBranch, a loop without
//     LoopExit. The innermost loop around a node decides; a body with an
//     edge back keeps its ends.
//   - ForEach: plain BPMN, nothing special in the engine. Edges into it from
//     outside the body go to a script task "<node>__init" that evaluates the
//     collection once into the variable "__<node>_items" (null is an empty
//     list, anything else not a list an error) and sets the index variable to
//     0; the node itself is an exclusive gateway taking
//     "<index> < __<node>_items.length" to "<node>__next" (sets the item
//     variable) and on to the LoopBody, else the default flow to LoopExit
//     (none: "<node>__end"). Edges back from the body go to "<node>__advance"
//     (index + 1), which returns to the gateway. With maxIterations, init
//     fails, naming the loop, on a longer collection. errorPolicy continue
//     gives every Task, Manual and Subflow of the body without an OnFail edge
//     a catch-all error boundary "<node>__onFail" to "<loop>__advance";
//     collect leads it through "<loop>__error", which appends {index, item,
//     error} to the errors variable (init empties it). Generated scripts
//     do not retry.
//   - Parallel: a parallel gateway fork, one flow per OnComplete edge. Its
//     joinPolicy, n, branchTimeoutMs and cancelRemaining become the
//     JoinPolicy of the "<node>__join" where all its branches meet (the
//     nearest); branches that never meet are an error. The branches'
//     outcomes go to the variable "<join node>__join", by flow id (the
//     edgeId, else "<source>__to__<target>").
//   - Joins: a node more than one forward flow enters gets an inclusive
//     gateway "<node>__join" (an OR-join, which also serves where Parallel
//     branches meet); flows that close a loop do not count, and when several
//     enter one node they meet at their own "<node>__loop" join first (see
//     model.Builder.InsertJoins). Loop headers are therefore plain merges.
//   - defaultVariables become Definition.Variables.
//   - Limits: timeoutMs, maxConcurrentInstances, overLimit, retryBudget and
//     onFailure become Process.Limits. onFailure is fail by default: the
//     Execution Engine stops a graph when a node fails with no OnFail edge.
package graph
