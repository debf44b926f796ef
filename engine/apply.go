package engine

import (
	"context"
	"fmt"
)

// apply changes the instance by one command and moves its tokens until every
// one waits again.
func (x *instance) apply(ctx context.Context, c command) reply {
	x.ctx = ctx
	x.now = x.e.clock.Now()
	x.steps = 0
	if x.status == StatusPaused {
		switch {
		case holdWhilePaused(c.kind):
			x.held = append(x.held, c)
			return x.reply(c, nil)
		case c.kind == cmdCompleteTask || c.kind == cmdAssignTask || c.kind == cmdWebhook: // a webhook's filter answers now
			return x.reply(c, fmt.Errorf("instance %s: %w", x.id, ErrInstancePaused))
		}
	}
	if x.status == StatusQueued && c.kind != cmdDequeue && c.kind != cmdCancel {
		return x.reply(c, x.whileQueued(c))
	}
	if c.reply != nil && c.kind != cmdSignal { // a caller waits: refuse, change nothing
		if err := x.checkTotal(c.incoming()); err != nil {
			return x.reply(c, err)
		}
	}
	err := x.do(ctx, c)
	x.drain()
	x.updateStatus()
	return x.reply(c, err)
}

// do carries out one command; apply (and resume, for the commands a pause
// held) call it.
func (x *instance) do(ctx context.Context, c command) error {
	var err error
	switch c.kind {
	case cmdStart:
		x.start(c.start)
	case cmdLoad:
		x.load()
	case cmdJobDone:
		x.jobDone(c)
	case cmdChildEnded:
		x.childEnded(c)
	case cmdChildEscalated:
		x.childEscalated(c)
	case cmdJobFailed:
		x.jobFailed(c)
	case cmdRetry:
		x.retryJob(c)
	case cmdTimer:
		x.timerFired(c.sub)
	case cmdMessage:
		err = x.messageArrived(c)
	case cmdTrigger:
		err = x.triggered(c)
	case cmdWebhook:
		err = x.webhookArrived(c)
	case cmdActivateAdHoc:
		err = x.activatedAdHoc(c)
	case cmdSignal:
		err = x.signalArrived(c)
	case cmdCompleteTask:
		err = x.completeTask(c.taskID, c.task.complete)
	case cmdAssignTask:
		err = x.assignTask(c.taskID, c.task.assign)
	case cmdCommentTask:
		err = x.commentTask(c.taskID, c.task.comment)
	case cmdPause:
		err = x.pause()
	case cmdResume:
		err = x.resume(ctx)
	case cmdCancel:
		err = x.cancel()
	case cmdResolve:
		err = x.resolve(c)
	case cmdSetVariables:
		err = x.setVariables(c)
	case cmdMove:
		err = x.move(c)
	case cmdDiscardDeadLetter:
		err = x.discardLetter(c)
	case cmdDequeue:
		err = x.dequeue()
	case cmdTimeout:
		x.timedOut()
	default:
		err = fmt.Errorf("unknown command %d", c.kind)
	}
	return err
}

func (x *instance) reply(c command, err error) reply {
	if c.reply == nil || err != nil {
		return reply{err: err}
	}
	r := reply{snap: x.snapshot()}
	if c.task != nil {
		for i := range x.taskChanges {
			if x.taskChanges[i].ID == c.taskID {
				t := x.taskChanges[i]
				r.task = &t
			}
		}
	}
	return r
}

// holdWhilePaused lists what a paused instance keeps for later: work that
// finished or came due, and messages and signals sent to it (applied on
// resume in the order they came), so that no new work starts until it resumes.
func holdWhilePaused(k commandKind) bool {
	switch k {
	case cmdJobDone, cmdJobFailed, cmdRetry, cmdTimer, cmdMessage, cmdSignal, cmdChildEnded, cmdChildEscalated, cmdTrigger, cmdActivateAdHoc:
		return true
	}
	return false
}

// updateStatus derives the status from the tokens once they all wait.
func (x *instance) updateStatus() {
	if x.status.Done() || x.status == StatusPaused {
		return
	}
	status := StatusWaiting
	for _, t := range x.tokens {
		switch t.status {
		case TokenIncident:
			x.status = StatusIncident
			return
		case TokenJob, TokenRetry, TokenActive:
			status = StatusRunning
		}
	}
	x.status = status
}
