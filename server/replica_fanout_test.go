package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/live"
)

// replicaSetup is what the replicas of a test share: one store, one Redis
// and its key prefix, and how their live sources poll the store's log.
type replicaSetup struct {
	store  *memstore.Store
	redis  *redistest.Server
	prefix string
	poll   bool          // cluster mode: poll the store's log
	every  time.Duration // PollInterval and FanoutPollInterval
	// sharedLimit counts the rate limit in Redis (Config.RateLimiter).
	sharedLimit bool
}

// fanReplica is one server and engine of a replicaSetup, wired as wfpp serve
// wires them: the engine's events published to Redis, the hub fed by a
// ReplicaSource, Redis in /health/ready, the rate limit shared through Redis.
type fanReplica struct {
	*liveFixture
	cache *cache.Cache
}

func (rs replicaSetup) start(t *testing.T, mods ...func(*server.Config)) *fanReplica {
	t.Helper()
	eng, c, srv, addr := rs.serve(t, mods...)
	return &fanReplica{liveFixture: &liveFixture{t: t, eng: eng, store: rs.store, srv: srv, addr: addr}, cache: c}
}

// serve starts a replica's engine, cache, live source and server, stopped
// when tb ends, and returns them with the server's address.
func (rs replicaSetup) serve(tb testing.TB, mods ...func(*server.Config)) (*engine.Engine, *cache.Cache, *server.Server, string) {
	tb.Helper()
	eng, err := engine.New(engine.Config{Store: rs.store, Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2, Unhandled: engine.JobsNoop})
	require.NoError(tb, err)
	require.NoError(tb, eng.Run(context.Background()))
	tb.Cleanup(eng.Close)
	c, err := cache.Open(tb.Context(), cache.Config{URL: rs.redis.URL(), Prefix: rs.prefix, ProbeInterval: 10 * time.Millisecond, OpTimeout: 2 * time.Second})
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, c.Close()) })
	tb.Cleanup(eng.Subscribe(c.Publisher()))
	cfg := live.ReplicaConfig{
		Events: c.Source(eng), Fanout: func() bool { ok, _ := c.Health(); return ok },
		PollInterval: rs.every, FanoutPollInterval: rs.every,
	}
	if rs.poll {
		cfg.Log = rs.store
		cfg.Digests, cfg.Replica, cfg.Own = rs.store, fmt.Sprintf("replica-%p", eng), live.EngineSource{Engine: eng}
	}
	src, err := live.NewReplicaSource(cfg)
	require.NoError(tb, err)
	tb.Cleanup(src.Close) // after the server: cleanups run last first
	scfg := server.Config{Engine: eng, Health: []server.HealthCheck{{Name: "redis", Check: c.Ping}}}
	scfg.Live.Source = src
	for _, m := range mods {
		m(&scfg)
	}
	if rs.sharedLimit {
		l, err := c.Limiter(float64(scfg.RateLimit)/scfg.RateWindow.Seconds(), scfg.RateLimit)
		require.NoError(tb, err)
		scfg.RateLimiter = l
	}
	srv, err := server.New(scfg)
	require.NoError(tb, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	serveUntilCleanup(tb, srv, ln)
	return eng, c, srv, ln.Addr().String()
}

// ready returns the status of /health/ready and its "status".
func (r *fanReplica) ready() (int, string) {
	r.t.Helper()
	resp, err := http.Get("http://" + r.addr + "/health/ready")
	require.NoError(r.t, err)
	defer resp.Body.Close()
	var body struct{ Status string }
	require.NoError(r.t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body.Status
}

// waitReady waits until /health/ready says status.
func (r *fanReplica) waitReady(status string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, got := r.ready()
		require.Equal(r.t, http.StatusOK, code, "Redis degrades, never fails, readiness")
		if got == status {
			return
		}
		require.True(r.t, time.Now().Before(deadline), "/health/ready still says %q, want %q", got, status)
		time.Sleep(10 * time.Millisecond) // polls the endpoint; no event to wait on
	}
}

