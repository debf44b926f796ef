package server_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
)

// TestServeStopJoinsGoroutines serves, connects live clients that subscribe
// while instances run, and shuts down, over and over: the hub and the
// server join every goroutine they started (fasthttp's own are ignored as
// in TestMain).
func TestServeStopJoinsGoroutines(t *testing.T) {
	// Not parallel: goleak compares against this test's goroutines alone.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"))
	for range 5 {
		eng, err := engine.New(engine.Config{Store: memstore.New(), Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2, Unhandled: engine.JobsNoop})
		require.NoError(t, err)
		require.NoError(t, eng.Run(context.Background()))
		srv, err := server.New(server.Config{Engine: eng})
		require.NoError(t, err)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, ln) }()

		f := &liveFixture{t: t, eng: eng, srv: srv, addr: ln.Addr().String()}
		key := f.deploy("testdata/approval.bpmn")
		var conns []*websocket.Conn
		for range 3 {
			c := f.client(nil)
			c.subscribe(map[string]any{"definition": key})
			c.subscribe(map[string]any{"inbox": true})
			conns = append(conns, c.conn)
		}
		for range 5 {
			f.start(key, map[string]any{"amount": 10})
		}
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(15 * time.Second):
			t.Fatal("Serve did not return")
		}
		for _, c := range conns {
			_ = c.Close()
		}
		eng.Close()
	}
}
