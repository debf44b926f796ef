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
//	nodes:
//	  - nodeId: score             # required; unique in the document, sub-flows included
//	    type: Task                # Task|Timer|Manual|Subflow|IfElse|Switch|While|ForEach|Parallel
//	    name: Score               # optional
//	    description: ...          # optional
//	    configuration: {...}      # depends on type, see below
//	edges:
//	  - sourceNodeId: score
//	    targetNodeId: decide
//	    type: OnComplete          # OnComplete (default)|OnFail|TrueBranch|FalseBranch|SwitchCase|LoopBody|LoopExit
//	    condition: score > 50     # optional; JavaScript, ${...} or =expr
//	    case: gold                # SwitchCase only: compared with the Switch expression
//	    edgeId: e1                # optional; the flow id, else "<source>__to__<target>"
//	    name: ...                 # optional
//
// Type names match ignoring case. Unknown fields, at any level and in
// configuration, are errors (they are usually typos).
//
// Configuration by node type:
//
//	Task      language|scriptLanguage: JavaScript, script, resultVariable      -> script task
//	          actionType|handler, parameters, headers, timeoutMs               -> service task
//	          retry: {maxAttempts, backoff: fixed|linear|exponential, initialDelayMs, maxDelayMs}
//	Timer     duration|delay: ISO-8601 (PT5M), an expression, or milliseconds (5000); or date
//	Manual    assignee, candidateUsers, candidateGroups (list or "a, b"), formKey,
//	          form (form-js schema object or JSON text), priority, dueDate, followUpDate
//	Subflow   graph: {startNodeId?, nodes, edges}, or nodes/edges/startNodeId directly;
//	          graphId|ref (a reference to another graph) is not supported yet
//	IfElse    condition
//	Switch    expression (JavaScript), compared with each SwitchCase edge's case
//	While     condition
//	ForEach   collection (expression or literal list), itemVariable (default item),
//	          indexVariable (default <itemVariable>Index)
//	Parallel  (none)
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
// # Conversion
//
// Nodes keep their nodeIds; what the converter adds has a readable derived
// id and Node.Attrs["generated"] = "true". Every node has Attrs["type"].
//
//   - Start: a start event "<graphId>__start" leads to startNodeId, or to
//     every node no edge enters (edges from a While's or ForEach's body back
//     to it do not count), through a parallel gateway "<graphId>__fork" when
//     there are several. Sub-flows alike with "<subflowId>__start".
//   - Task: a script task (Script.Format "javascript") or a service task
//     (Job.Type = actionType, Parameters kept as written).
//   - Timer: an intermediate timer catch event; milliseconds become an
//     ISO-8601 duration (5000 -> PT5S).
//   - Manual: a user task; configuration fills model.Human.
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
//     loops by an edge back to the While node.
//   - ForEach: plain BPMN, nothing special in the engine. Edges into it from
//     outside the body go to a script task "<node>__init" that evaluates the
//     collection once into the variable "__<node>_items" (null is an empty
//     list, anything else not a list an error) and sets the index variable to
//     0; the node itself is an exclusive gateway taking
//     "<index> < __<node>_items.length" to "<node>__next" (sets the item
//     variable) and on to the LoopBody, else the default flow to LoopExit
//     (none: "<node>__end"). Edges back from the body go to "<node>__advance"
//     (index + 1), which returns to the gateway.
//   - Parallel: a parallel gateway fork, one flow per OnComplete edge.
//   - Joins: a node more than one forward flow enters gets an inclusive
//     gateway "<node>__join" (an OR-join, which also serves where Parallel
//     branches meet); flows that close a loop do not count, and when several
//     enter one node they meet at their own "<node>__loop" join first (see
//     model.Builder.InsertJoins). Loop headers are therefore plain merges.
//   - defaultVariables become Definition.Variables.
package graph
