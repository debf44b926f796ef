// Package mongostore is the MongoDB engine.Store. It keeps to what MongoDB
// and the embedded FerretDB do alike (see engine/store/embedded): no
// transactions, no partial indexes, unique keys written once at insert.
package mongostore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.Store = (*Store)(nil)

// Config configures a Store.
type Config struct {
	Logger *slog.Logger
	// SingleWriter says this process is the only one writing the database
	// (the embedded server, whose data directory is locked to one process).
	// Commits then replace snapshots by _id alone: the engine's one applier
	// per instance already orders its changes, and FerretDB runs only a
	// plain _id filter in SQLite (any other filter scans the collection).
	// Leave it off for a shared MongoDB, where the (_id, seq) guard stops two
	// replicas that both think they own an instance. A fenced batch
	// (Batch.Epoch set: a replica of a cluster) is always guarded.
	SingleWriter bool
	// NoQueryIndexes leaves out the indexes that only speed up queries,
	// keeping those that enforce uniqueness. For the embedded FerretDB, which
	// runs every filter but a plain _id by scanning in Go: there such an index
	// is never used, yet SQLite parses each written document again to keep it.
	NoQueryIndexes bool
	// ClaimWait is how long a start whose request id is claimed waits for the
	// claimed instance before adopting the claim. Default ClaimWaitDefault.
	ClaimWait time.Duration
}

// indexes are the indexes of one collection.
type indexes struct {
	c      *mongo.Collection
	models []mongo.IndexModel
}

// Store is an engine.Store on a MongoDB database.
type Store struct {
	db           *mongo.Database
	log          *slog.Logger
	claimWait    time.Duration
	singleWriter bool
	dirty        atomic.Bool // a commit stored snapshots but not all of their writes
	// latest caches the latest version of each key under SingleWriter, when
	// no other process can deploy or disable behind this one's back.
	latest sync.Map // key → engine.DefinitionRecord
	// Under SingleWriter too, versions and heads are cached: a start
	// without a version reads the head, then its default version.
	versions  sync.Map // id → engine.DefinitionRecord
	headByKey sync.Map // key → engine.DefinitionHead
	// sideRefs holds the side document of variables each instance named at
	// its last commit or read, for instances with large variables only
	// (variables.go).
	sideRefs sync.Map // instance id → variables ref
	// scheduleRevs holds, under SingleWriter, the rev of each schedule this
	// process stored, so a guarded update replaces by _id alone
	// (schedule.go).
	scheduleRevs scheduleRevs
	// sweepStepCache: the database has no TTL index (FerretDB v1), so
	// PutCacheEntry drops expired entries (step_cache.go).
	sweepStepCache bool

	defs, heads, forms, filters, instances, variables, requests, events, tasks, incidents, deadLetters, schedules, meta, stepCache, messages, places *mongo.Collection

	// replicas and partitions hold the heartbeats and leases of a cluster (lease.go).
	replicas, partitions *mongo.Collection
	// digests holds each replica's engine.ChangeDigest (change_digest.go).
	digests *mongo.Collection

	// newInserted, set by tests only, runs between the insert of new
	// instances and the check of their partitions' leases (checkNew).
	newInserted func()
}

