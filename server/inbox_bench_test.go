package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
	"github.com/workflowpp/wfpp/server"
)

// BenchmarkInboxFirstPage measures GET /inbox, the inbox's first page, for
// a user in 3 of 1,000 groups with n open tasks stored in the embedded store
// (each task for one group), through the real server: the inbox projection
// is loaded from the store when the server starts (reported as load-ms),
// then every page is answered from it.
func BenchmarkInboxFirstPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) { benchInbox(b, n) })
	}
}

func benchInbox(b *testing.B, n int) {
	ctx := context.Background()
	db := embedded.NewTestDatabase(b)
	store, err := mongostore.New(ctx, db, mongostore.Config{SingleWriter: true, NoQueryIndexes: true})
	if err != nil {
		b.Fatal(err)
	}
	created := time.Now().Add(-time.Hour)
	for lo := 0; lo < n; lo += 1000 {
		docs := make([]any, 0, 1000)
		for i := lo; i < min(lo+1000, n); i++ {
			docs = append(docs, engine.Task{
				ID: fmt.Sprintf("t-%07d", i), InstanceID: fmt.Sprintf("i-%07d", i), DefinitionKey: "bench",
				ElementID: "review", Name: "Review", CandidateUsers: []string{}, CandidateGroups: []string{fmt.Sprintf("g-%d", i%1000)},
				Priority: i % 100, Status: engine.TaskOpen, Created: created, BusinessKey: fmt.Sprintf("order-%d", i),
			})
		}
		if _, err := db.Collection("tasks").InsertMany(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	eng, err := engine.New(engine.Config{Store: store, Partitions: 2})
	if err != nil {
		b.Fatal(err)
	}
	if err := eng.Run(ctx); err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	start := time.Now()
	srv, err := server.New(server.Config{Engine: eng})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	load := time.Since(start)
	get := func() int {
		req := httptest.NewRequest(http.MethodGet, "/inbox", nil)
		req.Header.Set("X-User", "ada")
		req.Header.Set("X-Groups", "g-1,g-2,g-3")
		resp, err := srv.App().Test(req, -1)
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != http.StatusOK {
		b.Fatalf("GET /inbox: %d", code)
	}
	b.ResetTimer()
	for b.Loop() {
		get()
	}
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
}
