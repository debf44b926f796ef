package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
)

// pageFixtureItems is how many instances and tasks the page timing fixture
// stores: the budget is a page in 200 ms with 10,000 of each.
const pageFixtureItems = 10_000

// bigStore fills a memstore with n instances, each with one open task, of
// one deployed definition.
func bigStore(t testing.TB, n int) *server.Server {
	t.Helper()
	store := memstore.New()
	eng, err := engine.New(engine.Config{Store: store, Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	ctx := context.Background()
	src, err := os.ReadFile("testdata/browser_xss.bpmn")
	require.NoError(t, err)
	rec, _, err := eng.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	now := time.Now()
	for i := range n {
		id := fmt.Sprintf("inst-%06d", i)
		snap := &engine.Snapshot{
			ID: id, DefinitionID: rec.ID, DefinitionKey: rec.Key, Version: rec.Version,
			ProcessID: "browser_xss", Status: engine.StatusWaiting, Started: now, Updated: now,
			Variables: map[string]any{"amount": i},
		}
		_, err := store.CreateInstance(ctx, snap)
		require.NoError(t, err)
		due := now.Add(time.Duration(i-n/2) * time.Minute)
		task := engine.Task{
			ID: fmt.Sprintf("task-%06d", i), InstanceID: id, DefinitionKey: rec.Key, ElementID: "review",
			Name: "Review", CandidateGroups: []string{"managers"}, Priority: i % 100, Due: &due, Status: engine.TaskOpen, Created: now,
		}
		next := *snap
		next.Seq = 1
		next.Tokens = []engine.TokenState{{ID: 1, ElementID: "review", Status: engine.TokenTask, TaskID: task.ID}}
		require.NoError(t, store.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: &next, Tasks: []engine.Task{task}}}}))
	}
	srv, err := server.New(server.Config{Engine: eng})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

var timedPages = []string{
	"/inbox", "/inbox?filter=overdue&sort=due", "/inbox?filter=groups&process=browser_xss",
	"/ui/inbox?filter=all", "/instances", "/instances?status=waiting&cursor=inst-005000",
	"/definitions", "/definitions/browser_xss", "/incidents",
}

// TestPageRenderTiming reports how long each list page takes with 10,000
// instances and tasks stored. It reports, it does not assert: timings on a
// shared CI machine under -race say little; the benchmark below is the figure.
func TestPageRenderTiming(t *testing.T) {
	srv := bigStore(t, pageFixtureItems)
	for _, path := range timedPages {
		start := time.Now()
		resp, err := srv.App().Test(httptest.NewRequest("GET", path, nil), -1)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		elapsed := time.Since(start)
		require.Equal(t, 200, resp.StatusCode, "%s: %s", path, body)
		t.Logf("%-50s %4d KiB %8v", path, len(body)/1024, elapsed.Round(time.Microsecond))
	}
}

// BenchmarkPageRender renders each list page with 10,000 instances and tasks stored.
func BenchmarkPageRender(b *testing.B) {
	srv := bigStore(b, pageFixtureItems)
	for _, path := range timedPages {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				resp, err := srv.App().Test(httptest.NewRequest("GET", path, nil), -1)
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("%s: %v %v", path, err, resp.StatusCode)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
			}
		})
	}
}
