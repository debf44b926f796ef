package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func testOpenTasks(t *testing.T, s engine.Store) {
	c := ctx(t)
	mk := func(id string, st engine.TaskStatus) engine.Task {
		return engine.Task{
			ID: id, InstanceID: "i-1", DefinitionKey: "order", ElementID: "review", Name: id,
			CandidateGroups: []string{"clerks"}, Status: st, Created: base, BusinessKey: "order-7",
			FollowUp: ptr(at(time.Hour)), InboxVariables: map[string]any{"amount": 12.5},
		}
	}
	addTasks(t, s, mk("t-1", engine.TaskOpen), mk("t-2", engine.TaskCompleted), mk("t-3", engine.TaskOpen))
	var got []engine.Task
	require.NoError(t, s.OpenTasks(c, func(tk engine.Task) error { got = append(got, tk); return nil }))
	slices.SortFunc(got, func(a, b engine.Task) int { return strings.Compare(a.ID, b.ID) })
	require.Len(t, got, 2)
	require.Equal(t, "t-1", got[0].ID)
	require.Equal(t, "order-7", got[0].BusinessKey)
	require.Equal(t, map[string]any{"amount": 12.5}, got[0].InboxVariables)
	require.True(t, at(time.Hour).Equal(*got[0].FollowUp))
	require.Equal(t, "t-3", got[1].ID)
}

func testSavedFilters(t *testing.T, s engine.Store) {
	c := ctx(t)
	list := func(user string) []string {
		fs, err := s.Filters(c, user)
		require.NoError(t, err)
		out := []string{}
		for _, f := range fs {
			out = append(out, f.Name+"="+f.Query)
		}
		return out
	}
	require.Empty(t, list("ada"))
	require.NoError(t, s.SaveFilter(c, engine.SavedFilter{User: "ada", Name: "urgent", Query: "sort=due", Created: base}))
	require.NoError(t, s.SaveFilter(c, engine.SavedFilter{User: "ada", Name: "big", Query: "q=1000", Created: base}))
	require.NoError(t, s.SaveFilter(c, engine.SavedFilter{User: "bob", Name: "urgent", Query: "filter=mine", Created: base}))
	require.NoError(t, s.SaveFilter(c, engine.SavedFilter{User: "ada", Name: "urgent", Query: "sort=due&filter=overdue", Created: base}))
	require.Equal(t, []string{"big=q=1000", "urgent=sort=due&filter=overdue"}, list("ada"), "by name, the same name replaced")
	require.Equal(t, []string{"urgent=filter=mine"}, list("bob"))
	require.NoError(t, s.DeleteFilter(c, "ada", "big"))
	require.ErrorIs(t, s.DeleteFilter(c, "ada", "big"), engine.ErrNotFound)
	require.Equal(t, []string{"urgent=sort=due&filter=overdue"}, list("ada"))
}
