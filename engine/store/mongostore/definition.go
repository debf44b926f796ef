package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// A definition's _id is engine.DefinitionID(key, version), so a version is a
// point lookup. The latest version of each key is kept in definition_heads
// ({_id: key, version}): finding it needs no query over the definitions and
// their sources, which FerretDB would run by scanning and decoding them all
// on every start by key. The head also holds the default version, moved by
// compare-and-set, and its changes: one document, so one atomic write.

func (s *Store) SaveDefinition(ctx context.Context, rec engine.DefinitionRecord) (engine.DefinitionRecord, bool, error) {
	for range 20 {
		latest, err := s.Definition(ctx, rec.Key, 0)
		switch {
		case err == nil && latest.Checksum == rec.Checksum:
			return latest, false, nil
		case err == nil:
			rec.Version = latest.Version + 1
		case errors.Is(err, engine.ErrNotFound):
			rec.Version = 1
		default:
			return engine.DefinitionRecord{}, false, err
		}
		rec.ID = engine.DefinitionID(rec.Key, rec.Version)
		_, err = s.defs.InsertOne(ctx, rec)
		if err != nil && !mongo.IsDuplicateKeyError(err) {
			return engine.DefinitionRecord{}, false, mapErr(err, "saving definition "+rec.Key)
		}
		// Stored, or another deployment (or one that crashed before this
		// step) stored the version: either way it is the latest now.
		s.latest.Delete(rec.Key)
		if herr := s.raiseHead(ctx, rec.Key, rec.Version, 0); herr != nil {
			return engine.DefinitionRecord{}, false, herr
		}
		if err == nil {
			return rec, true, nil
		}
		// Look again: the version that won may be this very content.
	}
	return engine.DefinitionRecord{}, false, fmt.Errorf("saving definition %s: too much contention: %w", rec.Key, engine.ErrConflict)
}

// raiseHead makes version the latest of key unless a newer one is; a head
// it creates has the default version dflt.
func (s *Store) raiseHead(ctx context.Context, key string, version, dflt int) error {
	defer s.headByKey.Delete(key)
	_, err := s.heads.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},
		bson.D{
			{Key: "$max", Value: bson.D{{Key: "version", Value: version}}},
			{Key: "$setOnInsert", Value: bson.D{{Key: "default", Value: dflt}}},
		}, options.UpdateOne().SetUpsert(true))
	return mapErr(err, "recording the latest version of "+key)
}

func (s *Store) Definition(ctx context.Context, key string, version int) (engine.DefinitionRecord, error) {
	if version == 0 {
		return s.latestDefinition(ctx, key)
	}
	return s.DefinitionByID(ctx, engine.DefinitionID(key, version))
}

// latestDefinition reads the key's head, then that version.
func (s *Store) latestDefinition(ctx context.Context, key string) (engine.DefinitionRecord, error) {
	if rec, ok := s.latest.Load(key); ok {
		return rec.(engine.DefinitionRecord), nil
	}
	var h engine.DefinitionHead
	err := s.heads.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&h)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return s.latestWithoutHead(ctx, key)
	case err != nil:
		return engine.DefinitionRecord{}, mapErr(err, fmt.Sprintf("definition %q version 0", key))
	}
	rec, err := s.DefinitionByID(ctx, engine.DefinitionID(key, h.Latest))
	if err == nil && s.singleWriter {
		s.latest.Store(key, rec)
	}
	return rec, err
}

// latestWithoutHead finds the latest version of a key stored before heads
// existed, and records its head, with the latest as the default as it was.
func (s *Store) latestWithoutHead(ctx context.Context, key string) (engine.DefinitionRecord, error) {
	var rec engine.DefinitionRecord
	err := s.defs.FindOne(ctx, bson.D{{Key: "key", Value: key}}, options.FindOne().SetSort(bson.D{{Key: "version", Value: -1}})).Decode(&rec)
	if err != nil {
		return rec, mapErr(err, fmt.Sprintf("definition %q version 0", key))
	}
	return rec, s.raiseHead(ctx, key, rec.Version, rec.Version)
}

func (s *Store) DefinitionByID(ctx context.Context, id string) (engine.DefinitionRecord, error) {
	if rec, ok := s.versions.Load(id); ok {
		return rec.(engine.DefinitionRecord), nil
	}
	var rec engine.DefinitionRecord
	err := s.defs.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&rec)
	if err == nil && s.singleWriter {
		s.versions.Store(id, rec)
	}
	return rec, mapErr(err, fmt.Sprintf("definition %q", id))
}

func (s *Store) Definitions(ctx context.Context) ([]engine.DefinitionRecord, error) {
	cur, err := s.defs.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "key", Value: 1}, {Key: "version", Value: -1}}))
	if err != nil {
		return nil, mapErr(err, "definitions")
	}
	var out []engine.DefinitionRecord
	return out, mapErr(cur.All(ctx, &out), "definitions")
}

