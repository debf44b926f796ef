package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bench"
	"github.com/workflowpp/wfpp/server"
)

// BenchmarkHTTPStart measures POST /api/v1/instances of the ten-nodes model
// (in-memory store) side by side with a Fiber hello-world on the same
// machine, both over real loopback connections with the same client: the
// issue asks for at least 50% of the hello-world's requests/s, p99 <= 5 ms.
func BenchmarkHTTPStart(b *testing.B) {
	for _, clients := range []int{16, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { benchStart(b, clients) })
	}
}

func benchStart(b *testing.B, clients int) {
	b.Run("hello-world", func(b *testing.B) {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		app.Post("/", func(c *fiber.Ctx) error { return c.Status(http.StatusCreated).SendString(`{"id":"x"}`) })
		benchHTTP(b, app, "/", []byte(`{}`), clients)
	})
	b.Run("start-ten-nodes", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h, err := bench.NewHarness(ctx, bench.HarnessConfig{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		rec, _, err := h.Engine.Deploy(ctx, engine.DeployRequest{Source: bench.TenNodes})
		if err != nil {
			b.Fatal(err)
		}
		srv, err := server.New(server.Config{Engine: h.Engine, RateLimit: -1})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		benchHTTP(b, srv.App(), "/api/v1/instances", []byte(fmt.Sprintf(`{"definition":%q,"variables":{"amount":50}}`, rec.Key)), clients)
	})
}

func benchHTTP(b *testing.B, app *fiber.App, path string, body []byte, clients int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	defer func() { _ = app.Shutdown() }()
	url := "http://" + ln.Addr().String() + path
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 10 * time.Second}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		next      = make(chan struct{}, clients)
		wg        sync.WaitGroup
		failed    error
	)
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Go(func() {
			var mine []time.Duration
			for range next {
				t0 := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if failed != nil {
		b.Fatal(failed)
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}
