package queue

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/workflowpp/wfpp/engine/clock"
)

const (
	CapacityDefault          = 1024
	VisibilityTimeoutDefault = 30 * time.Second
	MaxAttemptsDefault       = 25
	ConcurrencyDefault       = 100
	BurstDefault             = 1
	ReapIntervalDefault      = time.Second

	backoffBase = time.Second
	backoffMax  = 10 * time.Minute
)

// Config configures a NodeQueue. The zero value of every field but
// DeadLetter means its default.
type Config[T any] struct {
	// Capacity bounds each priority's ring (rounded up to a power of two).
	// Enqueue waits while the item's ring is full.
	Capacity int
	// VisibilityTimeout is how long a lease lasts before the item is
	// leased again to someone else.
	VisibilityTimeout time.Duration
	// MaxAttempts is how many leases an item gets; when the last one is
	// nacked or times out the item goes to DeadLetter.
	MaxAttempts int
	// Backoff is the delay before a nacked item is ready again, given the
	// attempts made so far (1 after the first). Default: ExponentialBackoff.
	Backoff func(attempt int) time.Duration
	// Concurrency is the maximum number of leases outstanding at once.
	Concurrency int
	// RateLimit is the maximum leases per second; 0 means no limit.
	RateLimit float64
	// Burst is how many leases may go out at once under RateLimit.
	Burst int
	// ReapInterval is the longest Run waits between two Reap calls.
	ReapInterval time.Duration
	// Clock defaults to the wall clock; the engine passes its own.
	Clock clock.Clock
	// DeadLetter receives each item that ran out of attempts, with the
	// reason. Required: an item is never dropped silently. It is called
	// synchronously from Nack or Reap without locks held and must not block.
	DeadLetter func(item Item[T], reason error)
}

// WithDefaults returns a copy of c with zero fields set to their defaults.
func (c Config[T]) WithDefaults() Config[T] {
	c.Capacity = cmp.Or(c.Capacity, CapacityDefault)
	c.VisibilityTimeout = cmp.Or(c.VisibilityTimeout, VisibilityTimeoutDefault)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, MaxAttemptsDefault)
	c.Concurrency = cmp.Or(c.Concurrency, ConcurrencyDefault)
	c.Burst = cmp.Or(c.Burst, BurstDefault)
	c.ReapInterval = cmp.Or(c.ReapInterval, ReapIntervalDefault)
	if c.Backoff == nil {
		c.Backoff = ExponentialBackoff
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	return c
}

func (c Config[T]) validate() error {
	var errs []error
	if c.Capacity < 1 || c.Capacity > 1<<30 {
		errs = append(errs, fmt.Errorf("Capacity must be in [1, 1<<30], got %d", c.Capacity))
	}
	if c.VisibilityTimeout <= 0 {
		errs = append(errs, fmt.Errorf("VisibilityTimeout must be positive, got %s", c.VisibilityTimeout))
	}
	if c.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("MaxAttempts must be at least 1, got %d", c.MaxAttempts))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("Concurrency must be at least 1, got %d", c.Concurrency))
	}
	if c.RateLimit < 0 {
		errs = append(errs, fmt.Errorf("RateLimit must be 0 (no limit) or positive, got %g", c.RateLimit))
	}
	if c.Burst < 1 {
		errs = append(errs, fmt.Errorf("Burst must be at least 1, got %d", c.Burst))
	}
	if c.ReapInterval <= 0 {
		errs = append(errs, fmt.Errorf("ReapInterval must be positive, got %s", c.ReapInterval))
	}
	if c.DeadLetter == nil {
		errs = append(errs, errors.New("DeadLetter is required: items out of attempts must go somewhere"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("queue: invalid Config: %w", err)
	}
	return nil
}

// ExponentialBackoff doubles from 1s per attempt (1s, 2s, 4s, ...), capped at
// 10 minutes.
func ExponentialBackoff(attempt int) time.Duration {
	if attempt < 1 {
		return backoffBase
	}
	if attempt > 30 { // 1s<<30 is far above the cap; avoid overflow
		return backoffMax
	}
	return min(backoffBase<<(attempt-1), backoffMax)
}