// requireAllEvents checks that a client got every event of id once, in order.
func requireAllEvents(t *testing.T, r *fanReplica, id string, got []engine.Event) {
	t.Helper()
	for _, ev := range got {
		require.Equal(t, id, ev.InstanceID)
	}
	require.Equal(t, seqs(r.stored(id)), seqs(got))
}

// TestFanoutRedis: a WebSocket client on one replica sees every event of an
// instance another replica runs, through Redis alone, once and in order.
func TestFanoutRedis(t *testing.T) {
	t.Parallel()
	rs := replicaSetup{store: memstore.New(), redis: redistest.Start(t), prefix: redistest.Prefix(t)}
	a, b := rs.start(t), rs.start(t)
	key := a.deploy("../engine/testdata/parallel_50.bpmn")
	ca, cb := a.client(nil), b.client(nil)
	ca.subscribe(map[string]any{"definition": key})
	cb.subscribe(map[string]any{"definition": key})

	id := a.start(key, nil)
	requireAllEvents(t, a, id, ca.eventsUntil(id, engine.EventInstanceCompleted))
	requireAllEvents(t, b, id, cb.eventsUntil(id, engine.EventInstanceCompleted))
	id = b.start(key, nil)
	requireAllEvents(t, a, id, ca.eventsUntil(id, engine.EventInstanceCompleted))
	requireAllEvents(t, b, id, cb.eventsUntil(id, engine.EventInstanceCompleted))

	published, _ := a.cache.Publisher().Stats()
	require.Positive(t, published)

	resp, err := http.Get("http://" + b.addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	metrics, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(metrics), "wfpp_live_event_lag_seconds")
}

// TestFanoutRedisDownPollsTheLog: in cluster mode events of other replicas
// come through Redis and the store's log at once, and arrive once each;
// with Redis stopped /health/ready says degraded and they come from the log
// alone; with Redis back, through both again.
func TestFanoutRedisDownPollsTheLog(t *testing.T) {
	t.Parallel()
	rs := replicaSetup{store: memstore.New(), redis: redistest.Start(t), prefix: redistest.Prefix(t), poll: true, every: 5 * time.Millisecond}
	a, b := rs.start(t), rs.start(t)
	key := a.deploy("../engine/testdata/parallel_50.bpmn")
	cb := b.client(nil)
	cb.subscribe(map[string]any{"definition": key})
	b.waitReady("ok")

	for i := range 3 {
		id := a.start(key, map[string]any{"round": i})
		requireAllEvents(t, b, id, cb.eventsUntil(id, engine.EventInstanceCompleted))
	}

	rs.redis.Stop()
	b.waitReady("degraded")
	a.waitReady("degraded")
	for i := range 3 {
		id := a.start(key, map[string]any{"round": i})
		requireAllEvents(t, b, id, cb.eventsUntil(id, engine.EventInstanceCompleted))
	}
	_, dropped := a.cache.Publisher().Stats()
	require.Positive(t, dropped, "Redis carried nothing while down")

	rs.redis.Start()
	a.waitReady("ok")
	b.waitReady("ok")
	id := a.start(key, nil)
	requireAllEvents(t, b, id, cb.eventsUntil(id, engine.EventInstanceCompleted))
}

