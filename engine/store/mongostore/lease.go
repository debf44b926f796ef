package mongostore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// Leases (engine.LeaseStore). Replicas share partitions through two small
// collections: replicas (a heartbeat document per replica) and partitions
// (an engine.PartitionLease per partition ever leased, _id the partition).
// Every change of a lease is one single-document atomic write whose filter
// states what it expects: of replicas racing for a partition, one write
// matches and the others' do not. The first take of a partition is an
// insert, and the unique _id says who won.

var _ engine.LeaseStore = (*Store)(nil)

func (s *Store) Heartbeat(ctx context.Context, r engine.Replica) error {
	return s.upsert(ctx, s.replicas, r.ID, r)
}

func (s *Store) Replicas(ctx context.Context) ([]engine.Replica, error) {
	cur, err := s.replicas.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "started_at", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "replicas")
	}
	var out []engine.Replica
	return out, mapErr(cur.All(ctx, &out), "replicas")
}

func (s *Store) RemoveReplica(ctx context.Context, id string) error {
	_, err := s.replicas.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	return mapErr(err, "removing replica "+id)
}

// acquireAttempts bounds how often AcquirePartition looks again when the
// lease changed under it (taken, expired or released between its writes).
const acquireAttempts = 3

func (s *Store) AcquirePartition(ctx context.Context, p int, owner string, now time.Time, ttl time.Duration) (engine.PartitionLease, bool, error) {
	expires := now.Add(ttl)
	var cur engine.PartitionLease
	for range acquireAttempts {
		// A renewal: owner holds it.
		l, err := s.updateLease(ctx,
			bson.D{{Key: "_id", Value: p}, {Key: "owner", Value: owner}, {Key: "expires", Value: bson.D{{Key: "$gt", Value: now}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: expires}}}})
		if err == nil || !errors.Is(err, engine.ErrNotFound) {
			return l, err == nil, err
		}
		// A new tenure: expired (or released) at now.
		l, err = s.updateLease(ctx,
			bson.D{{Key: "_id", Value: p}, {Key: "expires", Value: bson.D{{Key: "$lte", Value: now}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "owner", Value: owner}, {Key: "expires", Value: expires}}}, {Key: "$inc", Value: bson.D{{Key: "epoch", Value: 1}}}})
		if err == nil || !errors.Is(err, engine.ErrNotFound) {
			return l, err == nil, err
		}
		// The first tenure: never leased.
		l = engine.PartitionLease{Partition: p, Owner: owner, Epoch: 1, Expires: expires}
		_, err = s.partitions.InsertOne(ctx, l)
		switch {
		case err == nil:
			return s.lease(ctx, p)
		case !mongo.IsDuplicateKeyError(err):
			return l, false, mapErr(err, fmt.Sprintf("leasing partition %d", p))
		}
		// Held by another, unless it expired or was released since.
		cur, _, err = s.lease(ctx, p)
		if err != nil || now.Before(cur.Expires) && cur.Owner != owner {
			return cur, false, err
		}
	}
	return cur, false, nil
}

// lease reads the stored lease of partition p, as the store keeps its time.
func (s *Store) lease(ctx context.Context, p int) (engine.PartitionLease, bool, error) {
	var l engine.PartitionLease
	err := s.partitions.FindOne(ctx, bson.D{{Key: "_id", Value: p}}).Decode(&l)
	return l, err == nil, mapErr(err, fmt.Sprintf("lease of partition %d", p))
}

// updateLease applies update to the lease filter selects and returns it as
// stored after; ErrNotFound when filter selects none.
func (s *Store) updateLease(ctx context.Context, filter, update bson.D) (engine.PartitionLease, error) {
	var l engine.PartitionLease
	err := s.partitions.FindOneAndUpdate(ctx, filter, update, options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&l)
	return l, mapErr(err, "updating a partition lease")
}

func (s *Store) RenewPartition(ctx context.Context, l engine.PartitionLease, now time.Time, ttl time.Duration) (engine.PartitionLease, error) {
	renewed, err := s.updateLease(ctx,
		bson.D{{Key: "_id", Value: l.Partition}, {Key: "owner", Value: l.Owner}, {Key: "epoch", Value: l.Epoch}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: now.Add(ttl)}}}})
	if errors.Is(err, engine.ErrNotFound) {
		return l, fmt.Errorf("renewing partition %d for %s at epoch %d: %w", l.Partition, l.Owner, l.Epoch, engine.ErrFenced)
	}
	return renewed, err
}

