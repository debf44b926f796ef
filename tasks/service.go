package tasks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// Engine is what the service asks of the engine: guarded task commands and
// reads of tasks, instances and their history.
type Engine interface {
	Assign(ctx context.Context, a engine.Assignment) (*engine.Task, error)
	Complete(ctx context.Context, c engine.Completion) (*engine.Task, error)
	CommentOn(ctx context.Context, c engine.Comment) (*engine.Task, error)
	Instance(ctx context.Context, id string) (*engine.Snapshot, error)
}

// Reader reads tasks and instance histories from the store.
type Reader interface {
	Lister
	Task(ctx context.Context, id string) (engine.Task, error)
	Events(ctx context.Context, instanceID string, after uint64, limit int) ([]engine.Event, error)
}

// Config configures a Service.
type Config struct {
	Engine Engine
	Store  Reader
	Forms  Forms
	// CommentMax caps a comment's length in bytes; CommentMaxDefault if zero.
	CommentMax int
	// Now tells the time (linked forms resolve as of now for a start); time.Now if nil.
	Now func() time.Time
}

// CommentMaxDefault is the longest comment accepted, in bytes.
const CommentMaxDefault = 4096

// Service applies the rules of package tasks.
type Service struct {
	cfg Config
}

func (s *Service) now() time.Time { return s.cfg.Now() }

