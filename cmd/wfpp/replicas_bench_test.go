package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

// The benchmarks of issue 11 run `wfpp store serve` and `wfpp serve`
// replicas as child processes, as TestReplicas does, and measure over
// HTTP. Each call measures once and ignores b.N: run them with
// -benchtime 1x.
const (
	benchClients = 16               // concurrent HTTP clients starting instances
	benchWindow  = 10 * time.Second // how long the throughput benchmark starts instances
	benchSecret  = "replicas-bench"
	benchOneTask = "bench_one_task"
	benchUser    = "bench_user_task"
	// takeoverInstances start on the replica that is then killed.
	takeoverInstances = 30
)

// oneTaskBPMN is the throughput benchmark's model: one script task.
var oneTaskBPMN = []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs_bench_one_task" targetNamespace="https://workflowpp.dev/test">
  <bpmn:process id="` + benchOneTask + `" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:scriptTask id="work" scriptFormat="javascript"><bpmn:script>return {done: true}</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`)

// userTaskBPMN is the takeover benchmark's model: instances wait in a
// user task until the benchmark completes it.
var userTaskBPMN = []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs_bench_user_task" targetNamespace="https://workflowpp.dev/test">
  <bpmn:process id="` + benchUser + `" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:userTask id="review" name="Review" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`)

// BenchmarkReplicasThroughput starts the one-task process for benchWindow
// from benchClients clients round robin over 1, 2 and 3 replicas of one
// store server, and reports the instances that completed in the window per
// second. On 2 cores the replicas share the CPU: the point is that adding
// them costs little (issue 11: 3 replicas ≥ 0.9× one).
//
// The redis/ runs give the replicas a redis-server, as in production:
// without it each replica polls the store's log every half second for the
// others' events (server/live/replica_poll.go), with it every 10 s.
func BenchmarkReplicasThroughput(b *testing.B) {
	bin := buildWfpp(b)
	for _, withRedis := range []bool{false, true} {
		for _, n := range []int{1, 2, 3} {
			name := fmt.Sprintf("replicas=%d", n)
			if withRedis {
				name = "redis/" + name
			}
			b.Run(name, func(b *testing.B) { throughput(b, bin, n, withRedis) })
		}
	}
}

// throughput is one sub-benchmark of BenchmarkReplicasThroughput.
func throughput(b *testing.B, bin string, n int, withRedis bool) {
	ctx, cancel := context.WithTimeout(b.Context(), 2*time.Minute)
	defer cancel()
	meter := newCPUMeter()
	redisURL := ""
	if withRedis {
		rs := redistest.Start(b)
		redisURL = rs.URL()
		meter.add("redis", rs.Pid())
	}
	store, replicas := startBenchCluster(ctx, b, bin, n, 3*time.Second, redisURL)
	meter.add("store", store.cmd.Process.Pid)
	for _, r := range replicas {
		meter.add("replicas", r.pid())
	}
	meter.add("clients", os.Getpid())
	deploy(ctx, b, replicas[0], oneTaskBPMN)
	for range b.N {
		completed, failed := driveStarts(ctx, b, store.uri, replicas, meter)
		b.ReportMetric(float64(completed)/benchWindow.Seconds(), "instances/s")
		b.ReportMetric(float64(failed), "failed-starts")
		b.ReportMetric(0, "ns/op") // the window's length: meaningless here
	}
}

// reportCPU reports the CPU time each group of processes used per
// completed instance in the window, in µs: where the two cores went.
func reportCPU(b *testing.B, used map[string]time.Duration, completed int) {
	if completed == 0 {
		return
	}
	var total time.Duration
	for name, d := range used {
		total += d
		b.ReportMetric(float64(d.Microseconds())/float64(completed), "µs-cpu-"+name+"/inst")
	}
	b.ReportMetric(float64(total.Microseconds())/float64(completed), "µs-cpu/inst")
	b.ReportMetric(total.Seconds()/benchWindow.Seconds(), "cores-busy")
}

// driveStarts starts instances for benchWindow and returns how many of
// those completed within the window, read from the store, and how many
// starts failed.
func driveStarts(ctx context.Context, b *testing.B, uri string, replicas []*child, meter *cpuMeter) (completed, failed int) {
	if err := meter.begin(); err != nil {
		b.Fatalf("reading CPU times: %v", err)
	}
	b.ResetTimer()
	begin, end, started, failed := load(ctx, b, replicas, benchWindow)
	b.StopTimer()
	used, err := meter.used() // before the count, which the store pays for
	if err != nil {
		b.Fatalf("reading CPU times: %v", err)
	}
	completed = countCompleted(ctx, b, uri, begin, end)
	reportCPU(b, used, completed)
	b.Logf("%d instances started, %d completed in the window, %d starts failed", started, completed, failed)
	return completed, failed
}

