// Package server is the HTTP API of Workflow++: versioned REST under
// /api/v1 on Fiber v2 (described by /api/v1/openapi.json), plus
// /health/live, /health/ready and /metrics (Prometheus).
//
// Rules of the package:
//   - Handlers only translate HTTP to engine calls and back; the work is in
//     package engine.
//   - Every error leaves through one envelope,
//     {"error":{"code","message","details","correlationId","timestamp"}}, built
//     by the app's error handler from the engine's sentinel and typed errors.
//   - Every response carries X-Correlation-ID: the caller's, or a new one.
//   - Request bodies are decoded strictly: malformed JSON and unknown fields
//     are 400 with a message naming the field.
//   - A $-prefixed key anywhere in a query string or JSON body (deployed
//     sources aside) is 400: such keys are store operators, never our data.
//   - Lists answer {"items","next"}: ?limit= (default 50, at most 500) and
//     ?cursor= (the previous page's next).
//   - Every request is logged once (method, path, status, latency_ms,
//     correlation_id) and timed in /metrics by route and status.
//   - Starts and task completions are rate limited per client IP.
package server
