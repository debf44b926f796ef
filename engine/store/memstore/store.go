package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.Store = (*Store)(nil)

// Store is an in-memory engine.Store, safe for concurrent use.
type Store struct {
	mu           sync.RWMutex
	defs         map[string][]engine.DefinitionRecord // by key, oldest first
	heads        map[string]*engine.DefinitionHead    // by key: the default version and its changes
	forms        map[string][]engine.FormRecord       // by form id, oldest first
	filters      map[string]engine.SavedFilter        // by id
	instances    map[string]*engine.Snapshot
	byRequest    map[string]string // definition key + request id → instance id
	events       map[string][]engine.Event
	tasks        map[string]engine.Task
	taskIDs      map[string][]string // by instance id
	incidents    map[string]engine.Incident
	deadLetters  map[string]engine.DeadLetter
	schedules    map[string]engine.Schedule
	dropEvents   bool // keep no event log
	dropFinished bool // forget instances once they end
	steps        stepCache
	buffered     messageBuffer
	places       engine.LocalPlaces // of capped definitions (engine.PlaceStore)

	parked    parking
	recent    []waiting // instances that waited after their last commit, oldest first
	parkAfter int       // how many of them stay Go values

	replicas map[string]engine.Replica      // by id (lease.go)
	leases   map[int]engine.PartitionLease  // by partition
	digests  map[string]engine.ChangeDigest // by replica (change_digest.go)
}

// waiting is an instance that waited after the commit that gave it seq.
type waiting struct {
	id  string
	seq uint64
}

// ParkAfterDefault is how many recently committed waiting instances a Store
// keeps as Go values before it parks the older ones.
const ParkAfterDefault = 10_000

// WithParking keeps the n most recently committed waiting instances as Go
// values and parks older ones that have not changed since (see parking);
// n < 0 never parks. Default ParkAfterDefault.
func WithParking(n int) Option { return func(s *Store) { s.parkAfter = n } }

// Option configures a Store.
type Option func(*Store)

// WithoutEventLog keeps no event log: for benchmarks that measure the engine alone.
func WithoutEventLog() Option { return func(s *Store) { s.dropEvents = true } }

// WithoutFinished forgets an instance (and its tasks) once it has ended: for
// benchmarks that measure the engine alone, whose memory would otherwise grow
// with every finished instance.
func WithoutFinished() Option { return func(s *Store) { s.dropFinished = true } }

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{
		defs:        map[string][]engine.DefinitionRecord{},
		heads:       map[string]*engine.DefinitionHead{},
		instances:   map[string]*engine.Snapshot{},
		byRequest:   map[string]string{},
		events:      map[string][]engine.Event{},
		tasks:       map[string]engine.Task{},
		taskIDs:     map[string][]string{},
		incidents:   map[string]engine.Incident{},
		deadLetters: map[string]engine.DeadLetter{},
		schedules:   map[string]engine.Schedule{},
		replicas:    map[string]engine.Replica{},
		leases:      map[int]engine.PartitionLease{},
		digests:     map[string]engine.ChangeDigest{},
		parked:      newParking(),
		parkAfter:   ParkAfterDefault,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *Store) Ping(context.Context) error { return nil }

func (s *Store) SaveDefinition(_ context.Context, rec engine.DefinitionRecord) (engine.DefinitionRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	versions := s.defs[rec.Key]
	if n := len(versions); n > 0 && versions[n-1].Checksum == rec.Checksum {
		return versions[n-1], false, nil
	}
	rec.Version = len(versions) + 1
	rec.ID = engine.DefinitionID(rec.Key, rec.Version)
	rec.History = slices.Clone(rec.History)
	s.defs[rec.Key] = append(versions, rec)
	if s.heads[rec.Key] == nil {
		s.heads[rec.Key] = &engine.DefinitionHead{Key: rec.Key}
	}
	return rec, true, nil
}

