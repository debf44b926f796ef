package tasks

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// Inbox is the projection of the engine's open tasks that inbox queries read:
// in memory, loaded once from the store (one pass) and kept current from the
// tasks each commit changes, which the engine hands it before the commands
// of the round are answered (a user never sees a task they just completed).
// It is a cache that can always be rebuilt from the store. On one replica it
// sees every change; with several replicas an InboxFollower (Follow) brings
// the others' task changes, named by their events.
type Inbox struct {
	mu      sync.RWMutex
	open    map[string]*Task // nil: closed while a Load runs (a tombstone)
	loading bool
	// Who may see a task, indexed, so a user's query reads only their
	// tasks however many others are open: by candidate group, and by
	// user (assignee or candidate user).
	byGroup map[string]map[string]*Task
	byUser  map[string]map[string]*Task
}

// NewInbox returns an empty inbox; Load fills it.
func NewInbox() *Inbox {
	return &Inbox{open: map[string]*Task{}, byGroup: map[string]map[string]*Task{}, byUser: map[string]map[string]*Task{}}
}

// put stores t (nil: a tombstone for id) and keeps the indexes in step.
func (in *Inbox) put(id string, t *Task) {
	if old := in.open[id]; old != nil {
		in.index(old, false)
	}
	in.open[id] = t
	if t != nil {
		in.index(t, true)
	}
}

func (in *Inbox) index(t *Task, add bool) {
	set := func(m map[string]map[string]*Task, key string) {
		if key == "" {
			return
		}
		if !add {
			delete(m[key], t.ID)
			if len(m[key]) == 0 {
				delete(m, key)
			}
			return
		}
		if m[key] == nil {
			m[key] = map[string]*Task{}
		}
		m[key][t.ID] = t
	}
	for _, g := range t.CandidateGroups {
		set(in.byGroup, g)
	}
	for _, u := range t.CandidateUsers {
		set(in.byUser, u)
	}
	set(in.byUser, t.Assignee)
}

// candidates calls fn for each open task a may see: every task for an
// overseer, else those of a's name and groups (a task may come twice).
func (in *Inbox) candidates(a Actor, fn func(*Task)) {
	if a.Overseer {
		for _, t := range in.open {
			if t != nil {
				fn(t)
			}
		}
		return
	}
	for _, t := range in.byUser[a.Name] {
		fn(t)
	}
	for _, g := range a.Groups {
		for _, t := range in.byGroup[g] {
			fn(t)
		}
	}
}

// OpenTaskSource streams the open tasks of a store.
type OpenTaskSource interface {
	OpenTasks(ctx context.Context, fn func(engine.Task) error) error
}

// Load reads every open task from the store. Subscribe the inbox to the
// engine first, so no change made while it loads is lost: a task the store
// still lists as open but that a commit closed meanwhile stays closed.
func (in *Inbox) Load(ctx context.Context, src OpenTaskSource) error {
	in.mu.Lock()
	in.loading = true
	in.mu.Unlock()
	loaded := map[string]*Task{}
	err := src.OpenTasks(ctx, func(t engine.Task) error {
		loaded[t.ID] = &t
		return nil
	})
	in.mu.Lock()
	defer in.mu.Unlock()
	in.loading = false
	if err != nil {
		return fmt.Errorf("loading the inbox: %w", err)
	}
	for id, t := range loaded {
		if _, seen := in.open[id]; !seen {
			in.put(id, t)
		}
	}
	for id, t := range in.open {
		if t == nil {
			delete(in.open, id)
		}
	}
	return nil
}

// Export ignores events: the inbox follows tasks (ExportTasks).
func (in *Inbox) Export([]engine.Event) {}

// ExportTasks applies the tasks a commit created or changed.
func (in *Inbox) ExportTasks(tasks []engine.Task) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := range tasks {
		t := tasks[i]
		switch {
		case t.Status == engine.TaskOpen:
			in.put(t.ID, &t)
		case in.loading: // a Load may still bring it back: remember it closed
			in.put(t.ID, nil)
		default:
			in.put(t.ID, nil)
			delete(in.open, t.ID)
		}
	}
}

var _ engine.TaskExporter = (*Inbox)(nil)

// Scope says whose tasks a query lists.
type Scope string

const (
	ScopeAll        Scope = "all"        // every open task the user may see
	ScopeMine       Scope = "mine"       // assigned to the user
	ScopeGroups     Scope = "groups"     // unassigned, for one of the user's groups
	ScopeUnassigned Scope = "unassigned" // unassigned, the user among the candidates
)

// Sort orders a query's tasks.
type Sort string

const (
	SortPriority Sort = "priority" // highest first, then due soonest
	SortDue      Sort = "due"      // due soonest first, none last
	SortCreated  Sort = "created"  // newest first
	SortFollowUp Sort = "followUp" // follow-up soonest first, none last
)

