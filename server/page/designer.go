package page

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/web"
)

// HeatmapInstancesMax bounds how many of a version's newest instances the
// heatmap reads the history of, so the page stays quick on busy versions.
const HeatmapInstancesMax = 1000

// designerPage is GET /designer and /designer/:key.
func (s *Service) designerPage(c *fiber.Ctx) error {
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
	p := s.layout(c, title, "designer", "bpmn-js/diagram-js.css", "bpmn-js/bpmn-js.css",
		"bpmn-js/bpmn-font/css/bpmn-embedded.css", "properties-panel/properties-panel.css")
	p.Module = "designer.js"
	return renderPage(c, web.DesignerPage(p, key))
}

type heatmapView struct {
	Definition string         `json:"definition"`
	Instances  int            `json:"instances"` // of the version
	Sampled    int            `json:"sampled"`   // whose history was read
	Passed     map[string]int `json:"passed"`    // element id → activations
	Waiting    map[string]int `json:"waiting"`   // element id → tokens there now
	Incidents  map[string]int `json:"incidents"` // element id → open incidents
	Flows      map[string]int `json:"flows"`     // flow id → times taken
}

// heatmap is GET /ui/definitions/:key/:version/heatmap.
func (s *Service) heatmap(c *fiber.Ctx) error {
	version, err := strconv.Atoi(c.Params("version"))
	if err != nil || version < 0 {
		return api.BadRequest("version %q is not a number", c.Params("version"))
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
	h := heatmapView{
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
