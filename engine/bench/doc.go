// Package bench drives an engine with no-op work and measures it: what
// `wfpp bench` runs and what engine/bench_test.go builds on.
//
// The rules it keeps:
//
//   - By default only the engine is measured: the store is memstore without
//     an event log. With HarnessConfig.Store (wfpp bench --store embedded or
//     mongo) the durable path is measured too. Service tasks complete at once
//     (engine.JobsNoop), and the driver itself allocates nothing per instance.
//   - Closed loop (Workers clients, each waiting for its instance's end)
//     measures the maximum; open loop (Rate starts per second, whatever the
//     engine's pace) measures latency at a given load, timed from when each
//     start was due so that a stalled engine shows in the figures.
//   - An instance counts when its instance.completed event is exported; a
//     client waits on that event, not on polling.
//   - Waiting clients are found through a sharded map so the driver adds no
//     global lock to the engine's hot path.
package bench
