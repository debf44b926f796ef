package page

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/web"
)

// instanceCounts are how many instances a definition version has, running
// (not ended) and in all.
type instanceCounts struct{ running, total int }

func (n instanceCounts) cells() (string, string) {
	return strconv.Itoa(n.running), strconv.Itoa(n.total)
}

// countInstances counts instances per definition id (key:version), of one
// key or of every key when key is "".
func (s *Service) countInstances(ctx context.Context, key string) (map[string]instanceCounts, error) {
	all, _, err := s.eng.Queries().Instances(ctx, engine.InstanceFilter{DefinitionKey: key})
	if err != nil {
		return nil, err
	}
	counts := map[string]instanceCounts{}
	for _, in := range all {
		n := counts[in.DefinitionID]
		n.total++
		if !in.Status.Done() {
			n.running++
		}
		counts[in.DefinitionID] = n
	}
	return counts, nil
}

// definitionsPage is GET /definitions: one row per key.
func (s *Service) definitionsPage(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	defs, err := s.eng.Queries().Definitions(ctx)
	if err != nil {
		return err
	}
	counts, err := s.countInstances(ctx, "")
	if err != nil {
		return err
	}
	var rows []web.DefinitionRow
	byKey := map[string]int{}
	for _, d := range defs {
		i, seen := byKey[d.Key]
		if !seen {
			i = len(rows)
			byKey[d.Key] = i
			rows = append(rows, web.DefinitionRow{Key: d.Key, Name: d.Name, Latest: d.Version, Enabled: d.Enabled, Deployed: d.Deployed})
		}
		r := &rows[i]
		if d.Version > r.Latest {
			r.Latest, r.Name, r.Enabled, r.Deployed = d.Version, d.Name, d.Enabled, d.Deployed
		}
		r.Versions++
	}
	for i := range rows {
		var sum instanceCounts
		for id, n := range counts {
			if k, _, ok := cutVersion(id); ok && k == rows[i].Key {
				sum.running += n.running
				sum.total += n.total
			}
		}
		rows[i].Running, rows[i].Total = sum.cells()
	}
	slices.SortFunc(rows, func(a, b web.DefinitionRow) int { return strings.Compare(a.Key, b.Key) })
	lo, hi, next := offsetPage(c, len(rows), PageSizeDefault)
	stored, err := s.eng.Queries().Forms(ctx)
	if err != nil {
		return err
	}
	forms := make([]web.FormRow, len(stored))
	for i, f := range stored {
		forms[i] = web.FormRow{ID: f.FormID, Version: f.Version, VersionTag: f.VersionTag, Deployed: f.Deployed, Deployer: f.Deployer}
	}
	p := s.layout(c, "Definitions", "definitions")
	return renderPage(c, web.DefinitionsPage(p, rows[lo:hi], pager(c, "/definitions", url.Values{}, next, hi-lo), forms))
}

// definitionPage is GET /definitions/:key[?version=n].
func (s *Service) definitionPage(c *fiber.Ctx) error {
	key := c.Params("key")
	ctx, cancel := s.ctx(c)
	defer cancel()
	l, err := s.eng.Lifecycle(ctx, key)
	if errors.Is(err, engine.ErrNotFound) {
		return &api.Error{Status: 404, Code: "not_found", Message: "no definition has the key " + strconv.Quote(key) + ": deploy it from the designer first"}
	}
	if err != nil {
		return err
	}
	counts, err := s.countInstances(ctx, key)
	if err != nil {
		return err
	}
	want, _ := strconv.Atoi(c.Query("version"))
	d := web.DefinitionDetail{Key: key, Default: l.Default}
	for _, rec := range l.Versions {
		v := web.VersionRow{
			ID: rec.ID, Version: rec.Version, Name: rec.Name, Enabled: rec.Enabled,
			Deployed: rec.Deployed, Deployer: rec.Deployer, Checksum: rec.Checksum,
			Status: string(rec.Status), ChangeSummary: rec.ChangeSummary, Default: rec.Version == l.Default,
		}
		v.Running, v.Total = counts[rec.ID].cells()
		d.Versions = append(d.Versions, v)
	}
	if len(d.Versions) == 0 {
		return &api.Error{Status: 404, Code: "not_found", Message: "no definition has the key " + strconv.Quote(key) + ": deploy it from the designer first"}
	}
	slices.SortFunc(d.Versions, func(a, b web.VersionRow) int { return b.Version - a.Version })
	d.Selected = d.Versions[0]
	for _, v := range d.Versions {
		if v.Version == want {
			d.Selected = v
		}
	}
	d.Name = d.Selected.Name
	_, err = s.tasks.StartForm(ctx, key, d.Selected.Version)
	d.StartForm = err == nil
	p := s.layout(c, key, "definitions", "bpmn-js/diagram-js.css", "bpmn-js/bpmn-js.css", "bpmn-js/bpmn-font/css/bpmn-embedded.css", "form-js/form-js.css")
	p.Module = "definition.js"
	return renderPage(c, web.DefinitionPage(p, d))
}

// definitionSource is GET /ui/definitions/:key/:version/source: the source
// as deployed (version 0: the latest).
func (s *Service) definitionSource(c *fiber.Ctx) error {
	version, err := strconv.Atoi(c.Params("version"))
	if err != nil || version < 0 {
		return api.BadRequest("version %q is not a number", c.Params("version"))
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.eng.Queries().Definition(ctx, c.Params("key"), version)
	if err != nil {
		return err
	}
	c.Set("X-Definition-Version", strconv.Itoa(rec.Version))
	c.Set("X-Definition-Format", rec.Format)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	if rec.Format == engine.FormatBPMN {
		c.Type("xml", "utf-8")
	} else {
		c.Type("txt", "utf-8")
	}
	return c.Send(rec.Source)
}

// definitionDiagram is GET /ui/definitions/:key/:version/diagram: the
// definition as BPMN, for the viewers (monitor, heatmap, diff). A BPMN
// source comes as deployed; a JSON DAG or graph is exported as BPMN
// without a drawing, which the page lays out (X-Definition-Format says
// which it was).
func (s *Service) definitionDiagram(c *fiber.Ctx) error {
	version, err := strconv.Atoi(c.Params("version"))
	if err != nil || version < 0 {
		return api.BadRequest("version %q is not a number", c.Params("version"))
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, def, err := s.eng.Definition(ctx, c.Params("key"), version)
	if err != nil {
		return err
	}
	c.Set("X-Definition-Version", strconv.Itoa(rec.Version))
	c.Set("X-Definition-Format", rec.Format)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Type("xml", "utf-8")
	if rec.Format == engine.FormatBPMN {
		return c.Send(rec.Source)
	}
	return c.Send(bpmn.Export(def))
}

// setEnabled is POST /ui/definitions/:id/{enable,disable}.
func (s *Service) setEnabled(enabled bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := s.ctx(c)
		defer cancel()
		if err := s.eng.SetDefinitionEnabled(ctx, c.Params("id"), enabled, api.ActorOf(c).Name); err != nil {
			return err
		}
		return c.JSON(fiber.Map{"id": c.Params("id"), "enabled": enabled})
	}
}

func cutVersion(id string) (key string, version int, ok bool) {
	i := len(id) - 1
	for i >= 0 && id[i] != ':' {
		i--
	}
	if i < 0 {
		return "", 0, false
	}
	v, err := strconv.Atoi(id[i+1:])
	return id[:i], v, err == nil
}
