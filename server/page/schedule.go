package page

import (
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/web"
)

// schedulesPage is GET /schedules; schedules.js lists them from the API.
func (s *Service) schedulesPage(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	defs, err := s.eng.Queries().Definitions(ctx)
	if err != nil {
		return err
	}
	var d web.SchedulesData
	for _, rec := range defs {
		if !slices.Contains(d.DefinitionKeys, rec.Key) {
			d.DefinitionKeys = append(d.DefinitionKeys, rec.Key)
		}
	}
	slices.Sort(d.DefinitionKeys)
	p := s.layout(c, "Schedules", "schedules")
	p.Module = "schedules.js"
	return renderPage(c, web.SchedulesPage(p, d))
}