// New returns a Store on db after creating its indexes.
func New(ctx context.Context, db *mongo.Database, cfg Config) (*Store, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		db: db, log: cfg.Logger, singleWriter: cfg.SingleWriter, claimWait: cmp.Or(cfg.ClaimWait, ClaimWaitDefault),
		defs:        db.Collection("definitions"),
		heads:       db.Collection("definition_heads"),
		forms:       db.Collection("forms"),
		filters:     db.Collection("filters"),
		instances:   db.Collection("instances"),
		variables:   db.Collection("variables"),
		requests:    db.Collection("requests"),
		events:      db.Collection("events"),
		tasks:       db.Collection("tasks"),
		incidents:   db.Collection("incidents"),
		deadLetters: db.Collection("dead_letters"),
		schedules:   db.Collection("schedules"),
		meta:        db.Collection("meta"),
		stepCache:   db.Collection("step_cache"),
		replicas:    db.Collection("replicas"),
		partitions:  db.Collection("partitions"),
		digests:     db.Collection("change_digests"),
		messages:    db.Collection("messages"),
		places:      db.Collection("places"),
	}
	idx := []indexes{
		{s.defs, []mongo.IndexModel{{Keys: bson.D{{Key: "key", Value: 1}, {Key: "version", Value: 1}}, Options: options.Index().SetUnique(true)}}},
		{s.instances, []mongo.IndexModel{
			{Keys: bson.D{{Key: "definition_key", Value: 1}}},
			{Keys: bson.D{{Key: "status", Value: 1}}},
			{Keys: bson.D{{Key: "business_key", Value: 1}}},
			{Keys: bson.D{{Key: "parent.instance_id", Value: 1}}},
			{Keys: bson.D{{Key: "triggered_by.instance_id", Value: 1}}, Options: options.Index().SetSparse(true)},
			{Keys: bson.D{{Key: "partition", Value: 1}, {Key: "status", Value: 1}}}, // UnfinishedIn
			{Keys: bson.D{{Key: "updated_at", Value: 1}}},                           // the live hubs' poll for other replicas' events
		}},
		{s.tasks, []mongo.IndexModel{
			{Keys: bson.D{{Key: "instance_id", Value: 1}}},
			{Keys: bson.D{{Key: "status", Value: 1}, {Key: "assignee", Value: 1}}},
			{Keys: bson.D{{Key: "status", Value: 1}, {Key: "candidate_groups", Value: 1}}},
		}},
		{s.forms, []mongo.IndexModel{{Keys: bson.D{{Key: "form_id", Value: 1}, {Key: "version", Value: 1}}, Options: options.Index().SetUnique(true)}}},
		{s.incidents, []mongo.IndexModel{{Keys: bson.D{{Key: "instance_id", Value: 1}}}}},
		{s.deadLetters, []mongo.IndexModel{{Keys: bson.D{{Key: "instance_id", Value: 1}}}}},
		{s.messages, messageIndexes},
	}
	if err := s.createCollections(ctx); err != nil {
		return nil, err
	}
	if err := s.renameOpenLetters(ctx); err != nil {
		return nil, err
	}
	if err := s.migrateLifecycle(ctx); err != nil {
		return nil, err
	}
	// One at a time: FerretDB v1.24 panics (and drops the connection) on a
	// createIndexes of several indexes that all exist already, as on a restart.
	for _, x := range idx {
		for _, m := range x.models {
			if cfg.NoQueryIndexes && !unique(m) {
				continue
			}
			if _, err := x.c.Indexes().CreateOne(ctx, m); err != nil {
				return nil, fmt.Errorf("mongostore: indexes of %s: %w", x.c.Name(), err)
			}
		}
		if cfg.NoQueryIndexes {
			if err := dropQueryIndexes(ctx, x); err != nil {
				return nil, err
			}
		}
	}
	if err := s.stepCacheIndex(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// dropQueryIndexes drops the query-only indexes an older version created.
func dropQueryIndexes(ctx context.Context, x indexes) error {
	specs, err := x.c.Indexes().ListSpecifications(ctx)
	if err != nil {
		return mapErr(err, "listing the indexes of "+x.c.Name())
	}
	for _, spec := range specs {
		if spec.Name == "_id_" || spec.Unique != nil && *spec.Unique {
			continue
		}
		if err := x.c.Indexes().DropOne(ctx, spec.Name); err != nil {
			return mapErr(err, "dropping index "+spec.Name+" of "+x.c.Name())
		}
	}
	return nil
}

// createCollections creates the collections that do not exist yet, so that
// they all exist once New returns, indexed or not (embedded.IndexByID indexes
// what exists).
func (s *Store) createCollections(ctx context.Context) error {
	names, err := s.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return mapErr(err, "listing collections")
	}
	for _, c := range []*mongo.Collection{s.defs, s.heads, s.forms, s.filters, s.instances, s.variables, s.requests, s.events, s.tasks, s.incidents, s.deadLetters, s.schedules, s.meta, s.stepCache, s.replicas, s.partitions, s.digests, s.messages, s.places} {
		if slices.Contains(names, c.Name()) {
			continue
		}
		if err := s.db.CreateCollection(ctx, c.Name()); err != nil {
			return mapErr(err, "creating collection "+c.Name())
		}
		names = append(names, c.Name())
	}
	return nil
}

