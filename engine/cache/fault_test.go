package cache_test

import (
	"context"
	_ "embed"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

//go:embed testdata/steps.bpmn
var stepsBPMN []byte

// steps is an engine running testdata/steps.bpmn whose tasks b and c wait
// for gates, so a test can act while every instance waits at one of them.
type steps struct {
	eng          *engine.Engine
	store        *cache.Store
	inner        engine.Store
	gateB, gateC chan struct{}
	atB, atC     atomic.Int64
	completed    atomic.Int64

	mu      sync.Mutex
	commits map[string][]commit // per instance, as exported
}

// commit is when the engine exported the events up to seq: after the store
// had them.
type commit struct {
	seq uint64
	at  time.Time
}

func newSteps(t *testing.T, c *cache.Cache, workers int) *steps {
	t.Helper()
	s := &steps{inner: memstore.New(), gateB: make(chan struct{}), gateC: make(chan struct{}), commits: map[string][]commit{}}
	s.store = c.Store(s.inner)
	eng, err := engine.New(engine.Config{
		Store: s.store, NodeWorkers: workers,
		Exporter: engine.ExporterFunc(func(evs []engine.Event) {
			now := time.Now()
			s.mu.Lock()
			for _, e := range evs {
				s.commits[e.InstanceID] = append(s.commits[e.InstanceID], commit{e.Seq, now})
			}
			s.mu.Unlock()
			for _, e := range evs {
				if e.Type == engine.EventInstanceCompleted {
					s.completed.Add(1)
				}
			}
		}),
	})
	require.NoError(t, err)
	wait := func(ctx context.Context, at *atomic.Int64, gate chan struct{}) error {
		at.Add(1)
		select {
		case <-gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	eng.RegisterHandler("a", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return map[string]any{"n": int64(1), "list": []any{int64(1), 2.0}}, nil
	}))
	eng.RegisterHandler("b", engine.HandlerFunc(func(ctx context.Context, _ *engine.Job) (map[string]any, error) {
		return map[string]any{"x": 1.5}, wait(ctx, &s.atB, s.gateB)
	}))
	eng.RegisterHandler("c", engine.HandlerFunc(func(ctx context.Context, _ *engine.Job) (map[string]any, error) {
		return map[string]any{"c": "done"}, wait(ctx, &s.atC, s.gateC)
	}))
	eng.RegisterHandler("d", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return map[string]any{"d": map[string]any{"ok": true}}, nil
	}))
	require.NoError(t, eng.Run(t.Context()))
	t.Cleanup(eng.Close)
	s.eng = eng
	_, _, err = eng.Deploy(t.Context(), engine.DeployRequest{Source: stepsBPMN})
	require.NoError(t, err)
	return s
}

func (s *steps) start(t *testing.T, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		inst, _, err := s.eng.Start(t.Context(), engine.StartRequest{Definition: "steps"})
		require.NoError(t, err)
		ids[i] = inst.ID
	}
	return ids
}

// waitAtC waits until every instance waits at c with its other branch, d,
// at the join: nothing commits until c's gate opens. (Task c starting says
// only that d started too.)
func (s *steps) waitAtC(t *testing.T, ids []string) {
	t.Helper()
	eventually(t, "every instance waits at c, d at the join", func() bool {
		if s.atC.Load() != int64(len(ids)) {
			return false
		}
		for _, id := range ids {
			snap, err := s.inner.Instance(t.Context(), id)
			require.NoError(t, err)
			if !slices.ContainsFunc(snap.Tokens, func(tk engine.TokenState) bool { return tk.ElementID == "join" }) {
				return false
			}
		}
		return true
	})
}

// requireFresh reads every instance twice through the cache, allowing stale
// answers, while nothing changes: both must be what the store holds.
func (s *steps) requireFresh(t *testing.T, ids []string) {
	t.Helper()
	ctx := t.Context()
	for _, id := range ids {
		want, err := s.inner.Instance(ctx, id)
		require.NoError(t, err)
		for range 2 {
			got, err := s.store.Instance(cache.AllowStale(ctx), id)
			require.NoError(t, err)
			require.Equal(t, want.Seq, got.Seq, "instance %s", id)
			require.Equal(t, want.Status, got.Status)
			require.Equal(t, want.Variables, got.Variables)
			require.Equal(t, want.Tokens, got.Tokens)
		}
	}
}

