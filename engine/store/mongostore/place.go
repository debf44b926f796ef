package mongostore

import (
	"context"
	"errors"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.PlaceStore = (*Store)(nil)

// placesDoc is the places of one capped definition key: the instances
// holding one, and how many they are (what the guard of a take compares).
type placesDoc struct {
	Key     string   `bson:"_id"`
	Count   int      `bson:"count"`
	Holders []string `bson:"holders"`
}

// TakePlace is one conditional update of the key's document: it matches
// only while fewer than max hold a place and id is not among them, so
// replicas taking places at once never pass max. The document is created
// by the first take of its key.
func (s *Store) TakePlace(ctx context.Context, key, id string, max int) (bool, error) {
	for range 2 { // a second round when another replica created the document first
		r, err := s.places.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: key}, {Key: "count", Value: bson.D{{Key: "$lt", Value: max}}}, {Key: "holders", Value: bson.D{{Key: "$ne", Value: id}}}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "count", Value: 1}}}, {Key: "$push", Value: bson.D{{Key: "holders", Value: id}}}})
		if err != nil {
			return false, mapErr(err, "taking a place of "+key)
		}
		if r.MatchedCount == 1 {
			return true, nil
		}
		var doc placesDoc
		err = s.places.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&doc)
		switch {
		case err == nil:
			return slices.Contains(doc.Holders, id), nil
		case !errors.Is(err, mongo.ErrNoDocuments):
			return false, mapErr(err, "reading the places of "+key)
		case max < 1:
			return false, nil
		}
		_, err = s.places.InsertOne(ctx, placesDoc{Key: key, Count: 1, Holders: []string{id}})
		if err == nil {
			return true, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return false, mapErr(err, "taking a place of "+key)
		}
	}
	return false, errors.New("taking a place of " + key + ": its document changed twice under the take: try again")
}

func (s *Store) ReleasePlace(ctx context.Context, key, id string) error {
	_, err := s.places.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: key}, {Key: "holders", Value: id}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "count", Value: -1}}}, {Key: "$pull", Value: bson.D{{Key: "holders", Value: id}}}})
	return mapErr(err, "releasing the place of "+id)
}

func (s *Store) Places(ctx context.Context) (map[string][]string, error) {
	cur, err := s.places.Find(ctx, bson.D{})
	if err != nil {
		return nil, mapErr(err, "listing places")
	}
	var docs []placesDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mapErr(err, "listing places")
	}
	out := map[string][]string{}
	for _, d := range docs {
		if len(d.Holders) > 0 {
			out[d.Key] = d.Holders
		}
	}
	return out, nil
}
