package tasks

import "slices"

// Actor is who acts on a task: a user with their groups. Admins and
// operators oversee human work: they see every task and may release or
// delegate any.
type Actor struct {
	Name     string
	Groups   []string
	Overseer bool // an admin or operator
	Worker   bool // may claim and complete tasks (the worker role; admins have it)
}

// Sees reports whether a may see task t at all.
func (a Actor) Sees(t Task) bool {
	return a.Overseer || (a.Name != "" && t.Assignee == a.Name) || a.Candidate(t)
}

// Candidate reports whether a is among the candidates of t, by name or group.
func (a Actor) Candidate(t Task) bool {
	if a.Name != "" && slices.Contains(t.CandidateUsers, a.Name) {
		return true
	}
	for _, g := range a.Groups {
		if slices.Contains(t.CandidateGroups, g) {
			return true
		}
	}
	return false
}

// inGroups reports whether one of a's groups is among t's candidate groups.
func (a Actor) inGroups(t Task) bool {
	for _, g := range a.Groups {
		if slices.Contains(t.CandidateGroups, g) {
			return true
		}
	}
	return false
}

// mayClaim reports whether a may take t while nobody holds it.
func (a Actor) mayClaim(t Task) bool {
	return a.Name != "" && a.Worker && (a.Overseer || a.Candidate(t))
}

// holds reports whether t is assigned to a.
func (a Actor) holds(t Task) bool { return a.Name != "" && t.Assignee == a.Name }
