package mongostore

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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
