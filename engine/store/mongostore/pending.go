package mongostore

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// pending holds the projection writes of an instance's last change, stored in
// its snapshot document: the snapshot is the commit point, so after a crash
// between it and the projections, recovery writes them again (they are
// upserts of the latest version of each document, so redoing them is safe).
type pending struct {
	Tasks       []taskDoc           `bson:"pending_tasks,omitempty"`
	Incidents   []engine.Incident   `bson:"pending_incidents,omitempty"`
	DeadLetters []engine.DeadLetter `bson:"pending_dead_letters,omitempty"`
}

func pendingOf(c engine.Change) pending {
	p := pending{Incidents: c.Incidents, DeadLetters: c.DeadLetters}
	for _, t := range c.Tasks {
		doc := taskDoc{Task: t, DueSort: noDue}
		if t.Due != nil {
			doc.DueSort = t.Due.UTC()
		}
		p.Tasks = append(p.Tasks, doc)
	}
	return p
}

func (p pending) taskModels() []mongo.WriteModel {
	out := make([]mongo.WriteModel, len(p.Tasks))
	for i, t := range p.Tasks {
		out[i] = upsertModel(t.ID, t)
	}
	return out
}

func (p pending) incidentModels() []mongo.WriteModel {
	out := make([]mongo.WriteModel, len(p.Incidents))
	for i, inc := range p.Incidents {
		out[i] = upsertModel(inc.ID, inc)
	}
	return out
}

func (p pending) letterModels() []mongo.WriteModel {
	out := make([]mongo.WriteModel, len(p.DeadLetters))
	for i, d := range p.DeadLetters {
		out[i] = upsertModel(d.ID, d)
	}
	return out
}

// writeProjections upserts tasks, incidents and dead letters, one bulk write
// per collection.
func (s *Store) writeProjections(ctx context.Context, tasks, incs, letters []mongo.WriteModel) error {
	for _, w := range []struct {
		c      *mongo.Collection
		models []mongo.WriteModel
	}{{s.tasks, tasks}, {s.incidents, incs}, {s.deadLetters, letters}} {
		if len(w.models) == 0 {
			continue
		}
		if _, err := w.c.BulkWrite(ctx, w.models, options.BulkWrite().SetOrdered(false)); err != nil {
			return mapErr(err, "upserting "+w.c.Name())
		}
	}
	return nil
}

// cleanMark is the document a clean shutdown leaves; its absence at start
// means the process before crashed (or this is a new database).
const cleanMark = "clean_shutdown"

// Close records a clean shutdown, so the next start need not redo the last
// writes of every instance; unless a commit failed half way, which the next
// start must repair. Call it after the engine has stopped.
func (s *Store) Close(ctx context.Context) error {
	if s.dirty.Load() {
		s.log.Warn("store: a commit failed half way; the next start redoes the last writes of every instance")
		return nil
	}
	_, err := s.meta.ReplaceOne(ctx, bson.D{{Key: "_id", Value: cleanMark}}, bson.D{{Key: "_id", Value: cleanMark}},
		options.Replace().SetUpsert(true))
	return mapErr(err, "marking a clean shutdown")
}

// takeCleanMark reports whether the last shutdown was not clean, and removes
// the mark so that a crash from now on is noticed at the next start. A new
// database (no instance yet) counts as clean.
func (s *Store) takeCleanMark(ctx context.Context) (crashed bool, err error) {
	res, err := s.meta.DeleteOne(ctx, bson.D{{Key: "_id", Value: cleanMark}})
	if err != nil {
		return false, mapErr(err, "reading the clean shutdown mark")
	}
	if res.DeletedCount == 1 {
		return false, nil
	}
	err = s.instances.FindOne(ctx, bson.D{}).Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("checking for instances: %w", mapErr(err, "instances"))
	}
	return true, nil
}
