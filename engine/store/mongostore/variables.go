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

// Large variables live apart from their instance. An instance whose
// variables are larger than inlineVariablesMax keeps them in a document of
// the variables collection, one per commit that changed them, and names it
// in variables_ref. The embedded FerretDB reads and decodes a whole document
// before it projects, so an instance list read every variable of every
// instance it passed, and one instance with 4 MiB of variables made every
// list of the store hundreds of times slower. Small variables stay inline:
// a second document per commit would halve the embedded store's throughput.
//
// No transaction: the side document is written first, under an id no
// other commit uses (instance id and commit nonce), and the snapshot that
// names it is the commit point. A commit that does not land leaves its side
// document behind, unnamed; the next commit of the instance, or recovery,
// removes it.
const inlineVariablesMax = 16 << 10

// variablesDoc is the variables of one commit of an instance.
type variablesDoc struct {
	ID         string         `bson:"_id"` // instance id "/" commit nonce
	InstanceID string         `bson:"instance_id"`
	Variables  map[string]any `bson:"variables"`
}

// splitVariables moves the variables of doc out to a side document when
// they are large, and returns it (nil when they stay inline).
func splitVariables(doc *snapshotDoc, nonce string) *variablesDoc {
	if engine.VariablesSize(doc.Variables) <= inlineVariablesMax {
		return nil
	}
	side := &variablesDoc{ID: sideID(doc.ID, nonce), InstanceID: doc.ID, Variables: doc.Variables}
	doc.Variables, doc.VariablesRef = nil, side.ID
	return side
}

// sideID is the id of the side document the write nonce makes for an
// instance's variables.
func sideID(instanceID, nonce string) string { return instanceID + "/" + nonce }

// insertVariables writes side documents before the snapshots that name them.
func (s *Store) insertVariables(ctx context.Context, sides []any) error {
	if len(sides) == 0 {
		return nil
	}
	_, err := s.variables.InsertMany(ctx, sides, options.InsertMany().SetOrdered(false))
	if err != nil && !onlyDuplicates(err) { // a retried commit wrote it already
		return mapErr(err, "storing large variables")
	}
	return nil
}

// joinVariables reads back the variables of doc that live apart.
func (s *Store) joinVariables(ctx context.Context, doc *snapshotDoc) error {
	if doc.VariablesRef == "" {
		return nil
	}
	var side variablesDoc
	if err := s.variables.FindOne(ctx, bson.D{{Key: "_id", Value: doc.VariablesRef}}).Decode(&side); err != nil {
		return mapErr(err, fmt.Sprintf("variables %s of instance %s", doc.VariablesRef, doc.ID))
	}
	doc.Variables = normalizeMap(side.Variables)
	s.sideRefs.Store(doc.ID, doc.VariablesRef)
	return nil
}

// retireVariables removes the side document an instance named before its
// last commit, which named ref ("" for inline variables). Only instances
// known to have had one cost a write.
func (s *Store) retireVariables(ctx context.Context, instanceID, ref string) {
	old, had := s.sideRefs.Load(instanceID)
	switch {
	case ref != "":
		s.sideRefs.Store(instanceID, ref)
	case had:
		s.sideRefs.Delete(instanceID)
	}
	if !had || old == ref {
		return
	}
	if _, err := s.variables.DeleteOne(ctx, bson.D{{Key: "_id", Value: old}}); err != nil {
		s.log.Warn("mongostore: removing replaced variables", "instance_id", instanceID, "ref", old, "err", err)
	}
}

// sweepVariables removes, after a crash, the side documents no snapshot
// names: those of commits that did not land, or whose retiring was cut off.
func (s *Store) sweepVariables(ctx context.Context) error {
	cur, err := s.variables.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "instance_id", Value: 1}}))
	if err != nil {
		return mapErr(err, "listing large variables")
	}
	var sides []variablesDoc
	if err := cur.All(ctx, &sides); err != nil {
		return mapErr(err, "listing large variables")
	}
	for _, side := range sides {
		var named struct {
			Ref string `bson:"variables_ref"`
		}
		err := s.instances.FindOne(ctx, bson.D{{Key: "_id", Value: side.InstanceID}},
			options.FindOne().SetProjection(bson.D{{Key: "variables_ref", Value: 1}})).Decode(&named)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return mapErr(err, "checking the variables of instance "+side.InstanceID)
		}
		if named.Ref == side.ID {
			continue
		}
		if _, err := s.variables.DeleteOne(ctx, bson.D{{Key: "_id", Value: side.ID}}); err != nil {
			return mapErr(err, "removing unnamed variables "+side.ID)
		}
	}
	return nil
}
