// Package dag reads the JSON DAG format (seeded by the DataWorkflows spec,
// Rev. 3) and converts it into a model.Definition the token engine runs.
//
// # Format
//
// A document is one JSON object, checked against schema.json (JSON Schema
// draft-07, embedded as Schema) before anything else. The DataWorkflows
// spec's documents (§4, §15) are read as printed; Workflow++'s own
// spellings (backoff, initialDelayMs, onFailure continue, variables) are
// read beside them:
//
//	{
//	  "id": "order",                      // required; the definition key
//	  "displayName": "Order fulfilment",  // optional
//	  "description": "...", "version": "3", "$schema": "...",  // optional, informative
//	  "startNode": "validate",            // required; the node that runs first
//	  "variables": {"currency": "EUR"},   // optional; default variables of every instance
//	  "timeoutMs": 3600000,               // optional limits of every instance (model.Limits):
//	  "maxConcurrentInstances": 10, "overLimit": "queue"|"refuse", "retryBudget": 20,
//	  "failureMode": "fail"|"incident",   // what a failure nothing handles does; default fail
//	  "triggers": [{"on": "completed"|"failed"|"cancelled", "target": "invoice", // optional; chaining:
//	    "version": "latest"|3, "condition": "approved", // start target when an instance ends so
//	    "input": {"orderId": "=orderId"}, "allVariables": false}], // (model.ChainTrigger)
//	  "nodes": [{
//	    "id": "validate",                 // required; letters, digits, _ . : -
//	    "actionType": "order.validate",   // required; the job type a handler or worker serves
//	    "displayName": "...", "description": "...",
//	    "parameters": {"orderId": "{{ trigger.orderId }}", "url": "https://x/${orderId}"},
//	    "onFailure": "fail" | "continue" | "<node id>", // default fail
//	    "policies": {
//	      "timeoutMs": 5000,
//	      "retry": {"maxAttempts": 3, "baseDelayMs": 300, "backoffFactor": 2.0, "jitter": true,
//	                "maxDelayMs": 2000, "backoff": "exponential",
//	                "retryOnErrors": ["TIMEOUT"], "doNotRetryOn": ["AUTH"], "retryOnStatusCodes": [429, 503]},
//	      "fallback": "<node id>",        // taken while the circuit breaker is open
//	      "circuitBreaker": {"failureThreshold": 5, "failureRateThreshold": 0.5, "minCalls": 10,
//	                         "windowMs": 120000, "timeoutMs": 60000, "halfOpenMaxCalls": 3, "key": "crm"},
//	      "cache": {"key": "{{ trigger.sku }}", "ttlMs": 600000, "condition": "useCache", "scope": "definition"}
//	    },
//	    "join": {"policy": "all"|"any"|"majority"|"n_of_m", "n": 2, "branchTimeoutMs": 60000, "cancelRemaining": true},
//	    "edges": [{"targetNode": "ship", "when": "success"|"failure"|"always", "condition": "total > 0"}]
//	  }]
//	}
//
// Retry: maxAttempts counts every attempt, the first included (0 and 1 mean
// no retry; without it the engine's defaults apply). baseDelayMs and
// initialDelayMs are the same setting; 0 retries at once. The strategy is
// backoff or type: exponential (the default), fixed, linear, immediate, or
// the advanced-features design's exponential_backoff, fixed_delay,
// linear_backoff. backoffFactor is the exponential growth (2 when unset);
// jitter true (the default) varies each delay by ±10 %, false not at all.
//
// Unknown fields are errors (they are usually typos). Every problem found is
// returned as a model.Problems: schema violations name the JSON pointer, the
// node id they are inside and what to do; the rest name the node.
//
// # Templates and the read model
//
// A parameter string with "{{" is a template of the spec's (§5, Scriban in
// the spec): each {{ expression }} is JavaScript, run by the engine's
// evaluator, so paths, indexing, .length and ?? work:
// "Found {{ context.data['fetch'].items.length }} items",
// "{{ context.data['get'].errorNode ?? 'unknown' }}". A string that is
// exactly one placeholder keeps the value's type; otherwise values are
// written into the text (null as nothing, objects and lists as JSON). Other
// strings keep the engine's ${...} templates; the two do not mix in one
// string. Templates are compiled when the DAG is read (a syntax error is a
// problem naming the node and the parameter) and rendered by the engine for
// every attempt, before the handler runs or when an external worker fetches
// the job. They are strict: an undefined value or a TypeError is an error
// naming the parameter, the node and the template, which fails the job for
// good (its failure route, else fail-fast or an incident).
//
// Templates and edge conditions see the read model of the spec's §8:
// trigger (the variables the instance started with), context.data[nodeId]
// (a finished node's outputs; for a node that failed for good {error,
// errorCode, errorNode, failedNodeId, attempt}) and vars (the variables),
// besides every variable by its name. A condition that throws (reads a
// member of undefined, say) is not satisfied, as the spec says (§6); the
// engine records a condition.failed event.
//
// The engine keeps trigger and context as variables of a DAG instance, so
// they are stored and restored with the rest and need nothing of their
// own: set at the start, context rewritten when a job of a node completes
// or fails for good (engine/readmodel.go); vars is bound when an
// expression runs. A node's outputs are merged into the variables as well,
// except outputs named trigger or context.
//
// # Rules
//
// On top of the schema: node ids are unique; startNode, every targetNode,
// an onFailure route and a fallback name a node; edges, onFailure routes and
// fallbacks form no cycle (a DAG cannot loop); every node can be reached
// from startNode; a join is on a node two or more edges enter, n_of_m has
// an n of at most that many; baseDelayMs and initialDelayMs, backoff and
// type do not contradict each other.
//
// # Conversion
//
// Node and flow ids keep the DAG's node ids; everything the converter adds has
// a readable derived id and Node.Attrs["generated"] = "true".
//
//   - A node becomes a service task: Job.Type = actionType, Job.Parameters =
//     parameters (as decoded, templates unrendered), Job.Timeout = timeoutMs,
//     Attrs["actionType"]. retry becomes the RetryPolicy (maxAttempts counts
//     the first attempt: 1 means no retry); without retry the engine's
//     defaults apply (model.RetriesDefault).
//   - startNode gets a start event "<startNode>__start" before it.
//   - Edges with when success (the default) or always leave when the node
//     completes. Every satisfied edge is taken, in parallel: one
//     unconditional edge is a plain flow; several edges, or any condition,
//     go through an inclusive gateway "<node>__split" whose flows carry the
//     conditions as written (JavaScript, ${...} or =expr; evaluated by the
//     engine). When every edge has a condition, the split's default flow
//     goes to an end event "<node>__end", so a node whose conditions all
//     fail ends its path quietly, as in the DAG.
//   - A node without success edges leads to an end event "<node>__end".
//   - Edges with when failure or always are taken when the node fails after
//     its retries: the task gets an interrupting error boundary event
//     "<node>__onFailure" that catches every error (ErrorCode ""), and the
//     failure edges leave from it by the same rules ("<node>__onFailure__split").
//   - onFailure naming a node: when the node has no failure (or always)
//     edges, a failure goes there, as through an edge with when failure
//     (the spec's implicit failure edge).
//   - onFailure "continue": a failure counts as success. When the node has no
//     failure (or always) edges, the error boundary "<node>__onFailure" leads
//     to where its success edges lead (its split, its one target or its end
//     event). When it has failure edges, they decide and "continue" adds
//     nothing. onFailure "fail" without failure edges leaves the failure to
//     the engine: once retries run out, the instance fails (fail-fast: its
//     other branches are cancelled, it ends failed with an instance.failed
//     event), or the token waits with an incident when failureMode is
//     incident.
//   - Joins wait for every satisfied incoming edge: a node more than one flow
//     enters gets an inclusive gateway "<node>__join" in front of it (an
//     OR-join: it waits while a token can still arrive), see
//     model.Builder.InsertJoins. A node's join policy becomes that
//     gateway's JoinPolicy; each branch's outcome is then gathered in the
//     variable "<node>__join", by the id of the edge's flow
//     ("<source>__to__<node>"): {status: completed|failed|timedOut|cancelled,
//     error, variables}.
//   - policies.fallback becomes a fallback flow (model.Flow.Fallback) from
//     the task, circuitBreaker its Circuit, cache its Cache (a result
//     reused while it lives); the engine gives them meaning.
//   - The workflow's limits become the process's model.Limits; OnFailure is
//     model.FailureFail unless failureMode says incident.
package dag
