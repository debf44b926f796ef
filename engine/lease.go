package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"
)

// Scale-out (DESIGN.md §5). Instances hash into a fixed number of
// partitions (PartitionOf); replicas lease partitions through the store
// (LeaseStore) and apply the commands of the instances in the partitions
// they hold. Every commit names the epoch of its partition's lease
// (Batch.Epoch): once another replica took the partition, at a higher
// epoch, the store refuses the old owner's writes (ErrFenced).

// ErrFenced means a write named a partition epoch older than the one the
// store holds: another replica took the partition over. The writer must
// drop the partition and reload nothing it kept in memory.
var ErrFenced = errors.New("fenced: the partition is leased to another replica")

// ClusterPartitionsDefault is how many partitions the instances of a cluster
// hash into. Every replica of one store must use the same number.
const ClusterPartitionsDefault = 32

// PartitionOf returns the partition of an instance id among n partitions:
// the same on every replica (FNV-1a, not a seeded hash).
func PartitionOf(instanceID string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(instanceID))
	return int(h.Sum64() % uint64(n))
}

// Replica is one live wfpp serve process of a cluster, as its heartbeat
// left it in the store.
type Replica struct {
	ID        string    `json:"id" bson:"_id"`
	Address   string    `json:"address" bson:"address"` // where other replicas reach its HTTP API: host:port
	Started   time.Time `json:"startedAt" bson:"started_at"`
	Heartbeat time.Time `json:"heartbeat" bson:"heartbeat"`
	// EventLagMs is how late, at its last heartbeat, the events of the
	// other replicas reached this one's live clients (ClusterConfig.EventLag).
	EventLagMs int64 `json:"eventLagMs" bson:"event_lag_ms"`
	// Machine names the machine the replica runs on (ClusterConfig.Machine),
	// CPUs how many it runs Go code on at once (ClusterConfig.CPUs).
	Machine string `json:"machine,omitempty" bson:"machine,omitempty"`
	CPUs    int    `json:"cpus,omitempty" bson:"cpus,omitempty"`
}

// PartitionLease is who holds one partition, at which epoch, until when.
// Each take of a partition by another owner (or after its expiry) raises
// Epoch; a renewal by the same owner keeps it.
type PartitionLease struct {
	Partition int       `json:"partition" bson:"_id"`
	Owner     string    `json:"owner" bson:"owner"`
	Epoch     int64     `json:"epoch" bson:"epoch"`
	Expires   time.Time `json:"expires" bson:"expires"`
}

// Held reports whether the lease is owner's and not expired at now.
func (l PartitionLease) Held(owner string, now time.Time) bool {
	return l.Owner == owner && now.Before(l.Expires)
}

// LeaseStore is what replicas need from the store to share partitions.
// Stores that run on one process only (memstore for wfpp run) implement it
// too, so the conformance suite covers both.
type LeaseStore interface {
	// Heartbeat records r as alive at r.Heartbeat (an upsert by id).
	Heartbeat(ctx context.Context, r Replica) error
	// Replicas lists the replicas that ever beat, oldest first; callers
	// judge liveness by Heartbeat.
	Replicas(ctx context.Context) ([]Replica, error)
	// RemoveReplica forgets a replica (it left cleanly).
	RemoveReplica(ctx context.Context, id string) error

	// AcquirePartition gives partition p to owner until now+ttl when it is
	// free (never leased, released or expired at now), raising its epoch,
	// or renews it when owner already holds it (epoch unchanged). ok is
	// false, with the current lease, when another owner holds it.
	AcquirePartition(ctx context.Context, p int, owner string, now time.Time, ttl time.Duration) (l PartitionLease, ok bool, err error)
	// RenewPartition extends l to now+ttl if the store still holds it as
	// l.Owner's at l.Epoch; otherwise ErrFenced.
	RenewPartition(ctx context.Context, l PartitionLease, now time.Time, ttl time.Duration) (PartitionLease, error)
	// ReleasePartition ends l at once if it is still l.Owner's at l.Epoch
	// (a hand-back: another replica may take it right away).
	ReleasePartition(ctx context.Context, l PartitionLease) error
	// Partitions lists every lease ever taken, by partition.
	Partitions(ctx context.Context) ([]PartitionLease, error)

	// FencePartition stamps every unfinished instance of partition p with
	// epoch (where it holds an older one), so that a commit at an older
	// epoch is refused from now on, even for an instance the new owner has
	// not written yet.
	FencePartition(ctx context.Context, p int, epoch int64) error
	// UnfinishedIn calls fn with every unfinished instance of partition p
	// (Snapshot.Partition), oldest first; it reads no finished instance,
	// nor one below the epoch of p's lease: stored by an old owner after
	// the fence, it is that writer's to withdraw (mongostore's checkNew).
	UnfinishedIn(ctx context.Context, p int, fn func(*Snapshot) error) error
	// UnfinishedCounts counts the unfinished instances of every partition
	// that has some (the cluster view's "instances waiting").
	UnfinishedCounts(ctx context.Context) (map[int]int, error)
}

