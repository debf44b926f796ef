package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cache is one connection to Redis and its health. Wrap a store with Store,
// publish events with Publisher, receive them with Source.
type Cache struct {
	cfg  Config
	rdb  *redis.Client
	down atomic.Bool

	mu        sync.Mutex
	downSince time.Time
	lastErr   error
	lastLog   time.Time
	pending   map[string]time.Duration // invalidations Redis has not seen
	overflow  bool                     // pending lost some: clear the prefix on recovery

	pub     *Publisher
	sources map[*Source]struct{} // under mu; closed with the cache

	stop context.CancelFunc // ends the background work Open starts
	wg   sync.WaitGroup
}

// Open connects to Redis. Redis not answering is no error: the cache starts
// degraded and recovers when it answers. A bad URL or Config is an error.
func Open(ctx context.Context, cfg Config) (*Cache, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("cache config: URL %q: %w", cfg.URL, err)
	}
	// The per-call context carries the timeout; these bound what a context cannot.
	opts.DialTimeout = cfg.OpTimeout
	opts.ReadTimeout = cfg.OpTimeout
	opts.WriteTimeout = cfg.OpTimeout
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1 // a retry would double the time the caller waits; the store answers instead
	opts.DialerRetries = 1
	opts.DisableIdentity = true
	quietRedisLog.Do(func() { redis.SetLogger(discardLogger{}) })
	c := &Cache{cfg: cfg, rdb: redis.NewClient(opts), pending: map[string]time.Duration{}, sources: map[*Source]struct{}{}}
	if err := c.Ping(ctx); err != nil {
		c.fail(ctx, err)
	}
	c.pub = newPublisher(c)
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	c.wg.Add(2)
	go func() { defer c.wg.Done(); c.probe(life) }()
	go func() { defer c.wg.Done(); c.pub.run(life) }()
	return c, nil
}

// quietRedisLog silences go-redis's own log (process-wide; wfpp reaches Redis
// only through this package): it prints every failed dial, while Cache logs
// outages once per LogInterval.
var quietRedisLog sync.Once

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

// Close stops the background work and the sources, and closes the connection.
func (c *Cache) Close() error {
	c.mu.Lock()
	sources := make([]*Source, 0, len(c.sources))
	for s := range c.sources {
		sources = append(sources, s)
	}
	c.mu.Unlock()
	var errs []error
	for _, s := range sources {
		errs = append(errs, s.Close())
	}
	c.stop()
	c.wg.Wait()
	errs = append(errs, c.rdb.Close())
	return errors.Join(errs...)
}

// Health reports whether Redis answers; detail is "ok" or says why the cache
// is degraded. Degraded is not unready: the store answers without Redis.
func (c *Cache) Health() (ok bool, detail string) {
	if !c.down.Load() {
		return true, "ok"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return false, fmt.Sprintf("degraded: redis unavailable since %s: %v", c.downSince.Format(time.RFC3339), c.lastErr)
}

// Redis returns the client, for tests and for components sharing the connection.
func (c *Cache) Redis() *redis.Client { return c.rdb }

func (c *Cache) key(kind, id string) string { return c.cfg.Prefix + kind + ":" + id }

// op returns the context of one Redis call.
func (c *Cache) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.cfg.OpTimeout)
}

// Ping asks Redis whether it answers, within the operation timeout.
func (c *Cache) Ping(ctx context.Context) error {
	ctx, cancel := c.op(ctx)
	defer cancel()
	return c.rdb.Ping(ctx).Err()
}

// fail marks the cache degraded after err, unless err is no Redis failure
// (a missing key, or the caller giving up).
func (c *Cache) fail(ctx context.Context, err error) {
	if err == nil || errors.Is(err, redis.Nil) || ctx.Err() != nil {
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastErr = err
	if !c.down.Swap(true) {
		c.downSince = now
	}
	if now.Sub(c.lastLog) >= c.cfg.LogInterval {
		c.lastLog = now
		c.cfg.Logger.Warn("redis unavailable; cache degraded, reading from the store", "err", err)
	}
}

// keep records invalidations to send once Redis answers again; false when
// Redis answers again already and the caller must send them itself.
func (c *Cache) keep(keys []stale) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.down.Load() {
		return false
	}
	for _, k := range keys {
		if len(c.pending) >= c.cfg.PendingMax {
			c.overflow = true
			return true
		}
		c.pending[k.key] = k.ttl
	}
	return true
}

// probe pings Redis; when it answers after a failure, it first sends the
// invalidations Redis missed, then lets reads use it again.
func (c *Cache) probe(ctx context.Context) {
	t := time.NewTicker(c.cfg.ProbeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := c.Ping(ctx); err != nil {
			c.fail(ctx, err)
			continue
		}
		if !c.down.Load() {
			continue
		}
		if err := c.flushPending(ctx); err != nil {
			c.fail(ctx, err)
			continue
		}
		c.mu.Lock()
		if len(c.pending) > 0 || c.overflow { // missed while flushing: next round
			c.mu.Unlock()
			continue
		}
		c.down.Store(false)
		since := c.downSince
		c.lastLog = time.Time{}
		c.mu.Unlock()
		c.cfg.Logger.Info("redis answers again; cache in use", "degraded_for", time.Since(since).Round(time.Millisecond).String())
	}
}

func (c *Cache) flushPending(ctx context.Context) error {
	c.mu.Lock()
	keys := make([]stale, 0, len(c.pending))
	for k, ttl := range c.pending {
		keys = append(keys, stale{k, ttl})
	}
	overflow := c.overflow
	c.mu.Unlock()
	sent := keys
	if overflow {
		if err := c.clearPrefix(ctx); err != nil {
			return err
		}
	}
	for len(keys) > 0 {
		n := min(len(keys), 512)
		if err := c.invalidateNow(ctx, keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	c.mu.Lock()
	for _, k := range sent {
		delete(c.pending, k.key)
	}
	if overflow {
		c.overflow = false
	}
	c.mu.Unlock()
	return nil
}

// clearPrefix deletes every entry of this prefix, when too many
// invalidations were missed to remember them.
func (c *Cache) clearPrefix(ctx context.Context) error {
	var cursor uint64
	for {
		octx, cancel := c.op(ctx)
		keys, next, err := c.rdb.Scan(octx, cursor, c.cfg.Prefix+"*", 1000).Result()
		if err == nil && len(keys) > 0 {
			err = c.rdb.Unlink(octx, keys...).Err()
		}
		cancel()
		if err != nil {
			return fmt.Errorf("clearing cache prefix %q: %w", c.cfg.Prefix, err)
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
