package engine

import (
	"slices"
	"strings"
	"time"
)

// DeadLetter is a job whose retries ran out, with what is needed to replay
// it and the history of what became of it.
//
// A letter is pending while its job's incident is open. Replaying it
// resolves the incident: the job runs again with fresh retries and the
// letter is replaying, until the job succeeds (replayed) or fails for good
// again (pending, with the new error and incident). An operator who gives up
// on a pending letter discards it: nothing is resolved and the incident
// stays open, so the instance still shows what stopped it (cancel the
// instance, or retry the incident, as a separate decision). A letter whose
// token goes away (the instance cancelled, the task interrupted or moved) is
// cancelled. Replayed, discarded and cancelled letters are settled: they do
// not change again and stay listed for audit until deleted or purged.
type DeadLetter struct {
	ID         string           `json:"id" bson:"_id"`
	InstanceID string           `json:"instanceId" bson:"instance_id"`
	Definition string           `json:"definition,omitempty" bson:"definition_key,omitempty"`
	ElementID  string           `json:"elementId" bson:"element_id"`
	IncidentID string           `json:"incidentId" bson:"incident_id"` // the latest incident its job raised
	JobType    string           `json:"jobType" bson:"job_type"`
	Attempts   int              `json:"attempts" bson:"attempts"` // every attempt, replays included
	LastError  string           `json:"lastError" bson:"last_error"`
	Errors     []string         `json:"errors" bson:"errors"` // the error of the first failure and of each failed replay
	Created    time.Time        `json:"createdAt" bson:"created_at"`
	Status     DeadLetterStatus `json:"status" bson:"status"`
	Settled    *time.Time       `json:"settledAt,omitempty" bson:"settled_at,omitempty"`
	// History lists every status the letter had, who set it and when.
	History []DeadLetterTransition `json:"history" bson:"history,omitempty"`
}

// DeadLetterStatus is where a dead letter stands (see DeadLetter).
type DeadLetterStatus string

const (
	DeadLetterPending   DeadLetterStatus = "pending"   // its incident is open: replay or discard it
	DeadLetterReplaying DeadLetterStatus = "replaying" // its incident was resolved: the job runs again
	DeadLetterReplayed  DeadLetterStatus = "replayed"  // the replayed job succeeded, or threw a BPMN error the process handles
	DeadLetterDiscarded DeadLetterStatus = "discarded" // an operator gave up on it; its incident stays open
	DeadLetterCancelled DeadLetterStatus = "cancelled" // its token went away: nothing to replay
)

// DeadLetterStatuses are the statuses in the order a letter goes through them.
var DeadLetterStatuses = []DeadLetterStatus{DeadLetterPending, DeadLetterReplaying, DeadLetterReplayed, DeadLetterDiscarded, DeadLetterCancelled}

// SettledDeadLetters are the statuses a letter keeps for good: what purge
// removes by default.
var SettledDeadLetters = []DeadLetterStatus{DeadLetterReplayed, DeadLetterDiscarded, DeadLetterCancelled}

// Settled reports whether a letter with this status changes no more.
func (s DeadLetterStatus) Settled() bool { return slices.Contains(SettledDeadLetters, s) }

// From lists the statuses a letter may move to s from. A store applies a
// transition only from these, so a settled letter stays settled whatever
// arrives late, and applying a transition twice changes nothing.
func (s DeadLetterStatus) From() []DeadLetterStatus {
	switch s {
	case DeadLetterPending: // its replay failed for good
		return []DeadLetterStatus{DeadLetterReplaying}
	case DeadLetterReplaying, DeadLetterDiscarded:
		return []DeadLetterStatus{DeadLetterPending}
	case DeadLetterReplayed:
		return []DeadLetterStatus{DeadLetterReplaying}
	case DeadLetterCancelled:
		return []DeadLetterStatus{DeadLetterPending, DeadLetterReplaying}
	}
	return nil
}

// DeadLetterTransition is one step of a dead letter's history.
type DeadLetterTransition struct {
	Status DeadLetterStatus `json:"status" bson:"status"`
	At     time.Time        `json:"at" bson:"at"`
	By     string           `json:"by,omitempty" bson:"by,omitempty"` // the user who asked; empty when the engine moved it
	// A failure (pending): its error, the incident it raised and the
	// attempts it made.
	Error      string `json:"error,omitempty" bson:"error,omitempty"`
	IncidentID string `json:"incidentId,omitempty" bson:"incident_id,omitempty"`
	Attempts   int    `json:"attempts,omitempty" bson:"attempts,omitempty"`
}

// DeadLetterUpdate moves the dead letter ID by a transition; an instance's
// change carries them (Change.DeadLetterUpdates).
type DeadLetterUpdate struct {
	ID string
	DeadLetterTransition
}

// Apply moves the letter by tr and reports whether it did: it does not when
// the letter's status is not one tr may follow (DeadLetterStatus.From).
// Stores apply updates with it, or with a query that does the same.
func (d *DeadLetter) Apply(tr DeadLetterTransition) bool {
	if !slices.Contains(tr.Status.From(), d.Status) {
		return false
	}
	d.Status = tr.Status
	d.History = append(slices.Clip(d.History), tr)
	if tr.Status.Settled() {
		at := tr.At
		d.Settled = &at
	}
	if tr.Status == DeadLetterPending {
		d.LastError, d.IncidentID = tr.Error, tr.IncidentID
		d.Errors = append(slices.Clip(d.Errors), tr.Error)
		d.Attempts += tr.Attempts
	}
	return true
}

// DeadLetterFilter selects dead letters; every field is optional.
type DeadLetterFilter struct {
	InstanceID string
	Definition string // the definition key
	ElementID  string
	JobType    string
	// Error is text one of its errors contains, in any case.
	Error string
	// CreatedFrom and CreatedTo bound when it was made: from inclusive, to
	// exclusive; zero is unbounded.
	CreatedFrom, CreatedTo time.Time
	// SettledBefore selects letters settled before it (none unsettled).
	SettledBefore time.Time
	Status        []DeadLetterStatus // any of these; none: any status
	Limit         int
}

// Matches reports whether f selects d. Stores that filter in memory use it;
// the others run a query that selects the same.
func (f DeadLetterFilter) Matches(d DeadLetter) bool {
	switch {
	case f.InstanceID != "" && d.InstanceID != f.InstanceID,
		f.Definition != "" && d.Definition != f.Definition,
		f.ElementID != "" && d.ElementID != f.ElementID,
		f.JobType != "" && d.JobType != f.JobType,
		len(f.Status) > 0 && !slices.Contains(f.Status, d.Status),
		!f.CreatedFrom.IsZero() && d.Created.Before(f.CreatedFrom),
		!f.CreatedTo.IsZero() && !d.Created.Before(f.CreatedTo),
		!f.SettledBefore.IsZero() && (d.Settled == nil || !d.Settled.Before(f.SettledBefore)):
		return false
	}
	if f.Error == "" {
		return true
	}
	want := strings.ToLower(f.Error)
	return slices.ContainsFunc(d.Errors, func(e string) bool { return strings.Contains(strings.ToLower(e), want) })
}
