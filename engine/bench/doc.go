// Package bench drives an in-memory engine with no-op work and measures it:
// what `wfpp bench` runs and what engine/bench_test.go builds on.
//
// The rules it keeps:
//
//   - Only the engine is measured: the store is memstore without an event
//     log, service tasks complete at once (engine.JobsNoop), and the driver
//     itself allocates nothing per instance.
//   - An instance counts when its instance.completed event is exported; a
//     client waits on that event, not on polling.
//   - Waiting clients are found through a sharded map so the driver adds no
//     global lock to the engine's hot path.
package bench
