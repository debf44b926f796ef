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
		d, ok := e.Task()
		if !ok || d.TaskID != t.ID {
			continue
		}
		h := HistoryEntry{Time: e.Time, Type: string(e.Type)[len("task."):], By: d.By, Assignee: d.Assignee, Text: d.Text}
		if e.Type == engine.EventTaskDenied {
			h.Text = d.Reason
		}
		if e.Type == engine.EventTaskDone {
			h.Values = d.Variables
		}
		out = append(out, h)
	}
	return out, nil
}
