package engine_test

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// BenchmarkScheduler10kMinutely: 10,000 schedules with a one-minute cron,
// all due at the same instant. One op is one tick: the virtual clock moves
// to tickLead before the tick, and the scheduler claims every schedule's
// tick ahead (scheduleClaimAhead), as it does on the real clock; then to the
// tick, and every instance starts. It reports the process CPU per tick
// (cpu-ms/tick, claims and starts) and how late the instances start after
// the tick, in wall time (p50/p99/max-lateness-ms): the last of 10,000
// starts is the latest.
func BenchmarkScheduler10kMinutely(b *testing.B) {
	const tickLead = 2 * time.Second
	const schedules = 10_000
	clock := engine.NewVirtualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	var (
		mu       sync.Mutex
		tickAt   time.Time
		lateness []time.Duration
	)
	e, err := engine.New(engine.Config{
		Store: memstore.New(memstore.WithoutEventLog(), memstore.WithoutFinished()), Clock: clock, NoStartTimers: true,
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
	ctx := context.Background()
	require.NoError(b, e.Run(ctx))
	b.Cleanup(e.Close)
	_, _, err = e.Deploy(ctx, engine.DeployRequest{Source: quickBPMN})
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
	b.ReportMetric(float64(used)/float64(b.N*schedules)/1000, "cpu-µs/fire")
}
