package engine

import (
	"context"
	"errors"
	"fmt"
)

// The version lifecycle: statuses change one version document at a time
// (Store.SetVersionStatus) and the default moves in the key's head
// (Store.SetDefaultVersion), both by compare-and-set. A crash between the
// two leaves the default on a version that may no longer be it; starts then
// take the highest active, enabled version below it (pickDefault), which is
// where the move was going.
//
// Starts without a version — by API, by message, signal, condition or timer
// start event, and by call activities bound to the latest — go to the
// default version. Camunda gives a key's start events to its latest
// deployment; here the default plays that part, so a rollback moves them.

// defaultMoveAttempts bounds the compare-and-set retries of a default move
// racing other moves.
const defaultMoveAttempts = 10

// DefaultVersion returns the version starts of key without a version go to:
// ErrNoDefaultVersion when no version is active and enabled at or below the
// default.
func (e *Engine) DefaultVersion(ctx context.Context, key string) (DefinitionRecord, error) {
	h, err := e.store.DefinitionHead(ctx, key)
	if err != nil {
		return DefinitionRecord{}, fmt.Errorf("definition %q: %w", key, err)
	}
	now := e.clock.Now()
	rec, ok, err := pickDefault(h, func(v int) (DefinitionRecord, bool, error) {
		if rec, ok := e.versions.get(DefinitionID(key, v), h.Rev, now); ok {
			return rec, true, nil
		}
		rec, err := e.store.Definition(ctx, key, v)
		if err == nil {
			e.versions.put(rec, h.Rev, now)
		}
		return rec, err == nil, err
	})
	if err != nil {
		return rec, err
	}
	if !ok {
		return rec, fmt.Errorf("definition %q has no default version: activate a version or roll back to one, or start a version by number: %w", key, ErrNoDefaultVersion)
	}
	return rec, nil
}

// SetVersionStatus changes the status of version v of key, as user. An
// activated version becomes the default unless keepDefault; a deprecated or
// archived default hands over to the version below it (see
// fallBackFrom).
func (e *Engine) SetVersionStatus(ctx context.Context, key string, v int, to VersionStatus, user string, keepDefault bool) (DefinitionRecord, error) {
	return e.setVersionStatus(ctx, key, v, to, user, keepDefault, "activated")
}

// setVersionStatus is SetVersionStatus giving the reason an activation
// moves the default for.
func (e *Engine) setVersionStatus(ctx context.Context, key string, v int, to VersionStatus, user string, keepDefault bool, reason string) (DefinitionRecord, error) {
	rec, err := e.store.Definition(ctx, key, v)
	if err != nil {
		return rec, fmt.Errorf("definition %q version %d: %w", key, v, err)
	}
	if !rec.Status.CanBecome(to) {
		return rec, transitionError(rec.ID, rec.Status, to)
	}
	saved, err := e.store.SetVersionStatus(ctx, rec.ID, VersionChange{At: e.clock.Now(), By: user, From: rec.Status, To: to})
	e.versions.forget(rec.ID) // also after an error: the change may have been stored
	if err != nil {
		return saved, fmt.Errorf("changing the status of %s (reload and try again): %w", rec.ID, err)
	}
	e.defs.refresh(saved)
	switch {
	case to == VersionActive && !keepDefault:
		err = e.makeDefault(ctx, key, saved.Version, user, reason)
	case to != VersionActive:
		err = e.fallBackFrom(ctx, key, saved.Version, user, string(to))
	}
	return saved, err
}

// Rollback makes version v of key the default, reactivating it when it is
// deprecated. Drafts, archived and disabled versions are refused.
func (e *Engine) Rollback(ctx context.Context, key string, v int, user string) (DefinitionRecord, error) {
	rec, err := e.store.Definition(ctx, key, v)
	if err != nil {
		return rec, fmt.Errorf("definition %q version %d: %w", key, v, err)
	}
	switch {
	case !rec.Enabled:
		return rec, fmt.Errorf("version %s is disabled: enable it, then make it the default: %w", rec.ID, ErrNotStartable)
	case rec.Status == VersionDeprecated:
		return e.setVersionStatus(ctx, key, v, VersionActive, user, false, "rollback")
	case rec.Status != VersionActive:
		return rec, fmt.Errorf("version %s is %s and cannot be the default: only active or deprecated versions can (unarchive or activate it first): %w", rec.ID, rec.Status, ErrVersionTransition)
	}
	return rec, e.makeDefault(ctx, key, v, user, "rollback")
}

