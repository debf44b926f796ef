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
	cmdLoad              // bring a stored instance into its applier (recovery)
	cmdChildEnded        // the instance a call activity started ended, or could not start
	cmdChildEscalated    // the instance a call activity started escalated a code it did not catch (name)
	cmdTrigger           // move the catch waiting at an element (target), by its id
	cmdActivateAdHoc     // start elements in the running ad-hoc sub-process target
	cmdDiscardDeadLetter // discard a pending dead letter (dead_letter.go)
	cmdDequeue           // a queued instance got its place: start it (limits.go)
	cmdTimeout           // the instance's deadline came (timeout.go)
	cmdWebhook           // a POST reached the webhook of subscription sub (webhook.go)
)

// command is one request to an instance's applier. It is a plain value so
// that passing it through the inbox allocates nothing. Each field holds one
// thing whatever the kind; a kind uses the fields it needs.
type command struct {
	kind  commandKind
	inst  string
	reply chan<- reply // the caller waiting for the answer; nil for the engine's own

	token       uint64         // the token a job result, retry or move is for
	sub         uint64         // the subscription (timer, message, signal) that fired
	job         uint64         // the job run a result is for
	vars        map[string]any // variables the command brings
	err         error          // cmdJobFailed: the failure
	after       time.Duration  // cmdJobFailed: the retry delay the handler asked for
	taskID      string         // task commands: the task
	task        *taskCommand   // task commands: what to do to it
	incidentID  string         // cmdResolve: the incident
	target      string         // cmdMove: the element the token moves to
	name        string         // cmdMessage, cmdSignal: the message or signal name
	key         string         // cmdMessage: the correlation key
	user        string         // who asks
	start       *startRequest  // cmdStart
	snap        *Snapshot      // cmdLoad: the stored instance
	child       string         // cmdChildEnded: the called instance
	childStatus Status         // cmdChildEnded: how it ended
	elements    []string       // cmdActivateAdHoc: the elements to start
	letter      string         // cmdDiscardDeadLetter: the dead letter
	cache       *cacheNote     // cmdJobDone: what the step cache did (step_cache.go)
}

// reply answers a command that a caller waits on.
type reply struct {
	snap *Snapshot
	task *Task
	err  error
}
