package mongostore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
)

// Change digests (engine.ChangeDigests) live in a collection of one
// document per replica, _id the replica: publishing replaces it by _id
// alone, and reading them all reads a handful of documents, where a query
// on the instances' updated_at would decode every instance on FerretDB.
// The changes are one binary field of compact JSON: as an array of
// documents, FerretDB spent milliseconds converting each publication of a
// few hundred changes (every field of each with its type).

var _ engine.ChangeDigests = (*Store)(nil)

type digestDoc struct {
	Replica   string    `bson:"_id"`
	Published time.Time `bson:"published_at"`
	Changes   []byte    `bson:"changes"` // JSON of []digestChange
}

// digestChange is an engine.DigestChange in short: At in Unix milliseconds.
type digestChange struct {
	InstanceID string `json:"i"`
	After      uint64 `json:"a,omitempty"`
	Seq        uint64 `json:"s"`
	TaskSeq    uint64 `json:"k,omitempty"`
	At         int64  `json:"t"`
}

func (s *Store) PublishDigest(ctx context.Context, d engine.ChangeDigest) error {
	changes := make([]digestChange, len(d.Changes))
	for i, c := range d.Changes {
		changes[i] = digestChange{InstanceID: c.InstanceID, After: c.After, Seq: c.Seq, TaskSeq: c.TaskSeq, At: c.At.UnixMilli()}
	}
	raw, err := json.Marshal(changes)
	if err != nil {
		return fmt.Errorf("change digest of %s: %w", d.Replica, err)
	}
	return s.upsert(ctx, s.digests, d.Replica, digestDoc{Replica: d.Replica, Published: d.Published, Changes: raw})
}

func (s *Store) Digests(ctx context.Context, except string) ([]engine.ChangeDigest, error) {
	cur, err := s.digests.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$ne", Value: except}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, mapErr(err, "change digests")
	}
	var docs []digestDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mapErr(err, "change digests")
	}
	out := make([]engine.ChangeDigest, len(docs))
	for i, doc := range docs {
		var changes []digestChange
		if err := json.Unmarshal(doc.Changes, &changes); err != nil {
			return nil, fmt.Errorf("change digest of %s: %w", doc.Replica, err)
		}
		out[i] = engine.ChangeDigest{Replica: doc.Replica, Published: doc.Published.UTC(), Changes: make([]engine.DigestChange, len(changes))}
		for j, c := range changes {
			out[i].Changes[j] = engine.DigestChange{InstanceID: c.InstanceID, After: c.After, Seq: c.Seq, TaskSeq: c.TaskSeq, At: time.UnixMilli(c.At).UTC()}
		}
	}
	return out, nil
}

func (s *Store) RemoveDigests(ctx context.Context, before time.Time) error {
	_, err := s.digests.DeleteMany(ctx, bson.D{{Key: "published_at", Value: bson.D{{Key: "$lt", Value: before}}}})
	return mapErr(err, "removing old change digests")
}
