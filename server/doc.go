// Package server is the HTTP API of Workflow++: versioned REST under
// /api/v1 on Fiber v2, plus /health/live and /health/ready.
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
package server