// ReleasePartition clears the owner as well as the expiry, so that a late
// renewal of the tenure it ends is fenced.
func (s *Store) ReleasePartition(ctx context.Context, l engine.PartitionLease) error {
	_, err := s.partitions.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: l.Partition}, {Key: "owner", Value: l.Owner}, {Key: "epoch", Value: l.Epoch}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "owner", Value: ""}, {Key: "expires", Value: time.Time{}}}}})
	return mapErr(err, fmt.Sprintf("releasing partition %d", l.Partition))
}

func (s *Store) Partitions(ctx context.Context) ([]engine.PartitionLease, error) {
	cur, err := s.partitions.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "partition leases")
	}
	var out []engine.PartitionLease
	return out, mapErr(cur.All(ctx, &out), "partition leases")
}

// unfinishedIn selects the unfinished instances of partition p.
func unfinishedIn(p int) bson.D {
	return bson.D{{Key: "partition", Value: p}, {Key: "status", Value: bson.D{{Key: "$nin", Value: doneStatuses}}}}
}

func (s *Store) UnfinishedCounts(ctx context.Context) (map[int]int, error) {
	cur, err := s.instances.Find(ctx, bson.D{{Key: "status", Value: bson.D{{Key: "$nin", Value: doneStatuses}}}},
		options.Find().SetProjection(bson.D{{Key: "partition", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "counting unfinished instances")
	}
	defer func() { _ = cur.Close(ctx) }()
	counts := map[int]int{}
	for cur.Next(ctx) {
		var doc struct {
			Partition int `bson:"partition"`
		}
		if err := cur.Decode(&doc); err != nil {
			return nil, fmt.Errorf("counting unfinished instances: %w", err)
		}
		counts[doc.Partition]++
	}
	return counts, mapErr(cur.Err(), "counting unfinished instances")
}

func (s *Store) FencePartition(ctx context.Context, p int, epoch int64) error {
	filter := append(unfinishedIn(p), bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lt", Value: epoch}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}})
	_, err := s.instances.UpdateMany(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "epoch", Value: epoch}}}})
	return mapErr(err, fmt.Sprintf("fencing partition %d at epoch %d", p, epoch))
}

// UnfinishedIn also completes the last commit of each instance it reads,
// its events and its projections: the replica that held the partition may
// have died between a snapshot and the rest of its commit.
func (s *Store) UnfinishedIn(ctx context.Context, p int, fn func(*engine.Snapshot) error) error {
	return s.recoverEach(ctx, unfinishedIn(p), true, fn)
}

// fenceCreates refuses a fenced batch that creates an instance in a
// partition another replica has leased since (see fenceNew).
func (s *Store) fenceCreates(ctx context.Context, b *engine.Batch) error {
	if b.LeaseFresh {
		return nil // a read of the partitions per commit was a quarter of a shared embedded store's work
	}
	var parts []int
	for _, c := range b.Changes {
		if c.Create && !slices.Contains(parts, c.Snapshot.Partition) {
			parts = append(parts, c.Snapshot.Partition)
		}
	}
	return s.fenceNew(ctx, b.Epoch, parts)
}

// fenceNew refuses new instances of partitions parts written at epoch (0:
// not fenced) when one of the partitions' leases is at a newer epoch:
// FencePartition stamped the instances stored when the lease changed
// hands, not those created after. (A take between this read and the
// insert still gets through: the window is one round trip.)
func (s *Store) fenceNew(ctx context.Context, epoch int64, parts []int) error {
	if epoch == 0 || len(parts) == 0 {
		return nil
	}
	var l engine.PartitionLease
	err := s.partitions.FindOne(ctx, bson.D{
		{Key: "_id", Value: bson.D{{Key: "$in", Value: parts}}},
		{Key: "epoch", Value: bson.D{{Key: "$gt", Value: epoch}}},
	}).Decode(&l)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return nil
	case err != nil:
		return mapErr(err, "checking the partition leases")
	}
	return fmt.Errorf("new instances: partition %d is at epoch %d, the write at %d: %w", l.Partition, l.Epoch, epoch, engine.ErrFenced)
}
