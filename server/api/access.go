package api

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/identity"
)

// Who reads what: one rule for REST, pages and the WebSocket.
//
// Operators, designers and admins read every instance. Anyone else (a
// worker) reads an instance while they hold or held one of its tasks, are a
// candidate for one (as a user or through a group), or are named, or one of
// their groups is, in its process's wf:readers. An instance someone may not
// read is "not found" to them (404, a refused subscription), so its
// existence does not leak; lists leave it out.

// ReadsAll reports whether u reads every instance.
func ReadsAll(u *identity.User) bool {
	return u.Has(identity.RoleOperator) || u.Has(identity.RoleDesigner)
}

// errNotReadable is what a denied read answers: not found, as for an
// instance that does not exist.
func errNotReadable(id string) error {
	return fmt.Errorf("instance %s: %w", id, engine.ErrNotFound)
}

// MayRead reports whether u may read snap, which may be a head (a list item).
func (s *Service) MayRead(ctx context.Context, u *identity.User, snap *engine.Snapshot) (bool, error) {
	if u == nil {
		return false, nil
	}
	if ReadsAll(u) {
		return true, nil
	}
	for i := range snap.Tasks {
		if worksOn(u, &snap.Tasks[i]) {
			return true, nil
		}
	}
	if ok, err := s.namedReader(ctx, u, snap); ok || err != nil {
		return ok, err
	}
	// Tasks done or cancelled are no longer in the snapshot.
	done, _, err := s.eng.Queries().Tasks(ctx, engine.TaskFilter{InstanceID: snap.ID})
	if err != nil {
		return false, err
	}
	for i := range done {
		if worksOn(u, &done[i]) {
			return true, nil
		}
	}
	return false, nil
}

// worksOn reports whether u holds or held t, completed it, or is among its
// candidates.
func worksOn(u *identity.User, t *engine.Task) bool {
	return t.Assignee == u.Name || t.CompletedBy == u.Name || u.Candidate(t)
}

// namedReader reports whether the process of snap names u or one of u's
// groups in wf:readers.
func (s *Service) namedReader(ctx context.Context, u *identity.User, snap *engine.Snapshot) (bool, error) {
	_, def, err := s.eng.DefinitionByID(ctx, snap.DefinitionID)
	if errors.Is(err, engine.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p := def.Process(snap.ProcessID)
	return p != nil && readerIn(u, p.Readers), nil
}

func readerIn(u *identity.User, readers []string) bool {
	for _, r := range readers {
		if r == u.Name || slices.Contains(u.Groups, r) {
			return true
		}
	}
	return false
}

// ReadInstance loads an instance for u: not found when u may not read it.
func (s *Service) ReadInstance(ctx context.Context, u *identity.User, id string) (*engine.Snapshot, error) {
	snap, err := s.eng.Instance(ctx, id)
	if err != nil {
		return nil, err
	}
	ok, err := s.MayRead(ctx, u, snap)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNotReadable(id)
	}
	return snap, nil
}

// MayReadDefinitionEvents reports whether u may follow every instance of a
// definition (a WebSocket definition subscription): those who read all, and
// the readers its main process names.
func (s *Service) MayReadDefinitionEvents(ctx context.Context, u *identity.User, key string) (bool, error) {
	_, def, err := s.eng.Definition(ctx, key, 0)
	if err != nil || u == nil {
		return false, err
	}
	if ReadsAll(u) {
		return true, nil
	}
	p := def.Main()
	return p != nil && readerIn(u, p.Readers), nil
}
