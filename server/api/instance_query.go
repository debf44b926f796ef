package api

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/identity"
)

// instanceItem is an instance in a list: its head, without variables and tokens.
type instanceItem struct {
	ID            string        `json:"id"`
	Definition    string        `json:"definition"`
	DefinitionID  string        `json:"definitionId"`
	Version       int           `json:"version"`
	BusinessKey   string        `json:"businessKey,omitempty"`
	Status        engine.Status `json:"status"`
	OpenIncidents int           `json:"openIncidents"`
	OpenTasks     int           `json:"openTasks"`
	Started       time.Time     `json:"startedAt"`
	Updated       time.Time     `json:"updatedAt"`
	Ended         *time.Time    `json:"endedAt,omitempty"`
	StatusURL     string        `json:"statusUrl"`
}

var instanceStatuses = []engine.Status{
	engine.StatusRunning, engine.StatusWaiting, engine.StatusIncident,
	engine.StatusPaused, engine.StatusQueued, engine.StatusCompleted, engine.StatusFailed, engine.StatusCancelled,
}

// listInstances is GET /api/v1/instances?definition=&status=&businessKey=
// &startedAfter=&startedBefore=&limit=&cursor=, newest first. status may
// list several, comma-separated.
func (s *Service) listInstances(c *fiber.Ctx) error {
	if err := onlyParams(c, "definition", "status", "businessKey", "startedAfter", "startedBefore", "limit", "cursor"); err != nil {
		return err
	}
	f := engine.InstanceFilter{DefinitionKey: c.Query("definition"), BusinessKey: c.Query("businessKey")}
	var err error
	if f.Cursor, err = cursorIn(c); err != nil {
		return err
	}
	if f.Limit, err = limitOf(c); err != nil {
		return err
	}
	for _, st := range csvList(c.Query("status")) {
		if !containsStatus(engine.Status(st)) {
			return BadRequest("query parameter \"status\" has %q: use running, waiting, incident, paused, completed, failed or cancelled", st)
		}
		f.Status = append(f.Status, engine.Status(st))
	}
	if f.StartedAfter, err = timeParam(c, "startedAfter"); err != nil {
		return err
	}
	if f.StartedBefore, err = timeParam(c, "startedBefore"); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	snaps, next, err := s.eng.Queries().Instances(ctx, f)
	if err != nil {
		return err
	}
	u := identity.CurrentUser(c)
	items := make([]instanceItem, 0, len(snaps))
	for _, sn := range snaps {
		if ok, err := s.MayRead(ctx, u, sn); err != nil {
			return err
		} else if !ok {
			continue // the page may come out shorter; next still pages on
		}
		items = append(items, instanceItem{
			ID: sn.ID, Definition: sn.DefinitionKey, DefinitionID: sn.DefinitionID, Version: sn.Version,
			BusinessKey: sn.BusinessKey, Status: sn.Status, OpenIncidents: len(sn.Incidents), OpenTasks: len(sn.Tasks),
			Started: sn.Started, Updated: sn.Updated, Ended: sn.Ended, StatusURL: statusURL(sn.ID),
		})
	}
	return c.JSON(newListPage(items, next))
}

func containsStatus(st engine.Status) bool {
	for _, s := range instanceStatuses {
		if s == st {
			return true
		}
	}
	return false
}

func timeParam(c *fiber.Ctx, name string) (time.Time, error) {
	v := c.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, BadRequest("query parameter %q is %q: use an RFC 3339 time, e.g. 2026-01-02T15:04:05Z", name, v)
	}
	return t, nil
}

func statusURL(id string) string { return "/api/v1/instances/" + id }

type variablesBody struct {
	Variables map[string]any `json:"variables"`
}

// setVariables is POST /api/v1/instances/:id/variables: merges the variables.
func (s *Service) setVariables(c *fiber.Ctx) error {
	var b variablesBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if len(b.Variables) == 0 {
		return BadRequest("field \"variables\" is required: an object of the variables to set")
	}
	for k := range b.Variables {
		if strings.TrimSpace(k) == "" {
			return BadRequest("field \"variables\" has an empty name: name every variable")
		}
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	snap, err := s.eng.SetVariables(ctx, c.Params("id"), ActorOf(c).Name, b.Variables)
	if err != nil {
		return err
	}
	return c.JSON(ViewOf(snap))
}

type modifyBody struct {
	Token *uint64 `json:"token"`
	To    string  `json:"to"`
}

// modifyInstance is POST /api/v1/instances/:id/modify {"token":N,"to":"elementId"}:
// moves a token to another element of its scope.
func (s *Service) modifyInstance(c *fiber.Ctx) error {
	var b modifyBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	switch {
	case b.Token == nil:
		return BadRequest("field \"token\" is required: the id of the token to move (see the instance's tokens)")
	case strings.TrimSpace(b.To) == "":
		return BadRequest("field \"to\" is required: the id of the element to move the token to")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	a := ActorOf(c)
	snap, err := s.eng.Move(ctx, c.Params("id"), *b.Token, b.To, a.Name)
	if err != nil {
		return err
	}
	s.log.Info("token moved", "instance_id", snap.ID, "token_id", *b.Token, "element_id", b.To,
		"user", a.Name, "correlation_id", CorrelationID(c))
	return c.JSON(ViewOf(snap))
}

type adHocBody struct {
	Elements  []string       `json:"elements"`
	Variables map[string]any `json:"variables"`
}

// activateAdHoc is POST /api/v1/instances/:id/adhoc/:elementId/activate
// {"elements", "variables"}: starts elements of the running ad-hoc
// sub-process; 400 for an element it cannot start, 404 when it does not
// run, 409 when it is completing.
func (s *Service) activateAdHoc(c *fiber.Ctx) error {
	var b adHocBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if len(b.Elements) == 0 {
		return BadRequest("field \"elements\" is missing or empty: name the elements of the ad-hoc sub-process to start")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if _, err := s.ReadInstance(ctx, identity.CurrentUser(c), c.Params("id")); err != nil {
		return err
	}
	snap, err := s.eng.ActivateAdHoc(ctx, c.Params("id"), c.Params("elementId"), b.Elements, b.Variables)
	if err != nil {
		return err
	}
	s.log.Info("ad-hoc elements activated", "instance_id", snap.ID, "element_id", c.Params("elementId"), "elements", b.Elements,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(ViewOf(snap))
}

type triggerBody struct {
	ElementID string         `json:"elementId"`
	Variables map[string]any `json:"variables"`
}

// triggerElement is POST /api/v1/instances/:id/trigger {"elementId",
// "variables"}: moves the message or signal catch, or receive task, waiting
// at the element, by its id; 404 when nothing waits there.
func (s *Service) triggerElement(c *fiber.Ctx) error {
	var b triggerBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if b.ElementID == "" {
		return BadRequest("field \"elementId\" is missing: name the element that waits")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if _, err := s.ReadInstance(ctx, identity.CurrentUser(c), c.Params("id")); err != nil {
		return err
	}
	snap, err := s.eng.Trigger(ctx, c.Params("id"), b.ElementID, b.Variables)
	if err != nil {
		return err
	}
	s.log.Info("element triggered", "instance_id", snap.ID, "element_id", b.ElementID, "user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(ViewOf(snap))
}
