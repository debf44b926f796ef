package mongostore_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// BenchmarkScheduler10kMinutelyEmbedded: 10,000 schedules with a one-minute
// cron on the embedded store, set up as wfpp serve sets it up (its own
// server and data directory, the single-writer store, the _id index;
// WFPP_SYNC as for wfpp serve, full by default),
// all due at the same instant. One op is one tick: the virtual clock moves
// to tickLead before the tick, and the scheduler claims every schedule's
// tick ahead (5 s before it), as it does on the real clock; then to the
// tick, and every instance starts. It reports the process CPU per tick
// (claims and starts) and how late the instances start after the tick, in
// wall time (p50/p99/max-lateness-ms). The in-memory figure is engine's
// BenchmarkScheduler10kMinutely.
func BenchmarkScheduler10kMinutelyEmbedded(b *testing.B) {
	const schedules, tickLead = 10_000, 2 * time.Second
	ctx := context.Background()
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: b.TempDir(), Sync: embedded.Sync(os.Getenv("WFPP_SYNC"))})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, srv.Close(context.Background())) })
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, client.Disconnect(context.Background())) })
	st, err := mongostore.New(ctx, client.Database("bench"), mongostore.Config{SingleWriter: true, NoQueryIndexes: true})
	require.NoError(b, err)
	require.NoError(b, srv.IndexByID(ctx, "bench"))

	clock := engine.NewVirtualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	var (
		mu       sync.Mutex
		tickAt   time.Time
		lateness []time.Duration
	)
	e, err := engine.New(engine.Config{
		Store: st, Clock: clock, NoStartTimers: true,
		Exporter: engine.ExporterFunc(func(evs []engine.Event) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			for _, ev := range evs {
				if ev.Type == engine.EventInstanceStarted {
					lateness = append(lateness, now.Sub(tickAt))
				}
			}
		}),
	})
	require.NoError(b, err)
	require.NoError(b, e.Run(ctx))
	b.Cleanup(e.Close)
	_, _, err = e.Deploy(ctx, engine.DeployRequest{Source: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="q" targetNamespace="t">
  <process id="quick" isExecutable="true">
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process></definitions>`)})
	require.NoError(b, err)
	for range schedules {
		_, err := e.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Cron: "* * * * *", Enabled: true})
		require.NoError(b, err)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ResetTimer()
	before := cpu()
	for range b.N {
		clock.Advance(time.Minute - tickLead) // the claims, written ahead of the tick
		require.NoError(b, e.WaitIdle(ctx))
		mu.Lock()
		tickAt = time.Now()
		mu.Unlock()
		clock.Advance(tickLead) // the tick: its instances start
		require.NoError(b, e.WaitIdle(ctx))
	}
	used := cpu() - before
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	require.Len(b, lateness, schedules*b.N, "every schedule fires once a tick")
	slices.Sort(lateness)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(used)/float64(b.N), "cpu-ms/tick")
	b.ReportMetric(ms(lateness[len(lateness)/2]), "p50-lateness-ms")
	b.ReportMetric(ms(lateness[len(lateness)*99/100]), "p99-lateness-ms")
	b.ReportMetric(ms(lateness[len(lateness)-1]), "max-lateness-ms")
}
