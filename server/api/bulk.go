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
	JobType    string         `json:"jobType"` // dead letters
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

// replayDeadLetters is POST /api/v1/dead-letters/replay: replays every open
// dead letter the body selects (at most BulkMax), as replay does one.
func (s *Service) replayDeadLetters(c *fiber.Ctx) error {
	var b bulkBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if b.Kind != "" {
		return BadRequest("field \"kind\" selects incidents: use \"jobType\" for dead letters, or POST /api/v1/incidents/retry")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	open, err := s.eng.Queries().DeadLetters(ctx, engine.DeadLetterFilter{InstanceID: b.Instance, Status: engine.DeadLetterOpen})
	if err != nil {
		return err
	}
	var sel []engine.DeadLetter
	for _, d := range open {
		if b.matches(d.InstanceID, d.Definition, d.ElementID) && (b.JobType == "" || b.JobType == d.JobType) {
			sel = append(sel, d)
		}
	}
	res := bulk(b.DryRun, sel, func(d engine.DeadLetter) (string, error) {
		_, _, err := s.eng.ReplayDeadLetter(ctx, d.ID, b.Variables)
		return d.ID, err
	})
	s.log.Info("dead letters replayed", "matched", res.Matched, "done", res.Done, "failed", len(res.Failed), "dry_run", b.DryRun,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(res)
}