func (s *Store) SetVersionStatus(_ context.Context, id string, c engine.VersionChange) (engine.DefinitionRecord, error) {
	key, version, ok := splitDefinitionID(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || version > len(s.defs[key]) {
		return engine.DefinitionRecord{}, fmt.Errorf("definition %q: %w", id, engine.ErrNotFound)
	}
	rec := &s.defs[key][version-1]
	if rec.Status != c.From {
		return *rec, fmt.Errorf("definition %s is %s, not %s any more: %w", id, rec.Status, c.From, engine.ErrConflict)
	}
	rec.Status = c.To
	rec.History = append(slices.Clip(rec.History), c) // readers may hold the old slice
	s.heads[key].Rev++
	return *rec, nil
}

func (s *Store) SetDefaultVersion(_ context.Context, key string, c engine.DefaultChange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.heads[key]
	switch {
	case h == nil:
		return fmt.Errorf("definition %q: %w", key, engine.ErrNotFound)
	case h.Default != c.From:
		return fmt.Errorf("the default version of %s is %d, not %d any more: %w", key, h.Default, c.From, engine.ErrConflict)
	}
	h.Default = c.To
	h.Defaults = append(slices.Clip(h.Defaults), c)
	return nil
}

func (s *Store) DefinitionHead(_ context.Context, key string) (engine.DefinitionHead, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := s.heads[key]
	if h == nil {
		return engine.DefinitionHead{}, fmt.Errorf("definition %q: %w", key, engine.ErrNotFound)
	}
	out := *h
	out.Latest = len(s.defs[key])
	return out, nil
}

func (s *Store) DefinitionHeads(ctx context.Context) ([]engine.DefinitionHead, error) {
	s.mu.RLock()
	keys := slices.Sorted(mapsKeys(s.heads))
	s.mu.RUnlock()
	out := make([]engine.DefinitionHead, 0, len(keys))
	for _, k := range keys {
		h, err := s.DefinitionHead(ctx, k)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

func (s *Store) Definition(_ context.Context, key string, version int) (engine.DefinitionRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	versions := s.defs[key]
	switch {
	case len(versions) == 0:
		return engine.DefinitionRecord{}, fmt.Errorf("definition %q: %w", key, engine.ErrNotFound)
	case version == 0:
		return versions[len(versions)-1], nil
	case version < 0 || version > len(versions):
		return engine.DefinitionRecord{}, fmt.Errorf("definition %q version %d: %w", key, version, engine.ErrNotFound)
	}
	return versions[version-1], nil
}

func (s *Store) DefinitionByID(ctx context.Context, id string) (engine.DefinitionRecord, error) {
	key, version, ok := splitDefinitionID(id)
	if !ok {
		return engine.DefinitionRecord{}, fmt.Errorf("definition %q: %w", id, engine.ErrNotFound)
	}
	return s.Definition(ctx, key, version)
}

func splitDefinitionID(id string) (string, int, bool) {
	i := len(id) - 1
	for i >= 0 && id[i] != ':' {
		i--
	}
	if i <= 0 {
		return "", 0, false
	}
	v, err := strconv.Atoi(id[i+1:])
	return id[:i], v, err == nil && v > 0
}

func (s *Store) Definitions(context.Context) ([]engine.DefinitionRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []engine.DefinitionRecord
	for _, key := range slices.Sorted(mapsKeys(s.defs)) {
		versions := s.defs[key]
		for i := len(versions) - 1; i >= 0; i-- {
			out = append(out, versions[i])
		}
	}
	return out, nil
}

func (s *Store) SetDefinitionEnabled(_ context.Context, id string, enabled bool) error {
	key, version, ok := splitDefinitionID(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || version > len(s.defs[key]) {
		return fmt.Errorf("definition %q: %w", id, engine.ErrNotFound)
	}
	s.defs[key][version-1].Enabled = enabled
	s.heads[key].Rev++
	return nil
}

func (s *Store) CreateInstance(_ context.Context, snap *engine.Snapshot) (*engine.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fencedNew(snap, snap.Epoch); err != nil {
		return nil, err
	}
	if snap.RequestID != "" {
		k := snap.DefinitionKey + "\x00" + snap.RequestID
		if id, ok := s.byRequest[k]; ok {
			return s.existing(id)
		}
		s.byRequest[k] = snap.ID
	}
	if _, _, ok := s.guardsOf(snap.ID); ok {
		return s.existing(snap.ID)
	}
	s.instances[snap.ID] = clone(snap)
	return nil, nil
}

func (s *Store) Commit(_ context.Context, b *engine.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range b.Changes {
		seq, epoch, ok := s.guardsOf(c.Snapshot.ID)
		if err := s.fenced(b.Epoch, c, epoch, ok); err != nil {
			return err
		}
		switch {
		case c.Create && ok:
			return fmt.Errorf("instance %s exists already: %w", c.Snapshot.ID, engine.ErrConflict)
		case c.Create:
			continue // a start without request id: the commit creates it
		case !ok:
			return fmt.Errorf("instance %s: %w", c.Snapshot.ID, engine.ErrNotFound)
		}
		if seq != c.PrevSeq {
			return fmt.Errorf("instance %s is at seq %d, the change expects %d: %w", c.Snapshot.ID, seq, c.PrevSeq, engine.ErrConflict)
		}
	}
	for _, c := range b.Changes {
		snap := c.Snapshot // the store owns it now
		if b.Epoch != 0 {
			snap.Epoch = b.Epoch
		}
		if err := s.unpark(snap.ID); err != nil {
			return err
		}
		if !s.dropEvents {
			s.events[snap.ID] = append(s.events[snap.ID], snap.Pending...)
		}
		snap.Pending = nil
		if s.dropFinished && snap.Status.Done() {
			s.forget(snap)
			continue
		}
		s.instances[snap.ID] = snap
		if snap.Status == engine.StatusWaiting {
			s.recent = append(s.recent, waiting{id: snap.ID, seq: snap.Seq})
		}
		for _, t := range c.Tasks {
			if _, ok := s.tasks[t.ID]; !ok {
				s.taskIDs[t.InstanceID] = append(s.taskIDs[t.InstanceID], t.ID)
			}
			s.tasks[t.ID] = t
		}
		for _, inc := range c.Incidents {
			s.incidents[inc.ID] = inc
		}
		for _, d := range c.DeadLetters {
			s.deadLetters[d.ID] = d
		}
		for _, u := range c.DeadLetterUpdates {
			if d, ok := s.deadLetters[u.ID]; ok && d.Apply(u.DeadLetterTransition) {
				s.deadLetters[u.ID] = d
			}
		}
	}
	s.parkOld()
	return nil
}

// forget removes an ended instance and what belongs to it.
func (s *Store) forget(snap *engine.Snapshot) {
	delete(s.instances, snap.ID)
	delete(s.events, snap.ID)
	if snap.RequestID != "" {
		delete(s.byRequest, snap.DefinitionKey+"\x00"+snap.RequestID)
	}
	for _, id := range s.taskIDs[snap.ID] {
		delete(s.tasks, id)
	}
	delete(s.taskIDs, snap.ID)
}

func (s *Store) Instance(_ context.Context, id string) (*engine.Snapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	snap, ok, err := s.lookup(id)
	if !ok && err == nil {
		return nil, fmt.Errorf("instance %s: %w", id, engine.ErrNotFound)
	}
	return snap, err
}

func (s *Store) Instances(_ context.Context, f engine.InstanceFilter) ([]*engine.Snapshot, string, error) {
	s.mu.RLock()
	var all []*engine.Snapshot
	for _, snap := range s.instances {
		if matchInstance(snap, f) {
			all = append(all, snap)
		}
	}
	err := s.parked.all(func(snap *engine.Snapshot, _ []engine.Task) {
		if matchInstance(snap, f) {
			all = append(all, snap)
		}
	})
	s.mu.RUnlock()
	if err != nil {
		return nil, "", err
	}
	slices.SortFunc(all, func(a, b *engine.Snapshot) int { return cmp.Compare(b.ID, a.ID) })
	page, next := paginate(all, f.Cursor, f.Limit, func(s *engine.Snapshot) string { return s.ID })
	out := make([]*engine.Snapshot, len(page))
	for i, snap := range page {
		out[i] = snap.Head()
	}
	return out, next, nil
}

func matchInstance(s *engine.Snapshot, f engine.InstanceFilter) bool {
	switch {
	case f.DefinitionKey != "" && s.DefinitionKey != f.DefinitionKey,
		f.BusinessKey != "" && s.BusinessKey != f.BusinessKey,
		f.ParentID != "" && (s.Parent == nil || s.Parent.InstanceID != f.ParentID),
		f.TriggeredBy != "" && (s.TriggeredBy == nil || s.TriggeredBy.InstanceID != f.TriggeredBy),
		len(f.Status) > 0 && !slices.Contains(f.Status, s.Status),
		!f.StartedAfter.IsZero() && !s.Started.After(f.StartedAfter),
		!f.StartedBefore.IsZero() && !s.Started.Before(f.StartedBefore),
		!f.UpdatedAfter.IsZero() && !s.Updated.After(f.UpdatedAfter):
		return false
	}
	return true
}

func (s *Store) Unfinished(ctx context.Context, fn func(*engine.Snapshot) error) error {
	s.mu.RLock()
	var list []*engine.Snapshot
	for _, snap := range s.instances {
		if !snap.Status.Done() {
			list = append(list, clone(snap))
		}
	}
	err := s.parked.all(func(snap *engine.Snapshot, _ []engine.Task) { list = append(list, snap) })
	s.mu.RUnlock()
	if err != nil {
		return err
	}
	for _, snap := range list {
		if err := fn(snap); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) Events(_ context.Context, id string, after uint64, limit int) ([]engine.Event, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	log := s.events[id]
	i, _ := slices.BinarySearchFunc(log, after+1, func(e engine.Event, seq uint64) int { return cmp.Compare(e.Seq, seq) })
	log = log[i:]
	if limit > 0 && len(log) > limit {
		log = log[:limit]
	}
	return slices.Clone(log), nil
}

func clone(s *engine.Snapshot) *engine.Snapshot {
	if s == nil {
		return nil
	}
	c := *s
	c.Tokens = slices.Clone(s.Tokens)
	c.Scopes = slices.Clone(s.Scopes)
	c.Subscriptions = slices.Clone(s.Subscriptions)
	c.Incidents = slices.Clone(s.Incidents)
	c.Tasks = slices.Clone(s.Tasks)
	c.Pending = nil
	return &c
}
