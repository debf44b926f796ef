package main

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/server"
)

// applyRateLimit sets on srv the rate limit (WFPP_RATE_LIMIT: starts,
// completions and webhook posts per client per second, or off) and the
// reverse proxies whose X-Forwarded-For names the client it counts
// (WFPP_TRUSTED_PROXIES). Unset: the server's defaults, 1000 a second
// counted per peer address.
func applyRateLimit(getenv func(string) string, srv *server.Config) error {
	var errs []error
	if raw := strings.TrimSpace(getenv("WFPP_RATE_LIMIT")); raw != "" {
		n, err := parseRateLimit(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("WFPP_RATE_LIMIT=%q: %w", raw, err))
		}
		srv.RateLimit = n
	}
	proxies, err := parseTrustedProxies(getenv("WFPP_TRUSTED_PROXIES"))
	if err != nil {
		errs = append(errs, fmt.Errorf("WFPP_TRUSTED_PROXIES: %w", err))
	}
	srv.TrustedProxies = proxies
	return errors.Join(errs...)
}

// parseRateLimit reads WFPP_RATE_LIMIT: a positive count per second, or off
// (or a negative number) for no limit, which server.Config says as -1.
func parseRateLimit(s string) (int, error) {
	if strings.EqualFold(s, "off") {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || n == 0:
		return 0, fmt.Errorf("want starts, completions and webhook posts per client per second, a positive whole number such as %d (the default), or off for no limit", server.RateLimitDefault)
	case n < 0:
		return -1, nil
	}
	return n, nil
}

// parseTrustedProxies reads WFPP_TRUSTED_PROXIES: addresses and CIDR ranges
// separated by commas; a single address is a range of one.
func parseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if p, err := netip.ParsePrefix(entry); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(entry)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR range: list the proxies' addresses or ranges separated by commas, e.g. 10.0.0.5,172.16.0.0/12 (host names are not looked up)", entry)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}

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
