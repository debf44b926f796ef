package mongostore

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// Change digests (engine.ChangeDigests) live in a collection of one
// document per replica, _id the replica: publishing replaces it by _id
// alone, and reading them all reads a handful of documents, where a query
// on the instances' updated_at would decode every instance on FerretDB.

var _ engine.ChangeDigests = (*Store)(nil)

func (s *Store) PublishDigest(ctx context.Context, d engine.ChangeDigest) error {
	return s.upsert(ctx, s.digests, d.Replica, d)
}

func (s *Store) Digests(ctx context.Context) ([]engine.ChangeDigest, error) {
	cur, err := s.digests.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "change digests")
	}
	var out []engine.ChangeDigest
	if err := cur.All(ctx, &out); err != nil {
		return nil, mapErr(err, "change digests")
	}
	for i := range out {
		out[i].Published = out[i].Published.UTC()
		for j := range out[i].Changes {
			out[i].Changes[j].At = out[i].Changes[j].At.UTC()
		}
	}
	return out, nil
}

func (s *Store) RemoveDigests(ctx context.Context, before time.Time) error {
	_, err := s.digests.DeleteMany(ctx, bson.D{{Key: "published_at", Value: bson.D{{Key: "$lt", Value: before}}}})
	return mapErr(err, "removing old change digests")
}
