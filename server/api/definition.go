package api

import (
	"mime"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// formatOf maps a request's Content-Type to a definition format; "" lets
// the engine tell the JSON and YAML formats apart (DAG, graph, steps,
// state machines).
func formatOf(contentType string) (string, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", false
	}
	switch mt {
	case "application/xml", "text/xml", "application/bpmn+xml":
		return engine.FormatBPMN, true
	case "application/json":
		return "", true
	case "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml":
		return "", true
	}
	return "", false
}

// deploy is POST /api/v1/definitions: 201 with the new version, 200 when the
// source equals the latest version. ?format=bpmn|dag|graph|steps|form overrides
// what the Content-Type says (JSON is otherwise told apart by its shape: a
// form-js schema deploys as a form). A multipart/form-data body deploys
// several files at once, forms first, so its definitions can link them
// (binding "deployment"); it answers {"forms":[…],"definitions":[…]}.
// The version's change summary, status (active or draft) and makeDefault
// come as query parameters, multipart fields, or beside the source in a
// JSON envelope {"source", "format", "changeSummary", "status", "makeDefault"}.
func (s *Service) deploy(c *fiber.Ctx) error {
	if mt, _, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType)); mt == "multipart/form-data" {
		return s.deployMany(c)
	}
	format, ok := formatOf(c.Get(fiber.HeaderContentType))
	if !ok {
		return &Error{
			Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Message: "Content-Type must be application/xml or text/xml (BPMN), application/json (DAG, graph, steps or form), application/yaml (graph or steps) or multipart/form-data (several files)",
		}
	}
	switch q := c.Query("format"); q {
	case "":
	case engine.FormatBPMN, engine.FormatDAG, engine.FormatGraph, engine.FormatSteps, engine.FormatStateMachine, formatForm:
		format = q
	default:
		return BadRequest("query parameter \"format\" is %q: use bpmn, dag, graph, steps, state_machine or form", q)
	}
	if len(c.Request().Body()) == 0 {
		return BadRequest("request body is empty: send the definition's source")
	}
	// fasthttp reuses the body buffer after the handler returns: Deploy and
	// DeployForm copy what they keep, so what they refuse costs no copy.
	src := c.Request().Body() // not Body(): with Immutable set it copies
	if format == formatForm || (format == "" && isFormSchema(src)) {
		return s.deployFormSource(c, src)
	}
	req := engine.DeployRequest{Source: src, Format: format, Deployer: ActorOf(c).Name}
	opts, err := versionOptionsOf(func(k string) string { return c.Query(k) })
	if err != nil {
		return err
	}
	if env, ok := envelopeOf(src); ok && format == "" {
		if env.Source == "" {
			return BadRequest("field \"source\" is empty: put the definition's source in it")
		}
		opts = env.versionOptions
		req.Source, req.Format = []byte(env.Source), env.Format
	}
	if err := opts.apply(&req); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, created, err := s.eng.Deploy(ctx, req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.log.Info("definition deployed", "definition_id", rec.ID, "correlation_id", CorrelationID(c))
	}
	return c.Status(status).JSON(rec)
}
