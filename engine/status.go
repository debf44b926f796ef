package engine

// Status is where an instance stands.
type Status string

const (
	StatusRunning   Status = "running"   // work is under way
	StatusWaiting   Status = "waiting"   // every token waits for something outside (task, message, timer, job)
	StatusIncident  Status = "incident"  // a token is stuck on an incident
	StatusPaused    Status = "paused"    // an operator paused it
	StatusQueued    Status = "queued"    // waits for a place under its definition's cap of running instances (limits.go)
	StatusCompleted Status = "completed" // no token left
	StatusFailed    Status = "failed"    // ended by an unhandled error it cannot recover from
	StatusCancelled Status = "cancelled" // an operator cancelled it
)

// Done reports whether the instance has ended.
func (s Status) Done() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// TokenStatus is what a token is doing.
type TokenStatus string

const (
	TokenActive       TokenStatus = "active"       // being moved by the applier
	TokenJob          TokenStatus = "job"          // waiting for a service or script job
	TokenTask         TokenStatus = "task"         // waiting for a user task
	TokenEvent        TokenStatus = "event"        // waiting for a timer or message
	TokenJoin         TokenStatus = "join"         // parked at a joining gateway
	TokenScope        TokenStatus = "scope"        // waiting for its sub-process to finish
	TokenIncident     TokenStatus = "incident"     // stuck until an operator resolves the incident
	TokenRetry        TokenStatus = "retry"        // waiting for the backoff before the next attempt
	TokenMulti        TokenStatus = "multi"        // waiting for the instances of its multi-instance activity
	TokenCall         TokenStatus = "call"         // waiting for the instance its call activity started
	TokenCompensating TokenStatus = "compensating" // a compensation throw waiting for the handlers it started
	TokenReset        TokenStatus = "reset"        // a complex gateway that fired, waiting for the other branches
	TokenRound        TokenStatus = "round"        // what the branches of a join with a join policy did (join_policy.go)
)