// SetDefinitionEnabled enables or disables starting instances of a
// definition version (its id, key:version). Disabling the default hands it
// over to the version below (fallBackFrom); enabling moves nothing.
func (e *Engine) SetDefinitionEnabled(ctx context.Context, id string, enabled bool, user string) error {
	err := e.store.SetDefinitionEnabled(ctx, id, enabled)
	e.versions.forget(id) // also after an error: the change may have been stored
	if err != nil {
		return err
	}
	rec, err := e.store.DefinitionByID(ctx, id)
	if err != nil {
		return err
	}
	e.defs.refresh(rec)
	if enabled {
		return nil
	}
	return e.fallBackFrom(ctx, rec.Key, rec.Version, user, "disabled")
}

// makeDefault moves the default of key to version v.
func (e *Engine) makeDefault(ctx context.Context, key string, v int, user, reason string) error {
	for range defaultMoveAttempts {
		h, err := e.store.DefinitionHead(ctx, key)
		if err != nil {
			return err
		}
		if h.Default == v {
			return e.defaultMoved(ctx, key)
		}
		err = e.store.SetDefaultVersion(ctx, key, DefaultChange{At: e.clock.Now(), By: user, From: h.Default, To: v, Reason: reason})
		if err == nil {
			return e.defaultMoved(ctx, key)
		}
		if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("making version %d the default of %q: the default kept changing meanwhile, try again: %w", v, key, ErrConflict)
}

// fallBackFrom hands the default of key, when it is version v, to the
// highest active and enabled version below v, or to none. A default another
// change moved meanwhile stays where it is.
func (e *Engine) fallBackFrom(ctx context.Context, key string, v int, user, reason string) error {
	h, err := e.store.DefinitionHead(ctx, key)
	if err != nil || h.Default != v {
		return err
	}
	below := h
	below.Default = v - 1
	next, _, err := pickDefault(below, func(v int) (DefinitionRecord, bool, error) {
		rec, err := e.store.Definition(ctx, key, v)
		return rec, err == nil, err
	})
	if err != nil {
		return err
	}
	err = e.store.SetDefaultVersion(ctx, key, DefaultChange{At: e.clock.Now(), By: user, From: v, To: next.Version, Reason: fmt.Sprintf("v%d %s", v, reason)})
	if err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return e.defaultMoved(ctx, key)
}

// defaultMoved gives the schedules of the timer start events of key to its
// default version (none: they are deleted).
func (e *Engine) defaultMoved(ctx context.Context, key string) error {
	return e.syncTimerStarts(ctx, key)
}

// refresh keeps a cached version's record up to date after a change of
// its status or switch.
func (d *deployments) refresh(rec DefinitionRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if dep := d.byId[rec.ID]; dep != nil {
		dep.rec = rec
	}
}

// defaultVersions returns the default version of every key that has one.
func (e *Engine) defaultVersions(ctx context.Context) ([]DefinitionRecord, error) {
	recs, err := e.store.Definitions(ctx)
	if err != nil {
		return nil, err
	}
	heads, err := e.store.DefinitionHeads(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]DefinitionRecord, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	var out []DefinitionRecord
	for _, h := range heads {
		rec, ok, _ := pickDefault(h, func(v int) (DefinitionRecord, bool, error) {
			rec, ok := byID[DefinitionID(h.Key, v)]
			return rec, ok, nil
		})
		if ok {
			out = append(out, rec)
		}
	}
	return out, nil
}

// Lifecycle is a definition's versions with their statuses and its
// default: what the API and the definition page show.
type Lifecycle struct {
	Head DefinitionHead
	// Default is the version starts without a version go to; 0 none.
	Default  int
	Versions []DefinitionRecord // newest first
}

// Lifecycle returns the versions of key and its default version.
func (e *Engine) Lifecycle(ctx context.Context, key string) (Lifecycle, error) {
	h, err := e.store.DefinitionHead(ctx, key)
	if err != nil {
		return Lifecycle{}, fmt.Errorf("definition %q: %w", key, err)
	}
	l := Lifecycle{Head: h}
	for v := h.Latest; v >= 1; v-- {
		rec, err := e.store.Definition(ctx, key, v)
		if err != nil {
			return l, err
		}
		l.Versions = append(l.Versions, rec)
	}
	dflt, ok, _ := pickDefault(h, func(v int) (DefinitionRecord, bool, error) {
		if v > h.Latest {
			return DefinitionRecord{}, false, nil
		}
		return l.Versions[h.Latest-v], true, nil
	})
	if ok {
		l.Default = dflt.Version
	}
	return l, nil
}
