package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.MessageStore = (*Store)(nil)

// messageIndexes serve the lists of one name and key's messages, oldest first, and
// the deletes of expired ones. Expiry is the engine's (its clock), so no
// TTL index: the engine deletes them itself.
var messageIndexes = []mongo.IndexModel{
	{Keys: bson.D{{Key: "name", Value: 1}, {Key: "correlation_key", Value: 1}, {Key: "published_at", Value: 1}}},
	{Keys: bson.D{{Key: "expires_at", Value: 1}}},
}

func (s *Store) BufferMessage(ctx context.Context, m engine.BufferedMessage) error {
	_, err := s.messages.InsertOne(ctx, m)
	return mapErr(err, "buffering message "+m.ID)
}

func (s *Store) BufferedMessages(ctx context.Context, f engine.MessageFilter, now time.Time, limit int) ([]engine.BufferedMessage, error) {
	q := bson.D{{Key: "expires_at", Value: bson.D{{Key: "$gt", Value: now}}}}
	if f.Name != "" {
		q = append(bson.D{{Key: "name", Value: f.Name}, {Key: "correlation_key", Value: f.CorrelationKey}}, q...)
	}
	o := options.Find().SetSort(bson.D{{Key: "published_at", Value: 1}, {Key: "_id", Value: 1}})
	if limit > 0 {
		o.SetLimit(int64(limit))
	}
	cur, err := s.messages.Find(ctx, q, o)
	if err != nil {
		return nil, mapErr(err, "listing buffered messages")
	}
	var out []engine.BufferedMessage
	if err := cur.All(ctx, &out); err != nil {
		return nil, mapErr(err, "listing buffered messages")
	}
	for i := range out {
		out[i].Variables = normalizeMap(out[i].Variables)
		out[i].Published, out[i].Expires = out[i].Published.UTC(), out[i].Expires.UTC()
	}
	return out, nil
}

func (s *Store) CountBufferedMessages(ctx context.Context, now time.Time) (int, error) {
	n, err := s.messages.CountDocuments(ctx, bson.D{{Key: "expires_at", Value: bson.D{{Key: "$gt", Value: now}}}})
	if err != nil {
		return 0, mapErr(err, "counting buffered messages")
	}
	return int(n), nil
}

// TakeBufferedMessage is one DeleteOne by id: the database deletes a
// document once, so of replicas taking the same message exactly one sees
// DeletedCount 1.
func (s *Store) TakeBufferedMessage(ctx context.Context, id string) error {
	r, err := s.messages.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return mapErr(err, "taking buffered message "+id)
	}
	if r.DeletedCount == 0 {
		return fmt.Errorf("buffered message %s: %w", id, engine.ErrNotFound)
	}
	return nil
}

func (s *Store) ExpireBufferedMessages(ctx context.Context, now time.Time) (int, error) {
	r, err := s.messages.DeleteMany(ctx, bson.D{{Key: "expires_at", Value: bson.D{{Key: "$lte", Value: now}}}})
	if err != nil {
		return 0, mapErr(err, "expiring buffered messages")
	}
	return int(r.DeletedCount), nil
}
