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
// have died between a snapshot and the rest of its commit. It leaves out
// the instances below the epoch of the partition's lease, which its old
// owner stored after the fence and withdraws (checkNew).
func (s *Store) UnfinishedIn(ctx context.Context, p int, fn func(*engine.Snapshot) error) error {
	l, _, err := s.lease(ctx, p)
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		return err
	}
	filter := unfinishedIn(p)
	if l.Epoch > 0 {
		filter = append(filter, bson.E{Key: "epoch", Value: bson.D{{Key: "$gte", Value: l.Epoch}}})
	}
	return s.recoverEach(ctx, filter, true, fn)
}

// New instances. FencePartition stamps the instances stored when a
// partition changes hands; one that its old owner stores after that fence
// keeps the old epoch, and the new owner, which read the partition's
// instances once fenced, may never have seen it. A lease read before the
// insert leaves a round trip (or, for a replica paused in between, any
// time) for that. So a fenced write of new instances reads the leases of
// their partitions after the insert (checkNew):
//   - Still at its epoch: any later takeover fences the instances, then
//     reads them.
//   - Moved on: the writer withdraws them (withdrawNew), unless the new
//     owner's fence stamped one first, which that owner then runs.
//
// Either way no instance is acknowledged that no replica runs. Until its
// writer settles it, an unfinished instance below the epoch of its
// partition's lease belongs to nobody: UnfinishedIn leaves it out, so that
// a new owner never holds a copy the withdrawal then removes, and a
// repeated request waits for it (claimed).

// movedOn returns those of partitions parts whose lease is at an epoch
// newer than epoch.
func (s *Store) movedOn(ctx context.Context, epoch int64, parts []int) ([]int, error) {
	cur, err := s.partitions.Find(ctx, bson.D{
		{Key: "_id", Value: bson.D{{Key: "$in", Value: parts}}},
		{Key: "epoch", Value: bson.D{{Key: "$gt", Value: epoch}}},
	}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "checking the partition leases")
	}
	var moved []struct {
		Partition int `bson:"_id"`
	}
	if err := cur.All(ctx, &moved); err != nil {
		return nil, mapErr(err, "checking the partition leases")
	}
	out := make([]int, len(moved))
	for i, m := range moved {
		out[i] = m.Partition
	}
	return out, nil
}

// checkNew is the check after a fenced insert of new instances, written
// at epoch (0: not fenced, nothing to check) by the write nonce. It
// returns the errors of those it withdrew (ErrFenced: nothing of them is
// stored); the others stay, run by whoever holds their partition.
func (s *Store) checkNew(ctx context.Context, epoch int64, nonce string, news []*engine.Snapshot) (map[string]error, error) {
	var parts []int
	for _, sn := range news {
		if !slices.Contains(parts, sn.Partition) {
			parts = append(parts, sn.Partition)
		}
	}
	if epoch == 0 || len(parts) == 0 {
		return nil, nil
	}
	moved, err := s.movedOn(ctx, epoch, parts)
	if err != nil || len(moved) == 0 {
		return nil, err
	}
	withdrawn := map[string]error{}
	for _, sn := range news {
		if !slices.Contains(moved, sn.Partition) {
			continue
		}
		gone, err := s.withdrawNew(ctx, sn.ID, epoch, nonce)
		if err != nil {
			return withdrawn, err
		}
		if gone {
			withdrawn[sn.ID] = fmt.Errorf("new instance %s: partition %d changed hands as it was stored, at epoch %d: withdrawn: %w",
				sn.ID, sn.Partition, epoch, engine.ErrFenced)
		}
	}
	return withdrawn, nil
}

// withdrawNew removes new instance id, as this writer stored it (at epoch,
// by nonce), and its large variables, and reports whether it is gone. One
// the new owner's fence has stamped (or that it committed) since is not
// this writer's any more: it stays, and its new owner runs it.
func (s *Store) withdrawNew(ctx context.Context, id string, epoch int64, nonce string) (bool, error) {
	res, err := s.instances.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "epoch", Value: epoch}, {Key: "commit", Value: nonce}})
	if err != nil {
		return false, mapErr(err, "withdrawing new instance "+id)
	}
	if res.DeletedCount == 0 {
		return false, nil
	}
	s.sideRefs.Delete(id)
	if _, err := s.variables.DeleteOne(ctx, bson.D{{Key: "_id", Value: sideID(id, nonce)}}); err != nil {
		s.log.Warn("mongostore: removing the variables of a withdrawn instance", "instance_id", id, "err", err)
	}
	return true, nil
}

// checkCreates is checkNew for the new instances of a batch, unless its
// lease is still fresh now that they are stored (Batch.LeaseFresh): a
// read of the partitions per commit was a quarter of a shared embedded
// store's work.
func (s *Store) checkCreates(ctx context.Context, changes []engine.Change, m commitMode, nonce string) (map[string]error, error) {
	s.afterInsert()
	if m.epoch == 0 || m.leaseFresh != nil && m.leaseFresh() {
		return nil, nil
	}
	var news []*engine.Snapshot
	for _, c := range changes {
		if c.Create {
			news = append(news, c.Snapshot)
		}
	}
	return s.checkNew(ctx, m.epoch, nonce, news)
}

// afterInsert runs the test hook between the insert of new instances and
// their check, where a takeover may come (export_test.go).
func (s *Store) afterInsert() {
	if s.newInserted != nil {
		s.newInserted()
	}
}

// settled reports whether a stored instance has an owner to run it: it is
// finished, or at least at the epoch of its partition's lease. One below
// was stored after its partition changed hands, and waits for its writer's
// check (checkNew).
func (s *Store) settled(ctx context.Context, snap *engine.Snapshot) (bool, error) {
	if snap.Epoch == 0 || snap.Status.Done() {
		return true, nil
	}
	moved, err := s.movedOn(ctx, snap.Epoch, []int{snap.Partition})
	return len(moved) == 0, err
}
