package mongostore

import (
	"context"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// scheduleRevs is the rev of each schedule as this process stored it. Under
// SingleWriter no other process writes, so the stored rev is the one known
// here, and the guard of an update is checked here: FerretDB scans the whole
// collection for a filter of {_id, rev}, which made each claim of a tick
// cost a scan of every schedule.
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

// UpdateSchedule replaces the document only while its rev is prevRev: the
// filter and the write are one atomic step on one document, which is what
// makes claiming a tick safe between replicas without a transaction. Under
// SingleWriter the rev is checked in this process (scheduleRevs) and the
// write goes by _id.
func (s *Store) UpdateSchedule(ctx context.Context, sc engine.Schedule, prevRev int64) error {
	if s.singleWriter {
		return s.updateScheduleAlone(ctx, sc, prevRev)
	}
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

func (s *Store) updateScheduleAlone(ctx context.Context, sc engine.Schedule, prevRev int64) error {
	r := &s.scheduleRevs
	r.mu.Lock()
	defer r.mu.Unlock()
	rev, ok := r.rev[sc.ID]
	if !ok { // stored before this process started
		cur, err := s.Schedule(ctx, sc.ID)
		if err != nil {
			return err
		}
		rev = cur.Rev
	}
	if rev != prevRev {
		r.set(sc.ID, rev)
		return fmt.Errorf("schedule %s changed since rev %d: %w", sc.ID, prevRev, engine.ErrConflict)
	}
	res, err := s.schedules.ReplaceOne(ctx, bson.D{{Key: "_id", Value: sc.ID}}, sc)
	if err != nil {
		delete(r.rev, sc.ID) // unknown whether it was written: read it next time
		return mapErr(err, "updating schedule "+sc.ID)
	}
	if res.MatchedCount == 0 {
		delete(r.rev, sc.ID)
		return fmt.Errorf("schedule %s: %w", sc.ID, engine.ErrNotFound)
	}
	r.set(sc.ID, sc.Rev)
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

func (s *Store) Schedules(ctx context.Context) ([]engine.Schedule, error) {
	cur, err := s.schedules.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "schedules")
	}
	out := []engine.Schedule{}
	return out, mapErr(cur.All(ctx, &out), "schedules")
}
