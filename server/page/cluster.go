package page

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// clusterPage is GET /cluster: the replicas and partitions, for operators,
// from the same view as GET /api/v1/cluster.
func (s *Service) clusterPage(c *fiber.Ctx) error {
	if !identity.CurrentUser(c).Has(identity.RoleOperator) {
		return api.Forbidden("the cluster page is for operators")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.api.Cluster(ctx)
	if err != nil {
		return err
	}
	d := web.ClusterData{
		Self: v.Self, Partitions: v.Partitions, LeaseTTL: time.Duration(v.LeaseTTLMs) * time.Millisecond, Held: v.Held,
	}
	for _, r := range v.Replicas {
		d.Replicas = append(d.Replicas, web.ClusterReplica{
			ID: r.ID, Address: r.Address, Started: r.Started, Heartbeat: r.Heartbeat,
			HeartbeatAge: time.Duration(r.HeartbeatAgeMs) * time.Millisecond, Live: r.Live, Self: r.Self, Partitions: r.Partitions,
			EventLag: time.Duration(r.EventLagMs) * time.Millisecond, CPUs: r.CPUs,
		})
	}
	for _, l := range v.Leases {
		d.Leases = append(d.Leases, web.ClusterLease{
			Partition: l.Partition, Owner: l.Owner, Epoch: l.Epoch, Expires: l.Expires, Leased: l.Leased, Here: l.Here,
			Unfinished: l.Unfinished,
		})
	}
	return renderPage(c, web.ClusterPage(s.layout(c, "Cluster", "cluster"), d))
}
