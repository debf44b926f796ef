package mongostore

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

func (s *Store) CreateSchedule(ctx context.Context, sc engine.Schedule) error {
	_, err := s.schedules.InsertOne(ctx, sc)
	return mapErr(err, "storing schedule "+sc.ID)
}

// UpdateSchedule replaces the document only while its rev is prevRev: the
// filter and the write are one atomic step on one document, which is what
// makes claiming a tick safe between replicas without a transaction.
func (s *Store) UpdateSchedule(ctx context.Context, sc engine.Schedule, prevRev int64) error {
	res, err := s.schedules.ReplaceOne(ctx, bson.D{{Key: "_id", Value: sc.ID}, {Key: "rev", Value: prevRev}}, sc)
	if err != nil {
		return mapErr(err, "updating schedule "+sc.ID)
	}
	if res.MatchedCount == 1 {
		return nil
	}
	if _, err := s.Schedule(ctx, sc.ID); err != nil {
		return err
	}
	return fmt.Errorf("schedule %s changed since rev %d: %w", sc.ID, prevRev, engine.ErrConflict)
}

func (s *Store) DeleteSchedule(ctx context.Context, id string) error {
	res, err := s.schedules.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return mapErr(err, "deleting schedule "+id)
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("schedule %s: %w", id, engine.ErrNotFound)
	}
	return nil
}

func (s *Store) Schedule(ctx context.Context, id string) (engine.Schedule, error) {
	var sc engine.Schedule
	err := s.schedules.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&sc)
	return sc, mapErr(err, "schedule "+id)
}

func (s *Store) Schedules(ctx context.Context) ([]engine.Schedule, error) {
	cur, err := s.schedules.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "schedules")
	}
	out := []engine.Schedule{}
	return out, mapErr(cur.All(ctx, &out), "schedules")
}
