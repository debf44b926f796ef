package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// Form is what the inbox renders for a task or a start: a form-js schema
// and the values it starts with. GET /api/v1/tasks/{id}/form and
// GET /api/v1/definitions/{key}/start-form answer it.
type Form struct {
	Schema json.RawMessage `json:"schema"`
	Data   map[string]any  `json:"data"`
	// Source says where the schema came from: embedded (in the BPMN),
	// linked (a deployed form, with FormID and Version) or generated.
	Source  string `json:"source"`
	FormID  string `json:"formId,omitempty"`
	Version int    `json:"version,omitempty"`
}

// Forms is what resolving forms asks of the engine.
type Forms interface {
	ResolveForm(ctx context.Context, id string, binding engine.FormBinding, tag string, at time.Time) (engine.FormRecord, error)
	DefinitionByID(ctx context.Context, id string) (engine.DefinitionRecord, *model.Definition, error)
	Definition(ctx context.Context, key string, version int) (engine.DefinitionRecord, *model.Definition, error)
}

// Form returns the form of task id for a, with the instance's variables as
// its data.
func (s *Service) Form(ctx context.Context, a Actor, id string) (Form, error) {
	t, err := s.Get(ctx, a, id)
	if err != nil {
		return Form{}, err
	}
	snap, err := s.cfg.Engine.Instance(ctx, t.InstanceID)
	if err != nil {
		return Form{}, fmt.Errorf("instance of task %s: %w", t.ID, err)
	}
	f, err := s.formOf(ctx, t, snap)
	if err != nil {
		return Form{}, err
	}
	f.Data = snap.Variables
	if f.Data == nil {
		f.Data = map[string]any{}
	}
	return f, nil
}

// formOf finds a task's schema: embedded, else linked, else generated.
func (s *Service) formOf(ctx context.Context, t Task, snap *engine.Snapshot) (Form, error) {
	switch {
	case t.Form != "":
		return Form{Schema: json.RawMessage(t.Form), Source: "embedded"}, nil
	case t.FormID != "":
		at := t.Created
		if t.FormBinding == engine.BindDeployment {
			rec, _, err := s.cfg.Forms.DefinitionByID(ctx, snap.DefinitionID)
			if err != nil {
				return Form{}, fmt.Errorf("definition of task %s: %w", t.ID, err)
			}
			at = rec.Deployed
		}
		rec, err := s.cfg.Forms.ResolveForm(ctx, t.FormID, t.FormBinding, t.FormVersionTag, at)
		if err != nil {
			return Form{}, fmt.Errorf("form of task %s: %w", t.ID, err)
		}
		return Form{Schema: rec.Schema, Source: "linked", FormID: rec.FormID, Version: rec.Version}, nil
	}
	_, def, err := s.cfg.Forms.DefinitionByID(ctx, snap.DefinitionID)
	if err != nil {
		return Form{}, fmt.Errorf("definition of task %s: %w", t.ID, err)
	}
	var n *model.Node
	if p := def.Process(snap.ProcessID); p != nil {
		n = p.Node(t.ElementID)
	}
	if n == nil {
		return Form{}, fmt.Errorf("task %s: element %q is not in its definition", t.ID, t.ElementID)
	}
	return Form{Schema: GenerateForm(n, snap.Variables), Source: "generated"}, nil
}

// submissionForm is the schema a completion is checked against: the task's
// embedded or linked form (a generated one accepts anything).
func (s *Service) submissionForm(ctx context.Context, t Task) (json.RawMessage, error) {
	if t.Form == "" && t.FormID == "" {
		return nil, nil
	}
	snap, err := s.cfg.Engine.Instance(ctx, t.InstanceID)
	if err != nil {
		return nil, fmt.Errorf("instance of task %s: %w", t.ID, err)
	}
	f, err := s.formOf(ctx, t, snap)
	if errors.Is(err, engine.ErrNotFound) {
		return nil, nil
	}
	return f.Schema, err
}
