package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/server/identity"
)

// instanceView is an instance as the API shows it: the snapshot with its
// lists always present, and its history when asked for.
type instanceView struct {
	*engine.Snapshot
	Tokens    []engine.TokenState `json:"tokens"`
	Variables map[string]any      `json:"variables"`
	Tasks     []engine.Task       `json:"tasks"`
	Incidents []engine.Incident   `json:"incidents"`
	History   []engine.Event      `json:"history,omitempty"`
	StatusURL string              `json:"statusUrl"`
}

func viewOf(s *engine.Snapshot) instanceView {
	v := instanceView{
		Snapshot: s, Tokens: s.Tokens, Variables: s.Variables, Tasks: s.Tasks, Incidents: s.Incidents,
		StatusURL: statusURL(s.ID),
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

type startBody struct {
	Definition  string         `json:"definition"`
	Version     int            `json:"version"`
	RequestID   string         `json:"requestId"`
	BusinessKey string         `json:"businessKey"`
	Variables   map[string]any `json:"variables"`
}

// startInstance is POST /api/v1/instances: 201 with the new instance, 200
// with the existing one when requestId was seen before.
func (s *Server) startInstance(c *fiber.Ctx) error {
	var b startBody
	if err := decode(c, &b); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(b.Definition) == "":
		return badRequest("field \"definition\" is required: the key of a deployed definition")
	case b.Version < 0:
		return badRequest("field \"version\" must be positive, or omitted for the latest")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	snap, created, err := s.eng.Start(ctx, engine.StartRequest{
		Definition: b.Definition, Version: b.Version, RequestID: b.RequestID,
		BusinessKey: b.BusinessKey, Variables: b.Variables,
	})
	if err != nil {
		return err
	}
	c.Location(statusURL(snap.ID))
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.Status(status).JSON(viewOf(snap))
}

// getInstance is GET /api/v1/instances/:id[?include=history].
func (s *Server) getInstance(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	// A reader may see a snapshot a few seconds old from the Redis cache;
	// the engine itself never reads through it.
	snap, err := s.readInstance(cache.AllowStale(ctx), identity.CurrentUser(c), c.Params("id"))
	if err != nil {
		return err
	}
	v := viewOf(snap)
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
			return badRequest("query parameter \"include\" has %q: the only value is history", inc)
		}
	}
	return c.JSON(v)
}

// control serves POST /api/v1/instances/:id/{pause,resume,cancel}.
func (s *Server) control(op func(*engine.Engine, context.Context, string) (*engine.Snapshot, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := s.ctx(c)
		defer cancel()
		snap, err := op(s.eng, ctx, c.Params("id"))
		if err != nil {
			return err
		}
		return c.JSON(viewOf(snap))
	}
}
