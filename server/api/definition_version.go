package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// versionOptions are what a deployment says about the version it makes:
// the same fields in a JSON envelope, multipart form fields, or query
// parameters beside a raw source.
type versionOptions struct {
	ChangeSummary string `json:"changeSummary"`
	Status        string `json:"status"`
	MakeDefault   *bool  `json:"makeDefault"`
}

// apply puts the options on a deploy request.
func (o versionOptions) apply(req *engine.DeployRequest) error {
	switch engine.VersionStatus(o.Status) {
	case "", engine.VersionActive, engine.VersionDraft:
	default:
		return BadRequest("field \"status\" is %q: a version deploys as \"active\" (the default) or \"draft\"", o.Status)
	}
	req.Status = engine.VersionStatus(o.Status)
	req.ChangeSummary = o.ChangeSummary
	req.KeepDefault = o.MakeDefault != nil && !*o.MakeDefault
	return nil
}

// versionOptionsOf reads the options from a form or the query: get returns
// a field's value.
func versionOptionsOf(get func(string) string) (versionOptions, error) {
	o := versionOptions{ChangeSummary: get("changeSummary"), Status: get("status")}
	if m := get("makeDefault"); m != "" {
		b, err := strconv.ParseBool(m)
		if err != nil {
			return o, BadRequest("\"makeDefault\" is %q: use true or false", m)
		}
		o.MakeDefault = &b
	}
	return o, nil
}

// deployEnvelope is a JSON deploy body that carries the source as a string
// beside the version options: {"source": "<definitions…>", "format":
// "bpmn", "changeSummary": "…", "status": "draft", "makeDefault": false}.
type deployEnvelope struct {
	Source string `json:"source"`
	Format string `json:"format"`
	versionOptions
}

// envelopeOf reads body as a deploy envelope: false when it is a
// definition itself (a JSON DAG or graph has no "source" string).
func envelopeOf(body []byte) (deployEnvelope, bool) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) != nil {
		return deployEnvelope{}, false
	}
	src, ok := probe["source"]
	if !ok || !bytes.HasPrefix(bytes.TrimSpace(src), []byte(`"`)) {
		return deployEnvelope{}, false
	}
	var env deployEnvelope
	return env, json.Unmarshal(body, &env) == nil
}

// versionView is one version as GET /api/v1/definitions/:key lists it.
type versionView struct {
	ID            string                 `json:"id"`
	Version       int                    `json:"version"`
	Status        engine.VersionStatus   `json:"status"`
	Enabled       bool                   `json:"enabled"`
	Default       bool                   `json:"default"`
	ChangeSummary string                 `json:"changeSummary,omitempty"`
	DeployedBy    string                 `json:"deployedBy,omitempty"`
	DeployedAt    time.Time              `json:"deployedAt"`
	VersionTag    string                 `json:"versionTag,omitempty"`
	History       []engine.VersionChange `json:"history"`
}

// lifecycleView is a key's versions and default version.
type lifecycleView struct {
	Key            string                 `json:"key"`
	DefaultVersion int                    `json:"defaultVersion"` // 0: none
	DefaultChanges []engine.DefaultChange `json:"defaultChanges"`
	Versions       []versionView          `json:"versions"`
}

func viewOfLifecycle(l engine.Lifecycle) lifecycleView {
	v := lifecycleView{Key: l.Head.Key, DefaultVersion: l.Default, DefaultChanges: l.Head.Defaults, Versions: []versionView{}}
	if v.DefaultChanges == nil {
		v.DefaultChanges = []engine.DefaultChange{}
	}
	for _, r := range l.Versions {
		v.Versions = append(v.Versions, versionView{
			ID: r.ID, Version: r.Version, Status: r.Status, Enabled: r.Enabled, Default: r.Version == l.Default,
			ChangeSummary: r.ChangeSummary, DeployedBy: r.Deployer, DeployedAt: r.Deployed, VersionTag: r.VersionTag,
			History: append([]engine.VersionChange{}, r.History...),
		})
	}
	return v
}

type statusBody struct {
	Status      engine.VersionStatus `json:"status"`
	MakeDefault *bool                `json:"makeDefault"`
}

// setVersionStatus is PATCH /api/v1/definitions/:key/versions/:v
// {status, makeDefault}: 200 with the key's versions, 409 for a change the
// lifecycle does not allow.
func (s *Service) setVersionStatus(c *fiber.Ctx) error {
	v, err := versionOf(c)
	if err != nil {
		return err
	}
	if v == 0 {
		return BadRequest("name the version to change by number, not latest")
	}
	var b statusBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if !b.Status.Valid() {
		return BadRequest("field \"status\" is %q: use draft, active, deprecated or archived", b.Status)
	}
	key := c.Params("key")
	ctx, cancel := s.ctx(c)
	defer cancel()
	keep := b.MakeDefault != nil && !*b.MakeDefault
	rec, err := s.eng.SetVersionStatus(ctx, key, v, b.Status, ActorOf(c).Name, keep)
	if err != nil {
		return err
	}
	s.log.Info("definition version status changed", "definition_id", rec.ID, "status", rec.Status,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return s.lifecycle(c, key)
}

type rollbackBody struct {
	Version int `json:"version"`
}

// rollback is POST /api/v1/definitions/:key/rollback {version}: the version
// becomes the default (a deprecated one active again).
func (s *Service) rollback(c *fiber.Ctx) error {
	var b rollbackBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if b.Version < 1 {
		return BadRequest("field \"version\" is required: the version number to make the default")
	}
	key := c.Params("key")
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.eng.Rollback(ctx, key, b.Version, ActorOf(c).Name)
	if err != nil {
		return err
	}
	s.log.Info("definition default version changed", "definition_id", rec.ID,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return s.lifecycle(c, key)
}

func (s *Service) lifecycle(c *fiber.Ctx, key string) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	l, err := s.eng.Lifecycle(ctx, key)
	if err != nil {
		return err
	}
	return c.Status(http.StatusOK).JSON(viewOfLifecycle(l))
}
