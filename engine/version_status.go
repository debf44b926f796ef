package engine

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// VersionStatus is where a definition version is in its life. A draft waits
// to be activated and starts nothing; an active version starts instances
// and may be the default; a deprecated one still starts instances asked for
// by version, with a warning; an archived one starts nothing.
type VersionStatus string

const (
	VersionDraft      VersionStatus = "draft"
	VersionActive     VersionStatus = "active"
	VersionDeprecated VersionStatus = "deprecated"
	VersionArchived   VersionStatus = "archived"
)

// Errors of the version lifecycle; the server answers 409 to each.
var (
	// ErrVersionTransition: the status cannot change from what it is to
	// what was asked (VersionStatus.CanBecome).
	ErrVersionTransition = errors.New("version status cannot change so")
	// ErrNotStartable: the version is a draft or archived.
	ErrNotStartable = errors.New("version does not start instances")
	// ErrNoDefaultVersion: a start without a version found no active,
	// enabled default version.
	ErrNoDefaultVersion = errors.New("no default version")
)

// transitions are the changes of status a version may make.
var transitions = map[VersionStatus][]VersionStatus{
	VersionDraft:      {VersionActive},
	VersionActive:     {VersionDeprecated, VersionArchived},
	VersionDeprecated: {VersionActive, VersionArchived},
	VersionArchived:   {VersionDeprecated},
}

// CanBecome reports whether a version may go from s to to.
func (s VersionStatus) CanBecome(to VersionStatus) bool {
	return slices.Contains(transitions[s], to)
}

// Valid reports whether s is one of the four statuses.
func (s VersionStatus) Valid() bool {
	_, ok := transitions[s]
	return ok
}

// startable reports whether a version in s starts instances.
func (s VersionStatus) startable() bool { return s == VersionActive || s == VersionDeprecated }

func transitionError(id string, from, to VersionStatus) error {
	if !to.Valid() {
		return fmt.Errorf("status %q is not a version status: use draft, active, deprecated or archived: %w", to, ErrInvalidInput)
	}
	allowed := transitions[from]
	return fmt.Errorf("version %s is %s and cannot become %s (from %s it may become %v): %w", id, from, to, from, allowed, ErrVersionTransition)
}

// VersionChange is one change of a version's status, kept with the version
// for audit; the first one is its deployment (From empty).
type VersionChange struct {
	At   time.Time     `json:"at" bson:"at"`
	By   string        `json:"by,omitempty" bson:"by,omitempty"`
	From VersionStatus `json:"from,omitempty" bson:"from,omitempty"`
	To   VersionStatus `json:"to" bson:"to"`
}

// DefinitionHead is the one document per definition key: its latest
// version and its default version, the one starts without a version go to,
// with every change of the default for audit. The default moves by
// compare-and-set (Store.SetDefaultVersion).
type DefinitionHead struct {
	Key    string `json:"key" bson:"_id"`
	Latest int    `json:"latest" bson:"version"`
	// Default is the default version; 0 none. When that version is not
	// active and enabled (a change not yet followed by the move of the
	// default), starts take the highest such version below it.
	Default  int             `json:"default" bson:"default"`
	Defaults []DefaultChange `json:"defaultChanges,omitempty" bson:"defaults,omitempty"`
	// Rev rises after every change of a version's status or enabled flag
	// (Store.SetVersionStatus, Store.SetDefinitionEnabled): a version record
	// read at the head's current Rev is still current (versionRecords).
	Rev int64 `json:"-" bson:"rev,omitempty"`
}

// DefaultChange is one move of a key's default version.
type DefaultChange struct {
	At     time.Time `json:"at" bson:"at"`
	By     string    `json:"by,omitempty" bson:"by,omitempty"`
	From   int       `json:"from" bson:"from"`
	To     int       `json:"to" bson:"to"`
	Reason string    `json:"reason,omitempty" bson:"reason,omitempty"`
}

// defaultable reports whether rec may be the default version.
func defaultable(rec DefinitionRecord) bool { return rec.Status == VersionActive && rec.Enabled }

// pickDefault is the version starts without a version go to: the head's
// default when it is active and enabled, else the highest such version
// below it. version looks a version up (false: none).
func pickDefault(h DefinitionHead, version func(v int) (DefinitionRecord, bool, error)) (DefinitionRecord, bool, error) {
	for v := h.Default; v >= 1; v-- {
		rec, ok, err := version(v)
		if err != nil {
			return rec, false, err
		}
		if ok && defaultable(rec) {
			return rec, true, nil
		}
	}
	return DefinitionRecord{}, false, nil
}
