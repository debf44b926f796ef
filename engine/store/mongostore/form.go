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

// Forms are few and small: a form's versions are found by a query on
// form_id (a scan on the embedded server, indexed on MongoDB). A version's
// _id is formId:version, so two deployments racing for the same version
// meet on the unique _id and the loser looks again.

func (s *Store) SaveForm(ctx context.Context, rec engine.FormRecord) (engine.FormRecord, bool, error) {
	for range 20 {
		versions, err := s.FormVersions(ctx, rec.FormID)
		switch {
		case err == nil && versions[0].Checksum == rec.Checksum:
			return versions[0], false, nil
		case err == nil:
			rec.Version = versions[0].Version + 1
		case errors.Is(err, engine.ErrNotFound):
			rec.Version = 1
		default:
			return engine.FormRecord{}, false, err
		}
		rec.ID = engine.DefinitionID(rec.FormID, rec.Version)
		_, err = s.forms.InsertOne(ctx, rec)
		if err == nil {
			return rec, true, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return engine.FormRecord{}, false, mapErr(err, "saving form "+rec.FormID)
		}
	}
	return engine.FormRecord{}, false, fmt.Errorf("saving form %s: too much contention: %w", rec.FormID, engine.ErrConflict)
}

func (s *Store) FormVersions(ctx context.Context, formID string) ([]engine.FormRecord, error) {
	cur, err := s.forms.Find(ctx, bson.D{{Key: "form_id", Value: formID}}, options.Find().SetSort(bson.D{{Key: "version", Value: -1}}))
	if err != nil {
		return nil, mapErr(err, "form "+formID)
	}
	var out []engine.FormRecord
	if err := cur.All(ctx, &out); err != nil {
		return nil, mapErr(err, "form "+formID)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("form %q: %w", formID, engine.ErrNotFound)
	}
	return out, nil
}

func (s *Store) Forms(ctx context.Context) ([]engine.FormRecord, error) {
	cur, err := s.forms.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "form_id", Value: 1}, {Key: "version", Value: -1}}))
	if err != nil {
		return nil, mapErr(err, "forms")
	}
	var all []engine.FormRecord
	if err := cur.All(ctx, &all); err != nil {
		return nil, mapErr(err, "forms")
	}
	out := []engine.FormRecord{}
	for _, f := range all {
		if len(out) == 0 || out[len(out)-1].FormID != f.FormID {
			out = append(out, f)
		}
	}
	return out, nil
}
