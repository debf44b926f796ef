package server

import (
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/cluster"
)

// leaseTTL is the cluster's lease TTL: the peers', or the default alone.
func leaseTTL(p *cluster.Peers) time.Duration {
	if p == nil {
		return engine.LeaseTTLDefault
	}
	return p.LeaseTTL()
}

// apiPeers is p as the API's Peers: a nil interface when p is nil.
func apiPeers(p *cluster.Peers) api.Peers {
	if p == nil {
		return nil
	}
	return p
}
