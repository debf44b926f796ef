package model

import (
	"slices"
	"time"
)

// Backoff is how the delay between attempts grows.
type Backoff uint8

const (
	BackoffExponential Backoff = iota // the default
	BackoffFixed
	BackoffLinear
	BackoffImmediate // no delay: the next attempt runs at once
)

// Backoffs are the backoffs by the name every format writes them with
// ("" is the default, exponential).
var Backoffs = map[string]Backoff{
	"":            BackoffExponential,
	"exponential": BackoffExponential,
	"fixed":       BackoffFixed,
	"linear":      BackoffLinear,
	"immediate":   BackoffImmediate,
}

// Retry policy defaults for activities that run work.
const (
	RetriesDefault       = 2 // three attempts in all
	RetryDelayDefault    = time.Second
	RetryMaxDelayDefault = time.Minute
	RetryJitterDefault   = 0.1
)

// RetryPolicy says how often and how soon failed work runs again before the
// token gets an incident.
type RetryPolicy struct {
	Retries  int // attempts after the first; 0 means RetriesDefault, NoRetries means none
	Backoff  Backoff
	Delay    time.Duration
	MaxDelay time.Duration
	Jitter   float64 // 0..1: the share of each delay that is randomised; NoJitter for none
	// Factor is how much each exponential delay grows (2 when 0).
	Factor float64
	// RetryOnStatus are the HTTP status codes the http handler and
	// connectors retry (429 and 500-504 when empty).
	RetryOnStatus []int
	RetryOn       []string // error codes that retry; empty: every error retries
	// DoNotRetryOn are error codes that never retry, whatever RetryOn says:
	// the first such failure is an incident (or a BPMN error's catch).
	DoNotRetryOn []string
}

// NoRetries as RetryPolicy.Retries means a failure goes straight to an incident.
const NoRetries = -1

// NoJitter as RetryPolicy.Jitter means delays are used as computed.
const NoJitter = -1

// RetriesFromAttempts converts a total attempt count (Zeebe's and Camunda's
// "retries") into Retries: attempts after the first.
func RetriesFromAttempts(attempts int) int {
	if attempts <= 1 {
		return NoRetries
	}
	return attempts - 1
}

// WithDefaults fills what is unset.
func (r RetryPolicy) WithDefaults() RetryPolicy {
	switch {
	case r.Retries == 0:
		r.Retries = RetriesDefault
	case r.Retries < 0:
		r.Retries = 0
	}
	if r.Delay == 0 {
		r.Delay = RetryDelayDefault
	}
	if r.MaxDelay == 0 {
		r.MaxDelay = RetryMaxDelayDefault
	}
	switch {
	case r.Jitter == 0:
		r.Jitter = RetryJitterDefault
	case r.Jitter < 0:
		r.Jitter = 0
	}
	if r.Factor == 0 {
		r.Factor = 2
	}
	return r
}

// DelayFor returns the delay before retry number n (1 for the first retry),
// before jitter, capped at MaxDelay.
func (r RetryPolicy) DelayFor(n int) time.Duration {
	d := r.Delay
	switch r.Backoff {
	case BackoffImmediate:
		return 0
	case BackoffLinear:
		d = r.Delay * time.Duration(n)
	case BackoffExponential:
		f := r.Factor
		if f < 1 {
			f = 2
		}
		for i := 1; i < n && d < r.MaxDelay; i++ {
			d = time.Duration(float64(d) * f)
		}
	}
	if r.MaxDelay > 0 && d > r.MaxDelay {
		d = r.MaxDelay
	}
	return d
}

// Allows reports whether an error with code may be retried after attempt (1-based).
func (r RetryPolicy) Allows(attempt int, code string) bool {
	if attempt > r.Retries || code != "" && slices.Contains(r.DoNotRetryOn, code) {
		return false
	}
	if len(r.RetryOn) == 0 {
		return true
	}
	for _, c := range r.RetryOn {
		if c == code {
			return true
		}
	}
	return false
}
