package mongostore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.StepCache = (*Store)(nil)

// stepCacheIndex lets the database drop expired entries by itself; reads
// still check the expiry, since the database drops them only now and then
// (every minute on MongoDB) and on its own clock. FerretDB v1 has no TTL
// index: there the store sweeps expired entries itself on every put.
func (s *Store) stepCacheIndex(ctx context.Context) error {
	m := mongo.IndexModel{Keys: bson.D{{Key: "expires_at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}
	_, err := s.stepCache.Indexes().CreateOne(ctx, m)
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorCode(codeNotImplemented) {
		s.sweepStepCache = true
		_, err = s.stepCache.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "expires_at", Value: 1}}})
	}
	if err != nil {
		return fmt.Errorf("mongostore: TTL index of %s: %w", s.stepCache.Name(), err)
	}
	return nil
}

// codeNotImplemented is the server's error code for an option it lacks.
const codeNotImplemented = 238

func (s *Store) CacheEntry(ctx context.Context, key string, now time.Time) (engine.CacheEntry, error) {
	var e engine.CacheEntry
	q := bson.D{{Key: "_id", Value: key}, {Key: "expires_at", Value: bson.D{{Key: "$gt", Value: now}}}}
	if err := s.stepCache.FindOne(ctx, q).Decode(&e); err != nil {
		return engine.CacheEntry{}, mapErr(err, "cache entry "+key)
	}
	return e, nil
}

func (s *Store) PutCacheEntry(ctx context.Context, e engine.CacheEntry) error {
	if s.sweepStepCache {
		if _, err := s.stepCache.DeleteMany(ctx, bson.D{{Key: "expires_at", Value: bson.D{{Key: "$lte", Value: e.Created}}}}); err != nil {
			return mapErr(err, "sweeping expired cache entries")
		}
	}
	_, err := s.stepCache.ReplaceOne(ctx, bson.D{{Key: "_id", Value: e.Key}}, e, options.Replace().SetUpsert(true))
	return mapErr(err, "storing cache entry "+e.Key)
}

func (s *Store) CacheEntries(ctx context.Context, f engine.CacheFilter, now time.Time) ([]engine.CacheEntry, error) {
	q := append(cacheFilter(f), bson.E{Key: "expires_at", Value: bson.D{{Key: "$gt", Value: now}}})
	cur, err := s.stepCache.Find(ctx, q, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "listing cache entries")
	}
	var out []engine.CacheEntry
	if err := cur.All(ctx, &out); err != nil {
		return nil, mapErr(err, "listing cache entries")
	}
	return out, nil
}

func (s *Store) DeleteCacheEntry(ctx context.Context, key string) error {
	r, err := s.stepCache.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
	if err != nil {
		return mapErr(err, "deleting cache entry "+key)
	}
	if r.DeletedCount == 0 {
		return fmt.Errorf("cache entry %s: %w", key, engine.ErrNotFound)
	}
	return nil
}

func (s *Store) DeleteCacheEntries(ctx context.Context, f engine.CacheFilter) (int, error) {
	r, err := s.stepCache.DeleteMany(ctx, cacheFilter(f))
	if err != nil {
		return 0, mapErr(err, "deleting cache entries")
	}
	return int(r.DeletedCount), nil
}

// cacheFilter is the query that selects what f.Matches does.
func cacheFilter(f engine.CacheFilter) bson.D {
	q := bson.D{}
	if f.Definition != "" {
		q = append(q, bson.E{Key: "definition", Value: f.Definition})
	}
	if f.Prefix != "" {
		q = append(q, bson.E{Key: "_id", Value: bson.D{{Key: "$regex", Value: "^" + regexp.QuoteMeta(f.Prefix)}}})
	}
	return q
}
