package cache

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limiter is a token bucket per key shared by every replica through Redis:
// up to Burst calls at once, refilled at Rate per second. While Redis is
// down each replica falls back to a bucket of its own, so the combined rate
// is at most the number of replicas times Rate until Redis answers again.
type Limiter struct {
	c     *Cache
	rate  float64
	burst int

	mu    sync.Mutex
	local map[string]*bucket
}

// Limiter returns a limiter of rate tokens per second and burst tokens.
func (c *Cache) Limiter(rate float64, burst int) (*Limiter, error) {
	if rate <= 0 || math.IsInf(rate, 0) || math.IsNaN(rate) || burst < 1 {
		return nil, fmt.Errorf("cache limiter: rate must be positive and burst at least 1, got %v and %d", rate, burst)
	}
	return &Limiter{c: c, rate: rate, burst: burst, local: map[string]*bucket{}}, nil
}

// limitScript takes a token from the bucket at KEYS[1] on Redis's own clock
// and returns 0, or how many milliseconds until one is due.
var limitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tk', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tk', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return wait`)

// Allow takes a token for key; when none is left it returns false and how
// long until one is due.
func (l *Limiter) Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration) {
	if !l.c.down.Load() {
		octx, cancel := l.c.op(ctx)
		defer cancel()
		ms, err := limitScript.Run(octx, l.c.rdb, []string{l.c.key("rl", key)}, l.rate, l.burst).Int64()
		if err == nil {
			return ms == 0, time.Duration(ms) * time.Millisecond
		}
		l.c.fail(ctx, err)
	}
	wait := l.bucket(key).take(time.Now())
	return wait == 0, wait
}

func (l *Limiter) bucket(key string) *bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.local[key]
	if b == nil {
		b = &bucket{rate: l.rate, burst: float64(l.burst), tokens: float64(l.burst), last: time.Now()}
		l.local[key] = b
	}
	return b
}

// bucket is the local fallback.
type bucket struct {
	rate, burst float64

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func (b *bucket) take(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return max(time.Duration((1-b.tokens)/b.rate*float64(time.Second)), time.Millisecond)
}
