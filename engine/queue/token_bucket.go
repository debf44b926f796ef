package queue

import (
	"sync"
	"time"
)

// tokenBucket is a rate limiter on an injected clock: it holds up to burst
// tokens and refills at rate tokens per second.
type tokenBucket struct {
	rate  float64
	burst float64

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// newTokenBucket starts full, so the first burst leases go out at once.
func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// take consumes a token and returns 0, or returns how long to wait until a
// token is due (nothing consumed).
func (b *tokenBucket) take(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	wait := time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
	return max(wait, time.Nanosecond) // never 0: 0 means "taken"
}

// refund gives back a token taken by a lease that then did not happen.
func (b *tokenBucket) refund(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	b.tokens = min(b.tokens+1, b.burst)
}

func (b *tokenBucket) refill(now time.Time) {
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.tokens+elapsed.Seconds()*b.rate, b.burst)
		b.last = now
	}
}
