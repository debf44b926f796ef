package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine/model"
)

// definitionDiff is what changed between two versions of a definition.
type definitionDiff struct {
	Key         string           `json:"key"`
	From        int              `json:"from"`
	To          int              `json:"to"`
	Added       []elementRef     `json:"added"`
	Removed     []elementRef     `json:"removed"`
	Changed     []elementChanges `json:"changed"`
	UnifiedDiff string           `json:"unifiedDiff"`
}

type elementRef struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // a node kind, or "sequenceFlow"
	Name string `json:"name,omitempty"`
}

type elementChanges struct {
	elementRef
	Changes []propertyChange `json:"changes"`
}

// propertyChange is one property of an element that differs.
type propertyChange struct {
	Property string `json:"property"` // e.g. "name", "condition", "job.type"
	Category string `json:"category"` // name, kind, condition or extension
	From     string `json:"from"`
	To       string `json:"to"`
}

// diffDefinitions is GET /api/v1/definitions/:key/diff?from=&to=.
func (s *Service) diffDefinitions(c *fiber.Ctx) error {
	from, err := versionParam(c, "from")
	if err != nil {
		return err
	}
	to, err := versionParam(c, "to")
	if err != nil {
		return err
	}
	key := c.Params("key")
	ctx, cancel := s.ctx(c)
	defer cancel()
	recA, defA, err := s.eng.Definition(ctx, key, from)
	if err != nil {
		return err
	}
	recB, defB, err := s.eng.Definition(ctx, key, to)
	if err != nil {
		return err
	}
	d := diffModels(defA, defB)
	d.Key, d.From, d.To = key, recA.Version, recB.Version
	d.UnifiedDiff = unifiedDiff(fmt.Sprintf("%s v%d", key, recA.Version), fmt.Sprintf("%s v%d", key, recB.Version),
		string(recA.Source), string(recB.Source))
	return c.JSON(d)
}

func versionParam(c *fiber.Ctx, name string) (int, error) {
	p := c.Query(name)
	v, err := strconv.Atoi(p)
	if err != nil || v < 1 {
		return 0, BadRequest("query parameter %q is %q: give a version number, e.g. ?from=1&to=2", name, p)
	}
	return v, nil
}

// element is a node or flow with its comparable properties.
type element struct {
	ref   elementRef
	props map[string]string
}

func diffModels(a, b *model.Definition) definitionDiff {
	ea, eb := elementsOf(a), elementsOf(b)
	d := definitionDiff{Added: []elementRef{}, Removed: []elementRef{}, Changed: []elementChanges{}}
	for _, id := range slices.Sorted(maps.Keys(eb)) {
		if _, ok := ea[id]; !ok {
			d.Added = append(d.Added, eb[id].ref)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ea)) {
		x, ok := eb[id]
		if !ok {
			d.Removed = append(d.Removed, ea[id].ref)
			continue
		}
		if ch := compareProps(ea[id].props, x.props); len(ch) > 0 {
			d.Changed = append(d.Changed, elementChanges{elementRef: x.ref, Changes: ch})
		}
	}
	return d
}

func compareProps(a, b map[string]string) []propertyChange {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []propertyChange
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, propertyChange{Property: k, Category: category(k), From: a[k], To: b[k]})
		}
	}
	return out
}

func category(prop string) string {
	switch prop {
	case "name", "kind":
		return prop
	case "condition", "default":
		return "condition"
	}
	return "extension"
}

// elementsOf indexes every node and flow of every process by id.
func elementsOf(def *model.Definition) map[string]element {
	out := map[string]element{}
	for _, p := range def.Processes {
		for _, n := range p.AllNodes {
			out[n.ID] = element{ref: elementRef{ID: n.ID, Kind: n.Kind.String(), Name: n.Name}, props: nodeProps(n)}
		}
		for _, f := range p.AllFlows {
			props := map[string]string{
				"name": f.Name, "kind": "sequenceFlow", "condition": f.Condition,
				"source": f.SourceID, "target": f.TargetID,
			}
			if f.IsDefault() {
				props["default"] = "true"
			}
			out[f.ID] = element{ref: elementRef{ID: f.ID, Kind: "sequenceFlow", Name: f.Name}, props: props}
		}
	}
	return out
}

// nodeProps flattens what a person changes on a node; empty values are left out.
func nodeProps(n *model.Node) map[string]string {
	p := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			p[k] = v
		}
	}
	set("name", n.Name)
	set("kind", n.Kind.String())
	if n.Trigger != model.TriggerNone {
		set("trigger", n.Trigger.String())
	}
	set("default", n.DefaultID)
	set("documentation", n.Documentation)
	set("attachedTo", n.AttachedToID)
	if n.Kind == model.KindBoundaryEvent {
		set("interrupting", strconv.FormatBool(n.Interrupting))
	}
	if n.Scope != nil && n.Scope.Owner != nil {
		set("scope", n.Scope.Owner.ID)
	}
	if n.Timer != nil {
		set("timer", n.Timer.Kind.String()+" "+n.Timer.Expr)
		set("timer.timeZone", n.Timer.TimeZone)
	}
	if n.Message != nil {
		set("message.name", n.Message.Name)
		set("message.correlationKey", n.Message.CorrelationKey)
	}
	set("errorCode", n.ErrorCode)
	set("errorMessage", n.ErrorMessage)
	set("link", n.LinkName)
	set("signal", n.SignalName)
	set("job.type", n.Job.Type)
	set("job.headers", jsonOf(n.Job.Headers))
	set("job.parameters", jsonOf(n.Job.Parameters))
	if n.Job.Timeout > 0 {
		set("job.timeout", n.Job.Timeout.String())
	}
	set("script.format", n.Script.Format)
	set("script.source", n.Script.Source)
	set("script.resultVariable", n.Script.ResultVariable)
	h := n.Human
	set("assignee", h.Assignee)
	set("candidateUsers", jsonOf(h.CandidateUsers))
	set("candidateGroups", jsonOf(h.CandidateGroups))
	set("formKey", h.FormKey)
	set("form", h.Form)
	set("priority", h.Priority)
	set("dueDate", h.DueDate)
	set("followUpDate", h.FollowUpDate)
	set("inputs", jsonOf(n.Inputs))
	set("outputs", jsonOf(n.Outputs))
	if r := n.Retry; r.Retries != 0 || r.Backoff != 0 || r.Delay != 0 || r.MaxDelay != 0 || r.Jitter != 0 || len(r.RetryOn) > 0 {
		set("retry", retryText(n.Retry))
	}
	for k, v := range n.Attrs {
		set("attrs."+k, v)
	}
	return p
}

func retryText(r model.RetryPolicy) string {
	return fmt.Sprintf("retries=%d backoff=%d delay=%s maxDelay=%s jitter=%g retryOn=%v",
		r.Retries, r.Backoff, r.Delay, r.MaxDelay, r.Jitter, r.RetryOn)
}

// jsonOf is v as compact JSON, or "" for an empty value.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	switch string(b) {
	case "null", "{}", "[]", `""`:
		return ""
	}
	return string(b)
}
