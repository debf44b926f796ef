// Package circuit holds the circuit breakers that service tasks' jobs go
// through (model.CircuitPolicy). The rules of the package:
//
//   - A breaker is closed, open or half-open. Closed, every call runs and its
//     outcome is counted: FailureThreshold failures in a row, or a failure
//     rate of at least FailureRate over at least MinCalls calls in the last
//     Window, open it. Open, calls are refused until OpenTimeout has passed
//     since it opened; the next call then makes it half-open. Half-open, up
//     to HalfOpenCalls probes run and the other calls are refused; that many
//     successes close it, one failure opens it again. Probes that never
//     report free their places after another OpenTimeout.
//   - Every state change counts as a new generation: Allow hands out the
//     generation a call was admitted in and Record counts an outcome only in
//     that generation, so a call that started before the breaker opened
//     cannot count as a probe, nor a late probe in the next round.
//   - The window slides a tenth of Window at a time (ten buckets).
//   - Time is whatever the caller passes: the engine's clock, so a virtual
//     clock drives breakers as it drives timers.
//   - A Store keeps the breakers: Local in the process, Redis shared by
//     every replica (the same rules, run atomically in Redis). Both pass the
//     same conformance suite (storetest_test.go).
package circuit