// InboxQuery selects and orders open tasks.
type InboxQuery struct {
	Scope         Scope
	Process       string    // definition key
	Name          string    // task name contains (any case)
	Search        string    // in name, business key, process and the chosen variables (any case)
	Overdue       bool      // due before Now
	DueBefore     time.Time // zero: any
	CreatedAfter  time.Time
	CreatedBefore time.Time
	VarName       string // with VarValue: a chosen variable equals the value (as text)
	VarValue      string
	Sort          Sort
	Offset, Limit int
	Now           time.Time
}

// InboxPage is one page of a query and how many tasks match in all.
type InboxPage struct {
	Tasks  []Task
	Total  int
	Offset int
}

// Query returns the page of open tasks a may see that match q.
func (in *Inbox) Query(a Actor, q InboxQuery) InboxPage {
	var hits []*Task
	seen := map[string]bool{}
	in.mu.RLock()
	in.candidates(a, func(t *Task) {
		if !seen[t.ID] && q.matches(a, t) {
			seen[t.ID] = true
			hits = append(hits, t)
		}
	})
	in.mu.RUnlock()
	slices.SortFunc(hits, q.order())
	page := InboxPage{Total: len(hits), Offset: min(max(q.Offset, 0), len(hits)), Tasks: []Task{}}
	end := min(page.Offset+cmp.Or(q.Limit, 50), len(hits))
	for _, t := range hits[page.Offset:end] {
		page.Tasks = append(page.Tasks, *t)
	}
	return page
}

// Count is how many open tasks are assigned to a (the navigation's count).
func (in *Inbox) Count(a Actor) int {
	in.mu.RLock()
	defer in.mu.RUnlock()
	n := 0
	for _, t := range in.byUser[a.Name] {
		if a.holds(*t) {
			n++
		}
	}
	return n
}

func (q InboxQuery) matches(a Actor, t *Task) bool {
	switch q.Scope {
	case ScopeMine:
		if !a.holds(*t) {
			return false
		}
	case ScopeGroups:
		if t.Assignee != "" || !a.inGroups(*t) {
			return false
		}
	case ScopeUnassigned:
		if t.Assignee != "" || !(a.Candidate(*t) || a.Overseer) {
			return false
		}
	default:
		// "all I may see": in lists a task someone else holds shows only to
		// overseers, so candidates are not offered what they cannot take.
		if !a.Overseer && !a.holds(*t) && (t.Assignee != "" || !a.Candidate(*t)) {
			return false
		}
	}
	switch {
	case q.Process != "" && t.DefinitionKey != q.Process:
		return false
	case q.Name != "" && !containsFold(t.Name, q.Name):
		return false
	case q.Overdue && (t.Due == nil || !t.Due.Before(q.Now)):
		return false
	case !q.DueBefore.IsZero() && (t.Due == nil || !t.Due.Before(q.DueBefore)):
		return false
	case !q.CreatedAfter.IsZero() && t.Created.Before(q.CreatedAfter):
		return false
	case !q.CreatedBefore.IsZero() && !t.Created.Before(q.CreatedBefore):
		return false
	case q.VarName != "" && fmt.Sprint(t.InboxVariables[q.VarName]) != q.VarValue:
		return false
	case q.Search != "" && !searchHit(t, q.Search):
		return false
	}
	return true
}

func searchHit(t *Task, s string) bool {
	if containsFold(t.Name, s) || containsFold(t.BusinessKey, s) || containsFold(t.DefinitionKey, s) {
		return true
	}
	for _, v := range t.InboxVariables {
		if containsFold(fmt.Sprint(v), s) {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// order compares two tasks in q's sort order; ties go by id, so pages are stable.
func (q InboxQuery) order() func(a, b *Task) int {
	byPrio := func(a, b *Task) int { return b.Priority - a.Priority }
	byDue := func(a, b *Task) int { return cmpTime(a.Due, b.Due) }
	byID := func(a, b *Task) int { return strings.Compare(a.ID, b.ID) }
	switch q.Sort {
	case SortDue:
		return func(a, b *Task) int { return cmp.Or(byDue(a, b), byPrio(a, b), byID(a, b)) }
	case SortCreated:
		return func(a, b *Task) int { return cmp.Or(b.Created.Compare(a.Created), byID(a, b)) }
	case SortFollowUp:
		return func(a, b *Task) int { return cmp.Or(cmpTime(a.FollowUp, b.FollowUp), byPrio(a, b), byID(a, b)) }
	}
	return func(a, b *Task) int { return cmp.Or(byPrio(a, b), byDue(a, b), byID(a, b)) }
}

// cmpTime orders times soonest first, none last.
func cmpTime(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(*b)
}