// TestEngineSurvivesRedisFaults stops Redis while instances move, starts it
// again with stale entries from an old RDB file, and flushes it: every
// instance ends correctly and no read serves the stale entries.
func TestEngineSurvivesRedisFaults(t *testing.T) {
	t.Parallel()
	const n = 40
	srv := redistest.Start(t)
	// The TTL outlives the outage: only the invalidations kept while Redis
	// was down keep the restored entries from being served.
	c := open(t, srv, cache.Config{InstanceTTL: time.Minute})
	s := newSteps(t, c, n)
	ids := s.start(t, n)
	eventually(t, "every instance waits at b", func() bool { return s.atB.Load() == n })
	s.requireFresh(t, ids) // fills the cache with the snapshots at b
	srv.Save()

	close(s.gateB) // the instances move on while Redis goes away
	srv.Stop()
	s.waitAtC(t, ids)
	eventually(t, "health says degraded", func() bool { ok, _ := c.Health(); return !ok })
	ok, detail := c.Health()
	require.False(t, ok)
	require.Contains(t, detail, "degraded")
	s.requireFresh(t, ids)

	srv.Start() // with the entries of the snapshots at b
	eventually(t, "health is ok again", func() bool { ok, _ := c.Health(); return ok })
	s.requireFresh(t, ids)

	rc := srv.Client()
	defer rc.Close()
	require.NoError(t, rc.FlushAll(t.Context()).Err())
	close(s.gateC)
	eventually(t, "every instance completed", func() bool { return s.completed.Load() == n })
	require.NoError(t, s.eng.WaitIdle(t.Context()))
	for _, id := range ids {
		snap, err := s.inner.Instance(t.Context(), id)
		require.NoError(t, err)
		require.Equal(t, engine.StatusCompleted, snap.Status)
		require.Equal(t, map[string]any{
			"n": int64(1), "list": []any{int64(1), 2.0}, "x": 1.5, "c": "done", "d": map[string]any{"ok": true},
		}, snap.Variables)
	}
	s.requireFresh(t, ids)
	ok, _ = c.Health()
	require.True(t, ok)
}

// TestStaleReadsStayWithinTTL reads instances through the cache while they
// move and while Redis stops, starts and is flushed. A read that started at
// T may return a snapshot that was replaced, but not by a commit earlier than
// T - InstanceTTL.
func TestStaleReadsStayWithinTTL(t *testing.T) {
	t.Parallel()
	const n, ttl = 30, 30 * time.Millisecond
	srv := redistest.Start(t)
	c := open(t, srv, cache.Config{InstanceTTL: ttl})
	s := newSteps(t, c, n)
	ids := s.start(t, n)

	type read struct {
		id  string
		at  time.Time
		seq uint64
	}
	var (
		reads   []read
		readsMu sync.Mutex
		count   atomic.Int64
		done    = make(chan struct{})
		wg      sync.WaitGroup
	)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []read
			defer func() { readsMu.Lock(); reads = append(reads, mine...); readsMu.Unlock() }()
			for {
				select {
				case <-done:
					return
				default:
				}
				id := ids[rand.IntN(len(ids))]
				at := time.Now()
				snap, err := s.store.Instance(cache.AllowStale(t.Context()), id)
				if err == nil {
					mine = append(mine, read{id, at, snap.Seq})
					count.Add(1)
				}
			}
		}()
	}
	readMore := func() { // every instance is likely read a few times
		from := count.Load()
		eventually(t, "more reads", func() bool { return count.Load() >= from+20*n })
	}

	eventually(t, "every instance waits at b", func() bool { return s.atB.Load() == n })
	readMore()
	srv.Stop()
	close(s.gateB)
	eventually(t, "every instance waits at c", func() bool { return s.atC.Load() == n })
	readMore()
	srv.Start()
	eventually(t, "health is ok again", func() bool { ok, _ := c.Health(); return ok })
	readMore()
	rc := srv.Client()
	require.NoError(t, rc.FlushAll(t.Context()).Err())
	require.NoError(t, rc.Close())
	readMore()
	close(s.gateC)
	eventually(t, "every instance completed", func() bool { return s.completed.Load() == n })
	end := time.Now()
	eventually(t, "reads after 2 TTLs", func() bool { return time.Since(end) > 2*ttl })
	readMore()
	close(done)
	wg.Wait()

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range reads {
		for _, cm := range s.commits[r.id] {
			if cm.seq > r.seq {
				require.False(t, cm.at.Before(r.at.Add(-ttl)),
					"instance %s: a read at %s returned seq %d, replaced at %s", r.id, r.at, r.seq, cm.at)
				break
			}
		}
	}
	for _, id := range ids {
		snap, err := s.inner.Instance(t.Context(), id)
		require.NoError(t, err)
		require.Equal(t, engine.StatusCompleted, snap.Status)
	}
}
