package server_test

import (
	"context"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/cluster"
	"github.com/workflowpp/wfpp/server/identity"
)

// app.Test's requests come from 0.0.0.0: not loopback, so a proxy that
// tests can trust without trusting loopback.
var testPeer = netip.MustParsePrefix("0.0.0.0/32")

// completeFrom posts a task completion (rate-limited) with X-Forwarded-For
// set to xff (none when empty) and says whether the limit refused it.
func (f *fixture) completeFrom(xff string) (limited bool) {
	f.t.Helper()
	headers := map[string]string{}
	if xff != "" {
		headers["X-Forwarded-For"] = xff
	}
	status := f.as(headers, http.MethodPost, "/api/v1/tasks/x/complete", nil, nil).StatusCode
	return status == http.StatusTooManyRequests
}

// TestRateLimitBehindTrustedProxy: behind a trusted proxy each client it
// forwards for has its own bucket, in process and in Redis; an entry the
// client wrote itself, left of the proxy's, buys it no new bucket; without
// a header the proxy's own address counts.
func TestRateLimitBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	inner := netip.MustParsePrefix("10.9.0.0/16") // a second proxy, behind the first
	trust := func(c *server.Config) {
		c.RateLimit, c.RateWindow = 1, time.Hour
		c.TrustedProxies = []netip.Prefix{testPeer, inner}
	}
	redis := redistest.Start(t)
	shared := func(c *server.Config) {
		trust(c)
		rc, err := cache.Open(t.Context(), cache.Config{URL: redis.URL(), Prefix: redistest.Prefix(t)})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, rc.Close()) })
		l, err := rc.Limiter(1.0/3600, 1)
		require.NoError(t, err)
		c.RateLimiter = l
	}
	for name, mod := range map[string]func(*server.Config){"in process": trust, "redis": shared} {
		f := setup(t, mod)
		require.False(t, f.completeFrom("10.1.2.3"), name)
		require.True(t, f.completeFrom("10.1.2.3"), "%s: the same client again", name)
		require.False(t, f.completeFrom("10.1.2.4"), "%s: another client behind the proxy", name)
		require.True(t, f.completeFrom("198.51.100.7, 10.1.2.3"), "%s: the client's own entry does not count", name)
		require.False(t, f.completeFrom("10.1.2.5, 10.9.0.1"), "%s: through two trusted proxies", name)
		require.True(t, f.completeFrom("10.1.2.5"), "%s: the client the inner proxy named", name)
		require.False(t, f.completeFrom(""), "%s: the proxy itself", name)
		require.True(t, f.completeFrom(""), "%s: the proxy itself again", name)
	}
}

// TestRateLimitForgedForwardedFor: from a peer that is not a trusted proxy,
// X-Forwarded-For changes nothing: every request counts against the peer.
func TestRateLimitForgedForwardedFor(t *testing.T) {
	t.Parallel()
	for name, proxies := range map[string][]netip.Prefix{
		"no proxies":     nil,
		"another proxy ": {netip.MustParsePrefix("192.0.2.1/32")},
	} {
		f := setup(t, func(c *server.Config) {
			c.RateLimit, c.RateWindow, c.TrustedProxies = 1, time.Hour, proxies
		})
		require.False(t, f.completeFrom("10.1.2.3"), name)
		require.True(t, f.completeFrom("10.1.2.4"), "%s: a forged header is the same client", name)
	}
}

// TestTrustedProxyNotLoopback: trusting a proxy does not make the clients
// it forwards for loopback callers. Without a cluster secret the internal
// routes answer loopback alone: a request whose peer is a trusted proxy
// that names 127.0.0.1 is refused, and so is one a trusted loopback proxy
// relays, while loopback itself is still a loopback caller.
func TestTrustedProxyNotLoopback(t *testing.T) {
	t.Parallel()
	loopback := netip.MustParsePrefix("127.0.0.1/32")
	srv := clusterServer(t, loopback, testPeer)
	signal := func(xff string) int {
		headers := map[string]string{}
		if xff != "" {
			headers["X-Forwarded-For"] = xff
		}
		return (&fixture{t: t, srv: srv}).as(headers, http.MethodPost, "/internal/v1/signal", map[string]any{"name": "nobody-waits"}, nil).StatusCode
	}
	require.Equal(t, http.StatusForbidden, signal("127.0.0.1"), "a trusted proxy naming loopback (app.Test's peer is 0.0.0.0)")

	ln := listen(t)
	serveUntilCleanup(t, srv, ln)
	url := "http://" + ln.Addr().String() + "/internal/v1/signal"
	resp, body := send(t, url, `{"name":"nobody-waits"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "loopback itself: %s", body)
	resp, body = send(t, url, `{"name":"nobody-waits"}`, map[string]string{"X-Forwarded-For": "10.1.2.3"})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a client of the trusted loopback proxy: %s", body)
}

// clusterServer is a server of a one-replica cluster without a secret that
// trusts proxies.
func clusterServer(t *testing.T, proxies ...netip.Prefix) *server.Server {
	t.Helper()
	peers, err := cluster.New(cluster.Config{Self: "a", Replicas: memstore.New()})
	require.NoError(t, err)
	t.Cleanup(peers.Close)
	eng, err := engine.New(engine.Config{Store: memstore.New(), Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2, Peers: peers})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	srv, err := server.New(server.Config{Engine: eng, Peers: peers, TrustedProxies: proxies, Identity: identity.Config{JWTSecret: testJWTSecret}})
	require.NoError(t, err)
	return srv
}
