package api

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// letterSelection selects dead letters by what they share; every field is
// optional. Bulk bodies embed it; the list reads it from the query.
type letterSelection struct {
	Instance    string     `json:"instance"`
	Definition  string     `json:"definition"`
	ElementID   string     `json:"elementId"`
	JobType     string     `json:"jobType"`
	Error       string     `json:"error"` // text one of its errors contains, in any case
	CreatedFrom *time.Time `json:"createdFrom"`
	CreatedTo   *time.Time `json:"createdTo"` // exclusive
	Status      statusList `json:"status"`
}

// statusList is one status or a list of them.
type statusList []string

func (l *statusList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = statusList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return BadRequest("field \"status\" must be a status or a list of them, like [\"replayed\", \"discarded\"]")
	}
	*l = many
	return nil
}

// filter is the selection as a store filter. Its statuses default to dflt,
// and must be among dflt when dflt is given (what the operation acts on);
// field names the status field in errors.
func (sel letterSelection) filter(field string, dflt []engine.DeadLetterStatus) (engine.DeadLetterFilter, error) {
	f := engine.DeadLetterFilter{
		InstanceID: sel.Instance, Definition: sel.Definition, ElementID: sel.ElementID, JobType: sel.JobType, Error: sel.Error,
	}
	if sel.CreatedFrom != nil {
		f.CreatedFrom = *sel.CreatedFrom
	}
	if sel.CreatedTo != nil {
		f.CreatedTo = *sel.CreatedTo
	}
	for _, v := range sel.Status {
		st := engine.DeadLetterStatus(strings.TrimSpace(v))
		if st == "open" { // its name before dead letters had more statuses
			st = engine.DeadLetterPending
		}
		if !slices.Contains(engine.DeadLetterStatuses, st) {
			return f, BadRequest("%s has %q: use %s", field, v, joinStatuses(engine.DeadLetterStatuses))
		}
		if dflt != nil && !slices.Contains(dflt, st) {
			return f, BadRequest("%s has %q: this acts only on letters that are %s", field, v, joinStatuses(dflt))
		}
		f.Status = append(f.Status, st)
	}
	if len(f.Status) == 0 {
		f.Status = dflt
	}
	return f, nil
}

func joinStatuses(l []engine.DeadLetterStatus) string {
	s := make([]string, len(l))
	for i, st := range l {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}

type replayLettersBody struct {
	letterSelection
	DryRun    bool           `json:"dryRun"`
	Variables map[string]any `json:"variables"` // merged into each instance first
}

type discardLettersBody struct {
	letterSelection
	DryRun bool `json:"dryRun"`
}

type purgeLettersBody struct {
	letterSelection
	OlderThan string `json:"olderThan"` // P30D or 720h: since it was settled
	DryRun    bool   `json:"dryRun"`
}

var pendingOnly = []engine.DeadLetterStatus{engine.DeadLetterPending}

// bulkLetters runs o on the first BulkMax pending letters sel selects (none
// on a dry run) and says how it went.
func (s *Service) bulkLetters(c *fiber.Ctx, what string, sel letterSelection, dryRun bool, o BulkOrder) error {
	f, err := sel.filter("field \"status\"", pendingOnly)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	count, err := s.eng.Queries().CountDeadLetters(ctx, f)
	if err != nil {
		return err
	}
	f.Limit = BulkMax
	if dryRun {
		f.Limit = engine.DeadLetterSample
	}
	letters, err := s.eng.Queries().DeadLetters(ctx, f)
	if err != nil {
		return err
	}
	for _, d := range letters {
		o.Items = append(o.Items, BulkItem{ID: d.ID, Instance: d.InstanceID})
	}
	res := s.bulk(ctx, dryRun, o)
	res.Matched = count
	for _, d := range letters[:min(len(letters), engine.DeadLetterSample)] {
		res.IDs = append(res.IDs, d.ID)
	}
	s.log.Info("dead letters "+what, "matched", res.Matched, "done", res.Done, "failed", len(res.Failed), "dry_run", dryRun,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(res)
}

// ReplayDeadLetters is POST /api/v1/dead-letters/replay: replays every
// pending dead letter the body selects (at most BulkMax), as replay does
// one; dryRun only counts them and names the first.
func (s *Service) ReplayDeadLetters(c *fiber.Ctx) error {
	var b replayLettersBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	return s.bulkLetters(c, "replayed", b.letterSelection, b.DryRun, BulkOrder{Action: BulkReplay, Variables: b.Variables, User: ActorOf(c).Name})
}

// DiscardDeadLetters is POST /api/v1/dead-letters/discard: discards every
// pending dead letter the body selects (at most BulkMax), as discard does
// one; dryRun only counts them and names the first.
func (s *Service) DiscardDeadLetters(c *fiber.Ctx) error {
	var b discardLettersBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	return s.bulkLetters(c, "discarded", b.letterSelection, b.DryRun, BulkOrder{Action: BulkDiscard, User: ActorOf(c).Name})
}

// PurgeDeadLetters is POST /api/v1/dead-letters/purge {"olderThan", ...}:
// deletes the settled letters (replayed, discarded, cancelled; or the
// statuses given) the body selects that were settled more than olderThan
// ago; dryRun only counts them and names the first.
func (s *Service) PurgeDeadLetters(c *fiber.Ctx) error {
	var b purgeLettersBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	age, err := parseAge(b.OlderThan)
	if err != nil {
		return err
	}
	f, err := b.filter("field \"status\"", engine.SettledDeadLetters)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	res, err := s.eng.PurgeDeadLetters(ctx, age, f, b.DryRun)
	if err != nil {
		return err
	}
	s.log.Info("dead letters purged", "matched", res.Matched, "older_than", b.OlderThan, "dry_run", b.DryRun,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	if res.IDs == nil {
		res.IDs = []string{}
	}
	return c.JSON(fiber.Map{"dryRun": b.DryRun, "matched": res.Matched, "ids": res.IDs})
}

// parseAge reads olderThan as engine.ParseAge does.
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, BadRequest("field \"olderThan\" is required: how long ago a letter was settled, like P30D or 720h")
	}
	d, err := engine.ParseAge(s)
	if err != nil {
		return 0, BadRequest("field \"olderThan\" is %q: write an age like P30D, PT12H or 720h", s)
	}
	return d, nil
}
