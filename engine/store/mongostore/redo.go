package mongostore

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// redo is what a commit writes after its snapshot: the events for the log
// and the projections (tasks, incidents, dead letters). The snapshot is the
// commit point, so it carries its redo; after a crash between it and these
// writes, recovery writes them again (inserts that skip what is there, and
// upserts of the latest version of each document: safe to repeat).
//
// The snapshot stores it as one opaque BSON value: FerretDB keeps a schema
// next to every field of a document, so the events as fields made up most of
// a snapshot's size, written and re-parsed on every commit.
type redo struct {
	Events        []engine.Event      `bson:"events,omitempty"`
	Tasks         []taskDoc           `bson:"tasks,omitempty"`
	Incidents     []engine.Incident   `bson:"incidents,omitempty"`
	DeadLetters   []engine.DeadLetter `bson:"dead_letters,omitempty"`
	LetterUpdates []letterUpdateDoc   `bson:"letter_updates,omitempty"`
}

// letterUpdateDoc is an engine.DeadLetterUpdate as the redo stores it.
type letterUpdateDoc struct {
	ID                          string `bson:"id"`
	engine.DeadLetterTransition `bson:",inline"`
}

// redoOf is what remains to write of a change once its snapshot is stored:
// its events too, unless they went into the log first (single).
func redoOf(c engine.Change, single bool) redo {
	r := redo{Incidents: c.Incidents, DeadLetters: c.DeadLetters}
	for _, u := range c.DeadLetterUpdates {
		r.LetterUpdates = append(r.LetterUpdates, letterUpdateDoc(u))
	}
	if !single {
		r.Events = c.Snapshot.Pending
	}
	for _, t := range c.Tasks {
		doc := taskDoc{Task: t, DueSort: noDue}
		if t.Due != nil {
			doc.DueSort = t.Due.UTC()
		}
		r.Tasks = append(r.Tasks, doc)
	}
	return r
}

// newSnapshotDoc returns the document that stores the change's snapshot,
// stamped with the batch's epoch when fenced, and the redo it carries.
func newSnapshotDoc(c engine.Change, nonce string, m commitMode) (snapshotDoc, redo, error) {
	doc := snapshotDoc{Snapshot: *c.Snapshot, Commit: nonce}
	doc.Snapshot.Pending = nil
	if m.epoch != 0 {
		doc.Epoch = m.epoch
	}
	r := redoOf(c, m.single)
	if len(r.Events)+len(r.Tasks)+len(r.Incidents)+len(r.DeadLetters)+len(r.LetterUpdates) > 0 {
		stored := r
		stored.Events = compact(r.Events)
		b, err := bson.Marshal(stored)
		if err != nil {
			return doc, r, fmt.Errorf("encoding the commit of instance %s: %w", c.Snapshot.ID, err)
		}
		doc.Redo = b
	}
	return doc, r, nil
}

func (d *snapshotDoc) redo() (redo, error) {
	var r redo
	if len(d.Redo) == 0 {
		return r, nil
	}
	if err := bson.Unmarshal(d.Redo, &r); err != nil {
		return r, fmt.Errorf("decoding the last commit: %w", err)
	}
	expand(r.Events, d.ID, d.DefinitionID)
	for i := range r.Tasks {
		r.Tasks[i].Variables = normalizeMap(r.Tasks[i].Variables)
	}
	return r, nil
}

// eventBatches is the change's events as documents of the log.
func (r redo) eventBatches() []any {
	if len(r.Events) == 0 {
		return nil
	}
	return []any{newEventBatch(r.Events)}
}

// taskModels upserts the inbox records of the tasks, fenced at epoch (0:
// not fenced) as fencedUpsert says.
func (r redo) taskModels(epoch int64) []mongo.WriteModel {
	out := make([]mongo.WriteModel, len(r.Tasks))
	for i, t := range r.Tasks {
		t.Epoch = epoch
		out[i] = fencedUpsert(t.ID, t, epoch)
	}
	return out
}

// fencedUpsert writes a record that a commit writes after its snapshot, in
// a cluster: it replaces the stored one only while that was written at an
// epoch no newer. A replica paused between its commit and this write, and
// resumed after another took the partition over, would otherwise put back
// what the new owner has since changed (a completed task shown open). The
// new owner writes the records again at recovery, with its own epoch (the
// one its fence stamped on the instance). Where the stored record is newer,
// the upsert meets its _id: the duplicate is the write skipped
// (writeProjections).
func fencedUpsert(id string, doc any, epoch int64) mongo.WriteModel {
	if epoch == 0 {
		return upsertModel(id, doc)
	}
	return mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: id}, notNewerThan(epoch)}).SetReplacement(doc).SetUpsert(true)
}

// notNewerThan is the filter element that holds for a document written at
// an epoch no newer than epoch; one written unfenced (no epoch) counts as
// older.
func notNewerThan(epoch int64) bson.E {
	return bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: epoch}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}}
}

// incidentModels upserts the incident records, fenced at epoch (0: not
// fenced) as fencedUpsert says.
func (r redo) incidentModels(epoch int64) []mongo.WriteModel {
	out := make([]mongo.WriteModel, len(r.Incidents))
	for i, inc := range r.Incidents {
		out[i] = fencedUpsert(inc.ID, incidentDoc{Incident: inc, Epoch: epoch}, epoch)
	}
	return out
}

// letterModels upserts and moves the dead letters, fenced at epoch (0: not
// fenced): the upserts as fencedUpsert says, the moves as letterUpdate does.
func (r redo) letterModels(epoch int64) []mongo.WriteModel {
	out := make([]mongo.WriteModel, 0, len(r.DeadLetters)+len(r.LetterUpdates))
	for _, d := range r.DeadLetters {
		out = append(out, fencedUpsert(d.ID, letterDoc{DeadLetter: d, Epoch: epoch}, epoch))
	}
	for _, u := range r.LetterUpdates { // after the upserts: a letter may be made and moved in one commit
		out = append(out, letterUpdate(engine.DeadLetterUpdate(u), epoch))
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
		for chunk := range slices.Chunk(w.models, maxStatements) {
			_, err := w.c.BulkWrite(ctx, chunk, options.BulkWrite().SetOrdered(false))
			if err != nil && !onlyDuplicates(err) { // a duplicate: a fenced write skipped (fencedUpsert)
				return mapErr(err, "upserting "+w.c.Name())
			}
		}
	}
	return nil
}
