package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// historyMax bounds how many instance events a task's history reads.
const historyMax = 10_000

// HistoryEntry is one thing that happened to a task: created, claimed,
// released, delegated, commented, completed (with the submitted values) or
// cancelled.
type HistoryEntry struct {
	Time     time.Time      `json:"time"`
	Type     string         `json:"type"` // the event type without "task."
	By       string         `json:"by,omitempty"`
	Assignee string         `json:"assignee,omitempty"`
	Text     string         `json:"text,omitempty"`
	Values   map[string]any `json:"values,omitempty"`
}

// History reads what happened to t from its instance's event log.
func (s *Service) History(ctx context.Context, t Task) ([]HistoryEntry, error) {
	events, err := s.cfg.Store.Events(ctx, t.InstanceID, 0, historyMax)
	if err != nil {
		return nil, fmt.Errorf("history of task %s: %w", t.ID, err)
	}
	out := []HistoryEntry{}
	for _, e := range events {
		if id, _ := e.Detail["taskId"].(string); id != t.ID {
			continue
		}
		h := HistoryEntry{Time: e.Time, Type: string(e.Type)[len("task."):]}
		h.By, _ = e.Detail["by"].(string)
		h.Assignee, _ = e.Detail["assignee"].(string)
		h.Text, _ = e.Detail["text"].(string)
		if e.Type == engine.EventTaskDenied {
			h.Text, _ = e.Detail["reason"].(string)
		}
		if e.Type == engine.EventTaskDone {
			h.Values, _ = e.Detail["variables"].(map[string]any)
		}
		out = append(out, h)
	}
	return out, nil
}
