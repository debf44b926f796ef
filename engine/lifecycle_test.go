package engine_test

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// TestStartStopJoinsGoroutines starts and closes engines over and over,
// each with work in flight (jobs, timers, tasks): Close joins every
// goroutine the engine started, whatever it was doing.
func TestStartStopJoinsGoroutines(t *testing.T) {
	// Not parallel: goleak compares against the goroutines of this test alone.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	src, err := os.ReadFile("../testdata/ten-nodes.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		eng, err := engine.New(engine.Config{
			Store: memstore.New(), Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2,
			Unhandled: engine.JobsNoop,
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := eng.Run(ctx); err != nil {
			t.Fatal(err)
		}
		rec, _, err := eng.Deploy(ctx, engine.DeployRequest{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		for range 10 + i {
			if _, _, err := eng.Start(ctx, engine.StartRequest{Definition: rec.Key, Variables: map[string]any{"amount": 50}}); err != nil {
				t.Fatal(err)
			}
		}
		eng.Close() // with jobs still queued on the last rounds
		cancel()
	}
}
