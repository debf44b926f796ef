package mongostore

import (
	"context"
	"regexp"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/workflowpp/wfpp/engine"
)

// letterFilter is the query that selects what f.Matches does.
func letterFilter(f engine.DeadLetterFilter) bson.D {
	q := bson.D{}
	for _, eq := range []struct{ key, value string }{
		{"instance_id", f.InstanceID}, {"definition_key", f.Definition}, {"element_id", f.ElementID}, {"job_type", f.JobType},
	} {
		if eq.value != "" {
			q = append(q, bson.E{Key: eq.key, Value: eq.value})
		}
	}
	if len(f.Status) > 0 {
		q = append(q, bson.E{Key: "status", Value: bson.D{{Key: "$in", Value: f.Status}}})
	}
	if created := timeRange(f.CreatedFrom, f.CreatedTo); len(created) > 0 {
		q = append(q, bson.E{Key: "created_at", Value: created})
	}
	if !f.SettledBefore.IsZero() {
		q = append(q, bson.E{Key: "settled_at", Value: bson.D{{Key: "$lt", Value: f.SettledBefore}}})
	}
	if f.Error != "" { // on an array, a regex matches when one element does
		q = append(q, bson.E{Key: "errors", Value: bson.D{{Key: "$regex", Value: regexp.QuoteMeta(f.Error)}, {Key: "$options", Value: "i"}}})
	}
	return q
}

func timeRange(from, to time.Time) bson.D {
	r := bson.D{}
	if !from.IsZero() {
		r = append(r, bson.E{Key: "$gte", Value: from})
	}
	if !to.IsZero() {
		r = append(r, bson.E{Key: "$lt", Value: to})
	}
	return r
}

// letterDoc is a dead letter as stored: with the epoch of the partition's
// owner that wrote it, in a cluster (fencedUpsert). Reads decode the
// engine.DeadLetter alone.
type letterDoc struct {
	engine.DeadLetter `bson:",inline"`
	Epoch             int64 `bson:"epoch,omitempty"`
}

// letterUpdate is the write that applies u as engine.DeadLetter.Apply does:
// one document, guarded by the statuses the transition may follow, so it is
// atomic without a transaction and a repeated redo changes nothing. Fenced
// at epoch (0: not fenced), it moves the letter only while that was written
// at an epoch no newer, and stamps epoch on it: a late move by a replica
// that lost the partition meets nothing, like a late upsert (fencedUpsert).
func letterUpdate(u engine.DeadLetterUpdate, epoch int64) mongo.WriteModel {
	tr := u.DeadLetterTransition
	set := bson.D{{Key: "status", Value: tr.Status}}
	push := bson.D{{Key: "history", Value: tr}}
	update := bson.D{}
	switch {
	case tr.Status.Settled():
		set = append(set, bson.E{Key: "settled_at", Value: tr.At})
	case tr.Status == engine.DeadLetterPending:
		set = append(set, bson.E{Key: "last_error", Value: tr.Error}, bson.E{Key: "incident_id", Value: tr.IncidentID})
		push = append(push, bson.E{Key: "errors", Value: tr.Error})
		update = append(update, bson.E{Key: "$inc", Value: bson.D{{Key: "attempts", Value: tr.Attempts}}})
	}
	filter := bson.D{{Key: "_id", Value: u.ID}, {Key: "status", Value: bson.D{{Key: "$in", Value: tr.Status.From()}}}}
	if epoch != 0 {
		set = append(set, bson.E{Key: "epoch", Value: epoch})
		filter = append(filter, notNewerThan(epoch))
	}
	update = append(update, bson.E{Key: "$set", Value: set}, bson.E{Key: "$push", Value: push})
	return mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(update)
}

// renameOpenLetters gives letters stored before the pending status its name:
// they say open, or nothing (stored before statuses existed). Each is its
// own write, so it is safe to run again, and on several replicas at once.
func (s *Store) renameOpenLetters(ctx context.Context) error {
	_, err := s.deadLetters.UpdateMany(ctx,
		bson.D{{Key: "status", Value: bson.D{{Key: "$in", Value: bson.A{"open", nil}}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: engine.DeadLetterPending}}}})
	return mapErr(err, "renaming open dead letters pending")
}
