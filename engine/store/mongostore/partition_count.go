package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// The cluster's partition count. Instances hash into partitions by
// engine.PartitionOf(id, n) and each stores its partition, which is where
// a new owner looks for it (UnfinishedIn): replicas hashing by different
// counts would lose track of instances. The count is kept in the meta
// collection; a store without one was written by single processes (or by
// versions before the mark), which hash by engine.ClusterPartitionsDefault.
const partitionsMark = "partitions"

type partitionsDoc struct {
	ID    string `bson:"_id"`
	Count int    `bson:"count"`
}

// PreparePartitions readies the store for a replica hashing instances into
// n partitions, before it leases any:
//   - It refuses n when the store's count differs while unfinished
//     instances are placed by it or a replica holds a lease: every replica
//     must use one count, and moving instances between partitions is not
//     supported. With neither, the count becomes n.
//   - It places unfinished instances stored without a partition (before
//     partitions existed) in theirs, so that their partition's owner finds
//     them, and returns how many.
func (s *Store) PreparePartitions(ctx context.Context, n int, now time.Time) (placed int, err error) {
	if err := s.settleCount(ctx, n, now); err != nil {
		return 0, err
	}
	return s.placeUnplaced(ctx, n)
}

// settleCount checks n against the stored count, or makes n the count.
func (s *Store) settleCount(ctx context.Context, n int, now time.Time) error {
	var doc partitionsDoc
	err := s.meta.FindOne(ctx, bson.D{{Key: "_id", Value: partitionsMark}}).Decode(&doc)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		doc.Count = engine.ClusterPartitionsDefault
	case err != nil:
		return mapErr(err, "reading the cluster's partition count")
	}
	if doc.Count != n {
		if err := s.countMayChange(ctx, doc.Count, n, now); err != nil {
			return err
		}
	}
	_, err = s.meta.ReplaceOne(ctx, bson.D{{Key: "_id", Value: partitionsMark}}, partitionsDoc{ID: partitionsMark, Count: n},
		options.Replace().SetUpsert(true))
	return mapErr(err, "recording the cluster's partition count")
}

// countMayChange refuses a change of the partition count from stored to n
// while instances are placed by stored or a replica holds a lease.
func (s *Store) countMayChange(ctx context.Context, stored, n int, now time.Time) error {
	unfinished, err := s.instances.CountDocuments(ctx,
		bson.D{{Key: "status", Value: bson.D{{Key: "$nin", Value: doneStatuses}}}, {Key: "partition", Value: bson.D{{Key: "$exists", Value: true}}}},
		options.Count().SetLimit(1))
	if err != nil {
		return mapErr(err, "looking for unfinished instances")
	}
	leases, err := s.Partitions(ctx)
	if err != nil {
		return err
	}
	held := false
	for _, l := range leases {
		held = held || l.Owner != "" && now.Before(l.Expires)
	}
	if unfinished == 0 && !held {
		return nil
	}
	why := "unfinished instances are placed by it"
	if held {
		why = "replicas running now lease partitions by it"
	}
	return fmt.Errorf("WFPP_PARTITIONS is %d, but this store's cluster uses %d partitions and %s: "+
		"set WFPP_PARTITIONS=%d on every replica (changing it needs every replica stopped and no unfinished instance)",
		n, stored, why, stored)
}

// placeUnplaced gives the unfinished instances stored without a partition
// theirs among n, each by its own guarded write (safe to run again, and on
// several replicas at once), and returns how many it placed.
func (s *Store) placeUnplaced(ctx context.Context, n int) (int, error) {
	cur, err := s.instances.Find(ctx,
		bson.D{{Key: "status", Value: bson.D{{Key: "$nin", Value: doneStatuses}}}, {Key: "partition", Value: bson.D{{Key: "$exists", Value: false}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return 0, mapErr(err, "finding instances without a partition")
	}
	var ids []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &ids); err != nil {
		return 0, mapErr(err, "finding instances without a partition")
	}
	placed := 0
	for _, doc := range ids {
		res, err := s.instances.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: doc.ID}, {Key: "partition", Value: bson.D{{Key: "$exists", Value: false}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "partition", Value: engine.PartitionOf(doc.ID, n)}}}})
		if err != nil {
			return placed, mapErr(err, "placing instance "+doc.ID+" in its partition")
		}
		placed += int(res.ModifiedCount)
	}
	return placed, nil
}
