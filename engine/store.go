package engine

import (
	"context"
	"errors"
	"time"
)

// Store errors that implementations return (wrapped or not).
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict") // a sequence guard or unique index said no
	ErrDuplicate = errors.New("duplicate")
	// ErrUnavailable means the store did not answer (down, unreachable, timed
	// out): nothing was changed by the failed call; try again later.
	ErrUnavailable = errors.New("store unavailable")
)

// Store is what the engine needs from persistence. Implementations:
// engine/store/memstore (in memory) and engine/store/mongostore (MongoDB).
//
// No operation needs a multi-document transaction. The instance snapshot is
// the commit point of a state change: Commit writes it with a sequence guard
// together with the events it produced (Snapshot.Pending), then appends those
// events to the log (idempotent by (instance_id, seq)) and updates the
// projections. Recover re-appends pending events a crash left out of the log,
// so the log never has a gap.
type Store interface {
	Queries

	// SaveDefinition stores a new version of a definition unless the latest
	// version of the key has the same checksum, in which case it returns that
	// one with created false.
	SaveDefinition(ctx context.Context, rec DefinitionRecord) (saved DefinitionRecord, created bool, err error)
	// SetDefinitionEnabled enables or disables starting instances of a version.
	SetDefinitionEnabled(ctx context.Context, id string, enabled bool) error
	// SetVersionStatus moves version id from c.From to c.To and appends c
	// to its history in one atomic write, and returns the version as
	// stored: ErrConflict when its status is no longer c.From.
	SetVersionStatus(ctx context.Context, id string, c VersionChange) (DefinitionRecord, error)
	// SetDefaultVersion moves the default version of key from c.From to
	// c.To and appends c to the head's changes, compare-and-set in one
	// write: ErrConflict when the default is no longer c.From.
	SetDefaultVersion(ctx context.Context, key string, c DefaultChange) error
	// SaveForm stores a new version of a form unless the latest version of
	// its id has the same checksum, in which case it returns that one with
	// created false.
	SaveForm(ctx context.Context, rec FormRecord) (saved FormRecord, created bool, err error)
	// CreateInstance stores a new instance before it runs, for idempotent
	// starts: when one with the same definition key and request id exists, it
	// returns that one and ErrDuplicate. A start without a request id skips it:
	// its first Commit creates the instance.
	CreateInstance(ctx context.Context, snap *Snapshot) (*Snapshot, error)
	// Commit stores what one applier batch changed, in the order given. A
	// change with Create set stores a new instance. The
	// store owns the batch's snapshots afterwards, but not the Pending slices
	// (the engine reuses them): copy the events it keeps.
	Commit(ctx context.Context, b *Batch) error
	// Unfinished calls fn for every instance that is not completed, failed or
	// cancelled, after making sure the log holds its pending events.
	Unfinished(ctx context.Context, fn func(*Snapshot) error) error
	// SaveFilter stores a user's named inbox filter, replacing the one of
	// the same name.
	SaveFilter(ctx context.Context, f SavedFilter) error
	// DeleteFilter removes a user's filter; ErrNotFound when there is none.
	DeleteFilter(ctx context.Context, user, name string) error
	// DeleteDeadLetter removes one dead letter.
	DeleteDeadLetter(ctx context.Context, id string) error
	// DeleteDeadLetters removes the dead letters f selects (its Limit aside),
	// each on its own, and says how many.
	DeleteDeadLetters(ctx context.Context, f DeadLetterFilter) (int, error)
	// CreateSchedule stores a new schedule; ErrDuplicate when its id is taken.
	CreateSchedule(ctx context.Context, s Schedule) error
	// UpdateSchedule replaces a schedule whose stored Rev is prevRev, in one
	// single-document write: of two schedulers claiming the same tick one
	// wins and the other gets ErrConflict. ErrNotFound when it is gone.
	UpdateSchedule(ctx context.Context, s Schedule, prevRev int64) error
	// UpdateSchedules is UpdateSchedule for many schedules, each a
	// different one, in few store commands: a tick when thousands of
	// schedules are due claims them together rather than one write each.
	// Each update stands alone, there is no transaction; errs[i] is what
	// UpdateSchedule would have returned for updates[i].
	UpdateSchedules(ctx context.Context, updates []ScheduleUpdate) (errs []error)
	// DeleteSchedule removes a schedule; ErrNotFound when there is none.
	DeleteSchedule(ctx context.Context, id string) error
}