func unique(m mongo.IndexModel) bool {
	if m.Options == nil {
		return false
	}
	var o options.IndexOptions
	for _, set := range m.Options.List() {
		_ = set(&o)
	}
	return o.Unique != nil && *o.Unique
}

func (s *Store) Ping(ctx context.Context) error {
	return s.db.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

// mapErr maps driver errors to the engine's.
func mapErr(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return fmt.Errorf("%s: %w", what, engine.ErrNotFound)
	case mongo.IsDuplicateKeyError(err):
		return fmt.Errorf("%s: %w: %w", what, engine.ErrDuplicate, err)
	case mongo.IsNetworkError(err), mongo.IsTimeout(err), errors.Is(err, mongo.ErrClientDisconnected),
		errors.As(err, new(topology.ServerSelectionError)):
		return fmt.Errorf("%s: %w: %w", what, engine.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// onlyDuplicates reports whether err is nil or only duplicate-key write errors.
func onlyDuplicates(err error) bool {
	if err == nil {
		return true
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		if bwe.WriteConcernError != nil {
			return false
		}
		for _, we := range bwe.WriteErrors {
			if we.Code != 11000 && we.Code != 11001 && we.Code != 12582 {
				return false
			}
		}
		return len(bwe.WriteErrors) > 0
	}
	return mongo.IsDuplicateKeyError(err)
}

// Instances

// request is the claim of a request id: its _id is unique, so the first
// CreateInstance of a (definition key, request id) wins. FerretDB has no
// partial indexes, hence a collection of its own rather than a unique index
// on instances.
type request struct {
	ID         string    `bson:"_id"`
	InstanceID string    `bson:"instance_id"`
	Created    time.Time `bson:"created_at"`
}

// ClaimWaitDefault bounds how long a losing CreateInstance waits for the winner's
// instance to appear.
const ClaimWaitDefault = 5 * time.Second

func (s *Store) CreateInstance(ctx context.Context, snap *engine.Snapshot) (*engine.Snapshot, error) {
	if snap.RequestID == "" {
		existing, _, err := s.insertNew(ctx, snap)
		return existing, err
	}
	claim := request{ID: snap.DefinitionKey + "\x00" + snap.RequestID, InstanceID: snap.ID, Created: time.Now().UTC()}
	for {
		_, err := s.requests.InsertOne(ctx, claim)
		if err == nil {
			break
		}
		if !mongo.IsDuplicateKeyError(err) {
			return nil, mapErr(err, "claiming request "+snap.RequestID)
		}
		existing, err := s.claimed(ctx, claim.ID, snap)
		if !errors.Is(err, errClaimReleased) {
			return existing, err
		}
	}
	existing, stored, err := s.insertNew(ctx, snap)
	if !stored {
		s.releaseClaim(ctx, claim)
	}
	return existing, err
}

// releaseClaim removes the claim of a request whose instance is not
// stored, so that the request can be made again.
func (s *Store) releaseClaim(ctx context.Context, claim request) {
	_, err := s.requests.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: claim.ID}})
	if err != nil {
		s.log.Warn("mongostore: releasing request claim", "request", claim.ID, "err", err)
	}
}

