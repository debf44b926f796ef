package cache

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// An entry is a Redis hash: g, the generation, raised by every invalidation;
// t, when the inner read that produced d started (unix ms); d, the value.

// fillScript stores a value only if no invalidation happened since the
// generation was read: a slow fill never overwrites a newer write.
var fillScript = redis.NewScript(`
local ty = redis.call('TYPE', KEYS[1]).ok
if ty ~= 'hash' and ty ~= 'none' then return 0 end
local g = redis.call('HGET', KEYS[1], 'g')
if (g or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 't', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`)

// lookup is what a read found: the value if fresh, and what a fill needs.
type lookup struct {
	data    []byte
	hit     bool
	gen     string
	start   time.Time // when the inner read for a fill starts
	canFill bool
}

// get reads an entry; a miss says whether a fill may follow.
func (c *Cache) get(ctx context.Context, key string, ttl time.Duration) lookup {
	l := lookup{start: c.cfg.Clock.Now()}
	if c.down.Load() {
		return l
	}
	octx, cancel := c.op(ctx)
	defer cancel()
	vals, err := c.rdb.HMGet(octx, key, "g", "t", "d").Result()
	if redis.HasErrorPrefix(err, "WRONGTYPE") { // not ours: replace it with an empty entry
		c.invalidate(ctx, stale{key, ttl})
		return l
	}
	if err != nil {
		c.fail(ctx, err)
		return l
	}
	l.canFill = true
	l.gen, _ = vals[0].(string)
	ts, _ := vals[1].(string)
	d, _ := vals[2].(string)
	if ts == "" || d == "" {
		return l
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || l.start.Sub(time.UnixMilli(ms)) > ttl {
		return l // older than its TTL: left over from an outage or an old RDB file
	}
	l.data, l.hit = []byte(d), true
	return l
}

// fill stores what the inner store returned for a miss.
func (c *Cache) fill(ctx context.Context, key string, l lookup, data []byte, ttl time.Duration) {
	left := ttl - c.cfg.Clock.Now().Sub(l.start)
	if !l.canFill || c.down.Load() || left <= time.Millisecond {
		return
	}
	octx, cancel := c.op(ctx)
	defer cancel()
	err := fillScript.Run(octx, c.rdb, []string{key},
		l.gen, l.start.UnixMilli(), data, left.Milliseconds()).Err()
	c.fail(ctx, err)
}

// stale names an entry to invalidate. Its generation is kept for the entry's
// TTL: a fill that read the old generation and lands later still fails, or
// stores a value already too old to be served.
type stale struct {
	key string
	ttl time.Duration
}

// invalidate raises the generation of keys and drops their values, after the
// inner store changed what they hold. While Redis is down it remembers them.
func (c *Cache) invalidate(ctx context.Context, keys ...stale) {
	if len(keys) == 0 {
		return
	}
	if c.down.Load() && c.keep(keys) {
		return
	}
	// Not the caller's cancellation: an invalidation that may have been lost
	// must be remembered, so only Redis failing stops it.
	ctx = context.WithoutCancel(ctx)
	if err := c.invalidateNow(ctx, keys); err != nil {
		c.fail(ctx, err)
		c.keep(keys)
	}
}

func (c *Cache) invalidateNow(ctx context.Context, keys []stale) error {
	octx, cancel := c.op(ctx)
	defer cancel()
	names := make([]string, len(keys))
	ttls := make([]any, len(keys))
	for i, k := range keys {
		names[i], ttls[i] = k.key, k.ttl.Milliseconds()
	}
	return invalidateScript.Run(octx, c.rdb, names, ttls...).Err()
}

// invalidateScript raises the generation of each key in KEYS, keeping it
// for ARGV[i] ms; a value that is not an entry (not written by this package)
// is replaced. One call for a whole commit: a single Redis (not a cluster).
var invalidateScript = redis.NewScript(`
for i, k in ipairs(KEYS) do
  if redis.call('TYPE', k).ok ~= 'hash' then redis.call('DEL', k) end
  redis.call('HINCRBY', k, 'g', 1)
  redis.call('HDEL', k, 't', 'd')
  redis.call('PEXPIRE', k, ARGV[i])
end
return #KEYS`)
