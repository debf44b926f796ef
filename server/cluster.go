package server

import (
	"context"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/cluster"
)

// clusterOf is what the cluster view reads: the engine's ClusterState. An
// engine without one (before partition ownership, issue 11) holds every
// partition alone, which aloneState says.
func clusterOf(e *engine.Engine) api.ClusterStater {
	if cs, ok := any(e).(api.ClusterStater); ok {
		return cs
	}
	return aloneState{}
}

// aloneState is the cluster of one server that holds every partition.
type aloneState struct{}

func (aloneState) ClusterState(context.Context) (engine.ClusterState, error) {
	held := make([]int, engine.ClusterPartitionsDefault)
	for p := range held {
		held[p] = p
	}
	return engine.ClusterState{Partitions: engine.ClusterPartitionsDefault, Held: held}, nil
}

// leaseTTL is the cluster's lease TTL: the peers', or the default alone.
func leaseTTL(p *cluster.Peers) time.Duration {
	if p == nil {
		return cluster.LeaseTTLDefault
	}
	return p.LeaseTTL()
}

// jobPeers is p as the API's JobPeers: a nil interface when p is nil.
func jobPeers(p *cluster.Peers) api.JobPeers {
	if p == nil {
		return nil
	}
	return p
}
