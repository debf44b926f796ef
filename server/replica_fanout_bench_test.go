package server_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bench"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// BenchmarkReplicaEventLag measures how late the events of one replica
// reach a WebSocket client of another: two engines on one store, instances
// (a chain of 3 none tasks) started on the first at 500/s, a client of the
// second following the definition. The lag of each instance.completed is
// the client's receipt minus the event's time (stamped as the change is
// applied, just before its commit). via=redis: through Redis;
// via=log: Redis down, polled from the store's log every second (cluster mode).
func BenchmarkReplicaEventLag(b *testing.B) {
	const rate = 500 // instances/s
	for _, via := range []string{"redis", "log"} {
		b.Run("via="+via, func(b *testing.B) {
			rs := replicaSetup{store: memstore.New(), redis: redistest.Start(b), prefix: redistest.Prefix(b), poll: via == "log"}
			a, _, _, _ := rs.serve(b)
			_, _, _, addr := rs.serve(b)
			ctx := b.Context()
			rec, _, err := a.Deploy(ctx, engine.DeployRequest{Source: bench.Chain(3)})
			require.NoError(b, err)
			if via == "log" {
				rs.redis.Stop()
			}
			conn, resp, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
			require.NoError(b, err)
			require.NoError(b, resp.Body.Close())
			defer conn.Close()
			require.NoError(b, conn.WriteJSON(map[string]any{"type": "subscribe", "definition": rec.Key}))
			var msg wsMsg
			require.NoError(b, conn.ReadJSON(&msg))
			require.Equal(b, "subscribed", msg.Type)

			lags := make(chan []time.Duration, 1)
			go func() {
				var got []time.Duration
				for len(got) < b.N {
					var m wsMsg
					if err := conn.ReadJSON(&m); err != nil {
						break
					}
					if m.Type == "event" && m.Event.Type == engine.EventInstanceCompleted {
						got = append(got, time.Since(m.Event.Time))
					}
				}
				lags <- got
			}()
			b.ResetTimer()
			tick := time.NewTicker(time.Second / rate)
			defer tick.Stop()
			for range b.N {
				<-tick.C
				_, _, err := a.Start(context.WithoutCancel(ctx), engine.StartRequest{Definition: rec.Key})
				require.NoError(b, err)
			}
			require.NoError(b, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
			got := <-lags
			b.StopTimer()
			require.Len(b, got, b.N, "every instance.completed reached the other replica's client")
			slices.Sort(got)
			b.ReportMetric(float64(got[len(got)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(got[len(got)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
