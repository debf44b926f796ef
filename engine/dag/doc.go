// Package dag reads the JSON DAG format (seeded by the DataWorkflows spec,
// Rev. 3) and converts it into a model.Definition the token engine runs.
//
// # Format
//
// A document is one JSON object, checked against schema.json (JSON Schema
// draft-07, embedded as Schema) before anything else:
//
//	{
//	  "id": "order",                      // required; the definition key
//	  "displayName": "Order fulfilment",  // optional
//	  "description": "...", "version": "3", "$schema": "...",  // optional, informative
//	  "startNode": "validate",            // required; the node that runs first
//	  "variables": {"currency": "EUR"},   // optional; default variables of every instance
//	  "nodes": [{
//	    "id": "validate",                 // required; letters, digits, _ . : -
//	    "actionType": "order.validate",   // required; the job type a handler or worker serves
//	    "displayName": "...", "description": "...",
//	    "parameters": {"orderId": "${orderId}"},  // any JSON; ${...} templates are kept as text
//	    "onFailure": "fail" | "continue", // default fail
//	    "policies": {
//	      "timeoutMs": 5000,
//	      "retry": {"maxAttempts": 3, "backoff": "fixed"|"linear"|"exponential",
//	                "initialDelayMs": 200, "maxDelayMs": 2000}
//	    },
//	    "edges": [{"targetNode": "ship", "when": "success"|"failure"|"always", "condition": "total > 0"}]
//	  }]
//	}
//
// Unknown fields are errors (they are usually typos). Every problem found is
// returned as a model.Problems: schema violations name the JSON pointer, the
// node id they are inside and what to do; the rest name the node.
//
// # Rules
//
// On top of the schema: node ids are unique, startNode and every targetNode
// name a node, edges form no cycle (a DAG cannot loop), and every node can
// be reached from startNode.
//
// # Conversion
//
// Node and flow ids keep the DAG's node ids; everything the converter adds has
// a readable derived id and Node.Attrs["generated"] = "true".
//
//   - A node becomes a service task: Job.Type = actionType, Job.Parameters =
//     parameters (as decoded, templates untouched), Job.Timeout = timeoutMs,
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
//   - onFailure "continue": a failure counts as success. When the node has no
//     failure (or always) edges, the error boundary "<node>__onFailure" leads
//     to where its success edges lead (its split, its one target or its end
//     event). When it has failure edges, they decide and "continue" adds
//     nothing. onFailure "fail" without failure edges leaves the failure to
//     the engine: an incident once retries run out.
//   - Joins wait for every satisfied incoming edge: a node more than one flow
//     enters gets an inclusive gateway "<node>__join" in front of it (an
//     OR-join: it waits while a token can still arrive), see
//     model.Builder.InsertJoins.
package dag