// New returns a service; Engine and Store are required.
func New(cfg Config) (*Service, error) {
	var errs []error
	if cfg.Engine == nil {
		errs = append(errs, errors.New("tasks: Config.Engine is required"))
	}
	if cfg.Store == nil {
		errs = append(errs, errors.New("tasks: Config.Store is required"))
	}
	if cfg.Forms == nil {
		errs = append(errs, errors.New("tasks: Config.Forms is required"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	cfg.CommentMax = cmp.Or(cfg.CommentMax, CommentMaxDefault)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}, nil
}

// View is a task as a person sees it: what they may do, and its history.
type View struct {
	Task
	AllowedActions []Action       `json:"allowedActions"`
	InstancePaused bool           `json:"instancePaused,omitempty"`
	History        []HistoryEntry `json:"history"`
}

// Get returns task id if a may see it.
func (s *Service) Get(ctx context.Context, a Actor, id string) (Task, error) {
	t, err := s.cfg.Store.Task(ctx, id)
	if errors.Is(err, engine.ErrNotFound) || (err == nil && !a.Sees(t)) {
		return t, notFound(id)
	}
	return t, err
}

// View returns task id with the actions a may take and its history.
func (s *Service) View(ctx context.Context, a Actor, id string) (View, error) {
	t, err := s.Get(ctx, a, id)
	if err != nil {
		return View{}, err
	}
	paused, err := s.paused(ctx, t)
	if err != nil {
		return View{}, err
	}
	h, err := s.History(ctx, t)
	if err != nil {
		return View{}, err
	}
	return View{Task: t, AllowedActions: Allowed(a, t, paused), InstancePaused: paused, History: h}, nil
}

func (s *Service) paused(ctx context.Context, t Task) (bool, error) {
	if t.Status != engine.TaskOpen {
		return false, nil
	}
	snap, err := s.cfg.Engine.Instance(ctx, t.InstanceID)
	if err != nil {
		return false, fmt.Errorf("instance of task %s: %w", t.ID, err)
	}
	return snap.Status == engine.StatusPaused, nil
}

// open loads a task a may see, refusing one that is not open or whose
// instance is paused.
func (s *Service) open(ctx context.Context, a Actor, id string) (Task, error) {
	t, err := s.Get(ctx, a, id)
	if err != nil {
		return t, err
	}
	if t.Status != engine.TaskOpen {
		return t, notOpen(t)
	}
	if p, err := s.paused(ctx, t); err != nil || p {
		return t, cmp.Or(err, error(paused(t)))
	}
	return t, nil
}

// Claim assigns task id to a. Claiming a task a already holds changes nothing.
func (s *Service) Claim(ctx context.Context, a Actor, id string) (Task, error) {
	t, err := s.open(ctx, a, id)
	switch {
	case err != nil:
		return t, err
	case a.holds(t):
		return t, nil
	case t.Assignee != "":
		return t, claimedBy(t.ID, t.Assignee)
	case !a.Worker:
		return t, forbidden("task %s: claiming needs the worker role", t.ID)
	case !a.mayClaim(t):
		return t, forbidden("task %s is for %s: you are not among its candidates", t.ID, candidates(t))
	}
	return s.assign(ctx, t, engine.Assignment{TaskID: t.ID, By: a.Name, Expect: "", To: a.Name, Reason: engine.AssignClaim})
}

// Release gives task id back to its candidates; its assignee or an
// overseer may. Releasing an unassigned task changes nothing.
func (s *Service) Release(ctx context.Context, a Actor, id string) (Task, error) {
	t, err := s.open(ctx, a, id)
	switch {
	case err != nil:
		return t, err
	case t.Assignee == "":
		return t, nil
	case !a.holds(t) && !a.Overseer:
		return t, claimedBy(t.ID, t.Assignee)
	}
	return s.assign(ctx, t, engine.Assignment{TaskID: t.ID, By: a.Name, Expect: t.Assignee, To: "", Reason: engine.AssignRelease})
}

// Delegate hands task id to user to; its assignee or an overseer may.
func (s *Service) Delegate(ctx context.Context, a Actor, id, to string) (Task, error) {
	to = strings.TrimSpace(to)
	if to == "" {
		return Task{}, &Error{
			Status: http.StatusBadRequest, Code: "invalid_input",
			Message: "field \"assignee\" is empty: name the user to delegate the task to",
		}
	}
	t, err := s.open(ctx, a, id)
	switch {
	case err != nil:
		return t, err
	case !a.holds(t) && !a.Overseer && t.Assignee != "":
		return t, claimedBy(t.ID, t.Assignee)
	case !a.holds(t) && !a.Overseer:
		return t, forbidden("task %s: only its assignee or an operator delegates it", t.ID)
	case t.Assignee == to:
		return t, nil
	}
	return s.assign(ctx, t, engine.Assignment{TaskID: t.ID, By: a.Name, Expect: t.Assignee, To: to, Reason: engine.AssignDelegate})
}

func (s *Service) assign(ctx context.Context, t Task, as engine.Assignment) (Task, error) {
	got, err := s.cfg.Engine.Assign(ctx, as)
	if err != nil {
		return t, fromEngine(t, err)
	}
	return *got, nil
}

// Complete finishes task id with vars, after checking them against its
// form. An unassigned task a may claim is claimed and completed in one
// action; a task someone else holds is refused.
func (s *Service) Complete(ctx context.Context, a Actor, id string, vars map[string]any) (Task, error) {
	t, err := s.open(ctx, a, id)
	switch {
	case err != nil:
		return t, err
	case t.Assignee != "" && !a.holds(t):
		return t, claimedBy(t.ID, t.Assignee)
	case !a.Worker:
		return t, forbidden("task %s: completing needs the worker role", t.ID)
	case t.Assignee == "" && !a.mayClaim(t):
		return t, forbidden("task %s is for %s: you are not among its candidates", t.ID, candidates(t))
	}
	form, err := s.submissionForm(ctx, t)
	if err != nil {
		return t, fmt.Errorf("form of task %s: %w", t.ID, err)
	}
	if err := ValidateValues(form, vars); err != nil {
		return t, invalidValues(err)
	}
	got, err := s.cfg.Engine.Complete(ctx, engine.Completion{TaskID: t.ID, By: a.Name, Guard: true, Expect: t.Assignee, Variables: vars})
	if err != nil {
		return t, fromEngine(t, err)
	}
	return *got, nil
}

// Comment adds text to task id; anyone who may see an open task may.
func (s *Service) Comment(ctx context.Context, a Actor, id, text string) (Task, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return Task{}, &Error{Status: http.StatusBadRequest, Code: "invalid_input", Message: "field \"text\" is empty: write the comment"}
	case len(text) > s.cfg.CommentMax:
		return Task{}, &Error{
			Status: http.StatusRequestEntityTooLarge, Code: "comment_too_large",
			Message: fmt.Sprintf("the comment has %d bytes: at most %d are kept", len(text), s.cfg.CommentMax),
		}
	case a.Name == "":
		return Task{}, forbidden("comments need a user: sign in")
	}
	t, err := s.Get(ctx, a, id)
	if err != nil {
		return t, err
	}
	if t.Status != engine.TaskOpen {
		return t, notOpen(t)
	}
	got, err := s.cfg.Engine.CommentOn(ctx, engine.Comment{TaskID: t.ID, By: a.Name, Text: text})
	if err != nil {
		return t, fromEngine(t, err)
	}
	return *got, nil
}

func candidates(t Task) string {
	all := append(append([]string{}, t.CandidateUsers...), t.CandidateGroups...)
	if len(all) == 0 {
		return "no candidates (an operator assigns it)"
	}
	return strings.Join(all, ", ")
}
