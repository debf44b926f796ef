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
// A replica takes the tokens of a busy key from Redis a few at a time (a
// reservation) and spends them within reserveFor; the next round trip for
// the key gives back what is left and takes the next. A key calling often
// thus costs one Redis round trip per reservation, not per call, and one
// call at a time per key and replica asks Redis (the others wait for its
// answer). A reservation is twice what the key spent of the last one, at
// most reserveFor's worth of the rate and a tenth of the burst, so a slow
// key reserves one token at a time. The shared bucket hands out every token
// spent, so the limit never loosens; while tokens are held the others see
// that many fewer. A key Redis said is empty is refused here until its next
// token is due: none can come sooner. Tokens held by a key that stops
// calling are lost when the limiter sweeps it (at most a reservation each).
type Limiter struct {
	c        *Cache
	rate     float64
	burst    int
	maxChunk int // the most tokens a reservation asks for

	mu       sync.Mutex
	local    map[string]*bucket
	reserved map[string]*reservation
	sweepAt  int // sweep idle reservations when the map reaches this size
}

// reserveFor is how long a replica keeps the tokens it reserved.
const reserveFor = 20 * time.Millisecond

// reservation is a key's tokens taken from the shared bucket and not yet
// spent or given back.
type reservation struct {
	tokens int
	until  time.Time     // tokens are spent before; after, they go back
	empty  bool          // the bucket had none: refuse until then
	chunk  int           // what the last reservation took
	asking chan struct{} // closed when the round trip in flight answers
}

// Limiter returns a limiter of rate tokens per second and burst tokens.
func (c *Cache) Limiter(rate float64, burst int) (*Limiter, error) {
	if rate <= 0 || math.IsInf(rate, 0) || math.IsNaN(rate) || burst < 1 {
		return nil, fmt.Errorf("cache limiter: rate must be positive and burst at least 1, got %v and %d", rate, burst)
	}
	most := int(min(rate*reserveFor.Seconds(), float64(burst)/10))
	return &Limiter{
		c: c, rate: rate, burst: burst, maxChunk: max(1, most),
		local: map[string]*bucket{}, reserved: map[string]*reservation{}, sweepAt: 1024,
	}, nil
}

// limitScript gives ARGV[4] tokens back to the bucket at KEYS[1], then takes
// up to ARGV[3], on Redis's own clock, and returns how many it took and,
// when none, how many milliseconds until one is due.
var limitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tk', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate + tonumber(ARGV[4]))
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
		ok, wait, err := l.shared(ctx, key)
		if err == nil {
			return ok, wait
		}
		l.c.fail(ctx, err)
	}
	wait := l.bucket(key).take(time.Now())
	return wait == 0, wait
}

// shared answers a call from the shared bucket: from key's reservation
// when it can, from Redis when not.
func (l *Limiter) shared(ctx context.Context, key string) (ok bool, wait time.Duration, err error) {
	for {
		r, ok, wait, known := l.spend(key)
		switch {
		case known:
			return ok, wait, nil
		case r != nil:
			return l.reserve(ctx, key, r)
		}
		// Another call asked Redis: spend from its answer.
	}
}

// spend answers a call from key's reservation: a token left, or a refusal
// while the bucket's next token is not due (known). Otherwise Redis must
// be asked: spend returns the reservation when this call is to ask, or nil
// after another call's round trip answered.
func (l *Limiter) spend(key string) (r *reservation, ok bool, wait time.Duration, known bool) {
	l.mu.Lock()
	r = l.reserved[key]
	if r == nil {
		r = &reservation{}
		l.put(key, r)
	}
	now := time.Now()
	switch {
	case r.asking != nil:
		asking := r.asking
		l.mu.Unlock()
		<-asking
		return nil, false, 0, false
	case r.empty && now.Before(r.until):
		defer l.mu.Unlock()
		return r, false, r.until.Sub(now), true
	case r.tokens > 0 && now.Before(r.until):
		defer l.mu.Unlock()
		r.tokens--
		return r, true, 0, true
	}
	r.asking = make(chan struct{})
	l.mu.Unlock()
	return r, false, 0, false
}

// reserve asks Redis for key's next reservation, giving back what r holds,
// and takes a token of it for this call.
func (l *Limiter) reserve(ctx context.Context, key string, r *reservation) (ok bool, wait time.Duration, err error) {
	l.mu.Lock()
	back := 0
	if !r.empty {
		back = r.tokens
	}
	want := min(l.maxChunk, max(1, 2*(r.chunk-back)))
	l.mu.Unlock()
	octx, cancel := l.c.op(ctx)
	defer cancel()
	res, err := limitScript.Run(octx, l.c.rdb, []string{l.c.key("rl", key)}, l.rate, l.burst, want, back).Int64Slice()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("rate limit script answered %v, want two numbers", res)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer func() { close(r.asking); r.asking = nil }()
	if err != nil {
		r.tokens, r.empty = 0, false // given back or not, they are not ours to spend
		return false, 0, err
	}
	took, now := int(res[0]), time.Now()
	if took == 0 {
		wait = time.Duration(res[1]) * time.Millisecond
		r.tokens, r.chunk, r.empty, r.until = 0, 0, true, now.Add(wait)
		return false, wait, nil
	}
	r.tokens, r.chunk, r.empty, r.until = took-1, took, false, now.Add(reserveFor)
	return true, 0, nil
}

// put adds key's reservation, sweeping idle ones (nothing held, nothing
// asked) as the map grows; l.mu is held.
func (l *Limiter) put(key string, r *reservation) {
	l.reserved[key] = r
	if len(l.reserved) < l.sweepAt {
		return
	}
	now := time.Now()
	for k, r := range l.reserved {
		if r.asking == nil && (r.tokens == 0 || !now.Before(r.until)) && !(r.empty && now.Before(r.until)) {
			delete(l.reserved, k)
		}
	}
	l.sweepAt = max(1024, 2*len(l.reserved))
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
