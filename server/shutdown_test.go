package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/server"
)

// TestShutdownWithIdleKeepAlive: clients that keep an idle keep-alive
// connection open, or connect and never send a request, do not hold up a
// graceful shutdown.
func TestShutdownWithIdleKeepAlive(t *testing.T) {
	t.Parallel()
	f := setup(t, func(c *server.Config) { c.ShutdownTimeout = 3 * time.Second })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.srv.Serve(ctx, ln) }()

	client := &http.Client{Transport: &http.Transport{}} // keeps the connection alive and idle
	resp, err := client.Get("http://" + ln.Addr().String() + "/health/live")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())

	silent, err := net.Dial("tcp", ln.Addr().String()) // connected, never sends a request
	require.NoError(t, err)
	defer silent.Close()

	cancel()
	select {
	case err := <-served:
		require.NoError(t, err, "shutdown finished cleanly")
	case <-time.After(10 * time.Second):
		t.Fatal("shutdown did not finish")
	}
	client.CloseIdleConnections()
}
