package main

import (
	"log/slog"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/server/live"
)

// liveEvents publishes the engine's events to the other replicas and
// returns where the WebSocket hub gets events from, and what stops both
// (after the server). A replica alone on its store without Redis: nil, the
// server's default, the engine. With Redis, the events of every replica
// through its pub/sub channel; in cluster mode (several replicas on one
// store) also the store's log, polled every half second for what Redis
// lost, or all of it while Redis is absent or down (events under a second
// late). Replicas find out what the others changed from the change digests
// they publish in the store (digests, the store unwrapped; nil: by querying
// the instances updated lately, every 10 s while Redis works).
func liveEvents(eng *engine.Engine, c *cache.Cache, cluster *engine.ClusterConfig, digests engine.ChangeDigests, log *slog.Logger) (live.EventSource, func(), error) {
	if c == nil && cluster == nil {
		return nil, func() {}, nil
	}
	cfg := live.ReplicaConfig{Events: live.EngineSource{Engine: eng}, Logger: log}
	unpublish := func() {}
	if c != nil {
		unpublish = eng.Subscribe(c.Publisher())
		cfg.Events = c.Source(eng) // closed with the cache
		cfg.Fanout = func() bool { ok, _ := c.Health(); return ok }
	}
	if cluster != nil {
		cfg.Log = eng.Queries()
		if digests != nil {
			cfg.Digests, cfg.Replica, cfg.Own = digests, cluster.ReplicaID, live.EngineSource{Engine: eng}
		}
	}
	src, err := live.NewReplicaSource(cfg)
	if err != nil {
		unpublish()
		return nil, nil, err
	}
	return src, func() { src.Close(); unpublish() }, nil
}
