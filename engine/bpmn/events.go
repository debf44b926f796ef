package bpmn

import (
	"cmp"

	"github.com/workflowpp/wfpp/engine/model"
)

// eventDefinition sets the trigger of event n from its one event definition.
func (c *converter) eventDefinition(n *model.Node, d *element) {
	switch name := d.name.Local; name {
	case "timerEventDefinition":
		n.Trigger = model.TriggerTimer
		for _, t := range []struct {
			name string
			kind model.TimerKind
		}{{"timeDuration", model.TimerDuration}, {"timeDate", model.TimerDate}, {"timeCycle", model.TimerCycle}} {
			if e := d.child(nsBPMN, t.name); e != nil {
				n.Timer = &model.Timer{Kind: t.kind, Expr: e.trimmed(), TimeZone: d.attr(nsWF, "timeZone")}
				break
			}
		}
	case "messageEventDefinition":
		n.Trigger = model.TriggerMessage
		if r := d.attr("", "messageRef"); r != "" {
			n.Message = c.message(n.ID, r)
		}
	case "errorEventDefinition":
		n.Trigger = model.TriggerError
		if r := d.attr("", "errorRef"); r != "" { // none on a boundary event catches every error
			if e := c.errors[ref(r)]; e != nil {
				n.ErrorCode = e.attr("", "errorCode")
				throws := n.Kind == model.KindEndEvent || n.Kind == model.KindIntermediateThrowEvent
				if throws && n.ErrorCode == "" && c.executable {
					// A catch matches errors by code: one without is caught only by catch-alls (Camunda refuses it too).
					c.probs.Add(n.ID, "the error %q it throws has no errorCode: give <error id=%q> an errorCode for catches to match", ref(r), ref(r))
				}
				n.ErrorMessage = cmp.Or(d.attr(nsCamunda, "errorMessage"), e.attr(nsCamunda, "errorMessage"))
			} else {
				n.ErrorCode = ref(r) // Camunda 7 reads an errorRef naming no error as the code itself
			}
		}
		// The variables a catch puts the caught error's code and message in.
		n.ErrorCodeVariable = cmp.Or(d.attr(nsCamunda, "errorCodeVariable"), d.attr(nsZeebe, "errorCodeVariable"))
		n.ErrorMessageVariable = cmp.Or(d.attr(nsCamunda, "errorMessageVariable"), d.attr(nsZeebe, "errorMessageVariable"))
	case "escalationEventDefinition":
		// None on a boundary event catches every escalation.
		n.Trigger = model.TriggerEscalation
		if r := d.attr("", "escalationRef"); r != "" {
			if e := c.escalations[ref(r)]; e != nil {
				n.EscalationCode = cmp.Or(e.attr("", "escalationCode"), e.id())
			} else {
				c.probs.Add(n.ID, "escalationRef %q does not name an escalation: define <escalation id=%q escalationCode=...>", r, ref(r))
			}
		}
		n.EscalationCodeVariable = cmp.Or(d.attr(nsCamunda, "escalationCodeVariable"), d.attr(nsZeebe, "escalationCodeVariable"))
	case "compensateEventDefinition":
		n.Trigger = model.TriggerCompensation
		n.ActivityRef = ref(d.attr("", "activityRef"))
	case "conditionalEventDefinition":
		// An empty condition (a drawing) never holds.
		n.Trigger = model.TriggerConditional
		if cond := d.child(nsBPMN, "condition"); cond != nil {
			n.Condition = c.condition(n.ID, cond)
		}
		n.VariableNames = splitList(d.attr(nsCamunda, "variableName"))
		n.VariableEvents = splitList(d.attr(nsCamunda, "variableEvents"))
		for _, z := range d.extensions(nsZeebe) {
			if z.name.Local == "conditionalFilter" {
				setList(&n.VariableNames, z.attr("", "variableNames"))
				setList(&n.VariableEvents, z.attr("", "variableEvents"))
			}
		}
	case "cancelEventDefinition":
		n.Trigger = model.TriggerCancel
	case "terminateEventDefinition":
		n.Trigger = model.TriggerTerminate
	case "linkEventDefinition":
		n.Trigger = model.TriggerLink
		n.LinkName = d.attr("", "name")
	case "signalEventDefinition":
		// A signal without a name is still one signal: its id stands in. A
		// missing signal is the validator's business (executable processes only).
		n.Trigger = model.TriggerSignal
		if r := d.attr("", "signalRef"); r != "" {
			if s := c.signals[ref(r)]; s != nil {
				n.SignalName = cmp.Or(s.attr("", "name"), s.id())
			} else {
				c.probs.Add(n.ID, "signalRef %q does not name a signal: define <signal id=%q name=...>", r, ref(r))
			}
		}
	default:
		c.unsupportedChild(n.ID, d)
	}
}

// message resolves a messageRef of node id to the message it names,
// correlation key included.
func (c *converter) message(id, r string) *model.Message {
	e := c.messages[ref(r)]
	if e == nil {
		c.probs.Add(id, "messageRef %q does not name a message: define <message id=%q name=...>", r, ref(r))
		return nil
	}
	m := &model.Message{Name: e.attr("", "name")}
	for _, s := range e.extensions(nsZeebe) {
		if s.name.Local == "subscription" {
			m.CorrelationKey = s.attr("", "correlationKey")
		}
	}
	if k := e.attr(nsWF, "correlationKey"); k != "" {
		m.CorrelationKey = k
	}
	return m
}
