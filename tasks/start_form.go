package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/workflowpp/wfpp/engine"
)

// StartForm returns the form of a definition version's start event (version
// 0: the latest), for "Start" on the definition page. Linked forms resolve
// as they would for a task created now. A definition without a start form is
// 404 no_start_form.
func (s *Service) StartForm(ctx context.Context, key string, version int) (Form, error) {
	rec, def, err := s.cfg.Forms.Definition(ctx, key, version)
	if err != nil {
		return Form{}, err
	}
	p := def.Main()
	if p == nil {
		return Form{}, fmt.Errorf("definition %s has no process: %w", rec.ID, engine.ErrNotFound)
	}
	for _, n := range p.NoneStarts() {
		h := n.Human
		switch {
		case h.Form != "":
			return Form{Schema: json.RawMessage(h.Form), Data: map[string]any{}, Source: "embedded"}, nil
		case h.FormID != "":
			at := s.now()
			if h.FormBinding == engine.BindDeployment {
				at = rec.Deployed
			}
			f, err := s.cfg.Forms.ResolveForm(ctx, h.FormID, h.FormBinding, h.FormVersionTag, at)
			if err != nil {
				return Form{}, fmt.Errorf("start form of %s: %w", rec.ID, err)
			}
			return Form{Schema: f.Schema, Data: map[string]any{}, Source: "linked", FormID: f.FormID, Version: f.Version}, nil
		}
	}
	return Form{}, &Error{
		Status: http.StatusNotFound, Code: "no_start_form",
		Message: fmt.Sprintf("definition %s has no start form: start it with variables as JSON", rec.ID),
	}
}
