package api

import (
	"bytes"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// definitionItem is one key in the definition list: its latest version, how
// many versions it has and its instances by status.
type definitionItem struct {
	engine.DefinitionRecord
	Versions  int                   `json:"versions"`
	Instances map[engine.Status]int `json:"instances"`
}

// listDefinitions is GET /api/v1/definitions?limit=&cursor=, by key.
func (s *Service) listDefinitions(c *fiber.Ctx) error {
	if err := onlyParams(c, "cursor", "limit"); err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	cursor, err := cursorIn(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	recs, err := s.eng.Queries().Definitions(ctx)
	if err != nil {
		return err
	}
	var items []definitionItem // recs come newest first per key, keys sorted
	for _, r := range recs {
		if n := len(items); n > 0 && items[n-1].Key == r.Key {
			items[n-1].Versions++
			continue
		}
		items = append(items, definitionItem{DefinitionRecord: r, Versions: 1})
	}
	items, next := paginate(items, cursor, limit, func(d definitionItem) string { return d.Key }, ascending)
	counts := map[string]map[engine.Status]int{}
	if len(items) == 1 {
		counts, err = s.eng.InstanceCounts(ctx, items[0].Key)
	} else if len(items) > 1 {
		counts, err = s.eng.InstanceCounts(ctx, "")
	}
	if err != nil {
		return err
	}
	for i := range items {
		items[i].Instances = counts[items[i].Key]
		if items[i].Instances == nil {
			items[i].Instances = map[engine.Status]int{}
		}
	}
	return c.JSON(newListPage(items, next))
}

// definitionView is one version with its model and original source, and
// whether it is the default version. For the key alone (no version asked)
// it is the latest, with every version's lifecycle.
type definitionView struct {
	engine.DefinitionRecord
	Model     modelSummary `json:"model"`
	Source    string       `json:"source"`
	IsDefault bool         `json:"default"`
	// DefaultVersion is the version starts without a version go to (0: none).
	DefaultVersion int                    `json:"defaultVersion"`
	DefaultChanges []engine.DefaultChange `json:"defaultChanges,omitempty"`
	Versions       []versionView          `json:"versions,omitempty"`
}

type modelSummary struct {
	Processes []processSummary `json:"processes"`
}

type processSummary struct {
	ID         string           `json:"id"`
	Name       string           `json:"name,omitempty"`
	Executable bool             `json:"executable"`
	Elements   []elementSummary `json:"elements"`
	Flows      []flowSummary    `json:"flows"`
}

type elementSummary struct {
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	Kind    string `json:"kind"`
	Trigger string `json:"trigger,omitempty"`
	Scope   string `json:"scope,omitempty"` // the sub-process it sits in
	JobType string `json:"jobType,omitempty"`
}

type flowSummary struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Source    string `json:"source"`
	Target    string `json:"target"`
	Condition string `json:"condition,omitempty"`
	Default   bool   `json:"default,omitempty"`
}

func summarize(def *model.Definition) modelSummary {
	out := modelSummary{Processes: []processSummary{}}
	for _, p := range def.Processes {
		ps := processSummary{ID: p.ID, Name: p.Name, Executable: p.Executable, Elements: []elementSummary{}, Flows: []flowSummary{}}
		for _, n := range p.AllNodes {
			e := elementSummary{ID: n.ID, Name: n.Name, Kind: n.Kind.String(), JobType: n.Job.Type}
			if n.Trigger != model.TriggerNone {
				e.Trigger = n.Trigger.String()
			}
			if n.Scope != nil && n.Scope.Owner != nil {
				e.Scope = n.Scope.Owner.ID
			}
			ps.Elements = append(ps.Elements, e)
		}
		for _, f := range p.AllFlows {
			ps.Flows = append(ps.Flows, flowSummary{
				ID: f.ID, Name: f.Name, Source: f.SourceID, Target: f.TargetID,
				Condition: f.Condition, Default: f.IsDefault(),
			})
		}
		out.Processes = append(out.Processes, ps)
	}
	return out
}

// versionOf reads the :v route parameter; "" or "latest" is 0.
func versionOf(c *fiber.Ctx) (int, error) {
	p := c.Params("v")
	if p == "" || p == "latest" {
		return 0, nil
	}
	v, err := strconv.Atoi(p)
	if err != nil || v < 1 {
		return 0, BadRequest("version %q is not a version number: use 1, 2, ... or latest", p)
	}
	return v, nil
}

// getDefinition is GET /api/v1/definitions/:key and
// GET /api/v1/definitions/:key/versions/:v.
func (s *Service) getDefinition(c *fiber.Ctx) error {
	v, err := versionOf(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, def, err := s.eng.Definition(ctx, c.Params("key"), v)
	if err != nil {
		return err
	}
	l, err := s.eng.Lifecycle(ctx, rec.Key)
	if err != nil {
		return err
	}
	view := definitionView{
		DefinitionRecord: rec, Model: summarize(def), Source: string(rec.Source),
		IsDefault: rec.Version == l.Default, DefaultVersion: l.Default,
	}
	if c.Params("v") == "" {
		lv := viewOfLifecycle(l)
		view.DefaultChanges, view.Versions = lv.DefaultChanges, lv.Versions
	}
	return c.JSON(view)
}

// definitionSource is GET /api/v1/definitions/:key/versions/:v/xml: the
// source as deployed, with its format's content type.
func (s *Service) definitionSource(c *fiber.Ctx) error {
	v, err := versionOf(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.eng.Queries().Definition(ctx, c.Params("key"), v)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, sourceType(rec))
	return c.Send(rec.Source)
}

func sourceType(rec engine.DefinitionRecord) string {
	switch {
	case rec.Format == engine.FormatBPMN:
		return "application/xml; charset=utf-8"
	case bytes.HasPrefix(bytes.TrimSpace(rec.Source), []byte("{")):
		return fiber.MIMEApplicationJSONCharsetUTF8
	}
	return "application/yaml; charset=utf-8"
}

// listVersions is GET /api/v1/definitions/:key/versions, newest first.
func (s *Service) listVersions(c *fiber.Ctx) error {
	if err := onlyParams(c, "cursor", "limit"); err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	cur, err := cursorIn(c)
	if err != nil {
		return err
	}
	cursor := 0
	if cur != "" {
		if cursor, err = strconv.Atoi(cur); err != nil || cursor < 1 {
			return BadRequest("query parameter \"cursor\" is %q: pass the \"next\" of the previous page", cur)
		}
	}
	key := c.Params("key")
	ctx, cancel := s.ctx(c)
	defer cancel()
	latest, err := s.eng.Queries().Definition(ctx, key, 0)
	if err != nil {
		return err
	}
	top := latest.Version
	if cursor > 0 {
		top = min(top, cursor-1)
	}
	var items []engine.DefinitionRecord
	for v := top; v >= 1 && len(items) < limit; v-- {
		rec, err := s.eng.Queries().Definition(ctx, key, v)
		if err != nil {
			return err
		}
		items = append(items, rec)
	}
	next := ""
	if n := len(items); n > 0 && items[n-1].Version > 1 {
		next = strconv.Itoa(items[n-1].Version)
	}
	return c.JSON(newListPage(items, next))
}

// setEnabled serves POST /api/v1/definitions/:key/versions/:v/enable|disable.
func (s *Service) setEnabled(enabled bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		v, err := versionOf(c)
		if err != nil {
			return err
		}
		ctx, cancel := s.ctx(c)
		defer cancel()
		rec, err := s.eng.Queries().Definition(ctx, c.Params("key"), v)
		if err != nil {
			return err
		}
		if err := s.eng.SetDefinitionEnabled(ctx, rec.ID, enabled, ActorOf(c).Name); err != nil {
			return err
		}
		rec.Enabled = enabled
		s.log.Info("definition enabled changed", "definition_id", rec.ID, "enabled", enabled,
			"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
		return c.JSON(rec)
	}
}
