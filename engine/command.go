package engine

import "time"

// commandKind is what a command asks of an instance.
type commandKind uint8

const (
	cmdStart commandKind = iota + 1
	cmdJobDone
	cmdJobFailed
	cmdRetry
	cmdTimer
	cmdMessage
	cmdCompleteTask
	cmdAssignTask
	cmdCommentTask
	cmdPause
	cmdResume
	cmdCancel
	cmdResolve
	cmdSetVariables
	cmdMove
	cmdSignal
	cmdLoad // bring a stored instance into its applier (recovery)
)

// command is one request to an instance's applier. It is a plain value so
// that passing it through the inbox allocates nothing.
type command struct {
	kind  commandKind
	inst  string
	token uint64
	sub   uint64
	job   uint64 // the job run a result is for
	vars  map[string]any
	err   error
	text  string // task id, incident id, target element
	task  *taskCommand
	user  string // who asks, for task commands
	key   string // message correlation key
	start *startRequest
	snap  *Snapshot
	after time.Duration // retry delay asked for by the handler
	reply chan<- reply
}

// reply answers a command that a caller waits on.
type reply struct {
	snap *Snapshot
	task *Task
	err  error
}
