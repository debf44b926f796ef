package circuit_test

import (
	"context"
	"testing"

	"github.com/workflowpp/wfpp/engine/circuit"
	"github.com/workflowpp/wfpp/engine/clock"
)

// BenchmarkLocalClosed is what a closed breaker adds to a job: Allow and
// Record of a success, as the engine does. The budget is 200 ns per job.
// "wall clock" reads the time as the engine does; "fixed clock" leaves the
// host's clock out (on some virtual machines time.Now alone costs 100 ns).
func BenchmarkLocalClosed(b *testing.B) {
	for _, c := range []struct {
		name  string
		clock clock.Clock
	}{{"wall clock", clock.Real{}}, {"fixed clock", newClock()}} {
		b.Run(c.name, func(b *testing.B) {
			st := circuit.NewLocal(c.clock)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				closedCall(b, st, ctx)
			}
		})
	}
}

// BenchmarkLocalClosedParallel: every worker through the same breaker.
func BenchmarkLocalClosedParallel(b *testing.B) {
	st := circuit.NewLocal(clock.Real{})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			closedCall(b, st, ctx)
		}
	})
}

func closedCall(b *testing.B, st circuit.Store, ctx context.Context) {
	d, _ := st.Allow(ctx, "http:api.example.com", policy)
	if !d.Allowed {
		b.Fatal("a closed breaker refused a call")
	}
	_, _ = st.Record(ctx, d.Ticket, policy, false)
}
