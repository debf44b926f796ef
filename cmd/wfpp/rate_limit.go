package main

import (
	"fmt"

	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/server"
)

// sharedRateLimiter keeps the rate-limit buckets in Redis, so replicas limit
// a client together: cfg.RateLimit per cfg.RateWindow, as a token bucket of
// that burst. Nil (each process counts alone) without Redis or without a
// limit. While Redis is down each replica counts alone.
func sharedRateLimiter(c *cache.Cache, cfg server.Config) (server.RateLimiter, error) {
	cfg = cfg.WithDefaults()
	if c == nil || cfg.RateLimit < 0 {
		return nil, nil
	}
	l, err := c.Limiter(float64(cfg.RateLimit)/cfg.RateWindow.Seconds(), cfg.RateLimit)
	if err != nil {
		return nil, fmt.Errorf("WFPP_REDIS_URL: rate limit: %w", err)
	}
	return l, nil
}
