// Package cache puts Redis in front of an engine.Store and carries live
// events between replicas. Redis is a cache, never the source of truth:
//
//   - Every Redis call has its own short timeout (Config.OpTimeout). When one
//     fails the cache is degraded: reads go to the inner store, fan-out stays
//     local, Health says "degraded", and a probe brings it back once Redis
//     answers again. Failures are logged at most once per Config.LogInterval.
//   - Definitions are cached by id; the latest version of a key briefly.
//     Instances are cached for Config.InstanceTTL and only for reads that
//     accept a stale answer (AllowStale): the engine's own loads always read
//     the inner store, because acting on an old snapshot would make its next
//     commit fail the sequence guard. Correctness never depends on Redis.
//   - Writes invalidate after the inner store succeeded, with a per-key
//     generation: a fill that read the inner store before an invalidation
//     never overwrites it. Invalidations that could not reach Redis are kept
//     and sent when it answers again. Every entry carries the time its inner
//     read started and is ignored once older than its TTL, so entries left
//     over from an outage or restored from an old RDB file are never served
//     (replicas' wall clocks must agree to well within InstanceTTL).
//   - Published events carry the replica id; a Source delivers the local
//     engine's events in-process and only other replicas' events from Redis,
//     so no event arrives twice and the local path works without Redis.
package cache
