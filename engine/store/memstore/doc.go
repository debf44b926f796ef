// Package memstore keeps everything in memory: the store for `wfpp run`, the
// benchmarks and the engine's own tests. It holds the same rules as the
// MongoDB store (sequence guards, idempotent starts, an append-only log) so
// one conformance suite (engine/store/storetest) runs against both.
package memstore