// NotOwnerError is returned for a command on an instance whose partition
// this replica does not hold: Address is where its owner answers, empty
// while no replica holds it (try again shortly).
type NotOwnerError struct {
	Partition int
	Owner     string
	Address   string
}

func (e *NotOwnerError) Error() string {
	if e.Owner == "" {
		return fmt.Sprintf("partition %d has no owner right now: try again in a few seconds", e.Partition)
	}
	return fmt.Sprintf("partition %d is held by replica %s at %s", e.Partition, e.Owner, e.Address)
}

// ClusterConfig makes an engine one replica of several sharing one store.
type ClusterConfig struct {
	ReplicaID string // unique among the replicas; wfpp serve: WFPP_REPLICA_ID, else host and pid
	Address   string // host:port where the other replicas reach this one's HTTP API
	// Partitions is how many partitions instances hash into (default
	// ClusterPartitionsDefault); the same on every replica of a store.
	Partitions int
	// LeaseTTL is how long a partition lease lasts unrenewed (default 10 s):
	// how long a dead replica's instances wait for another to take them.
	// Leases are renewed every LeaseTTL/3.
	LeaseTTL time.Duration
	// Leases is where leases live; default the Store, which must implement
	// LeaseStore.
	Leases LeaseStore
	// EventLag, when set, says how late other replicas' events reach this
	// one's live clients; each heartbeat records it (Replica.EventLagMs).
	EventLag func() time.Duration
	// Machine names the machine this replica runs on, the same for every
	// replica there (wfpp serve: the kernel's boot id). Neighbours, when
	// set, hears after each heartbeat how many live replicas, this one
	// included, run on Machine; CPUs, when set, says how many CPUs this
	// one uses, for its heartbeat (Replica.CPUs).
	Machine    string
	Neighbours func(n int)
	CPUs       func() int
}

// Peers reaches the other replicas for what crosses partitions. wfpp serve
// implements it over their HTTP API (server/cluster).
type Peers interface {
	// Correlate delivers m to the instances the other replicas hold that
	// wait for it, and returns how many took it (CorrelateHere on each).
	Correlate(ctx context.Context, m Message) (int, error)
	// Signal delivers a signal to the instances the other replicas hold
	// (SignalHere on each) and returns how many took it.
	Signal(ctx context.Context, name string, vars map[string]any) (int, error)
}

// ClusterState is what this replica knows of the cluster, for
// GET /api/v1/cluster.
type ClusterState struct {
	Self       string           `json:"self"`       // this replica's id; empty without Cluster
	Partitions int              `json:"partitions"` // how many partitions instances hash into
	Replicas   []Replica        `json:"replicas"`
	Leases     []PartitionLease `json:"leases"`
	// Held are the partitions this replica applies now.
	Held []int `json:"held"`
	// Unfinished counts the unfinished instances per partition.
	Unfinished map[int]int `json:"unfinished"`
}