func (s *Store) SetDefinitionEnabled(ctx context.Context, id string, enabled bool) error {
	defer s.latest.Clear()
	defer s.versions.Delete(id)
	res, err := s.defs.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "enabled", Value: enabled}}}})
	if err != nil {
		return mapErr(err, fmt.Sprintf("definition %q", id))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("definition %q: %w", id, engine.ErrNotFound)
	}
	return s.raiseRev(ctx, id)
}

func (s *Store) SetVersionStatus(ctx context.Context, id string, c engine.VersionChange) (engine.DefinitionRecord, error) {
	defer s.latest.Clear()
	defer s.versions.Delete(id)
	var rec engine.DefinitionRecord
	err := s.defs.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: id}, {Key: "status", Value: c.From}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: c.To}}}, {Key: "$push", Value: bson.D{{Key: "history", Value: c}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&rec)
	if err == nil {
		return rec, s.raiseRev(ctx, id)
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return rec, mapErr(err, fmt.Sprintf("definition %q", id))
	}
	if rec, err = s.DefinitionByID(ctx, id); err != nil {
		return rec, err
	}
	return rec, fmt.Errorf("definition %s is %s, not %s any more: %w", id, rec.Status, c.From, engine.ErrConflict)
}

// raiseRev raises the Rev of the head of version id's key after a change of
// that version, so that every replica reads the version again
// (engine.DefinitionHead.Rev). It comes after the change: a replica that
// reads the head before it may cache the version at the old Rev, which this
// write then outdates.
func (s *Store) raiseRev(ctx context.Context, id string) error {
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return nil
	}
	key := id[:i]
	defer s.headByKey.Delete(key)
	_, err := s.heads.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "rev", Value: int64(1)}}}})
	return mapErr(err, "marking the change of "+id+" on its key's head")
}

func (s *Store) SetDefaultVersion(ctx context.Context, key string, c engine.DefaultChange) error {
	defer s.headByKey.Delete(key)
	res, err := s.heads.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "default", Value: c.From}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "default", Value: c.To}}}, {Key: "$push", Value: bson.D{{Key: "defaults", Value: c}}}})
	if err != nil {
		return mapErr(err, "moving the default version of "+key)
	}
	if res.MatchedCount == 1 {
		return nil
	}
	h, err := s.DefinitionHead(ctx, key)
	if err != nil {
		return err
	}
	return fmt.Errorf("the default version of %s is %d, not %d any more: %w", key, h.Default, c.From, engine.ErrConflict)
}

func (s *Store) DefinitionHead(ctx context.Context, key string) (engine.DefinitionHead, error) {
	if h, ok := s.headByKey.Load(key); ok {
		return h.(engine.DefinitionHead), nil
	}
	var h engine.DefinitionHead
	err := s.heads.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&h)
	if errors.Is(err, mongo.ErrNoDocuments) { // stored before heads: make it
		if _, err = s.latestWithoutHead(ctx, key); err != nil {
			return h, err
		}
		err = s.heads.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&h)
	}
	if err == nil && s.singleWriter {
		s.headByKey.Store(key, h)
	}
	return h, mapErr(err, fmt.Sprintf("definition %q", key))
}

func (s *Store) DefinitionHeads(ctx context.Context) ([]engine.DefinitionHead, error) {
	cur, err := s.heads.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "definition heads")
	}
	var out []engine.DefinitionHead
	return out, mapErr(cur.All(ctx, &out), "definition heads")
}

// migrateLifecycle gives what was stored before version statuses their
// meaning then: every version active, the latest the default. Each write
// is its own and matches only what lacks the field, so it is safe to run
// again, and on several replicas at once.
func (s *Store) migrateLifecycle(ctx context.Context) error {
	_, err := s.defs.UpdateMany(ctx, bson.D{{Key: "status", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: engine.VersionActive}}}})
	if err != nil {
		return mapErr(err, "giving definitions a status")
	}
	cur, err := s.heads.Find(ctx, bson.D{{Key: "default", Value: bson.D{{Key: "$exists", Value: false}}}})
	if err != nil {
		return mapErr(err, "definition heads without a default")
	}
	var old []engine.DefinitionHead
	if err := cur.All(ctx, &old); err != nil {
		return mapErr(err, "definition heads without a default")
	}
	for _, h := range old {
		_, err := s.heads.UpdateOne(ctx, bson.D{{Key: "_id", Value: h.Key}, {Key: "default", Value: bson.D{{Key: "$exists", Value: false}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "default", Value: h.Latest}}}})
		if err != nil {
			return mapErr(err, "giving "+h.Key+" a default version")
		}
	}
	return nil
}
