package tasks

import (
	"context"
	"slices"

	"github.com/workflowpp/wfpp/engine"
)

// Lister reads pages of tasks, open or finished, from the store.
type Lister interface {
	Tasks(ctx context.Context, f engine.TaskFilter) (page []engine.Task, next string, err error)
}

// List returns a page of the tasks matching f that a may list: overseers
// any; others only their own and their groups' (a User or Group naming
// someone else is refused, 403). Open tasks for the inbox come from Inbox.
func (s *Service) List(ctx context.Context, a Actor, f engine.TaskFilter) ([]Task, string, error) {
	if !a.Overseer {
		if f.User != "" && f.User != a.Name {
			return nil, "", forbidden("only operators list the tasks of another user (query parameter \"user\")")
		}
		f.User = a.Name
		switch {
		case len(f.Groups) == 0:
			f.Groups = a.Groups
		case !slices.Contains(a.Groups, f.Groups[0]):
			return nil, "", forbidden("you are not in group %q: only operators list the tasks of other groups", f.Groups[0])
		}
	}
	return s.cfg.Store.Tasks(ctx, f)
}
