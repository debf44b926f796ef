package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// FormRecord is one deployed, immutable version of a form-js form (a .form
// file). User tasks and start events link it by its id.
type FormRecord struct {
	ID         string    `json:"-" bson:"_id"` // formId:version
	FormID     string    `json:"id" bson:"form_id"`
	Version    int       `json:"version" bson:"version"`
	VersionTag string    `json:"versionTag,omitempty" bson:"version_tag,omitempty"`
	Name       string    `json:"name,omitempty" bson:"name,omitempty"`
	Checksum   string    `json:"checksum" bson:"checksum"`
	Schema     []byte    `json:"-" bson:"schema"`
	Deployed   time.Time `json:"deployedAt" bson:"deployed_at"`
	Deployer   string    `json:"deployedBy,omitempty" bson:"deployer,omitempty"`
}

// FormBinding says which version of a linked form a task uses (Camunda 8's
// bindingType).
type FormBinding = string

const (
	BindLatest     FormBinding = "latest"     // the latest version when the task was created
	BindDeployment FormBinding = "deployment" // the latest version when its process was deployed
	BindVersionTag FormBinding = "versionTag" // the latest version with the tag
)

// DeployForm stores a form-js schema as the next version of its id, unless
// the latest version has the same content (created false). The schema must
// be a JSON object with an "id" and "components".
func (e *Engine) DeployForm(ctx context.Context, src []byte, deployer string) (rec FormRecord, created bool, err error) {
	var head struct {
		ID         string          `json:"id"`
		Type       string          `json:"type"`
		VersionTag string          `json:"versionTag"`
		Components json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(src, &head); err != nil {
		return rec, false, fmt.Errorf("the form is not JSON: %w: %w", err, ErrInvalidInput)
	}
	switch {
	case strings.TrimSpace(head.ID) == "":
		return rec, false, fmt.Errorf("the form has no \"id\": give it one (tasks link it by id): %w", ErrInvalidInput)
	case len(head.Components) == 0 || head.Components[0] != '[':
		return rec, false, fmt.Errorf("form %q has no \"components\" list: is it a form-js schema?: %w", head.ID, ErrInvalidInput)
	}
	sum := sha256.Sum256(src)
	rec = FormRecord{
		FormID: head.ID, VersionTag: head.VersionTag, Name: head.ID, Checksum: hex.EncodeToString(sum[:]),
		Schema: bytes.Clone(src), Deployed: e.clock.Now(), Deployer: deployer, // the caller's buffer may be reused
	}
	saved, created, err := e.store.SaveForm(ctx, rec)
	if err != nil {
		return rec, false, fmt.Errorf("deploying form %q: %w", head.ID, err)
	}
	return saved, created, nil
}

// ResolveForm returns the version of form id that a binding picks. at is the
// moment that counts: when the task was created (latest) or its process
// deployed (deployment); forms are immutable, so the answer never changes.
func (e *Engine) ResolveForm(ctx context.Context, id string, binding FormBinding, tag string, at time.Time) (FormRecord, error) {
	versions, err := e.store.FormVersions(ctx, id)
	if err != nil {
		return FormRecord{}, err
	}
	for _, f := range versions { // newest first
		switch {
		case binding == BindVersionTag && f.VersionTag != tag:
		case binding != BindVersionTag && !at.IsZero() && f.Deployed.After(at):
		default:
			return f, nil
		}
	}
	if binding == BindVersionTag {
		return FormRecord{}, fmt.Errorf("form %q has no version tagged %q: %w", id, tag, ErrNotFound)
	}
	return FormRecord{}, fmt.Errorf("form %q was not deployed yet at %s: %w", id, at.Format(time.RFC3339), ErrNotFound)
}

// checkForms refuses a definition whose linked forms cannot be resolved now.
func (e *Engine) checkForms(ctx context.Context, def *model.Definition) error {
	var probs model.Problems
	for _, p := range def.Processes {
		for _, n := range p.AllNodes {
			h := n.Human
			if h.FormID == "" {
				continue
			}
			if _, err := e.ResolveForm(ctx, h.FormID, h.FormBinding, h.FormVersionTag, time.Time{}); err != nil {
				probs.Add(n.ID, "linked form %q cannot be resolved: %v: deploy the form first (POST /api/v1/forms)", h.FormID, err)
			}
		}
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}
