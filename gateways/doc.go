// Package gateways holds the semantics of BPMN's four gateways, as pure
// functions over the model: which flows a split takes, and when a join fires.
//
// Rules:
//   - Exclusive: conditions in document order, the first that holds wins, else
//     the default flow, else ErrNoFlow (the engine raises an incident; a token
//     never stops silently). Joining passes every token through.
//   - Parallel: a fork takes every outgoing flow; a join fires once it holds a
//     token from every incoming flow of the same scope instance.
//   - Inclusive: a fork takes every flow whose condition holds (the default only
//     when none does); a join fires when it holds at least one token and no
//     other token of the scope instance can still reach it (a real OR-join,
//     computed from token positions with Reachability).
//   - Event-based: the gateway arms the catch events after it; the first to
//     fire wins and the engine disarms the rest.
//   - Sequence flows leaving an activity or event behave as an inclusive split
//     (BPMN's conditional and unconditional flows); several flows into an
//     activity join nothing (each token passes).
//
// Nothing here keeps state or does I/O; the engine owns tokens and calls in.
package gateways
