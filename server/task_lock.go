package server

import (
	"hash/maphash"
	"sync"
)

// taskLocks serialises the check-then-act of claim, release and complete
// per task within this process, so two users claiming at once cannot both
// pass the "not claimed by someone else" check. The engine's ClaimTask has
// no expected-assignee guard; across replicas this lock does not reach.
type taskLocks struct {
	seed    maphash.Seed
	stripes [64]sync.Mutex
}

var tasksLocked = &taskLocks{seed: maphash.MakeSeed()}

func (l *taskLocks) lock(id string) func() {
	m := &l.stripes[maphash.String(l.seed, id)%uint64(len(l.stripes))]
	m.Lock()
	return m.Unlock
}