// load starts the one-task process from benchClients clients, round robin
// over replicas, for window, and returns the window and how many starts
// succeeded and failed.
func load(ctx context.Context, b *testing.B, replicas []*child, window time.Duration) (begin, end time.Time, started, failed int) {
	body := []byte(`{"definition":"` + benchOneTask + `"}`)
	var errs, ok atomic.Int64
	var firstErr sync.Once
	begin = time.Now()
	end = begin.Add(window)
	var wg sync.WaitGroup
	for c := range benchClients {
		wg.Go(func() {
			for k := c; time.Now().Before(end) && ctx.Err() == nil; k++ {
				r := replicas[k%len(replicas)]
				status, resp, err := r.do(ctx, http.MethodPost, "/api/v1/instances", "application/json", body)
				if err != nil || status != http.StatusCreated {
					errs.Add(1)
					firstErr.Do(func() { b.Logf("a start failed (counted, not retried): %d %v %s", status, err, resp) })
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	return begin, end, int(ok.Load()), int(errs.Load())
}

// countCompleted counts the instances of the one-task model that ended
// between begin and end. The replicas write the end time on this machine's
// clock, as begin and end are.
func countCompleted(ctx context.Context, b *testing.B, uri string, begin, end time.Time) int {
	client := connectURI(ctx, b, uri)
	defer func() { _ = client.Disconnect(context.Background()) }()
	cur, err := client.Database(mongoDBDefault).Collection("instances").Find(ctx, bson.D{
		{Key: "definition_key", Value: benchOneTask},
		{Key: "status", Value: string(engine.StatusCompleted)},
		{Key: "ended_at", Value: bson.D{{Key: "$gte", Value: begin}, {Key: "$lt", Value: end}}},
	}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		b.Fatalf("reading completed instances: %v", err)
	}
	var ids []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &ids); err != nil {
		b.Fatalf("reading completed instances: %v", err)
	}
	return len(ids)
}

// BenchmarkReplicaTakeover starts instances waiting in a user task on one
// of three replicas with the default lease TTL, kills that replica with
// SIGKILL and tries every 50 ms to complete one of its tasks through
// another replica (503 while no replica holds the partition). It reports
// the time from the kill to the first 2xx (issue 11: ≤ 10 s).
func BenchmarkReplicaTakeover(b *testing.B) {
	bin := buildWfpp(b)
	for range b.N {
		b.ReportMetric(takeover(b, bin).Seconds(), "s-to-takeover")
		b.ReportMetric(0, "ns/op") // s-to-takeover says it
	}
}

// takeover is one run of BenchmarkReplicaTakeover on a cluster of its own.
func takeover(b *testing.B, bin string) time.Duration {
	ctx, cancel := context.WithTimeout(b.Context(), 2*time.Minute)
	defer cancel()
	_, replicas := startBenchCluster(ctx, b, bin, 3, 0, "")
	deploy(ctx, b, replicas[0], userTaskBPMN)
	victim := replicas[2]
	tasks := startWaiting(ctx, b, victim, partitionsOf(ctx, b, replicas[0], "r3"))
	// The kill lands at a random point of the victim's renewal round
	// (every TTL/3), as a crash would: how long its leases still run
	// depends on it.
	time.Sleep(rand.N(engine.LeaseTTLDefault / 3))

	b.ResetTimer()
	killed := time.Now()
	if err := victim.kill(); err != nil {
		b.Fatal(err)
	}
	took := completeFirst(ctx, b, replicas[:2], tasks[0], killed)
	b.StopTimer()
	return took
}

// startWaiting starts takeoverInstances instances on r and returns their
// open tasks. New instances get ids in r's partitions; the benchmark
// checks that, so that what it measures is a takeover.
func startWaiting(ctx context.Context, b *testing.B, r *child, held []int) []string {
	var tasks []string
	for range takeoverInstances {
		var inst struct {
			ID    string
			Tasks []engine.Task
		}
		if err := r.call(ctx, http.MethodPost, "/api/v1/instances", []byte(`{"definition":"`+benchUser+`"}`), &inst, http.StatusCreated); err != nil {
			b.Fatalf("starting an instance on %s: %v", r.name, err)
		}
		if p := engine.PartitionOf(inst.ID, engine.ClusterPartitionsDefault); !slices.Contains(held, p) {
			b.Fatalf("instance %s started on %s is in partition %d, not one of its %v", inst.ID, r.name, p, held)
		}
		if len(inst.Tasks) != 1 {
			b.Fatalf("instance %s started with %d open tasks, want 1", inst.ID, len(inst.Tasks))
		}
		tasks = append(tasks, inst.Tasks[0].ID)
	}
	return tasks
}

// completeFirst tries every 50 ms to complete task through the replicas in
// turn and returns the time from killed to the first 2xx. A 503 (the
// partition's owner is gone) or a transport error is retried; any other
// answer ends the benchmark.
func completeFirst(ctx context.Context, b *testing.B, replicas []*child, task string, killed time.Time) time.Duration {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for k := 0; ; k++ {
		r := replicas[k%len(replicas)]
		status, body, err := r.do(ctx, http.MethodPost, "/api/v1/tasks/"+task+"/complete", "application/json", []byte(`{}`))
		switch {
		case err == nil && status >= 200 && status < 300:
			return time.Since(killed)
		case err == nil && status != http.StatusServiceUnavailable:
			b.Fatalf("completing task %s through %s: %d %s", task, r.name, status, body)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			b.Fatalf("task %s not completed %s after the kill: %v", task, time.Since(killed).Round(time.Millisecond), ctx.Err())
		}
	}
}

// startBenchCluster starts a store server and n replicas r1..rn on it
// (ttl 0: the default lease TTL; with redisURL, on that Redis) and waits
// until every replica holds partitions and all are leased.
func startBenchCluster(ctx context.Context, b *testing.B, bin string, n int, ttl time.Duration, redisURL string) (*storeServer, []*child) {
	store := startStoreServer(ctx, b, bin, filepath.Join(b.TempDir(), "store"))
	replicas := make([]*child, n)
	for i := range replicas {
		addr := freeAddr(b)
		r := startChild(b, bin, b.TempDir())
		r.name = fmt.Sprintf("replica r%d (%s)", i+1, addr)
		r.addr = addr
		r.env = []string{
			"WFPP_MONGO_URI=" + store.uri,
			fmt.Sprintf("WFPP_REPLICA_ID=r%d", i+1),
			"WFPP_ADVERTISE_ADDR=" + addr,
			"WFPP_CLUSTER_SECRET=" + benchSecret,
			// Every client is 127.0.0.1 here: the limit (1000/s a client)
			// would cap one replica. The limiter still runs, and costs.
			"WFPP_RATE_LIMIT=1000000",
		}
		if ttl > 0 {
			r.env = append(r.env, "WFPP_LEASE_TTL="+ttl.String())
		}
		if redisURL != "" {
			r.env = append(r.env, "WFPP_REDIS_URL="+redisURL)
		}
		// The default transport keeps 2 idle connections per host: the
		// clients would open a new one for most requests.
		r.http = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: benchClients}}
		replicas[i] = r
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, r := range replicas {
		wg.Go(func() { errs[i] = r.restart(ctx, b) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatalf("starting the replicas: %v", err)
		}
	}
	start := time.Now()
	waitSpread(ctx, b, replicas[0], n)
	b.Logf("%d replicas hold all partitions %s after they served", n, time.Since(start).Round(time.Millisecond))
	return store, replicas
}

// clusterView is what the benchmarks read of GET /api/v1/cluster.
type clusterView struct {
	Replicas []struct {
		ID         string
		Live       bool
		Partitions []int
	}
	Leases []struct{ Leased bool }
}

// waitSpread polls r's cluster view until n live replicas each lease
// partitions, none more than its share (ceil(P/n), beyond which it hands
// some back) and every partition is leased.
func waitSpread(ctx context.Context, b *testing.B, r *child, n int) {
	var last clusterView
	for attempt := 0; ; attempt++ {
		var v clusterView
		if err := r.call(ctx, http.MethodGet, "/api/v1/cluster", nil, &v, http.StatusOK); err == nil && spread(v, n) {
			return
		}
		last = v
		if ctx.Err() != nil {
			b.Fatalf("the partitions did not spread over %d replicas: %+v", n, last)
		}
		backoff(ctx, attempt)
	}
}

func spread(v clusterView, n int) bool {
	share := (len(v.Leases) + n - 1) / n
	holding := 0
	for _, r := range v.Replicas {
		if !r.Live {
			continue
		}
		if len(r.Partitions) > share {
			return false // it hands some back soon: a start there would get 503 meanwhile
		}
		if len(r.Partitions) > 0 {
			holding++
		}
	}
	return holding == n && len(v.Leases) > 0 && !slices.ContainsFunc(v.Leases, func(l struct{ Leased bool }) bool { return !l.Leased })
}

// partitionsOf returns the partitions replica id leases, as r sees them.
func partitionsOf(ctx context.Context, b *testing.B, r *child, id string) []int {
	var v clusterView
	if err := r.call(ctx, http.MethodGet, "/api/v1/cluster", nil, &v, http.StatusOK); err != nil {
		b.Fatalf("reading the cluster view: %v", err)
	}
	for _, rep := range v.Replicas {
		if rep.ID == id {
			return rep.Partitions
		}
	}
	b.Fatalf("replica %s is not in the cluster view %+v", id, v)
	return nil
}

func deploy(ctx context.Context, b testing.TB, r *child, model []byte) {
	status, body, err := r.do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", model)
	if err != nil || (status != http.StatusCreated && status != http.StatusOK) {
		b.Fatalf("deploying: %d %v %s", status, err, body)
	}
}
