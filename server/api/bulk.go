package api

import (
	"context"

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

// BulkResult answers a bulk request: how many matched, how many were acted
// on, and each one that failed with why.
type BulkResult struct {
	DryRun  bool         `json:"dryRun"`
	Matched int          `json:"matched"`
	Done    int          `json:"done"`
	Failed  []BulkFailed `json:"failed"`
	IDs     []string     `json:"ids,omitempty"` // the first matched, for dead letters
}

// BulkFailed is an item of a bulk request that failed, with the error code
// and message it would have alone.
type BulkFailed struct {
	ID    string `json:"id"`
	Code  string `json:"code"`
	Error string `json:"error"`
}

// bulk runs o on its first BulkMax items (none on a dry run) and says how
// it went; every item matched.
func (s *Service) bulk(ctx context.Context, dryRun bool, o BulkOrder) BulkResult {
	res := BulkResult{DryRun: dryRun, Matched: len(o.Items), Failed: []BulkFailed{}}
	if dryRun {
		return res
	}
	o.Items = o.Items[:min(len(o.Items), BulkMax)]
	res.Done, res.Failed = s.runBulk(ctx, o, "")
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
	o := BulkOrder{Action: BulkRetry, Variables: b.Variables, User: ActorOf(c).Name}
	for _, i := range open {
		if b.matches(i.InstanceID, i.Definition, i.ElementID) && (b.Kind == "" || b.Kind == i.Kind) {
			o.Items = append(o.Items, BulkItem{ID: i.ID, Instance: i.InstanceID})
		}
	}
	res := s.bulk(ctx, b.DryRun, o)
	s.log.Info("incidents retried", "matched", res.Matched, "done", res.Done, "failed", len(res.Failed), "dry_run", b.DryRun,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(res)
}
