package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bench"
	"github.com/workflowpp/wfpp/server"
)

// BenchmarkHubFanout measures the WebSocket fan-out next to the engine's
// throughput. In both sub-benchmarks 64 clients complete ten-nodes instances
// as fast as the engine goes (instances/s), while a pacer starts instances
// of a watched definition (a chain of 10 none tasks) at a fixed rate. With
// subscribers=1000, a thousand WebSocket clients on 127.0.0.1 subscribe to
// the watched definition and read every event (events/s is the total they
// received). The slowdown is the engine's instances/s against the run
// without subscribers; with -count, against the latest such run.
func BenchmarkHubFanout(b *testing.B) {
	const perClientRate = 400 // watched events per second each subscriber should get
	for _, subscribers := range []int{0, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", subscribers), func(b *testing.B) {
			benchFanout(b, subscribers, perClientRate)
		})
	}
}

var baselineInstances float64 // instances/s of the last subscribers=0 run

func benchFanout(b *testing.B, subscribers, perClientRate int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := bench.NewHarness(ctx, bench.HarnessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	watched, _, err := h.Engine.Deploy(ctx, engine.DeployRequest{Source: bench.Chain(10)})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: h.Engine, RateLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srvDone := make(chan error, 1)
	srvCtx, stopSrv := context.WithCancel(ctx)
	go func() { srvDone <- srv.Serve(srvCtx, ln) }()
	defer func() { stopSrv(); <-srvDone }()

	perInstance := eventsPerInstance(b, h.Engine, watched.Key)
	dialer := websocket.Dialer{ReadBufferSize: 64 << 10}
	var received atomic.Uint64
	var readers sync.WaitGroup
	conns := make([]*websocket.Conn, 0, subscribers)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
		readers.Wait()
	}()
	for range subscribers {
		conn, _, err := dialer.Dial("ws://"+ln.Addr().String()+"/ws", nil)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, conn)
		if err := conn.WriteJSON(map[string]any{"type": "subscribe", "definition": watched.Key}); err != nil {
			b.Fatal(err)
		}
		if _, _, err := conn.ReadMessage(); err != nil { // subscribed
			b.Fatal(err)
		}
		readers.Go(func() {
			for {
				_, r, err := conn.NextReader()
				if err != nil {
					return
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					return
				}
				received.Add(1)
			}
		})
	}

	// The pacer: perClientRate events/s of the watched definition.
	rate := max(1, perClientRate/perInstance) // instances/s
	if os.Getenv("WFPP_BENCH_NOPACE") != "" {
		rate = 1
	}
	pacerDone := make(chan struct{})
	pacerCtx, stopPacer := context.WithCancel(ctx)
	go func() {
		defer close(pacerDone)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if _, _, err := h.Engine.Start(pacerCtx, engine.StartRequest{Definition: watched.Key}); err != nil && pacerCtx.Err() == nil {
					b.Error(err)
					return
				}
			case <-pacerCtx.Done():
				return
			}
		}
	}()

	delivered0 := received.Load()
	cpu0 := bench.CPUTime()
	instances, elapsed := completeParallel(b, h, 64)
	cpu := bench.CPUTime() - cpu0
	delivered := received.Load() - delivered0
	stopPacer()
	<-pacerDone

	perSec := float64(instances) / elapsed.Seconds()
	b.ReportMetric(perSec, "instances/s")
	b.ReportMetric(float64(delivered)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(srv.Hub().Stats().Evicted), "evicted")
	b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "cpu-cores")
	if subscribers == 0 {
		baselineInstances = perSec
	} else if baselineInstances > 0 {
		b.ReportMetric(100*(1-perSec/baselineInstances), "slowdown-%")
	}
}

// eventsPerInstance runs one instance of key and returns its last seq,
// which is its number of events.
func eventsPerInstance(b *testing.B, e *engine.Engine, key string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, _, err := e.Start(ctx, engine.StartRequest{Definition: key})
	if err != nil {
		b.Fatal(err)
	}
	for !snap.Status.Done() {
		time.Sleep(time.Millisecond) // a benchmark's setup: polling is fine here
		if snap, err = e.Instance(ctx, snap.ID); err != nil {
			b.Fatal(err)
		}
	}
	return int(snap.Seq)
}

// completeParallel completes b.N ten-nodes instances on n clients and
// returns how many and how long.
func completeParallel(b *testing.B, h *bench.Harness, n int) (int, time.Duration) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	work := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			c := h.Client()
			for range work {
				if err := c.Complete(ctx); err != nil {
					errs <- err
					cancel()
					for range work {
					}
					return
				}
			}
		})
	}
	start := time.Now()
	count := 0
	for b.Loop() {
		work <- struct{}{}
		count++
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return count, elapsed
}
