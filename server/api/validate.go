package api

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

type validation struct {
	Valid    bool            `json:"valid"`
	Key      string          `json:"key,omitempty"`
	Problems []model.Problem `json:"problems"`
}

// validate is POST /api/v1/definitions/validate: the problems a
// deploy would report, as 200, so the designer can mark them on the diagram.
func (s *Service) validate(c *fiber.Ctx) error {
	format, ok := formatOf(c.Get(fiber.HeaderContentType))
	if !ok {
		return &Error{
			Status: fiber.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Message: "Content-Type must be application/xml or text/xml (BPMN), application/json (DAG or graph) or application/yaml (graph)",
		}
	}
	if len(c.Request().Body()) == 0 {
		return BadRequest("request body is empty: send the definition's source")
	}
	src := c.Request().Body() // read only while the request lasts
	def, err := s.eng.ParseAndValidate(src, format)
	v := validation{Problems: []model.Problem{}}
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
		if e := Classify(err); e.Status >= 500 {
			return err
		}
		v.Problems = append(v.Problems, model.Problem{Message: err.Error()})
	}
	if def != nil {
		v.Key = def.Key
	}
	return c.JSON(v)
}