// Queries is the read side of the store: what the server, package tasks
// and the live hub read (through Engine.Queries). Every change goes through
// the engine.
type Queries interface {
	// Definition returns a version of a key; version 0 means the latest.
	Definition(ctx context.Context, key string, version int) (DefinitionRecord, error)
	// DefinitionByID returns a version by its id.
	DefinitionByID(ctx context.Context, id string) (DefinitionRecord, error)
	// Definitions lists every version of every key, newest first per key.
	Definitions(ctx context.Context) ([]DefinitionRecord, error)
	// DefinitionHead returns the head of a key (ErrNotFound for none).
	DefinitionHead(ctx context.Context, key string) (DefinitionHead, error)
	// DefinitionHeads returns the head of every key, by key.
	DefinitionHeads(ctx context.Context) ([]DefinitionHead, error)
	// Schedule returns a stored schedule.
	Schedule(ctx context.Context, id string) (Schedule, error)
	// Schedules lists the stored schedules by id.
	Schedules(ctx context.Context) ([]Schedule, error)
	// FormVersions lists every version of a form, newest first; none is ErrNotFound.
	FormVersions(ctx context.Context, formID string) ([]FormRecord, error)
	// Forms lists the latest version of every form, by id.
	Forms(ctx context.Context) ([]FormRecord, error)
	// Instance returns the latest committed snapshot of an instance.
	Instance(ctx context.Context, id string) (*Snapshot, error)
	// Instances lists the heads of the instances matching f (see
	// Snapshot.Head: no variables), newest first, one page at a time, so a
	// list costs the same whatever the instances' variables weigh.
	Instances(ctx context.Context, f InstanceFilter) (page []*Snapshot, next string, err error)
	// Events returns the events of an instance with Seq > after, in order.
	Events(ctx context.Context, instanceID string, after uint64, limit int) ([]Event, error)
	// Tasks lists inbox tasks matching f, by priority then due date (or by
	// due date then priority with f.ByDue).
	Tasks(ctx context.Context, f TaskFilter) (page []Task, next string, err error)
	// Task returns one task.
	Task(ctx context.Context, id string) (Task, error)
	// OpenTasks calls fn for every open task, in no particular order, with
	// one pass over the store (the inbox projection loads itself with it).
	OpenTasks(ctx context.Context, fn func(Task) error) error
	// Filters lists a user's saved filters by name.
	Filters(ctx context.Context, user string) ([]SavedFilter, error)
	// Incidents lists incidents matching f.
	Incidents(ctx context.Context, f IncidentFilter) ([]Incident, error)
	// DeadLetters lists dead letters, newest first.
	DeadLetters(ctx context.Context, f DeadLetterFilter) ([]DeadLetter, error)
	// CountDeadLetters counts the dead letters f selects (its Limit aside).
	CountDeadLetters(ctx context.Context, f DeadLetterFilter) (int, error)
	// DeadLetter returns one dead letter by id.
	DeadLetter(ctx context.Context, id string) (DeadLetter, error)
	// Incident returns one incident, open or closed, by id.
	Incident(ctx context.Context, id string) (Incident, error)
	// Ping reports whether the store answers.
	Ping(ctx context.Context) error
}

