package graph

import (
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/workflowpp/wfpp/engine/model"
)

// cronParser reads what the engine's timer cycles read: 5 fields, or 6
// with seconds first, or a descriptor such as @daily.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// schedule makes a Timer's cron schedule its timer cycle. A Timer no edge
// enters is a trigger: it becomes a timer start event (scheduledStart),
// which starts an instance at every tick. A Timer an edge enters waits for
// the next tick, as an intermediate timer catch event.
func (c *converter) schedule(n *model.Node, cfg *TimerConfig) {
	id := n.ID
	switch {
	case cfg.Schedule == "":
		c.probs.Add(id, "configuration.timeZone applies to a schedule, and there is none: add configuration.schedule or remove timeZone")
		return
	case cfg.Duration != nil || cfg.Delay != nil || cfg.Date != "":
		c.probs.Add(id, "configuration has both a schedule and a duration or date: keep one")
		return
	}
	fields := strings.Fields(cfg.Schedule)
	if !strings.HasPrefix(cfg.Schedule, "@") && len(fields) != 5 && len(fields) != 6 {
		c.probs.Add(id, "configuration.schedule %q has %d fields: write a cron expression of 5 fields (minute hour day month weekday, e.g. \"0 0 * * *\") or 6 with seconds first", cfg.Schedule, len(fields))
		return
	}
	if _, err := cronParser.Parse(cfg.Schedule); err != nil {
		c.probs.Add(id, "configuration.schedule %q is not a cron expression (%v): write e.g. \"0 0 * * *\" for every midnight", cfg.Schedule, err)
		return
	}
	if cfg.TimeZone != "" {
		if _, err := time.LoadLocation(cfg.TimeZone); err != nil {
			c.probs.Add(id, "configuration.timeZone %q is not an IANA time zone: write e.g. Europe/Berlin", cfg.TimeZone)
			return
		}
	}
	n.Timer = &model.Timer{Kind: model.TimerCycle, Expr: cfg.Schedule, TimeZone: cfg.TimeZone}
}

// scheduledStart makes a scheduled Timer no edge enters a timer start
// event. Only the graph itself starts so: a Subflow starts when it is
// reached.
func (c *converter) scheduledStart(sc *scope, st *step) {
	if !sc.top {
		c.probs.Add(st.g.NodeID, "a Timer with a schedule starts the graph, and this one is inside Subflow %q, which starts when it is reached: move the Timer to the graph, or give it a duration", sc.owner)
		return
	}
	st.node.Kind = model.KindStartEvent
}
