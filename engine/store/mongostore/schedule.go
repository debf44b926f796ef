package mongostore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// scheduleRevs is the rev of each schedule as this process stored or
// listed it. Under SingleWriter no other process writes, so the stored rev
// is the one known here, and the guard of an update is checked here:
// FerretDB scans the whole collection for a filter of {_id, rev}, which
// made each claim of a tick cost a scan of every schedule.
type scheduleRevs struct {
	mu  sync.Mutex
	rev map[string]int64
}

func (s *Store) CreateSchedule(ctx context.Context, sc engine.Schedule) error {
	if s.singleWriter {
		s.scheduleRevs.mu.Lock()
		defer s.scheduleRevs.mu.Unlock()
	}
	_, err := s.schedules.InsertOne(ctx, sc)
	if err == nil && s.singleWriter {
		s.scheduleRevs.set(sc.ID, sc.Rev)
	}
	return mapErr(err, "storing schedule "+sc.ID)
}

// set notes a stored rev; mu is held.
func (r *scheduleRevs) set(id string, rev int64) {
	if r.rev == nil {
		r.rev = map[string]int64{}
	}
	r.rev[id] = rev
}

// scheduleDoc is a stored schedule with the nonce of the guarded write that
// stored it: an update command answers only how many of its replaces
// matched, and the nonce tells which (scheduleWritten).
type scheduleDoc struct {
	engine.Schedule `bson:",inline"`
	Write           string `bson:"write,omitempty"`
}

func (s *Store) UpdateSchedule(ctx context.Context, sc engine.Schedule, prevRev int64) error {
	return s.UpdateSchedules(ctx, []engine.ScheduleUpdate{{Schedule: sc, PrevRev: prevRev}})[0]
}

// UpdateSchedules replaces each document only while its rev is the
// update's PrevRev: the filter and the write are one atomic step on one
// document, which is what makes claiming a tick safe between replicas
// without a transaction. Under SingleWriter the revs are checked in this
// process (scheduleRevs) and the replaces go by _id alone.
func (s *Store) UpdateSchedules(ctx context.Context, updates []engine.ScheduleUpdate) []error {
	if s.singleWriter {
		return s.updateSchedulesAlone(ctx, updates)
	}
	nonce := bson.NewObjectID().Hex()
	models := make([]mongo.WriteModel, len(updates))
	for i, u := range updates {
		models[i] = mongo.NewReplaceOneModel().
			SetFilter(bson.D{{Key: "_id", Value: u.Schedule.ID}, {Key: "rev", Value: u.PrevRev}}).
			SetReplacement(scheduleDoc{Schedule: u.Schedule, Write: nonce})
	}
	return s.replaceSchedules(ctx, updates, models, nonce)
}

func (s *Store) updateSchedulesAlone(ctx context.Context, updates []engine.ScheduleUpdate) []error {
	r := &s.scheduleRevs
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := make([]error, len(updates))
	var (
		sent   []engine.ScheduleUpdate
		models []mongo.WriteModel
		at     []int // sent[j] is updates[at[j]]
	)
	for i, u := range updates {
		id := u.Schedule.ID
		rev, ok := r.rev[id]
		if !ok { // stored before this process started
			cur, err := s.Schedule(ctx, id)
			if err != nil {
				errs[i] = err
				continue
			}
			rev = cur.Rev
		}
		if rev != u.PrevRev {
			r.set(id, rev)
			errs[i] = fmt.Errorf("schedule %s changed since rev %d: %w", id, u.PrevRev, engine.ErrConflict)
			continue
		}
		sent, at = append(sent, u), append(at, i)
		models = append(models, mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: id}}).SetReplacement(u.Schedule))
	}
	for j, err := range s.replaceSchedules(ctx, sent, models, "") {
		errs[at[j]] = err
		if err != nil {
			delete(r.rev, sent[j].Schedule.ID) // unknown whether it was written, or gone: read it next time
			continue
		}
		r.set(sent[j].Schedule.ID, sent[j].Schedule.Rev)
	}
	return errs
}

// replaceSchedules runs the replaces of updates in update commands of at
// most maxStatements, and says for each whether it was written. When a
// command matched fewer than it sent, the documents are read back to tell
// which were: the one whose write is this nonce (none under SingleWriter,
// where a document still there is this process's).
func (s *Store) replaceSchedules(ctx context.Context, updates []engine.ScheduleUpdate, models []mongo.WriteModel, nonce string) []error {
	errs := make([]error, len(models))
	for start := 0; start < len(models); start += maxStatements {
		end := min(start+maxStatements, len(models))
		res, err := s.schedules.BulkWrite(ctx, models[start:end], options.BulkWrite().SetOrdered(false))
		if err != nil { // this command's writes are unknown, the later ones not sent
			err = mapErr(err, "updating schedules")
			for i := start; i < len(models); i++ {
				errs[i] = err
			}
			return errs
		}
		if int(res.MatchedCount) == end-start {
			continue
		}
		for i := start; i < end; i++ {
			errs[i] = s.scheduleWritten(ctx, updates[i], nonce)
		}
	}
	return errs
}

// scheduleWritten reads back whether u was written by the write of nonce.
// A write of ours that another replica's has replaced since reads as a
// conflict: the scheduler then reads the schedule again, finds the tick
// claimed, and starts its instance under the id the claim recorded, which
// cannot make a second one.
func (s *Store) scheduleWritten(ctx context.Context, u engine.ScheduleUpdate, nonce string) error {
	var cur struct {
		Write string `bson:"write"`
	}
	id := u.Schedule.ID
	err := s.schedules.FindOne(ctx, bson.D{{Key: "_id", Value: id}}, options.FindOne().SetProjection(bson.D{{Key: "write", Value: 1}})).Decode(&cur)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return fmt.Errorf("schedule %s: %w", id, engine.ErrNotFound)
	case err != nil:
		return mapErr(err, "schedule "+id)
	case cur.Write != nonce:
		return fmt.Errorf("schedule %s changed since rev %d: %w", id, u.PrevRev, engine.ErrConflict)
	}
	return nil
}

func (s *Store) DeleteSchedule(ctx context.Context, id string) error {
	if s.singleWriter {
		s.scheduleRevs.mu.Lock()
		defer s.scheduleRevs.mu.Unlock()
		delete(s.scheduleRevs.rev, id)
	}
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

// Schedules lists the schedules. Under SingleWriter it notes the revs not
// known yet (scheduleRevs), so that the first claims after a start, of
// schedules the scheduler has just listed, need not read them one by one.
// A rev known already is kept: a write since this read began set it.
func (s *Store) Schedules(ctx context.Context) ([]engine.Schedule, error) {
	cur, err := s.schedules.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "schedules")
	}
	out := []engine.Schedule{}
	if err := cur.All(ctx, &out); err != nil {
		return nil, mapErr(err, "schedules")
	}
	if s.singleWriter {
		r := &s.scheduleRevs
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, sc := range out {
			if _, ok := r.rev[sc.ID]; !ok {
				r.set(sc.ID, sc.Rev)
			}
		}
	}
	return out, nil
}
