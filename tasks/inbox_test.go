package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/tasks"
)

var t0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

type taskList []engine.Task

func (l taskList) OpenTasks(_ context.Context, fn func(engine.Task) error) error {
	for _, t := range l {
		if t.Status == engine.TaskOpen {
			if err := fn(t); err != nil {
				return err
			}
		}
	}
	return nil
}

func task(id string, mod func(*engine.Task)) engine.Task {
	t := engine.Task{
		ID: id, InstanceID: "i-" + id, DefinitionKey: "expense", Name: "Review " + id, Status: engine.TaskOpen,
		CandidateGroups: []string{"managers"}, Priority: 50, Created: t0,
	}
	if mod != nil {
		mod(&t)
	}
	return t
}

func ids(p tasks.InboxPage) []string {
	out := []string{}
	for _, t := range p.Tasks {
		out = append(out, t.ID)
	}
	return out
}

func TestInboxQueries(t *testing.T) {
	t.Parallel()
	due := func(h int) *time.Time { d := t0.Add(time.Duration(h) * time.Hour); return &d }
	in := tasks.NewInbox()
	require.NoError(t, in.Load(t.Context(), taskList{
		task("a", func(t *engine.Task) { t.Assignee = "ada"; t.Priority = 10 }),
		task("b", func(t *engine.Task) { t.Priority = 90; t.Due = due(5); t.BusinessKey = "INV-7" }),
		task("c", func(t *engine.Task) {
			t.Due = due(1)
			t.Created = t0.Add(time.Hour)
			t.InboxVariables = map[string]any{"amount": 1200.0}
		}),
		task("d", func(t *engine.Task) { t.Assignee = "bob"; t.FollowUp = due(2) }),
		task("e", func(t *engine.Task) { t.CandidateGroups = []string{"sales"}; t.DefinitionKey = "order" }),
		task("f", func(t *engine.Task) { t.Status = engine.TaskCompleted }),
	}))
	ada := tasks.Actor{Name: "ada", Groups: []string{"managers"}}
	olga := tasks.Actor{Name: "olga", Overseer: true}
	now := t0.Add(3 * time.Hour)
	for name, tc := range map[string]struct {
		a    tasks.Actor
		q    tasks.InboxQuery
		want []string
	}{
		"all I may see, by priority": {ada, tasks.InboxQuery{}, []string{"b", "c", "a"}},
		"overseers see every task":   {olga, tasks.InboxQuery{}, []string{"b", "c", "d", "e", "a"}},
		"mine":                       {ada, tasks.InboxQuery{Scope: tasks.ScopeMine}, []string{"a"}},
		"my groups":                  {ada, tasks.InboxQuery{Scope: tasks.ScopeGroups}, []string{"b", "c"}},
		"unassigned for an overseer": {olga, tasks.InboxQuery{Scope: tasks.ScopeUnassigned}, []string{"b", "c", "e"}},
		"process":                    {olga, tasks.InboxQuery{Process: "order"}, []string{"e"}},
		"task name":                  {ada, tasks.InboxQuery{Name: "REVIEW c"}, []string{"c"}},
		"search business key":        {ada, tasks.InboxQuery{Search: "inv-7"}, []string{"b"}},
		"search chosen variable":     {ada, tasks.InboxQuery{Search: "1200"}, []string{"c"}},
		"variable equals":            {ada, tasks.InboxQuery{VarName: "amount", VarValue: "1200"}, []string{"c"}},
		"overdue":                    {ada, tasks.InboxQuery{Overdue: true, Now: now}, []string{"c"}},
		"due before":                 {ada, tasks.InboxQuery{DueBefore: t0.Add(6 * time.Hour)}, []string{"b", "c"}},
		"created after":              {ada, tasks.InboxQuery{CreatedAfter: t0.Add(time.Minute)}, []string{"c"}},
		"created before":             {ada, tasks.InboxQuery{CreatedBefore: t0.Add(time.Minute)}, []string{"b", "a"}},
		"by due, none last":          {ada, tasks.InboxQuery{Sort: tasks.SortDue}, []string{"c", "b", "a"}},
		"by created, newest first":   {ada, tasks.InboxQuery{Sort: tasks.SortCreated}, []string{"c", "a", "b"}},
		"by follow-up":               {olga, tasks.InboxQuery{Sort: tasks.SortFollowUp}, []string{"d", "b", "c", "e", "a"}},
	} {
		require.Equal(t, tc.want, ids(in.Query(tc.a, tc.q)), name)
	}

	page := in.Query(olga, tasks.InboxQuery{Offset: 2, Limit: 2})
	require.Equal(t, []string{"d", "e"}, ids(page))
	require.Equal(t, 5, page.Total)
	require.Equal(t, 1, in.Count(ada))
}

// TestInboxFollowsCommits: committed task changes update the projection,
// also those that race with the initial load.
func TestInboxFollowsCommits(t *testing.T) {
	t.Parallel()
	ada := tasks.Actor{Name: "ada", Groups: []string{"managers"}}
	in := tasks.NewInbox()
	stale := taskList{task("a", nil), task("b", nil)}
	// b completes while the store is read: the stale copy must not bring it back.
	loading := make(chan struct{})
	go func() {
		<-loading
		done := task("b", nil)
		done.Status = engine.TaskCompleted
		in.ExportTasks([]engine.Task{done})
		close(loading)
	}()
	require.NoError(t, in.Load(t.Context(), slowList{stale, loading}))
	require.Equal(t, []string{"a"}, ids(in.Query(ada, tasks.InboxQuery{})))

	claimed := task("a", func(t *engine.Task) { t.Assignee = "ada" })
	in.ExportTasks([]engine.Task{claimed, task("c", nil)})
	require.Equal(t, 1, in.Count(ada))
	require.Equal(t, []string{"a", "c"}, ids(in.Query(ada, tasks.InboxQuery{})))
	cancelled := task("c", func(t *engine.Task) { t.Status = engine.TaskCancelled })
	in.ExportTasks([]engine.Task{cancelled})
	require.Equal(t, []string{"a"}, ids(in.Query(ada, tasks.InboxQuery{})))
}

// slowList hands over its tasks only after a commit happened meanwhile.
type slowList struct {
	tasks   taskList
	loading chan struct{}
}

func (s slowList) OpenTasks(ctx context.Context, fn func(engine.Task) error) error {
	s.loading <- struct{}{}
	<-s.loading
	return s.tasks.OpenTasks(ctx, fn)
}