// insertNew stores a new instance, checked as checkNew says when fenced
// (snap.Epoch). When one with its id is stored already, it returns that
// one and ErrDuplicate. stored says whether an instance is (or, when the
// check failed, may be) stored under snap.ID: the claim of its request
// names it.
func (s *Store) insertNew(ctx context.Context, snap *engine.Snapshot) (existing *engine.Snapshot, stored bool, err error) {
	nonce := bson.NewObjectID().Hex()
	existing, err = s.insertInstance(ctx, snap, nonce)
	switch {
	case errors.Is(err, engine.ErrDuplicate):
		return existing, true, err
	case err != nil:
		return nil, false, err
	}
	s.afterInsert()
	withdrawn, err := s.checkNew(ctx, snap.Epoch, nonce, []*engine.Snapshot{snap})
	if err != nil {
		return nil, true, err
	}
	if err := withdrawn[snap.ID]; err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// insertInstance stores a new instance as written by nonce. When one with
// its id is stored already, it returns that one and ErrDuplicate.
func (s *Store) insertInstance(ctx context.Context, snap *engine.Snapshot, nonce string) (*engine.Snapshot, error) {
	doc := snapshotDoc{Snapshot: *snap, Commit: nonce}
	doc.Pending = nil
	side := splitVariables(&doc, nonce)
	if side != nil {
		if err := s.insertVariables(ctx, []any{side}); err != nil {
			return nil, err
		}
	}
	_, err := s.instances.InsertOne(ctx, doc)
	if err == nil && side != nil {
		s.sideRefs.Store(snap.ID, side.ID)
	}
	if !mongo.IsDuplicateKeyError(err) {
		return nil, mapErr(err, "creating instance "+snap.ID)
	}
	existing, err := s.Instance(ctx, snap.ID)
	if err != nil {
		return nil, err
	}
	return existing, fmt.Errorf("instance %s: %w", snap.ID, engine.ErrDuplicate)
}

// errClaimReleased: the start that claimed a request withdrew its instance
// and released the claim; the request may be claimed again.
var errClaimReleased = errors.New("request claim released")

// claimed returns the instance that holds a request claim, waiting a little
// for the winner of a concurrent start to insert it, and to settle it when
// its partition changed hands meanwhile (settled). When it never appears,
// the start that claimed the request died between the claim and the insert:
// this start adopts the claim and creates the instance under the claimed id
// (snap.ID changes to it), so a retried request still starts exactly one.
// When the claim is gone, the winner withdrew its instance: errClaimReleased.
func (s *Store) claimed(ctx context.Context, claimID string, snap *engine.Snapshot) (*engine.Snapshot, error) {
	var claim request
	if err := s.requests.FindOne(ctx, bson.D{{Key: "_id", Value: claimID}}).Decode(&claim); err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil, errClaimReleased
		}
		return nil, mapErr(err, "request claim "+snap.RequestID)
	}
	deadline := time.Now().Add(s.claimWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		existing, err := s.Instance(ctx, claim.InstanceID)
		switch {
		case err == nil:
			ok, err := s.settled(ctx, existing)
			switch {
			case err != nil:
				return nil, err
			case ok:
				return existing, fmt.Errorf("request %s: %w", snap.RequestID, engine.ErrDuplicate)
			case time.Now().After(deadline):
				// Its writer stopped between its insert and its check.
				return nil, fmt.Errorf("request %s: its instance %s was stored as partition %d changed hands, and its first start has not settled it yet: %w",
					snap.RequestID, existing.ID, existing.Partition, engine.ErrUnavailable)
			}
		case !errors.Is(err, engine.ErrNotFound):
			return nil, err
		default:
			if err := s.requests.FindOne(ctx, bson.D{{Key: "_id", Value: claimID}}).Err(); errors.Is(err, mongo.ErrNoDocuments) {
				return nil, errClaimReleased
			}
			if time.Now().After(deadline) {
				s.log.Warn("mongostore: adopting a request claim whose instance was never stored", "request", snap.RequestID, "instance_id", claim.InstanceID)
				snap.ID = claim.InstanceID
				existing, _, err := s.insertNew(ctx, snap) // a duplicate: its first start got there after all
				return existing, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

var withoutPending = bson.D{{Key: "redo", Value: 0}}

// headOnly is the projection of engine.Snapshot.Head: lists never read
// variables.
var headOnly = bson.D{
	{Key: "redo", Value: 0},
	{Key: "variables", Value: 0},
	{Key: "scopes", Value: 0},
	{Key: "subscriptions", Value: 0},
	{Key: "tokens.local", Value: 0},
	{Key: "tokens.compensating", Value: 0},
	{Key: "compensable", Value: 0},
	{Key: "tasks.variables", Value: 0},
	{Key: "tasks.inbox_variables", Value: 0},
}

func (s *Store) Instance(ctx context.Context, id string) (*engine.Snapshot, error) {
	for attempt := 0; ; attempt++ {
		var doc snapshotDoc
		err := s.instances.FindOne(ctx, bson.D{{Key: "_id", Value: id}}, options.FindOne().SetProjection(withoutPending)).Decode(&doc)
		if err != nil {
			return nil, mapErr(err, "instance "+id)
		}
		// Another writer may have committed and retired the variables this
		// snapshot names since it was read: read it again.
		if err := s.joinVariables(ctx, &doc); err != nil {
			if errors.Is(err, engine.ErrNotFound) && attempt < 3 {
				continue
			}
			return nil, err
		}
		snap := &doc.Snapshot
		normalizeSnapshot(snap)
		snap.Pending = nil
		return snap, nil
	}
}

func (s *Store) Instances(ctx context.Context, f engine.InstanceFilter) ([]*engine.Snapshot, string, error) {
	filter := bson.D{}
	if f.DefinitionKey != "" {
		filter = append(filter, bson.E{Key: "definition_key", Value: f.DefinitionKey})
	}
	if f.BusinessKey != "" {
		filter = append(filter, bson.E{Key: "business_key", Value: f.BusinessKey})
	}
	if f.ParentID != "" {
		filter = append(filter, bson.E{Key: "parent.instance_id", Value: f.ParentID})
	}
	if f.TriggeredBy != "" {
		filter = append(filter, bson.E{Key: "triggered_by.instance_id", Value: f.TriggeredBy})
	}
	if len(f.Status) > 0 {
		filter = append(filter, bson.E{Key: "status", Value: bson.D{{Key: "$in", Value: f.Status}}})
	}
	started := bson.D{}
	if !f.StartedAfter.IsZero() {
		started = append(started, bson.E{Key: "$gt", Value: f.StartedAfter})
	}
	if !f.StartedBefore.IsZero() {
		started = append(started, bson.E{Key: "$lt", Value: f.StartedBefore})
	}
	if len(started) > 0 {
		filter = append(filter, bson.E{Key: "started_at", Value: started})
	}
	if !f.UpdatedAfter.IsZero() {
		filter = append(filter, bson.E{Key: "updated_at", Value: bson.D{{Key: "$gt", Value: f.UpdatedAfter}}})
	}
	if f.Cursor != "" {
		filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$lt", Value: f.Cursor}}})
	}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetProjection(headOnly)
	if f.Limit > 0 {
		opts.SetLimit(int64(f.Limit) + 1)
	}
	cur, err := s.instances.Find(ctx, filter, opts)
	if err != nil {
		return nil, "", mapErr(err, "instances")
	}
	var page []*engine.Snapshot
	if err := cur.All(ctx, &page); err != nil {
		return nil, "", mapErr(err, "instances")
	}
	for _, snap := range page {
		normalizeSnapshot(snap)
		snap.Pending = nil
	}
	next := ""
	if f.Limit > 0 && len(page) > f.Limit {
		page = page[:f.Limit]
		next = page[f.Limit-1].ID
	}
	return page, next, nil
}

func (s *Store) Unfinished(ctx context.Context, fn func(*engine.Snapshot) error) error {
	crashed, err := s.takeCleanMark(ctx)
	if err != nil {
		return err
	}
	filter := bson.D{{Key: "status", Value: bson.D{{Key: "$nin", Value: doneStatuses}}}}
	if crashed {
		if err := s.sweepVariables(ctx); err != nil {
			return err
		}
		// After a crash any instance, ended ones too, may miss the tail of its
		// last commit: redo them all, then hand on the unfinished ones.
		filter = bson.D{}
		s.log.Warn("store: the last shutdown was not clean; redoing the last writes of every instance")
	}
	return s.recoverEach(ctx, filter, crashed, fn)
}

// recoverEach completes the last commit of every instance filter selects,
// by id, and calls fn with those that are unfinished: it appends the
// commit's events to the log (a crash may have come between the snapshot
// and the events) and, with projections, writes its tasks, incidents and
// dead letters again.
func (s *Store) recoverEach(ctx context.Context, filter bson.D, projections bool, fn func(*engine.Snapshot) error) error {
	cur, err := s.instances.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetAllowDiskUse(true))
	if err != nil {
		return mapErr(err, "unfinished instances")
	}
	defer cur.Close(context.WithoutCancel(ctx))
	for cur.Next(ctx) {
		var doc snapshotDoc
		if err := cur.Decode(&doc); err != nil {
			return mapErr(err, "unfinished instance")
		}
		if err := s.joinVariables(ctx, &doc); err != nil {
			return fmt.Errorf("recovering instance %s: %w", doc.ID, err)
		}
		snap := &doc.Snapshot
		normalizeSnapshot(snap)
		r, err := doc.redo()
		if err != nil {
			return fmt.Errorf("recovering instance %s: %w", snap.ID, err)
		}
		if err := s.appendEvents(ctx, r.eventBatches()); err != nil {
			return fmt.Errorf("recovering events of %s: %w", snap.ID, err)
		}
		if projections {
			if err := s.writeProjections(ctx, r.taskModels(snap.Epoch), r.incidentModels(snap.Epoch), r.letterModels(snap.Epoch)); err != nil {
				return fmt.Errorf("recovering the tasks and incidents of %s: %w", snap.ID, err)
			}
		}
		if snap.Status.Done() {
			continue
		}
		if err := fn(snap); err != nil {
			return err
		}
	}
	return mapErr(cur.Err(), "unfinished instances")
}

var doneStatuses = []engine.Status{engine.StatusCompleted, engine.StatusFailed, engine.StatusCancelled}

// Commit writes a batch of changes. The snapshots are the commit point: a
// change whose snapshot is stored is committed. The rest of its writes go in
// its redo, in the snapshot, for recovery to do again after a crash.
//
// Group commit: one round trip for the new instances, one for the others,
// one for the events, one per projection collection touched.
//
// The events go into the log before the snapshots when this is the only
// writer (and the batch is not fenced), and after them (in the redo until
// then) when it is not:
//   - Before: the snapshot carries no events, so it is half the size to
//     write and re-read. A change whose snapshot then fails leaves a batch
//     that no committed snapshot reaches (the log is read as a chain back
//     from the snapshot's seq) or that a later commit overwrites.
//   - After: another writer may win the instance, and a loser's batch must
//     not be taken for the winner's, so only committed changes append.
//
// A change that fails stops the batch; the ones before it stay committed.
// A fenced batch (Batch.Epoch) fails with ErrFenced where a change's
// instance, or for a new instance its partition's lease, is at a newer
// epoch (lease.go).
func (s *Store) Commit(ctx context.Context, b *engine.Batch) error {
	if len(b.Changes) == 0 {
		return nil
	}
	m := s.modeOf(b)
	if m.single {
		if err := s.writeEventsFirst(ctx, b.Changes); err != nil {
			return err
		}
	}
	committed, conflict, err := s.writeSnapshots(ctx, b.Changes, m)
	if err != nil {
		return err
	}
	var (
		events               []any
		tasks, incs, letters []mongo.WriteModel
	)
	for _, r := range committed {
		events = append(events, r.eventBatches()...)
		tasks, incs, letters = append(tasks, r.taskModels(m.epoch)...), append(incs, r.incidentModels(m.epoch)...), append(letters, r.letterModels(m.epoch)...)
	}
	if err := s.appendEvents(ctx, events); err != nil {
		s.dirty.Store(true) // stored snapshots wait for these writes: recovery must redo them
		return err
	}
	if err := s.writeProjections(ctx, tasks, incs, letters); err != nil {
		s.dirty.Store(true)
		return err
	}
	return conflict
}

// writeSnapshots writes every change's snapshot: the new instances in one
// insert (FerretDB runs it as one SQLite transaction, where each replace is
// one of its own), the others replaced under the guard of their previous
// sequence number (and epoch, when fenced) unless this is the only writer.
// It returns the changes that were stored, as their redos, and, when some
// were not, an error naming them.
func (s *Store) writeSnapshots(ctx context.Context, changes []engine.Change, m commitMode) ([]redo, error, error) {
	nonce := bson.NewObjectID().Hex() // tells our writes from a concurrent writer's
	var (
		creates  []any
		replaces []mongo.WriteModel
		sides    []any
		redos    = make([]redo, len(changes))
		refs     = make([]string, len(changes)) // the variables each names apart, if any
	)
	for i, c := range changes {
		doc, r, err := newSnapshotDoc(c, nonce, m)
		if err != nil {
			return nil, nil, err
		}
		if side := splitVariables(&doc, nonce); side != nil {
			sides, refs[i] = append(sides, side), side.ID
		}
		redos[i] = r
		if c.Create {
			creates = append(creates, doc)
			continue
		}
		replaces = append(replaces, mongo.NewReplaceOneModel().SetFilter(guard(c, m)).SetReplacement(doc))
	}
	if err := s.insertVariables(ctx, sides); err != nil {
		return nil, nil, err
	}
	stored, failed := 0, false
	var withdrawn map[string]error
	if len(creates) > 0 {
		res, err := s.instances.InsertMany(ctx, creates, options.InsertMany().SetOrdered(false))
		switch {
		case err == nil:
			stored += len(res.InsertedIDs)
		case onlyDuplicates(err): // an instance id taken: a conflict, found out below
			failed = true
		default:
			return nil, nil, mapErr(err, "creating instances")
		}
		if withdrawn, err = s.checkCreates(ctx, changes, m, nonce); err != nil {
			return nil, nil, err
		}
	}
	if len(replaces) > 0 {
		matched, err := bulkWrite(ctx, s.instances, replaces)
		if err != nil {
			return nil, nil, mapErr(err, "committing instances")
		}
		stored += int(matched)
	}
	if !failed && len(withdrawn) == 0 && stored == len(changes) {
		for i, c := range changes {
			s.retireVariables(ctx, c.Snapshot.ID, refs[i])
		}
		return redos, nil, nil
	}
	// Some guard said no: find out which, and why, by what is stored now.
	var ok []redo
	var errs []error
	for i, c := range changes {
		var cur struct {
			Commit string `bson:"commit"`
			Epoch  int64  `bson:"epoch"`
		}
		err := s.instances.FindOne(ctx, bson.D{{Key: "_id", Value: c.Snapshot.ID}},
			options.FindOne().SetProjection(bson.D{{Key: "commit", Value: 1}, {Key: "epoch", Value: 1}})).Decode(&cur)
		switch {
		case withdrawn[c.Snapshot.ID] != nil:
			errs = append(errs, withdrawn[c.Snapshot.ID])
		case errors.Is(err, mongo.ErrNoDocuments):
			errs = append(errs, fmt.Errorf("instance %s: %w", c.Snapshot.ID, engine.ErrNotFound))
		case err != nil:
			return nil, nil, mapErr(err, "checking instance "+c.Snapshot.ID)
		case cur.Commit == nonce:
			ok = append(ok, redos[i])
			s.retireVariables(ctx, c.Snapshot.ID, refs[i])
		case m.epoch != 0 && cur.Epoch > m.epoch:
			errs = append(errs, fmt.Errorf("instance %s is at epoch %d, the commit at %d: %w", c.Snapshot.ID, cur.Epoch, m.epoch, engine.ErrFenced))
		default:
			errs = append(errs, fmt.Errorf("instance %s is not at seq %d: %w", c.Snapshot.ID, c.PrevSeq, engine.ErrConflict))
		}
	}
	return ok, errors.Join(errs...), nil
}

// snapshotDoc is a stored snapshot with the nonce of the commit that wrote it
// and the rest of that commit's writes (events and projections), which
// recovery writes again after a crash.
type snapshotDoc struct {
	engine.Snapshot `bson:",inline"` // Pending stays empty: the events are in Redo
	Commit          string           `bson:"commit"`
	VariablesRef    string           `bson:"variables_ref,omitempty"` // large variables live apart (variables.go)
	Redo            []byte           `bson:"redo,omitempty"`          // BSON of a redo
}

// commitMode is how Commit writes one batch.
type commitMode struct {
	epoch int64 // Batch.Epoch; 0: not fenced
	// leaseFresh is Batch.LeaseFresh: while it holds, new instances need no
	// check of their partition's lease (checkCreates).
	leaseFresh func() bool
	// single: the single writer's shortcuts, events first and no guard; never
	// for a fenced batch, whose guard is what fences it.
	single bool
}

func (s *Store) modeOf(b *engine.Batch) commitMode {
	return commitMode{epoch: b.Epoch, leaseFresh: b.LeaseFresh, single: s.singleWriter && b.Epoch == 0}
}

// guard is the filter that replaces c's snapshot: by id alone for the
// single writer; else at the previous sequence number, and when fenced at
// an epoch no newer than the batch's (none stored counts as 0).
func guard(c engine.Change, m commitMode) bson.D {
	if m.single {
		return bson.D{{Key: "_id", Value: c.Snapshot.ID}}
	}
	g := bson.D{{Key: "_id", Value: c.Snapshot.ID}, {Key: "seq", Value: c.PrevSeq}}
	if m.epoch != 0 {
		g = append(g, notNewerThan(m.epoch))
	}
	return g
}

// maxStatements bounds the updates sent in one command. FerretDB v1.24 keeps
// the SQLite connection of each statement's lookup until the whole command
// ends, and each statement's write needs another from a pool of 100: an
// update command of about 100 statements waits for itself for ever.
const maxStatements = 32

// bulkWrite runs models as unordered bulk writes of at most maxStatements
// each, and returns how many documents they matched.
func bulkWrite(ctx context.Context, c *mongo.Collection, models []mongo.WriteModel) (int64, error) {
	var matched int64
	for chunk := range slices.Chunk(models, maxStatements) {
		res, err := c.BulkWrite(ctx, chunk, options.BulkWrite().SetOrdered(false))
		if err != nil {
			return matched, err
		}
		matched += res.MatchedCount
	}
	return matched, nil
}

func upsertModel(id string, doc any) mongo.WriteModel {
	return mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: id}}).SetReplacement(doc).SetUpsert(true)
}

func (s *Store) upsert(ctx context.Context, c *mongo.Collection, id string, doc any) error {
	_, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, doc, options.Replace().SetUpsert(true))
	return mapErr(err, fmt.Sprintf("upserting %s %s", c.Name(), id))
}
