package engine

import "fmt"

// A process's retry budget (Limits.RetryBudget, wf:retryBudget) caps the
// retries all of an instance's jobs get together, whatever each job's own
// retry policy allows: a failure that would retry once the budget is spent
// is final, as if the policy had no retry left (a catch-all error boundary
// takes it, else the token gets an incident). The retries taken are counted
// in the instance's state (Snapshot.RetriesUsed), so a restart keeps the
// count. An operator's retry of an incident does not count.

// spendRetry takes one retry from the instance's budget and reports whether
// one was left; without a budget every retry is allowed.
func (x *instance) spendRetry() bool {
	budget := x.proc.Limits.RetryBudget
	if budget <= 0 {
		return true
	}
	if x.head.RetriesUsed >= budget {
		return false
	}
	x.head.RetriesUsed++
	return true
}

// budgetSpent says, after a job's error message, that no retry was left.
func (x *instance) budgetSpent(msg string) string {
	return fmt.Sprintf("%s (not retried: the instance's retry budget of %d retries, wf:retryBudget, is spent)", msg, x.proc.Limits.RetryBudget)
}