// DefinitionRecord is one deployed, immutable version of a definition.
type DefinitionRecord struct {
	ID       string `json:"id" bson:"_id"` // key:version
	Key      string `json:"key" bson:"key"`
	Version  int    `json:"version" bson:"version"`
	Name     string `json:"name" bson:"name"`
	Format   string `json:"format" bson:"format"`
	Checksum string `json:"checksum" bson:"checksum"`
	Source   []byte `json:"-" bson:"source"`
	// Enabled is the operator's switch on starts, apart from the status
	// (like Camunda's suspension): a disabled version starts nothing.
	Enabled bool          `json:"enabled" bson:"enabled"`
	Status  VersionStatus `json:"status" bson:"status"`
	// ChangeSummary is what the deployer said changed in this version.
	ChangeSummary string `json:"changeSummary,omitempty" bson:"change_summary,omitempty"`
	// History is every change of its status, its deployment first.
	History   []VersionChange `json:"history,omitempty" bson:"history,omitempty"`
	Deployed  time.Time       `json:"deployedAt" bson:"deployed_at"`
	Deployer  string          `json:"deployedBy,omitempty" bson:"deployer,omitempty"`
	Processes []string        `json:"processes" bson:"processes"`
	// VersionTag is the version tag of its main process, if any.
	VersionTag string `json:"versionTag,omitempty" bson:"version_tag,omitempty"`
}

// Batch is what one applier round changed: per instance, in application order.
type Batch struct {
	Changes []Change
	// Epoch, when not zero, fences the batch: every change's instance must
	// hold an epoch no newer (Snapshot.Epoch), and is stamped with this
	// one; otherwise the change fails with ErrFenced (lease.go).
	Epoch int64
	// LeaseFresh, when set, says whether the batch's partition lease was
	// written less than half its TTL ago: no other replica can hold it
	// (with clocks less than half the TTL apart). Asked once the batch's new
	// instances are stored, it tells that no other replica could have taken
	// the partition before they were, so a store need not read the lease
	// to check them. (Asked before, a replica paused in between could store
	// them after a takeover.) A store may check anyway.
	LeaseFresh func() bool
}

// Change is one instance's new snapshot plus the projections it touched.
// Snapshot.Pending holds the events the change produced.
type Change struct {
	Snapshot *Snapshot
	PrevSeq  uint64 // the sequence the stored snapshot must have (the guard)
	// Create says the instance is not stored yet and this change stores it:
	// the first commit of a start without request id. Another instance
	// stored under the same id makes it a conflict.
	Create      bool
	Tasks       []Task
	Incidents   []Incident
	DeadLetters []DeadLetter
	// DeadLetterUpdates move stored dead letters (or those of DeadLetters)
	// along, in order, each only from a status it may follow
	// (DeadLetter.Apply).
	DeadLetterUpdates []DeadLetterUpdate
}

// InstanceFilter selects instances.
type InstanceFilter struct {
	DefinitionKey string
	Status        []Status
	BusinessKey   string
	ParentID      string // instances a call activity of this instance started
	TriggeredBy   string // instances the triggers of this instance started (chain.go)
	StartedAfter  time.Time
	StartedBefore time.Time
	Cursor        string
	Limit         int
	// UpdatedAfter selects the instances committed after it (Snapshot.Updated):
	// what the live hub of one replica polls for other replicas' events.
	UpdatedAfter time.Time
}

// TaskFilter selects inbox tasks. A task matches the user filter when it is
// assigned to User, or unassigned with User or one of Groups among its candidates.
type TaskFilter struct {
	InstanceID string
	Assignee   string
	User       string
	Groups     []string
	Status     TaskStatus // empty: any
	// ByDue orders by due date (soonest first, none last), then priority;
	// by default the order is priority (highest first), then due date.
	ByDue  bool
	Cursor string
	Limit  int
}

// SavedFilter is an inbox filter a user named and kept: Query is the
// inbox's query string (filter, search, sort...).
type SavedFilter struct {
	ID      string    `json:"-" bson:"_id"` // user and name
	User    string    `json:"user" bson:"user"`
	Name    string    `json:"name" bson:"name"`
	Query   string    `json:"query" bson:"query"`
	Created time.Time `json:"createdAt" bson:"created_at"`
}

// SavedFilterID is the id of a user's filter name.
func SavedFilterID(user, name string) string { return user + "\x1f" + name }

// IncidentFilter selects incidents.
type IncidentFilter struct {
	InstanceID string
	Open       bool
}
