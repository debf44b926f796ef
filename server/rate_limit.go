package server

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/cluster"
)

// RateLimiter keeps the rate-limit buckets somewhere shared, so that
// replicas limit a client together (cache.Limiter, on Redis): Allow takes a
// token for key, or says how long until one is due.
type RateLimiter interface {
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

// rateLimit limits starts, task completions and webhook posts per client IP to
// Config.RateLimit per Config.RateWindow; other routes are not limited. The
// counters are this process's own unless Config.RateLimiter shares them.
func (s *Server) rateLimit() fiber.Handler {
	switch {
	case s.cfg.RateLimit < 0:
		return func(c *fiber.Ctx) error { return c.Next() }
	case s.cfg.RateLimiter != nil:
		return s.sharedRateLimit
	}
	return limiter.New(limiter.Config{
		Max:          s.cfg.RateLimit,
		Expiration:   s.cfg.RateWindow,
		Storage:      newLimitStore(),
		KeyGenerator: s.clientIP,
		Next:         func(c *fiber.Ctx) bool { return !limited(c) || s.forwardedByPeer(c) },
		LimitReached: func(*fiber.Ctx) error { return s.rateLimited() },
	})
}

// forwardedByPeer reports whether another replica forwarded c, which it
// counted against its client already: counted here too, every client of
// that replica would share one bucket.
func (s *Server) forwardedByPeer(c *fiber.Ctx) bool {
	return s.cfg.Peers != nil && c.Get(cluster.ForwardedHeader) != "" && s.cfg.Peers.Trusted(c)
}

// sharedRateLimit is rateLimit on Config.RateLimiter.
func (s *Server) sharedRateLimit(c *fiber.Ctx) error {
	if !limited(c) || s.forwardedByPeer(c) {
		return c.Next()
	}
	if ok, wait := s.cfg.RateLimiter.Allow(c.UserContext(), s.clientIP(c)); !ok {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		return s.rateLimited()
	}
	return c.Next()
}

func (s *Server) rateLimited() error {
	return &api.Error{
		Status: http.StatusTooManyRequests, Code: "rate_limited",
		Message: fmt.Sprintf("more than %d starts, completions or webhook posts in %s from this client: wait and retry (see Retry-After)", s.cfg.RateLimit, s.cfg.RateWindow),
	}
}

// limited reports whether c starts an instance, completes a task or posts
// to a webhook (a public route).
func limited(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodPost {
		return false
	}
	p := strings.TrimSuffix(c.Path(), "/")
	return p == "/api/v1/instances" || strings.HasPrefix(p, "/api/v1/hooks/") ||
		(strings.HasPrefix(p, "/api/v1/tasks/") && strings.HasSuffix(p, "/complete"))
}

// limitStore is the limiter's counter storage: fiber's default starts a
// garbage-collecting goroutine per limiter that never stops; this one sweeps
// expired counters as it grows instead.
type limitStore struct {
	mu    sync.Mutex
	items map[string]limitEntry
	sweep int // sweep when the map reaches this size
}

type limitEntry struct {
	val []byte
	exp time.Time // zero: never
}

const limitSweepMin = 1024

func newLimitStore() *limitStore {
	return &limitStore{items: map[string]limitEntry{}, sweep: limitSweepMin}
}

var _ fiber.Storage = (*limitStore)(nil)

func (s *limitStore) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[key]
	if !ok || (!e.exp.IsZero() && time.Now().After(e.exp)) {
		return nil, nil
	}
	return e.val, nil
}

func (s *limitStore) Set(key string, val []byte, exp time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := limitEntry{val: append([]byte(nil), val...)}
	if exp > 0 {
		e.exp = time.Now().Add(exp)
	}
	s.items[key] = e
	if len(s.items) >= s.sweep {
		now := time.Now()
		for k, it := range s.items {
			if !it.exp.IsZero() && now.After(it.exp) {
				delete(s.items, k)
			}
		}
		s.sweep = max(limitSweepMin, 2*len(s.items))
	}
	return nil
}

func (s *limitStore) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, key)
	return nil
}

func (s *limitStore) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.items)
	return nil
}

func (s *limitStore) Close() error { return nil }
