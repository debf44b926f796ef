package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// BulkMax is how many incidents or dead letters one bulk request acts on;
// the answer says how many matched, so a caller repeats until none remain.
const BulkMax = 1000

// bulkBody selects open incidents or dead letters by what they share; every
// field is optional (none: all open ones). dryRun only counts.
type bulkBody struct {
	Instance   string         `json:"instance"`
	Definition string         `json:"definition"`
	ElementID  string         `json:"elementId"`
	Kind       string         `json:"kind"`    // incidents: job, expression, condition, ...
	JobType    string         `json:"jobType"` // refused: it selects dead letters (dead_letter_bulk.go)
	DryRun     bool           `json:"dryRun"`
	Variables  map[string]any `json:"variables"` // merged into each instance first
}

// bulkResult answers a bulk request: how many matched, how many were acted
// on, and each one that failed with why.
type bulkResult struct {
	DryRun  bool         `json:"dryRun"`
	Matched int          `json:"matched"`
	Done    int          `json:"done"`
	Failed  []bulkFailed `json:"failed"`
	IDs     []string     `json:"ids,omitempty"` // the first matched, for dead letters
}

type bulkFailed struct {
	ID    string `json:"id"`
	Code  string `json:"code"`
	Error string `json:"error"`
}

// bulk runs do on the first BulkMax of items (none on a dry run) and says
// how it went; do returns the item's id and what became of it.
func bulk[T any](dryRun bool, items []T, do func(T) (string, error)) bulkResult {
	res := bulkResult{DryRun: dryRun, Matched: len(items), Failed: []bulkFailed{}}
	if dryRun {
		return res
	}
	for _, it := range items[:min(len(items), BulkMax)] {
		if id, err := do(it); err != nil {
			e := Classify(err)
			res.Failed = append(res.Failed, bulkFailed{ID: id, Code: e.Code, Error: e.Message})
			continue
		}
		res.Done++
	}
	return res
}

func (b bulkBody) matches(instance, definition, element string) bool {
	return (b.Instance == "" || b.Instance == instance) && (b.Definition == "" || b.Definition == definition) &&
		(b.ElementID == "" || b.ElementID == element)
}

// retryIncidents is POST /api/v1/incidents/retry: resolves every open
// incident the body selects (at most BulkMax), as resolve does one.
func (s *Service) retryIncidents(c *fiber.Ctx) error {
	var b bulkBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if b.JobType != "" {
		return BadRequest("field \"jobType\" selects dead letters: use \"kind\" for incidents, or POST /api/v1/dead-letters/replay")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	open, err := s.eng.Queries().Incidents(ctx, engine.IncidentFilter{InstanceID: b.Instance, Open: true})
	if err != nil {
		return err
	}
	var ids []engine.Incident
	for _, i := range open {
		if b.matches(i.InstanceID, i.Definition, i.ElementID) && (b.Kind == "" || b.Kind == i.Kind) {
			ids = append(ids, i)
		}
	}
	res := bulk(b.DryRun, ids, func(i engine.Incident) (string, error) {
		_, err := s.eng.ResolveIncident(ctx, i.InstanceID, i.ID, b.Variables)
		return i.ID, err
	})
	s.log.Info("incidents retried", "matched", res.Matched, "done", res.Done, "failed", len(res.Failed), "dry_run", b.DryRun,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(res)
}
