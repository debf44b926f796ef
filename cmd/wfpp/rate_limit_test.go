package main

import (
	"context"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/server"
)

// TestRateLimitEnv: WFPP_RATE_LIMIT takes a count or off, and
// WFPP_TRUSTED_PROXIES addresses and ranges; bad values name the variable
// and say what to write.
func TestRateLimitEnv(t *testing.T) {
	t.Parallel()
	apply := func(env map[string]string) (server.Config, error) {
		var s server.Config
		err := applyRateLimit(func(k string) string { return env[k] }, &s)
		return s, err
	}
	for raw, want := range map[string]int{"": 0, "250": 250, "\t5\n": 5, "off": -1, "OFF": -1, "-1": -1} {
		s, err := apply(map[string]string{"WFPP_RATE_LIMIT": raw})
		require.NoError(t, err, raw)
		require.Equal(t, want, s.RateLimit, raw)
		require.Empty(t, s.TrustedProxies, raw)
	}
	s, err := apply(map[string]string{})
	require.NoError(t, err)
	require.Equal(t, server.RateLimitDefault, s.WithDefaults().RateLimit, "unset: the default")

	for _, raw := range []string{"fast", "0", "1.5", "1000/s"} {
		_, err := apply(map[string]string{"WFPP_RATE_LIMIT": raw})
		require.ErrorContains(t, err, `WFPP_RATE_LIMIT="`+raw+`"`)
		require.ErrorContains(t, err, "positive whole number such as 1000 (the default), or off")
	}

	s, err = apply(map[string]string{"WFPP_TRUSTED_PROXIES": " 10.0.0.5, 172.16.1.0/12,,::1,::ffff:192.0.2.7"})
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{
		netip.MustParsePrefix("10.0.0.5/32"), netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("192.0.2.7/32"),
	}, s.TrustedProxies)
	for _, raw := range []string{"proxy", "10.0.0.0/33", "10.0.0.5;10.0.0.6"} {
		_, err := apply(map[string]string{"WFPP_TRUSTED_PROXIES": raw, "WFPP_RATE_LIMIT": "x"})
		require.ErrorContains(t, err, "WFPP_TRUSTED_PROXIES: ")
		require.ErrorContains(t, err, "neither an IP address nor a CIDR range")
		require.ErrorContains(t, err, "WFPP_RATE_LIMIT=", "both bad values are reported")
	}
}

// TestServeTrustedProxies: wfpp serve limits each client behind a trusted
// proxy (here loopback) to WFPP_RATE_LIMIT on its own.
func TestServeTrustedProxies(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := startChild(t, buildWfpp(t), t.TempDir())
	srv.env = []string{"WFPP_RATE_LIMIT=1", "WFPP_TRUSTED_PROXIES=127.0.0.1"}
	require.NoError(t, srv.restart(ctx, t))
	defer srv.stop(t)

	limited := func(client string) bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.base+"/api/v1/tasks/x/complete", nil)
		require.NoError(t, err)
		req.Header.Set("X-Forwarded-For", client)
		resp, err := srv.http.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode == http.StatusTooManyRequests
	}
	// The window is a second: a slow machine may pass it between two
	// requests, so the client asks until refused (a few times at most).
	refused := false
	for range 50 {
		if refused = limited("10.1.2.3"); refused {
			break
		}
	}
	require.True(t, refused, "one a second")
	require.False(t, limited("10.1.2.4"), "another client of the proxy has a bucket of its own")
}
