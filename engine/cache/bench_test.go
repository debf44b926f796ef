package cache_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

func BenchmarkDefinitionByID(b *testing.B) {
	srv := redistest.Start(b)
	stores := []struct {
		name string
		new  func(b *testing.B) engine.Store
	}{
		{"memstore", func(*testing.B) engine.Store { return memstore.New() }},
		{"mongostore", func(b *testing.B) engine.Store {
			s, err := mongostore.New(b.Context(), embedded.NewTestDatabase(b), mongostore.Config{})
			require.NoError(b, err)
			return s
		}},
	}
	for _, st := range stores {
		for _, withCache := range []bool{false, true} {
			name := st.name
			if withCache {
				name = "cached_" + name
			}
			b.Run(name, func(b *testing.B) {
				s := st.new(b)
				if withCache {
					c, err := cache.Open(b.Context(), cache.Config{URL: srv.URL(), Prefix: redistest.Prefix(b)})
					require.NoError(b, err)
					b.Cleanup(func() { _ = c.Close() })
					s = c.Store(s)
				}
				rec, _, err := s.SaveDefinition(b.Context(), engine.DefinitionRecord{
					Key: "steps", Name: "steps", Format: "bpmn", Checksum: "x", Source: stepsBPMN,
					Enabled: true, Deployed: time.Now().UTC().Truncate(time.Millisecond), Processes: []string{"steps"},
				})
				require.NoError(b, err)
				_, err = s.DefinitionByID(b.Context(), rec.ID) // fills the cache
				require.NoError(b, err)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.DefinitionByID(b.Context(), rec.ID); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPublish measures the fan-out: batches of 8 events, as an applier
// exports them, until every event is published (or dropped, reported).
func BenchmarkPublish(b *testing.B) {
	srv := redistest.Start(b)
	c, err := cache.Open(b.Context(), cache.Config{URL: srv.URL(), Prefix: redistest.Prefix(b)})
	require.NoError(b, err)
	b.Cleanup(func() { _ = c.Close() })
	batch := make([]engine.Event, 8)
	for i := range batch {
		batch[i] = engine.Event{
			InstanceID: "01a2022c-7c20-7573-a7b8-7de6ff77ef6b", Seq: uint64(i + 1), Type: engine.EventElementCompleted,
			Time: time.Now(), DefinitionID: "steps:1", ElementID: "a", TokenID: 1,
			Detail: map[string]any{"type": "a", "attempt": 1},
		}
	}
	p := c.Publisher()
	p0, d0 := p.Stats()
	start := time.Now()
	n := 0
	caughtUp := func() {
		for {
			pub, drop := p.Stats()
			if int(pub-p0+drop-d0) >= n {
				return
			}
			time.Sleep(50 * time.Microsecond) // polls the counters; the publisher has no completion signal
		}
	}
	for b.Loop() {
		p.Export(batch)
		if n += len(batch); n%(256*len(batch)) == 0 {
			caughtUp() // stay within the queue: measure publishing, not dropping
		}
	}
	caughtUp()
	pub, drop := p.Stats()
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(pub-p0)/el, "published_events/s")
	b.ReportMetric(float64(drop-d0)/float64(n), "dropped_ratio")
}

// BenchmarkCommit measures what the invalidation adds to a commit of 8
// instances (one pipelined round trip).
func BenchmarkCommit(b *testing.B) {
	srv := redistest.Start(b)
	for _, withCache := range []bool{false, true} {
		name := map[bool]string{false: "memstore", true: "cached_memstore"}[withCache]
		b.Run(name, func(b *testing.B) {
			var s engine.Store = memstore.New(memstore.WithoutEventLog())
			if withCache {
				c, err := cache.Open(b.Context(), cache.Config{URL: srv.URL(), Prefix: redistest.Prefix(b)})
				require.NoError(b, err)
				b.Cleanup(func() { _ = c.Close() })
				s = c.Store(s)
			}
			snaps := make([]*engine.Snapshot, 8)
			for i := range snaps {
				snaps[i] = &engine.Snapshot{ID: fmt.Sprint("i-", i), DefinitionID: "steps:1", DefinitionKey: "steps", Status: engine.StatusRunning}
				_, err := s.CreateInstance(b.Context(), snaps[i])
				require.NoError(b, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				batch := &engine.Batch{Changes: make([]engine.Change, len(snaps))}
				for i, sn := range snaps {
					next := *sn
					next.Seq = sn.Seq + 1
					batch.Changes[i] = engine.Change{Snapshot: &next, PrevSeq: sn.Seq}
					snaps[i] = &next
				}
				if err := s.Commit(b.Context(), batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
