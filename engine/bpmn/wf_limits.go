package bpmn

import (
	"slices"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// processLimits reads the wf: attributes of a process element that bound its
// instances as a whole (model.Limits): wf:timeout (ISO-8601 duration),
// wf:maxConcurrentInstances, wf:overLimit (queue or refuse),
// wf:retryBudget and wf:onFailure (fail or incident).
func (c *converter) processLimits(p *model.Process, e *element) {
	l := &p.Limits
	problem := func(format string, args ...any) { c.probs.Add(p.ID, format, args...) }
	if v := e.attr(nsWF, "timeout"); v != "" {
		d, err := ParseDuration(strings.TrimSpace(v))
		switch {
		case err != nil:
			problem("wf:timeout: %v", err)
		case d <= 0:
			problem("wf:timeout %q is not a positive duration: write how long an instance may run, e.g. PT30M", v)
		default:
			l.Timeout = d
		}
	}
	if v := e.attr(nsWF, "maxConcurrentInstances"); v != "" {
		if n, ok := positiveInt(v); ok {
			l.MaxConcurrent = n
		} else {
			problem("wf:maxConcurrentInstances %q is not a positive whole number: write how many instances may run at once, e.g. 5", v)
		}
	}
	if v := e.attr(nsWF, "overLimit"); v != "" {
		switch v = strings.ToLower(strings.TrimSpace(v)); v {
		case model.OverLimitQueue, model.OverLimitRefuse:
			l.OverLimit = v
		default:
			problem("wf:overLimit %q is not what to do with a start over wf:maxConcurrentInstances: write queue or refuse", v)
		}
	}
	if v := e.attr(nsWF, "retryBudget"); v != "" {
		if n, ok := positiveInt(v); ok {
			l.RetryBudget = n
		} else {
			problem("wf:retryBudget %q is not a positive whole number: write how many retries all of an instance's jobs get together, e.g. 10", v)
		}
	}
	if v := e.attr(nsWF, "onFailure"); v != "" {
		switch v = strings.ToLower(strings.TrimSpace(v)); v {
		case model.FailureFail, model.FailureIncident:
			l.OnFailure = v
		default:
			problem("wf:onFailure %q is not what an unhandled failure does: write fail (the instance ends failed) or incident", v)
		}
	}
}

func positiveInt(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n > 0
}

// readBackoffFactor reads wf:backoffFactor: how much each exponential retry
// delay grows (RetryPolicy.Factor).
func readBackoffFactor(x *extension, v string) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= 1) || f > 100 {
		x.problem("wf:backoffFactor %q is not a factor from 1 to 100: write how much each delay grows, e.g. 2", v)
		return
	}
	x.n.Retry.Factor = f
}

// readRetryOnStatus reads wf:retryOnStatus: the HTTP status codes the http
// handler retries (RetryPolicy.RetryOnStatus), comma-separated.
func readRetryOnStatus(x *extension, v string) {
	var codes []int
	for _, s := range splitList(v) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 400 || n > 599 {
			x.problem("wf:retryOnStatus has %q, not an HTTP error status: write codes from 400 to 599, e.g. 429, 503", s)
			return
		}
		if !slices.Contains(codes, n) {
			codes = append(codes, n)
		}
	}
	x.n.Retry.RetryOnStatus = codes
}
