package bpmn

import (
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// resourceAssignments reads BPMN's own assignment of a user task, as Camunda
// 7 does: humanPerformer names the assignee; potentialOwner lists candidates,
// "user(kermit)" a user, "group(sales)" or a plain name a group. Extension
// attributes (camunda:, zeebe:, wf:) read afterwards win.
func resourceAssignments(n *model.Node, e *element) {
	h := &n.Human
	if hp := e.child(nsBPMN, "humanPerformer"); hp != nil {
		if v := formalExpression(hp); v != "" {
			h.Assignee = v
		}
	}
	for _, po := range e.all(nsBPMN, "potentialOwner") {
		for _, part := range splitOwners(formalExpression(po)) {
			switch {
			case strings.HasPrefix(part, "user(") && strings.HasSuffix(part, ")"):
				h.CandidateUsers = append(h.CandidateUsers, strings.TrimSpace(part[5:len(part)-1]))
			case strings.HasPrefix(part, "group(") && strings.HasSuffix(part, ")"):
				h.CandidateGroups = append(h.CandidateGroups, strings.TrimSpace(part[6:len(part)-1]))
			default:
				h.CandidateGroups = append(h.CandidateGroups, part)
			}
		}
	}
}

func formalExpression(e *element) string {
	rae := e.child(nsBPMN, "resourceAssignmentExpression")
	if rae == nil {
		return ""
	}
	if fe := rae.child(nsBPMN, "formalExpression"); fe != nil {
		return strings.TrimSpace(fe.trimmed())
	}
	return ""
}

// splitOwners splits "user(a), group(b), c" at the commas outside ${...}.
func splitOwners(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}
