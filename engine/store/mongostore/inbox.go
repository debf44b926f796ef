package mongostore

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// OpenTasks streams the open tasks with one query: on the embedded server
// one scan, decoded as it goes, rather than a scan per page.
func (s *Store) OpenTasks(ctx context.Context, fn func(engine.Task) error) error {
	cur, err := s.tasks.Find(ctx, bson.D{{Key: "status", Value: engine.TaskOpen}}, options.Find().SetBatchSize(1000))
	if err != nil {
		return mapErr(err, "open tasks")
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var d taskDoc
		if err := cur.Decode(&d); err != nil {
			return mapErr(err, "open tasks")
		}
		if err := fn(d.Task); err != nil {
			return err
		}
	}
	return mapErr(cur.Err(), "open tasks")
}

func (s *Store) SaveFilter(ctx context.Context, f engine.SavedFilter) error {
	f.ID = engine.SavedFilterID(f.User, f.Name)
	_, err := s.filters.ReplaceOne(ctx, bson.D{{Key: "_id", Value: f.ID}}, f, options.Replace().SetUpsert(true))
	return mapErr(err, "saving filter "+f.Name)
}

func (s *Store) Filters(ctx context.Context, user string) ([]engine.SavedFilter, error) {
	cur, err := s.filters.Find(ctx, bson.D{{Key: "user", Value: user}}, options.Find().SetSort(bson.D{{Key: "name", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "filters of "+user)
	}
	out := []engine.SavedFilter{}
	return out, mapErr(cur.All(ctx, &out), "filters of "+user)
}

func (s *Store) DeleteFilter(ctx context.Context, user, name string) error {
	res, err := s.filters.DeleteOne(ctx, bson.D{{Key: "_id", Value: engine.SavedFilterID(user, name)}})
	if err != nil {
		return mapErr(err, "deleting filter "+name)
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("filter %q of %s: %w", name, user, engine.ErrNotFound)
	}
	return nil
}
