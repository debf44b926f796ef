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

// noDue sorts tasks without a due date after every dated one: MongoDB sorts
// a missing field first.
var noDue = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// taskDoc is a task as stored: with the key the inbox sorts by.
type taskDoc struct {
	engine.Task `bson:",inline"`
	DueSort     time.Time `bson:"due_sort"`
	Epoch       int64     `bson:"epoch,omitempty"` // of the partition's owner that wrote it, in a cluster (fencedUpsert)
}

// incidentDoc is an incident as stored: with the epoch of the partition's
// owner that wrote it, in a cluster (fencedUpsert). Reads decode the
// engine.Incident alone.
type incidentDoc struct {
	engine.Incident `bson:",inline"`
	Epoch           int64 `bson:"epoch,omitempty"`
}

var (
	taskSort      = bson.D{{Key: "priority", Value: -1}, {Key: "due_sort", Value: 1}, {Key: "_id", Value: 1}}
	taskSortByDue = bson.D{{Key: "due_sort", Value: 1}, {Key: "priority", Value: -1}, {Key: "_id", Value: 1}}
)

func (s *Store) Tasks(ctx context.Context, f engine.TaskFilter) ([]engine.Task, string, error) {
	and := bson.A{}
	if f.InstanceID != "" {
		and = append(and, bson.D{{Key: "instance_id", Value: f.InstanceID}})
	}
	if f.Assignee != "" {
		and = append(and, bson.D{{Key: "assignee", Value: f.Assignee}})
	}
	if f.Status != "" {
		and = append(and, bson.D{{Key: "status", Value: f.Status}})
	}
	if f.User != "" || len(f.Groups) > 0 {
		candidate := bson.A{}
		if f.User != "" {
			candidate = append(candidate, bson.D{{Key: "candidate_users", Value: f.User}})
		}
		if len(f.Groups) > 0 {
			candidate = append(candidate, bson.D{{Key: "candidate_groups", Value: bson.D{{Key: "$in", Value: f.Groups}}}})
		}
		unassigned := bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "assignee", Value: bson.D{{Key: "$exists", Value: false}}}},
			bson.D{{Key: "assignee", Value: ""}},
		}}}
		either := bson.A{bson.D{{Key: "$and", Value: bson.A{unassigned, bson.D{{Key: "$or", Value: candidate}}}}}}
		if f.User != "" {
			either = append(either, bson.D{{Key: "assignee", Value: f.User}})
		}
		and = append(and, bson.D{{Key: "$or", Value: either}})
	}
	if f.Cursor != "" {
		var last taskDoc
		err := s.tasks.FindOne(ctx, bson.D{{Key: "_id", Value: f.Cursor}}).Decode(&last)
		if err != nil {
			return nil, "", mapErr(err, "task cursor "+f.Cursor)
		}
		p, d := last.Priority, last.DueSort
		after := bson.A{
			bson.D{{Key: "priority", Value: bson.D{{Key: "$lt", Value: p}}}},
			bson.D{{Key: "priority", Value: p}, {Key: "due_sort", Value: bson.D{{Key: "$gt", Value: d}}}},
			bson.D{{Key: "priority", Value: p}, {Key: "due_sort", Value: d}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: last.ID}}}},
		}
		if f.ByDue {
			after = bson.A{
				bson.D{{Key: "due_sort", Value: bson.D{{Key: "$gt", Value: d}}}},
				bson.D{{Key: "due_sort", Value: d}, {Key: "priority", Value: bson.D{{Key: "$lt", Value: p}}}},
				bson.D{{Key: "due_sort", Value: d}, {Key: "priority", Value: p}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: last.ID}}}},
			}
		}
		and = append(and, bson.D{{Key: "$or", Value: after}})
	}
	filter := bson.D{}
	if len(and) > 0 {
		filter = bson.D{{Key: "$and", Value: and}}
	}
	sort := taskSort
	if f.ByDue {
		sort = taskSortByDue
	}
	opts := options.Find().SetSort(sort)
	if f.Limit > 0 {
		opts.SetLimit(int64(f.Limit) + 1)
	}
	cur, err := s.tasks.Find(ctx, filter, opts)
	if err != nil {
		return nil, "", mapErr(err, "tasks")
	}
	var page []engine.Task
	if err := cur.All(ctx, &page); err != nil {
		return nil, "", mapErr(err, "tasks")
	}
	for i := range page {
		page[i].Variables = normalizeMap(page[i].Variables)
	}
	next := ""
	if f.Limit > 0 && len(page) > f.Limit {
		page = page[:f.Limit]
		next = page[f.Limit-1].ID
	}
	return page, next, nil
}

func (s *Store) Task(ctx context.Context, id string) (engine.Task, error) {
	var t engine.Task
	if err := s.tasks.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&t); err != nil {
		return engine.Task{}, mapErr(err, "task "+id)
	}
	t.Variables = normalizeMap(t.Variables)
	return t, nil
}

func (s *Store) Incidents(ctx context.Context, f engine.IncidentFilter) ([]engine.Incident, error) {
	filter := bson.D{}
	if f.InstanceID != "" {
		filter = append(filter, bson.E{Key: "instance_id", Value: f.InstanceID})
	}
	if f.Open {
		filter = append(filter, bson.E{Key: "resolved_at", Value: bson.D{{Key: "$exists", Value: false}}})
	}
	var out []engine.Incident
	return out, s.findAll(ctx, s.incidents, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}), &out)
}

func (s *Store) DeadLetters(ctx context.Context, f engine.DeadLetterFilter) ([]engine.DeadLetter, error) {
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: -1}})
	if f.Limit > 0 {
		opts.SetLimit(int64(f.Limit))
	}
	var out []engine.DeadLetter
	return out, s.findAll(ctx, s.deadLetters, letterFilter(f), opts, &out)
}

func (s *Store) CountDeadLetters(ctx context.Context, f engine.DeadLetterFilter) (int, error) {
	n, err := s.deadLetters.CountDocuments(ctx, letterFilter(f))
	return int(n), mapErr(err, "counting dead letters")
}

func (s *Store) DeadLetter(ctx context.Context, id string) (engine.DeadLetter, error) {
	var d engine.DeadLetter
	err := s.deadLetters.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	return d, mapErr(err, "dead letter "+id)
}

func (s *Store) Incident(ctx context.Context, id string) (engine.Incident, error) {
	var inc engine.Incident
	err := s.incidents.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&inc)
	return inc, mapErr(err, "incident "+id)
}

func (s *Store) DeleteDeadLetter(ctx context.Context, id string) error {
	res, err := s.deadLetters.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return mapErr(err, "dead letter "+id)
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("dead letter %s: %w", id, engine.ErrNotFound)
	}
	return nil
}

func (s *Store) DeleteDeadLetters(ctx context.Context, f engine.DeadLetterFilter) (int, error) {
	res, err := s.deadLetters.DeleteMany(ctx, letterFilter(f))
	if err != nil {
		return 0, mapErr(err, "deleting dead letters")
	}
	return int(res.DeletedCount), nil
}

func (s *Store) findAll(ctx context.Context, c *mongo.Collection, filter any, opts *options.FindOptionsBuilder, out any) error {
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		return mapErr(err, c.Name())
	}
	return mapErr(cur.All(ctx, out), c.Name())
}
