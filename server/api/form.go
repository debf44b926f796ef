package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// formatForm is the deploy format of a form-js schema (a .form file).
const formatForm = "form"

// isFormSchema tells a form-js schema from a JSON definition: an object
// with a "components" list and none of the definition formats' markers.
func isFormSchema(src []byte) bool {
	var head struct {
		Components json.RawMessage `json:"components"`
		GraphID    json.RawMessage `json:"graphId"`
		StartNode  json.RawMessage `json:"startNode"`
	}
	if json.Unmarshal(src, &head) != nil {
		return false
	}
	return bytes.HasPrefix(bytes.TrimSpace(head.Components), []byte("[")) && head.GraphID == nil && head.StartNode == nil
}

// formView is a deployed form version with its schema.
type formView struct {
	engine.FormRecord
	Schema json.RawMessage `json:"schema"`
}

// deployForm is POST /api/v1/forms: the body is a .form file (form-js JSON
// with an "id"); 201 new version, 200 when it equals the latest.
func (s *Service) deployForm(c *fiber.Ctx) error {
	if len(c.Request().Body()) == 0 {
		return BadRequest("request body is empty: send the .form file (form-js JSON with an \"id\")")
	}
	return s.deployFormSource(c, c.Request().Body()) // DeployForm copies what it keeps
}

func (s *Service) deployFormSource(c *fiber.Ctx, src []byte) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, created, err := s.eng.DeployForm(ctx, src, ActorOf(c).Name)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.log.Info("form deployed", "form_id", rec.FormID, "version", rec.Version, "correlation_id", CorrelationID(c))
	}
	return c.Status(status).JSON(formView{FormRecord: rec, Schema: rec.Schema})
}

// deployMany deploys the files of a multipart body: forms first, then the
// definitions, which may link them.
func (s *Service) deployMany(c *fiber.Ctx) error {
	mf, err := c.MultipartForm()
	if err != nil {
		return BadRequest("multipart body unreadable: %v", err)
	}
	type file struct {
		name string
		src  []byte
	}
	var forms, defs []file
	for _, hs := range mf.File {
		for _, h := range hs {
			f, err := h.Open()
			if err != nil {
				return BadRequest("file %q unreadable: %v", h.Filename, err)
			}
			src, err := io.ReadAll(f)
			_ = f.Close()
			if err != nil {
				return BadRequest("file %q unreadable: %v", h.Filename, err)
			}
			if strings.HasSuffix(h.Filename, ".form") || isFormSchema(src) {
				forms = append(forms, file{h.Filename, src})
			} else {
				defs = append(defs, file{h.Filename, src})
			}
		}
	}
	if len(forms)+len(defs) == 0 {
		return BadRequest("the multipart body has no files: attach .bpmn, .json, .yaml and .form files")
	}
	opts, err := versionOptionsOf(func(k string) string {
		if vs := mf.Value[k]; len(vs) > 0 {
			return vs[0]
		}
		return ""
	})
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	out := struct {
		Forms       []engine.FormRecord       `json:"forms"`
		Definitions []engine.DefinitionRecord `json:"definitions"`
	}{Forms: []engine.FormRecord{}, Definitions: []engine.DefinitionRecord{}}
	by := ActorOf(c).Name
	for _, f := range forms {
		rec, _, err := s.eng.DeployForm(ctx, f.src, by)
		if err != nil {
			return BadRequest("%s: %v", f.name, err)
		}
		out.Forms = append(out.Forms, rec)
	}
	for _, f := range defs {
		req := engine.DeployRequest{Source: f.src, Deployer: by}
		if err := opts.apply(&req); err != nil {
			return err
		}
		rec, _, err := s.eng.Deploy(ctx, req)
		if err != nil {
			return err
		}
		out.Definitions = append(out.Definitions, rec)
	}
	return c.Status(http.StatusCreated).JSON(out)
}

// listForms is GET /api/v1/forms: the latest version of every form.
func (s *Service) listForms(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	items, err := s.eng.Queries().Forms(ctx)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"items": items})
}

// getForm is GET /api/v1/forms/:id (the latest version) and
// /api/v1/forms/:id/versions/:v.
func (s *Service) getForm(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	versions, err := s.eng.Queries().FormVersions(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	if v := c.Params("v"); v != "" {
		n, err := strconv.Atoi(v)
		i := slices.IndexFunc(versions, func(f engine.FormRecord) bool { return f.Version == n })
		if err != nil || i < 0 {
			return &Error{Status: http.StatusNotFound, Code: "not_found", Message: sprintf("form %s has no version %s", c.Params("id"), v)}
		}
		versions = versions[i:]
	}
	return c.JSON(formView{FormRecord: versions[0], Schema: versions[0].Schema})
}

// TaskForm is GET /api/v1/tasks/:id/form (and /ui/tasks/:id/form): the
// schema the inbox renders and the values it starts with.
func (s *Service) TaskForm(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	f, err := s.tasks.Form(ctx, ActorOf(c).Task(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(f)
}

// startForm is GET /api/v1/definitions/:key/start-form?version=N.
func (s *Service) startForm(c *fiber.Ctx) error {
	version := 0
	if v := c.Query("version"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return BadRequest("query parameter \"version\" is %q: give a version number", v)
		}
		version = n
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	f, err := s.tasks.StartForm(ctx, c.Params("key"), version)
	if err != nil {
		return err
	}
	return c.JSON(f)
}
