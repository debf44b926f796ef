package api

import (
	"context"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// ClusterStater is what the cluster view reads: the engine's own account
// of the replicas and leases (Engine.ClusterState).
type ClusterStater interface {
	ClusterState(ctx context.Context) (engine.ClusterState, error)
}

// ClusterView is GET /api/v1/cluster: the replicas, whether each is live,
// and every partition with its lease, as this replica sees them.
type ClusterView struct {
	Self       string          `json:"self"` // this replica's id; "" when the server runs alone
	Partitions int             `json:"partitions"`
	LeaseTTLMs int64           `json:"leaseTtlMs"`
	Replicas   []ReplicaView   `json:"replicas"`
	Leases     []PartitionView `json:"leases"` // one per partition, in order
	Held       []int           `json:"held"`   // the partitions this replica applies now
}

// ReplicaView is one replica of a ClusterView.
type ReplicaView struct {
	engine.Replica
	// Live: its heartbeat is younger than the lease TTL. Peers ask only
	// live replicas; a dead one's partitions go to the others as their
	// leases expire.
	Live           bool  `json:"live"`
	HeartbeatAgeMs int64 `json:"heartbeatAgeMs"`
	Self           bool  `json:"self"`       // the replica that answered
	Partitions     []int `json:"partitions"` // those it leases now (unexpired)
}

// PartitionView is one partition of a ClusterView with its lease.
type PartitionView struct {
	Partition int        `json:"partition"`
	Owner     string     `json:"owner"` // "" never leased
	Epoch     int64      `json:"epoch"`
	Expires   *time.Time `json:"expires,omitempty"`
	Leased    bool       `json:"leased"` // its lease runs at the time of the view
	Here      bool       `json:"here"`   // this replica applies it now
	// Unfinished counts its instances that have not ended: what waits
	// for its owner (or, without one, for a replica to take it).
	Unfinished int `json:"unfinished"`
}

// NewClusterView builds the view of st at now: replicas whose heartbeat is
// younger than ttl are live.
func NewClusterView(st engine.ClusterState, ttl time.Duration, now time.Time) ClusterView {
	v := ClusterView{
		Self: st.Self, Partitions: st.Partitions, LeaseTTLMs: ttl.Milliseconds(),
		Replicas: []ReplicaView{}, Leases: make([]PartitionView, st.Partitions), Held: slices.Clone(st.Held),
	}
	if v.Held == nil {
		v.Held = []int{}
	}
	for p := range v.Leases {
		v.Leases[p] = PartitionView{Partition: p, Here: slices.Contains(st.Held, p), Unfinished: st.Unfinished[p]}
	}
	leased := map[string][]int{}
	for _, l := range st.Leases {
		if l.Partition < 0 || l.Partition >= len(v.Leases) {
			continue // a lease of a cluster with more partitions: not ours to show
		}
		pv := &v.Leases[l.Partition]
		pv.Owner, pv.Epoch, pv.Leased = l.Owner, l.Epoch, l.Owner != "" && now.Before(l.Expires)
		if !l.Expires.IsZero() {
			exp := l.Expires.UTC()
			pv.Expires = &exp
		}
		if pv.Leased {
			leased[l.Owner] = append(leased[l.Owner], l.Partition)
		}
	}
	for _, r := range st.Replicas {
		age := now.Sub(r.Heartbeat)
		parts := leased[r.ID]
		if parts == nil {
			parts = []int{}
		}
		v.Replicas = append(v.Replicas, ReplicaView{
			Replica: r, Live: age < ttl, HeartbeatAgeMs: age.Milliseconds(), Self: r.ID == st.Self, Partitions: parts,
		})
	}
	return v
}

// Cluster is the cluster as this replica sees it now.
func (s *Service) Cluster(ctx context.Context) (ClusterView, error) {
	st, err := s.cfg.Cluster.ClusterState(ctx)
	if err != nil {
		return ClusterView{}, err
	}
	return NewClusterView(st, s.cfg.LeaseTTL, time.Now()), nil
}

// getCluster is GET /api/v1/cluster.
func (s *Service) getCluster(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.Cluster(ctx)
	if err != nil {
		return err
	}
	return c.JSON(v)
}
