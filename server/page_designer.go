package server

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/web"
)

// HeatmapInstancesMax bounds how many of a version's newest instances the
// heatmap reads the history of, so the page stays quick on busy versions.
const HeatmapInstancesMax = 1000

// designerPage is GET /designer and /designer/:key.
func (s *Server) designerPage(c *fiber.Ctx) error {
	key := c.Params("key")
	if key != "" {
		ctx, cancel := s.ctx(c)
		defer cancel()
		if _, err := s.eng.Queries().Definition(ctx, key, 0); err != nil {
			return err
		}
	}
	title := "Designer"
	if key != "" {
		title = key + " · Designer"
	}
	p := s.pageInfo(c, title, "designer", "bpmn-js/diagram-js.css", "bpmn-js/bpmn-js.css",
		"bpmn-js/bpmn-font/css/bpmn-embedded.css", "properties-panel/properties-panel.css")
	p.Module = "designer.js"
	return renderPage(c, web.DesignerPage(p, key))
}

type pageValidation struct {
	Valid    bool            `json:"valid"`
	Key      string          `json:"key,omitempty"`
	Problems []model.Problem `json:"problems"`
}

// pageValidate is POST /api/v1/definitions/validate: the problems a
// deploy would report, as 200, so the designer can mark them on the diagram.
func (s *Server) pageValidate(c *fiber.Ctx) error {
	format, ok := formatOf(c.Get(fiber.HeaderContentType))
	if !ok {
		return &Error{
			Status: fiber.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Message: "Content-Type must be application/xml or text/xml (BPMN), application/json (DAG or graph) or application/yaml (graph)",
		}
	}
	if len(c.Request().Body()) == 0 {
		return badRequest("request body is empty: send the definition's source")
	}
	src := c.Request().Body() // read only while the request lasts
	def, err := s.eng.ParseAndValidate(src, format)
	v := pageValidation{Problems: []model.Problem{}}
	var (
		probs  model.Problems
		syntax *bpmn.SyntaxError
	)
	switch {
	case err == nil:
		v.Valid = true
	case errors.As(err, &probs):
		v.Problems = append(v.Problems, probs...)
	case errors.As(err, &syntax):
		v.Problems = append(v.Problems, model.Problem{Message: err.Error()})
	default:
		if e := classify(err); e.Status >= 500 {
			return err
		}
		v.Problems = append(v.Problems, model.Problem{Message: err.Error()})
	}
	if def != nil {
		v.Key = def.Key
	}
	return c.JSON(v)
}

type pageHeatmapView struct {
	Definition string         `json:"definition"`
	Instances  int            `json:"instances"` // of the version
	Sampled    int            `json:"sampled"`   // whose history was read
	Passed     map[string]int `json:"passed"`    // element id → activations
	Waiting    map[string]int `json:"waiting"`   // element id → tokens there now
	Incidents  map[string]int `json:"incidents"` // element id → open incidents
	Flows      map[string]int `json:"flows"`     // flow id → times taken
}

// heatmap is GET /ui/definitions/:key/:version/heatmap.
func (s *Server) pageHeatmap(c *fiber.Ctx) error {
	version, err := strconv.Atoi(c.Params("version"))
	if err != nil || version < 0 {
		return badRequest("version %q is not a number", c.Params("version"))
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	st := s.eng.Queries()
	rec, err := st.Definition(ctx, c.Params("key"), version)
	if err != nil {
		return err
	}
	all, _, err := st.Instances(ctx, engine.InstanceFilter{DefinitionKey: rec.Key})
	if err != nil {
		return err
	}
	h := pageHeatmapView{
		Definition: rec.ID, Passed: map[string]int{}, Waiting: map[string]int{},
		Incidents: map[string]int{}, Flows: map[string]int{},
	}
	for _, in := range all {
		if in.DefinitionID != rec.ID {
			continue
		}
		h.Instances++
		for _, t := range in.Tokens {
			h.Waiting[t.ElementID]++
		}
		for _, i := range in.Incidents {
			if i.Resolved == nil {
				h.Incidents[i.ElementID]++
			}
		}
		if h.Sampled >= HeatmapInstancesMax {
			continue
		}
		h.Sampled++
		events, err := st.Events(ctx, in.ID, 0, 0)
		if err != nil {
			return err
		}
		for _, e := range events {
			switch e.Type {
			case engine.EventElementActivated:
				h.Passed[e.ElementID]++
			case engine.EventFlowTaken:
				h.Flows[e.FlowID]++
			}
		}
	}
	return c.JSON(h)
}
