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
//
// A replica takes the tokens of a busy key from Redis a few at a time and
// spends them within reserveFor (a reservation; tokens left then are lost),
// so a key calling often costs one Redis round trip per reservation, not
// per call. The shared bucket still hands out every token, so the limit
// never loosens; tokens lost make it at most a reservation per replica
// stricter. A slow limit (below one token per reserveFor) reserves one at
// a time. An empty bucket refuses the key's calls here until Redis said
// its next token is due: none can come sooner.
type Limiter struct {
	c     *Cache
	rate  float64
	burst int
	chunk int // tokens a reservation asks for

	mu       sync.Mutex
	local    map[string]*bucket
	reserved map[string]reservation
	sweepAt  int // sweep expired reservations when the map reaches this size
}

// reserveFor is how long a replica keeps the tokens it reserved.
const reserveFor = 20 * time.Millisecond

// reservation is the tokens a replica took from a key's shared bucket and
// has not spent yet, or, with none, when the bucket's next token is due.
type reservation struct {
	tokens int
	until  time.Time // tokens are spent before, or the next is due at
	empty  bool      // the bucket had none: refuse until then
}

// Limiter returns a limiter of rate tokens per second and burst tokens.
func (c *Cache) Limiter(rate float64, burst int) (*Limiter, error) {
	if rate <= 0 || math.IsInf(rate, 0) || math.IsNaN(rate) || burst < 1 {
		return nil, fmt.Errorf("cache limiter: rate must be positive and burst at least 1, got %v and %d", rate, burst)
	}
	chunk := int(min(rate*reserveFor.Seconds(), float64(burst)/10))
	return &Limiter{c: c, rate: rate, burst: burst, chunk: max(1, chunk),
		local: map[string]*bucket{}, reserved: map[string]reservation{}, sweepAt: 1024}, nil
}

// limitScript takes up to ARGV[3] tokens from the bucket at KEYS[1] on
// Redis's own clock and returns how many it took and, when none, how many
// milliseconds until one is due.
var limitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tk', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local took = math.min(tonumber(ARGV[3]), math.floor(tokens))
local wait = 0
if took >= 1 then tokens = tokens - took else took = 0; wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tk', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return {took, wait}`)

// Allow takes a token for key; when none is left it returns false and how
// long until one is due.
func (l *Limiter) Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration) {
	if !l.c.down.Load() {
		if ok, wait, known := l.spend(key, time.Now()); known {
			return ok, wait
		}
		octx, cancel := l.c.op(ctx)
		defer cancel()
		res, err := limitScript.Run(octx, l.c.rdb, []string{l.c.key("rl", key)}, l.rate, l.burst, l.chunk).Int64Slice()
		if err == nil && len(res) == 2 {
			if res[0] == 0 {
				wait := time.Duration(res[1]) * time.Millisecond
				l.record(key, reservation{until: time.Now().Add(wait), empty: true})
				return false, wait
			}
			l.keep(key, int(res[0])-1)
			return true, 0
		}
		if err == nil {
			err = fmt.Errorf("rate limit script answered %v, want two numbers", res)
		}
		l.c.fail(ctx, err)
	}
	wait := l.bucket(key).take(time.Now())
	return wait == 0, wait
}

// spend answers a call from key's reservation: a token left, or a refusal
// while the bucket's next token is not due. known is false when Redis must
// be asked.
func (l *Limiter) spend(key string, now time.Time) (ok bool, wait time.Duration, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, found := l.reserved[key]
	switch {
	case !found || !now.Before(r.until):
		return false, 0, false
	case r.empty:
		return false, r.until.Sub(now), true
	case r.tokens == 0:
		return false, 0, false
	}
	r.tokens--
	l.reserved[key] = r
	return true, 0, true
}

// keep adds tokens taken from Redis and not spent to key's reservation.
func (l *Limiter) keep(key string, tokens int) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.reserved[key]; ok && !r.empty && now.Before(r.until) {
		tokens += r.tokens
	}
	l.put(key, reservation{tokens: tokens, until: now.Add(reserveFor)})
}

// record sets key's reservation.
func (l *Limiter) record(key string, r reservation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.put(key, r)
}

// put sets key's reservation, sweeping expired ones as the map grows; l.mu
// is held.
func (l *Limiter) put(key string, r reservation) {
	l.reserved[key] = r
	if len(l.reserved) >= l.sweepAt {
		now := time.Now()
		for k, r := range l.reserved {
			if !now.Before(r.until) {
				delete(l.reserved, k)
			}
		}
		l.sweepAt = max(1024, 2*len(l.reserved))
	}
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
