package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/statemachine"
	"github.com/workflowpp/wfpp/server/identity"
)

// InstanceView is an instance as the API shows it: the snapshot with its
// lists always present, and its history when asked for.
type InstanceView struct {
	*engine.Snapshot
	Tokens    []engine.TokenState `json:"tokens"`
	Variables map[string]any      `json:"variables"`
	Tasks     []engine.Task       `json:"tasks"`
	Incidents []engine.Incident   `json:"incidents"`
	History   []engine.Event      `json:"history,omitempty"`
	StatusURL string              `json:"statusUrl"`
	// Children are the instances its call activities started (the newest
	// childrenMax the reader may read); Parent, in the snapshot, is the
	// call activity that started it.
	Children []ChildLink `json:"children"`
	// Triggered are the instances its end started through the triggers of
	// its definition (chaining); TriggeredBy, in the snapshot, is the
	// instance whose end started it.
	Triggered []TriggeredLink `json:"triggered"`
	// Progress is how far it is and when it should end (GET only).
	Progress *engine.Progress `json:"progress,omitempty"`
	// CurrentState and StateHistory are where an instance of a state
	// machine is and has been (GET only; absent for other formats).
	CurrentState string               `json:"currentState,omitempty"`
	StateHistory []statemachine.Visit `json:"stateHistory,omitempty"`
	// Webhooks are the URLs its webhook catches wait at (webhook.go).
	Webhooks []WebhookLink `json:"webhooks"`
}

// ChildLink is an instance a call activity started.
type ChildLink struct {
	ID         string        `json:"id"`
	Definition string        `json:"definition"`
	ProcessID  string        `json:"processId"`
	ElementID  string        `json:"elementId"` // the call activity
	Status     engine.Status `json:"status"`
	StatusURL  string        `json:"statusUrl"`
}

// TriggeredLink is an instance a chain trigger started.
type TriggeredLink struct {
	ID         string        `json:"id"`
	Definition string        `json:"definition"`
	Trigger    int           `json:"trigger"` // its index among the ended instance's triggers
	Status     engine.Status `json:"status"`
	StatusURL  string        `json:"statusUrl"`
}

// childrenMax bounds the children an instance view lists.
const childrenMax = 500

// ViewOf is the view of s.
func ViewOf(s *engine.Snapshot) InstanceView {
	v := InstanceView{
		Snapshot: s, Tokens: s.TokenStates(), Variables: s.Variables, Tasks: s.Tasks, Incidents: s.Incidents,
		StatusURL: statusURL(s.ID), Children: []ChildLink{}, Webhooks: webhookLinks(s), Triggered: []TriggeredLink{},
	}
	if v.Tokens == nil {
		v.Tokens = []engine.TokenState{}
	}
	if v.Variables == nil {
		v.Variables = map[string]any{}
	}
	if v.Tasks == nil {
		v.Tasks = []engine.Task{}
	}
	if v.Incidents == nil {
		v.Incidents = []engine.Incident{}
	}
	return v
}

// startedView is a started instance with what the start warns of (a
// deprecated version).
type startedView struct {
	InstanceView
	Warnings []string `json:"warnings,omitempty"`
}

type startBody struct {
	Definition  string         `json:"definition"`
	Version     int            `json:"version"`
	RequestID   string         `json:"requestId"`
	BusinessKey string         `json:"businessKey"`
	Variables   map[string]any `json:"variables"`
}

// startInstance is POST /api/v1/instances: 201 with the new instance, 200
// with the existing one when requestId was seen before.
func (s *Service) startInstance(c *fiber.Ctx) error {
	var b startBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(b.Definition) == "":
		return BadRequest("field \"definition\" is required: the key of a deployed definition")
	case b.Version < 0:
		return BadRequest("field \"version\" must be positive, or omitted for the default version")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	started, err := s.eng.StartInstance(ctx, engine.StartRequest{
		Definition: b.Definition, Version: b.Version, RequestID: b.RequestID,
		BusinessKey: b.BusinessKey, Variables: b.Variables,
	})
	if err != nil {
		return err
	}
	c.Location(statusURL(started.Snapshot.ID))
	status := http.StatusOK
	if started.Created {
		status = http.StatusCreated
	}
	for _, w := range started.Warnings { // RFC 7234's form: code, agent, quoted text
		c.Append(fiber.HeaderWarning, "299 wfpp "+strconv.Quote(w))
	}
	return c.Status(status).JSON(startedView{InstanceView: ViewOf(started.Snapshot), Warnings: started.Warnings})
}

