package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// testVersionLifecycle checks the version statuses, their history and the
// default version: both change by compare-and-set and survive reads
// through whatever the store caches.
func testVersionLifecycle(t *testing.T, s engine.Store) {
	c := ctx(t)
	first := def("order", "a")
	first.Status = engine.VersionActive
	first.ChangeSummary = "first cut"
	first.History = []engine.VersionChange{{At: base, By: "alice", To: engine.VersionActive}}
	v1, _, err := s.SaveDefinition(c, first)
	require.NoError(t, err)
	require.Equal(t, engine.VersionActive, v1.Status)
	second := def("order", "b")
	second.Status = engine.VersionDraft
	_, _, err = s.SaveDefinition(c, second)
	require.NoError(t, err)

	h, err := s.DefinitionHead(c, "order")
	require.NoError(t, err)
	require.Equal(t, engine.DefinitionHead{Key: "order", Latest: 2}, h, "no default until one is set")
	_, err = s.DefinitionHead(c, "nope")
	require.ErrorIs(t, err, engine.ErrNotFound)

	_, err = s.Definition(c, "order", 0) // a store may cache the latest now
	require.NoError(t, err)
	change := engine.VersionChange{At: at(time.Second), By: "bob", From: engine.VersionDraft, To: engine.VersionActive}
	got, err := s.SetVersionStatus(c, "order:2", change)
	require.NoError(t, err)
	require.Equal(t, engine.VersionActive, got.Status)
	require.Equal(t, []engine.VersionChange{change}, got.History)
	h = requireRevRaised(t, s, h, "a status change")
	require.NoError(t, s.SetDefinitionEnabled(c, "order:1", false))
	h = requireRevRaised(t, s, h, "disabling a version")
	require.NoError(t, s.SetDefinitionEnabled(c, "order:1", true))
	requireRevRaised(t, s, h, "enabling a version")
	_, err = s.SetVersionStatus(c, "order:2", change)
	require.ErrorIs(t, err, engine.ErrConflict, "the version is no longer a draft")
	_, err = s.SetVersionStatus(c, "order:9", change)
	require.ErrorIs(t, err, engine.ErrNotFound)
	latest, err := s.Definition(c, "order", 0)
	require.NoError(t, err)
	require.Equal(t, engine.VersionActive, latest.Status)
	one, err := s.DefinitionByID(c, "order:1")
	require.NoError(t, err)
	require.Equal(t, "first cut", one.ChangeSummary)
	require.Len(t, one.History, 1)
	require.True(t, one.History[0].At.Equal(base))

	move := engine.DefaultChange{At: at(2 * time.Second), By: "bob", From: 0, To: 2, Reason: "deployed"}
	require.NoError(t, s.SetDefaultVersion(c, "order", move))
	require.ErrorIs(t, s.SetDefaultVersion(c, "order", engine.DefaultChange{At: at(3 * time.Second), From: 0, To: 1}), engine.ErrConflict)
	back := engine.DefaultChange{At: at(3 * time.Second), By: "carol", From: 2, To: 1, Reason: "rollback"}
	require.NoError(t, s.SetDefaultVersion(c, "order", back))
	require.ErrorIs(t, s.SetDefaultVersion(c, "missing", move), engine.ErrNotFound)

	h, err = s.DefinitionHead(c, "order")
	require.NoError(t, err)
	require.Equal(t, 1, h.Default)
	require.Equal(t, 2, h.Latest)
	require.Len(t, h.Defaults, 2)
	require.Equal(t, "rollback", h.Defaults[1].Reason)
	require.Equal(t, 2, h.Defaults[1].From)
	require.True(t, h.Defaults[1].At.Equal(at(3*time.Second)))

	_, _, err = s.SaveDefinition(c, def("invoice", "x"))
	require.NoError(t, err)
	heads, err := s.DefinitionHeads(c)
	require.NoError(t, err)
	require.Len(t, heads, 2)
	require.Equal(t, "invoice", heads[0].Key)
	require.Equal(t, 1, heads[1].Default)
}

// requireRevRaised reads the head of before's key and checks that what
// changed a version raised its Rev (engine.DefinitionHead.Rev).
func requireRevRaised(t *testing.T, s engine.Store, before engine.DefinitionHead, what string) engine.DefinitionHead {
	t.Helper()
	h, err := s.DefinitionHead(ctx(t), before.Key)
	require.NoError(t, err)
	require.Greater(t, h.Rev, before.Rev, "%s raises the head's Rev", what)
	return h
}
