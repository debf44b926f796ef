package api

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/workflowpp/wfpp/engine"
)

// InboxParams are the inbox's query parameters, which a saved filter's
// query may use; others are refused.
var InboxParams = []string{"filter", "process", "name", "q", "sort", "dueBefore", "createdAfter", "createdBefore", "var", "offset"}

// listFilters is GET /api/v1/filters (and /ui/filters): the user's saved
// inbox filters.
func (s *Service) listFilters(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	fs, err := s.eng.Queries().Filters(ctx, ActorOf(c).Name)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"items": fs})
}

type filterBody struct {
	Name  string `json:"name"`
	Query string `json:"query"`
}

// SaveFilter is POST /api/v1/filters {"name","query"}: keeps an inbox query
// under a name for the acting user, replacing one of the same name.
func (s *Service) SaveFilter(c *fiber.Ctx) error {
	var b filterBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	b.Name = strings.TrimSpace(b.Name)
	a := ActorOf(c)
	switch {
	case a.Name == "":
		return forbiddenf("saved filters belong to a user: sign in")
	case b.Name == "" || len(b.Name) > 80:
		return BadRequest("field \"name\" must have 1 to 80 characters")
	}
	vals, err := url.ParseQuery(strings.TrimPrefix(b.Query, "?"))
	if err != nil {
		return BadRequest("field \"query\" is not a query string: %v", err)
	}
	for k := range vals {
		if !slices.Contains(InboxParams, k) || k == "offset" {
			return BadRequest("field \"query\" has %q, which the inbox does not take", k)
		}
	}
	f := engine.SavedFilter{User: a.Name, Name: b.Name, Query: vals.Encode(), Created: time.Now().UTC()}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.SaveFilter(ctx, f); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(f)
}

// DeleteFilter is DELETE /api/v1/filters/:name.
func (s *Service) DeleteFilter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.DeleteFilter(ctx, ActorOf(c).Name, c.Params("name")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