// getInstance is GET /api/v1/instances/:id[?include=history].
func (s *Service) getInstance(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	// A reader may see a snapshot a few seconds old from the Redis cache;
	// the engine itself never reads through it.
	snap, err := s.ReadInstance(cache.AllowStale(ctx), identity.CurrentUser(c), c.Params("id"))
	if err != nil {
		return err
	}
	v := ViewOf(snap)
	if v.Children, v.Triggered, err = s.Spawned(ctx, identity.CurrentUser(c), snap); err != nil {
		return err
	}
	p, err := s.eng.Progress(ctx, snap)
	if err != nil {
		return err
	}
	v.Progress = &p
	states, ok, err := s.eng.States(ctx, snap)
	if err != nil {
		return err
	}
	if ok {
		v.CurrentState, v.StateHistory = states.Current, states.History
	}
	for inc := range strings.SplitSeq(c.Query("include"), ",") {
		switch strings.TrimSpace(inc) {
		case "":
		case "history":
			if v.History, err = s.eng.Queries().Events(ctx, snap.ID, 0, 0); err != nil {
				return err
			}
			if v.History == nil {
				v.History = []engine.Event{}
			}
		default:
			return BadRequest("query parameter \"include\" has %q: the only value is history", inc)
		}
	}
	return c.JSON(v)
}

// Spawned lists the instances snap started that u may read: through its
// call activities (children) and through its triggers. It asks the store
// only for what snap's process can start (engine.Spawns).
func (s *Service) Spawned(ctx context.Context, u *identity.User, snap *engine.Snapshot) (children []ChildLink, triggered []TriggeredLink, err error) {
	calls, triggers, err := s.eng.Spawns(ctx, snap)
	if err != nil {
		return nil, nil, err
	}
	children, triggered = []ChildLink{}, []TriggeredLink{}
	if calls {
		if children, err = s.children(ctx, u, snap.ID); err != nil {
			return nil, nil, err
		}
	}
	if triggers {
		if triggered, err = s.triggered(ctx, u, snap.ID); err != nil {
			return nil, nil, err
		}
	}
	return children, triggered, nil
}

// children lists the instances id's call activities started that u may read.
func (s *Service) children(ctx context.Context, u *identity.User, id string) ([]ChildLink, error) {
	page, _, err := s.eng.Queries().Instances(ctx, engine.InstanceFilter{ParentID: id, Limit: childrenMax})
	if err != nil {
		return nil, err
	}
	out := []ChildLink{}
	for _, k := range page {
		if ok, err := s.MayRead(ctx, u, k); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, ChildLink{ID: k.ID, Definition: k.DefinitionKey, ProcessID: k.ProcessID, ElementID: k.Parent.ElementID, Status: k.Status, StatusURL: statusURL(k.ID)})
	}
	return out, nil
}

// triggered lists the instances id's triggers started that u may read.
func (s *Service) triggered(ctx context.Context, u *identity.User, id string) ([]TriggeredLink, error) {
	page, _, err := s.eng.Queries().Instances(ctx, engine.InstanceFilter{TriggeredBy: id, Limit: childrenMax})
	if err != nil {
		return nil, err
	}
	out := []TriggeredLink{}
	for _, k := range page {
		if ok, err := s.MayRead(ctx, u, k); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, TriggeredLink{ID: k.ID, Definition: k.DefinitionKey, Trigger: k.TriggeredBy.Trigger, Status: k.Status, StatusURL: statusURL(k.ID)})
	}
	return out, nil
}

// control serves POST /api/v1/instances/:id/{pause,resume,cancel}.
func (s *Service) control(op func(*engine.Engine, context.Context, string) (*engine.Snapshot, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := s.ctx(c)
		defer cancel()
		snap, err := op(s.eng, ctx, c.Params("id"))
		if err != nil {
			return err
		}
		return c.JSON(ViewOf(snap))
	}
}
