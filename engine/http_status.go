package engine

import (
	"net/http"
	"slices"
	"strconv"
	"time"
)

// StatusFailure is the outcome of an attempt whose HTTP call answered
// status (400 or more), for the http handler and the connectors alike. It
// is coded HTTP_<status>, which wf:retryOn and wf:doNotRetryOn name. It is
// retried, after the answer's Retry-After when header gives one, when status
// is one of retryOn (the task's RetryPolicy.RetryOnStatus), or when retryOn
// is empty and status is 429 or 500–504; any other status fails for good.
func StatusFailure(status int, header http.Header, retryOn []int, err error) error {
	coded := &CodedError{Code: "HTTP_" + strconv.Itoa(status), Err: err}
	if !retriesStatus(status, retryOn) {
		return Permanent(coded)
	}
	if d, ok := parseRetryAfter(header.Get("Retry-After"), time.Now()); ok {
		return RetryAfter(d, coded)
	}
	return coded
}

func retriesStatus(status int, retryOn []int) bool {
	if len(retryOn) > 0 {
		return slices.Contains(retryOn, status)
	}
	return status == http.StatusTooManyRequests || status >= 500 && status <= 504
}
