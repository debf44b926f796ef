package engine

import (
	"fmt"
	"slices"
)

// incidentPhase says what resolving an incident does again.
type incidentPhase string

const (
	phaseEnter incidentPhase = "enter" // enter the node again (inputs, timers, gateway arrival)
	phaseLeave incidentPhase = "leave" // choose the outgoing flows again
	phaseJob   incidentPhase = "job"   // run the job again with fresh retries
)

// incident stops a token until an operator resolves it.
func (x *instance) incident(t *token, kind, msg string) *Incident {
	return x.incidentAt(t, kind, msg, phaseEnter)
}

func (x *instance) incidentAt(t *token, kind, msg string, phase incidentPhase) *Incident {
	attempts := 0
	if phase == phaseJob {
		attempts = t.attempt
	}
	inc := &Incident{
		ID: newID(), InstanceID: x.id, Definition: x.head.DefinitionKey, ElementID: t.node.ID, TokenID: t.id,
		Kind: kind, Message: msg, Created: x.now, Phase: string(phase), Attempts: attempts,
	}
	t.status, t.incident = TokenIncident, inc.ID
	x.incidents = append(x.incidents, inc)
	x.incChanges = append(x.incChanges, *inc)
	x.emit(EventIncidentCreated, t.node, t, map[string]any{"incidentId": inc.ID, "kind": kind, "message": msg})
	x.e.cfg.Logger.Warn("incident", "instance_id", x.id, "element_id", t.node.ID, "kind", kind, "message", msg)
	return inc
}

// resolve retries what an incident stopped, after the operator fixed its cause.
func (x *instance) resolve(c command) error {
	i := slices.IndexFunc(x.incidents, func(inc *Incident) bool { return inc.ID == c.incidentID })
	if i < 0 {
		return fmt.Errorf("incident %s is not open: %w", c.incidentID, ErrNotFound)
	}
	inc := x.incidents[i]
	t := x.token(inc.TokenID)
	x.closeIncident(i, Resolved, c.user)
	if t == nil {
		return nil
	}
	t.incident = ""
	x.setVars(c.vars)
	switch incidentPhase(inc.Phase) {
	case phaseLeave:
		t.status = TokenActive
		x.leave(t)
	case phaseJob:
		t.status, t.attempt = TokenJob, 1
		x.emit(EventJobCreated, t.node, t, map[string]any{"type": jobType(t.node), "attempt": t.attempt, "resolved": inc.ID})
		x.dispatch(t)
	default:
		x.work = append(x.work, step{tok: t, node: t.node, via: t.via})
	}
	return nil
}

// closeIncident closes an open incident and moves the dead letter of its
// token's job along, so both say the same: resolved by user, the letter is
// replaying; cancelled, so is the letter.
func (x *instance) closeIncident(i int, how Resolution, user string) {
	inc := x.incidents[i]
	now := x.now
	inc.Resolved, inc.Resolution = &now, how
	x.incChanges = append(x.incChanges, *inc)
	if t := x.token(inc.TokenID); t != nil && inc.Kind == "job" {
		if how == Cancelled {
			x.moveLetter(t, DeadLetterCancelled, user)
		} else {
			x.moveLetter(t, DeadLetterReplaying, user)
		}
	}
	x.emit(EventIncidentResolved, x.proc.Node(inc.ElementID), nil, map[string]any{"incidentId": inc.ID})
	x.incidents = slices.Delete(x.incidents, i, i+1)
}

// resolveIncidentsOf closes the incidents of a token that goes away.
func (x *instance) resolveIncidentsOf(t *token) {
	for i := len(x.incidents) - 1; i >= 0; i-- {
		if x.incidents[i].TokenID == t.id {
			x.closeIncident(i, Cancelled, "")
		}
	}
}
