package mongostore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/workflowpp/wfpp/engine"
)

// eventBatch is one change's events in the log: a document per commit of an
// instance, not per event, so a commit writes one document to the log however
// many events its round made (a one-task instance makes 11 in two changes).
//
// Its _id is the instance id and the seq of its last event, and it holds the
// seq of its first, so the log of an instance is a chain read backwards from
// the snapshot's seq by point lookups: the embedded FerretDB runs no other
// filter than _id without scanning the whole collection. Writing a batch
// again, as recovery does, is a duplicate _id that is skipped.
//
// The events leave out the instance and definition ids, which the batch
// holds once (see compact), and are stored as one opaque BSON value, as the
// snapshot's redo is (eventList).
type eventBatch struct {
	ID           string    `bson:"_id"`
	InstanceID   string    `bson:"instance_id"`
	DefinitionID string    `bson:"definition_id"`
	Seq          uint64    `bson:"seq"` // of the first event
	Events       eventList `bson:"events"`
}

// eventList is a batch's events as the log stores them: one BSON binary
// holding them as a document. FerretDB keeps a schema next to every field
// and array item, which made up two thirds of a batch's stored size, and
// every write parses the whole document again to index its _id. Nothing
// queries the events inside a batch: the log is read by batch _id. Batches
// written by earlier versions, with the events as an array, still decode.
type eventList []engine.Event

// eventListDoc is the document inside an eventList's binary.
type eventListDoc struct {
	Events []engine.Event `bson:"e"`
}

// MarshalBSONValue implements bson.ValueMarshaler.
func (l eventList) MarshalBSONValue() (byte, []byte, error) {
	doc, err := bson.Marshal(eventListDoc{Events: l})
	if err != nil {
		return 0, nil, err
	}
	return byte(bson.TypeBinary), bsoncore.AppendBinary(nil, bson.TypeBinaryGeneric, doc), nil
}

// UnmarshalBSONValue implements bson.ValueUnmarshaler.
func (l *eventList) UnmarshalBSONValue(t byte, data []byte) error {
	if bson.Type(t) == bson.TypeArray { // written before the events were one binary
		var evs []engine.Event
		if err := bson.UnmarshalValue(bson.TypeArray, data, &evs); err != nil {
			return err
		}
		*l = evs
		return nil
	}
	if bson.Type(t) != bson.TypeBinary {
		return fmt.Errorf("events stored as BSON type %v: want a binary", bson.Type(t))
	}
	_, doc, _, ok := bsoncore.ReadBinary(data)
	if !ok {
		return errors.New("events: a binary cut short")
	}
	var d eventListDoc
	if err := bson.Unmarshal(doc, &d); err != nil {
		return err
	}
	*l = d.Events
	return nil
}

func batchID(instanceID string, last uint64) string {
	return fmt.Sprintf("%s/%020d", instanceID, last)
}

func newEventBatch(evs []engine.Event) eventBatch {
	first, last := evs[0], evs[len(evs)-1]
	return eventBatch{
		ID: batchID(first.InstanceID, last.Seq), InstanceID: first.InstanceID, DefinitionID: first.DefinitionID,
		Seq: first.Seq, Events: compact(evs),
	}
}

// compact copies one instance's events without the ids they all share: as
// stored fields they were a quarter of the log's bytes.
func compact(evs []engine.Event) []engine.Event {
	out := make([]engine.Event, len(evs))
	for i, ev := range evs {
		ev.InstanceID, ev.DefinitionID = "", ""
		out[i] = ev
	}
	return out
}

// expand gives compacted events back their ids.
func expand(evs []engine.Event, instanceID, definitionID string) {
	for i := range evs {
		evs[i].InstanceID, evs[i].DefinitionID = instanceID, definitionID
		evs[i].Detail = normalizeMap(evs[i].Detail)
	}
}

// writeEventsFirst puts the changes' events into the log before their
// snapshots (see Commit). A batch that is there already comes from an
// attempt of the change that failed, whose events may differ from these:
// it is replaced.
func (s *Store) writeEventsFirst(ctx context.Context, changes []engine.Change) error {
	var batches []any
	for _, c := range changes {
		if len(c.Snapshot.Pending) > 0 {
			batches = append(batches, newEventBatch(c.Snapshot.Pending))
		}
	}
	if len(batches) == 0 {
		return nil
	}
	_, err := s.events.InsertMany(ctx, batches, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if err == nil || !onlyDuplicates(err) || !errors.As(err, &bwe) {
		return mapErr(err, "appending events")
	}
	for _, we := range bwe.WriteErrors {
		b := batches[we.Index].(eventBatch)
		if err := s.upsert(ctx, s.events, b.ID, b); err != nil {
			return err
		}
	}
	return nil
}

// appendEvents inserts event batches into the log, skipping those already there.
func (s *Store) appendEvents(ctx context.Context, batches []any) error {
	if len(batches) == 0 {
		return nil
	}
	_, err := s.events.InsertMany(ctx, batches, options.InsertMany().SetOrdered(false))
	if onlyDuplicates(err) {
		return nil
	}
	return mapErr(err, "appending events")
}

// Events reads the instance's snapshot, whose redo holds its last change's
// events (in the log too, or about to be), then the batches before them,
// newest first, down to after.
func (s *Store) Events(ctx context.Context, instanceID string, after uint64, limit int) ([]engine.Event, error) {
	what := "events of " + instanceID
	var doc snapshotDoc
	err := s.instances.FindOne(ctx, bson.D{{Key: "_id", Value: instanceID}},
		options.FindOne().SetProjection(bson.D{{Key: "variables", Value: 0}, {Key: "scopes", Value: 0}, {Key: "tokens", Value: 0}})).Decode(&doc)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return nil, nil
	case err != nil:
		return nil, mapErr(err, what)
	}
	r, err := doc.redo()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var newestFirst [][]engine.Event // batches
	next := doc.Seq                  // last seq of the next batch to read
	if len(r.Events) > 0 {
		newestFirst = append(newestFirst, r.Events)
		next = r.Events[0].Seq - 1
	}
	for next > after {
		var b eventBatch
		err := s.events.FindOne(ctx, bson.D{{Key: "_id", Value: batchID(instanceID, next)}}).Decode(&b)
		if err != nil {
			return nil, mapErr(err, fmt.Sprintf("%s: the batch ending at seq %d", what, next))
		}
		expand(b.Events, b.InstanceID, b.DefinitionID)
		newestFirst = append(newestFirst, b.Events)
		next = b.Seq - 1
	}
	var out []engine.Event
	for _, evs := range slices.Backward(newestFirst) {
		for _, ev := range evs {
			if ev.Seq <= after {
				continue
			}
			if limit > 0 && len(out) == limit {
				return out, nil
			}
			out = append(out, ev)
		}
	}
	return out, nil
}