// TestFanoutInstanceSinceFromOtherReplica: a client following one instance
// of another replica with since gets the log's events, then the live ones,
// without gap or duplicate, while the instance waits on a task completed on
// its own replica.
func TestFanoutInstanceSinceFromOtherReplica(t *testing.T) {
	t.Parallel()
	rs := replicaSetup{store: memstore.New(), redis: redistest.Start(t), prefix: redistest.Prefix(t), poll: true, every: 5 * time.Millisecond}
	a, b := rs.start(t), rs.start(t)
	key := a.deploy("testdata/approval.bpmn")
	id := a.start(key, map[string]any{"amount": 10})
	cb := b.client(nil)
	cb.subscribe(map[string]any{"instance": id, "since": 0})
	first := cb.eventsUntil(id, engine.EventTaskCreated)

	taskID := first[len(first)-1].Detail["taskId"].(string)
	_, err := a.eng.CompleteTask(context.Background(), taskID, "demo", map[string]any{"approved": true})
	require.NoError(t, err)
	rest := cb.eventsUntil(id, engine.EventInstanceCompleted)
	requireAllEvents(t, b, id, append(first, rest...))
}

// TestRateLimitSharedRedis: two replicas count a client's starts in one
// bucket; a third start on either is refused with Retry-After.
func TestRateLimitSharedRedis(t *testing.T) {
	t.Parallel()
	rs := replicaSetup{store: memstore.New(), redis: redistest.Start(t), prefix: redistest.Prefix(t), sharedLimit: true}
	limit := func(c *server.Config) { c.RateLimit, c.RateWindow = 2, time.Hour }
	a, b := rs.start(t, limit), rs.start(t, limit)
	key := a.deploy("testdata/approval.bpmn")
	post := func(r *fanReplica) *http.Response {
		body := fmt.Sprintf(`{"definition":%q,"variables":{"amount":1}}`, key)
		resp, err := http.Post("http://"+r.addr+"/api/v1/instances", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp
	}
	require.Equal(t, http.StatusCreated, post(a).StatusCode)
	require.Equal(t, http.StatusCreated, post(b).StatusCode)
	for _, r := range []*fanReplica{a, b} {
		resp := post(r)
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "the two replicas share one bucket")
		require.NotEmpty(t, resp.Header.Get("Retry-After"))
	}
	// Routes other than starts, completions and webhooks are not limited.
	resp, err := http.Get("http://" + a.addr + "/api/v1/definitions")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestFanoutInbox: the inbox page of one replica lists the task an instance
// of another replica waits on, and drops it once completed there; from
// Redis, and from the log while Redis is down.
func TestFanoutInbox(t *testing.T) {
	t.Parallel()
	rs := replicaSetup{store: memstore.New(), redis: redistest.Start(t), prefix: redistest.Prefix(t), poll: true, every: 5 * time.Millisecond}
	a, b := rs.start(t), rs.start(t)
	key := a.deploy("testdata/approval.bpmn")
	ctx := t.Context()

	// inbox waits until b's inbox page lists the task, or no longer does.
	inbox := func(taskID string, listed bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := http.Get("http://" + b.addr + "/inbox")
			require.NoError(t, err)
			page, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusOK, resp.StatusCode)
			if strings.Contains(string(page), taskID) == listed {
				return
			}
			require.True(t, time.Now().Before(deadline), "b's inbox lists task %s: %v, want %v", taskID, !listed, listed)
			time.Sleep(10 * time.Millisecond) // polls the page; no event to wait on
		}
	}
	waitOnA := func() string {
		t.Helper()
		id := a.start(key, map[string]any{"amount": 10})
		for {
			page, _, err := rs.store.Tasks(ctx, engine.TaskFilter{InstanceID: id})
			require.NoError(t, err)
			if len(page) == 1 {
				return page[0].ID
			}
			time.Sleep(5 * time.Millisecond) // the task is created after the start returns
		}
	}
	for _, down := range []bool{false, true} {
		if down {
			rs.redis.Stop()
			b.waitReady("degraded")
		}
		taskID := waitOnA()
		inbox(taskID, true)
		_, err := a.eng.CompleteTask(ctx, taskID, "demo", map[string]any{"approved": true})
		require.NoError(t, err)
		inbox(taskID, false)
	}
	// Redis back, so that the clients' redials end before the leak check.
	rs.redis.Start()
	a.waitReady("ok")
	b.waitReady("ok")
}
