package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

const (
	replicasCount     = 3
	replicasInstances = 300
	replicasClients   = 16
	replicasKey       = "replicas" // process id in testdata/replicas.bpmn
	// replicasLeaseTTL is short so that takeover happens within the test.
	replicasLeaseTTL = 3 * time.Second
	// replicasBudget is each run's, after the build: both stay under 90 s.
	replicasBudget = 40 * time.Second
)

// replicasElements are the flow nodes of testdata/replicas.bpmn: each
// completes exactly once per instance.
var replicasElements = []string{"start", "fork", "wait", "review", "paid", "join", "total", "end"}

// Faults the test inflicts on one replica while tasks complete and messages
// correlate.
const (
	faultKill = "kill" // SIGKILL: it never comes back
	faultStop = "stop" // SIGSTOP past the lease TTL, then SIGCONT: its stale writes must be refused
)

// TestReplicas is issue 11's acceptance test: three `wfpp serve` replicas
// share a `wfpp store serve` and a redis-server; 300 instances start round
// robin over them; one replica fails while user tasks complete and messages
// correlate through the other replicas. Every instance must complete, each
// element once, no task twice, and a WebSocket client of one replica must
// see the instance.completed events of instances started on the others.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a store server, redis-server and three wfpp serve children, twice")
	}
	bin := buildWfpp(t)
	for _, fault := range []string{faultKill, faultStop} {
		t.Run(fault, func(t *testing.T) { runReplicas(t, bin, fault) })
	}
}

// replicaCluster is the store server, Redis and the replicas of one run,
// with the test's view of which replicas it may send requests to.
type replicaCluster struct {
	t        *testing.T
	storeURI string
	replicas []*child
	down     []atomic.Bool  // killed or stopped: the test sends nothing there
	resumes  sync.WaitGroup // of stopped replicas, which the test waits for
	db       *mongo.Database
	// victimHeld are the leases the failed replica held when it failed.
	victimHeld []engine.PartitionLease
}

func runReplicas(t *testing.T, bin, fault string) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("seed %d", seed)
	ctx, cancel := context.WithTimeout(t.Context(), replicasBudget)
	defer cancel()
	c := startCluster(ctx, t, bin)
	model, err := os.ReadFile("testdata/replicas.bpmn")
	require.NoError(t, err)
	status, body, err := c.replicas[0].do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", model)
	require.NoError(t, err)
	require.Containsf(t, []int{http.StatusCreated, http.StatusOK}, status, "deploying: %s", body)

	// The client watches replica 0, which the faults spare.
	ws := watchCompletions(ctx, t, c.replicas[0])

	// Phase 1: start the instances round robin.
	ids, startedOn := c.startInstances(ctx)
	require.NoError(t, ctx.Err(), "starting instances")

	// Phase 2: complete each task and correlate each message through the
	// replicas the instance did not start on; one replica fails midway.
	victim := 1 + rng.IntN(replicasCount-1)
	faultAt := replicasInstances/4 + rng.IntN(replicasInstances/2)
	t.Logf("%s replica r%d after %d acknowledged operations", fault, victim+1, faultAt)
	c.settle(ctx, ids, startedOn, faultAt, func() { c.inflict(ctx, fault, victim) })

	// Phase 3: finish what the fault cut off, until every instance completed.
	c.waitAllCompleted(ctx, ids)
	c.checkTakeover(ctx)
	ws.waitFor(ctx, t, ids, startedOn)
	c.stopAll(t)
	checkReplicasStore(t, c.storeURI, ids)
}

// startCluster starts the store server, redis-server and the replicas r1..rN,
// each on a port of its own that it advertises to the others.
func startCluster(ctx context.Context, t *testing.T, bin string) *replicaCluster {
	t.Helper()
	store := startStoreServer(ctx, t, bin, filepath.Join(t.TempDir(), "store"))
	redis := redistest.Start(t)
	client := connectURI(ctx, t, store.uri)
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	c := &replicaCluster{t: t, storeURI: store.uri, down: make([]atomic.Bool, replicasCount), db: client.Database(mongoDBDefault)}
	for i := range replicasCount {
		addr := freeAddr(t)
		r := startChild(t, bin, t.TempDir())
		r.name = fmt.Sprintf("replica r%d (%s)", i+1, addr)
		r.addr = addr
		r.env = []string{
			"WFPP_MONGO_URI=" + store.uri,
			"WFPP_REDIS_URL=" + redis.URL(),
			fmt.Sprintf("WFPP_REPLICA_ID=r%d", i+1),
			"WFPP_ADVERTISE_ADDR=" + addr,
			"WFPP_LEASE_TTL=" + replicasLeaseTTL.String(),
			"WFPP_CLUSTER_SECRET=replicas-test", // as in production: peers prove who they are
		}
		// A request to a stopped replica hangs; do not wait long for it.
		r.http = &http.Client{Timeout: 5 * time.Second}
		c.replicas = append(c.replicas, r)
	}
	var wg sync.WaitGroup
	errs := make([]error, replicasCount)
	for i, r := range c.replicas {
		wg.Go(func() { errs[i] = r.restart(ctx, t) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...), "starting the replicas")
	t.Cleanup(func() {
		c.resumes.Wait()
		if t.Failed() {
			c.logClusterView()
		}
	})
	return c
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// send calls fn on replica prefer, or on the next one up, retrying on
// transport errors and 5xx with backoff, on another replica each time. It
// returns the replica that answered, or the error that is not worth
// retrying (errRejected) or ctx's.
func (c *replicaCluster) send(ctx context.Context, prefer int, fn func(r *child) error) (int, error) {
	var err error
	for attempt := 0; ; attempt++ {
		i := c.up(prefer + attempt)
		if err = fn(c.replicas[i]); err == nil || errors.Is(err, errRejected) {
			return i, err
		}
		if ctx.Err() != nil {
			return i, fmt.Errorf("%w; last error: %w", ctx.Err(), err)
		}
		if attempt%50 == 49 {
			c.t.Logf("still failing after %d attempts: %v", attempt+1, err)
		}
		backoff(ctx, attempt)
	}
}

// up returns replica i modulo their number, or the next one that is up.
func (c *replicaCluster) up(i int) int {
	for k := range replicasCount {
		j := (i + k) % replicasCount
		if !c.down[j].Load() {
			return j
		}
	}
	return i % replicasCount
}

// startInstances starts the instances round robin and returns their ids
// and the replica each start was acknowledged by.
func (c *replicaCluster) startInstances(ctx context.Context) ([]string, []int) {
	ids, startedOn := make([]string, replicasInstances), make([]int, replicasInstances)
	parallel(ctx, replicasInstances, func(i int) {
		reqID := fmt.Sprintf("replicas-%d", i)
		body, _ := json.Marshal(map[string]any{
			"definition": replicasKey, "requestId": reqID,
			"variables": map[string]any{"orderId": orderID(i), "amount": i},
		})
		var inst struct{ ID string }
		on, err := c.send(ctx, i, func(r *child) error {
			inst.ID = ""
			if err := r.call(ctx, http.MethodPost, "/api/v1/instances", body, &inst, http.StatusCreated, http.StatusOK); err != nil {
				return err
			}
			// A retried start must return the instance the first one made.
			if ids[i] != "" && ids[i] != inst.ID {
				c.t.Errorf("request %s started instance %s, then %s", reqID, ids[i], inst.ID)
			}
			ids[i] = inst.ID
			return nil
		})
		if err != nil {
			c.t.Errorf("starting instance %d: %v", i, err)
			return
		}
		startedOn[i] = on
	})
	return ids, startedOn
}

func orderID(i int) string { return fmt.Sprintf("order-%d", i) }

// settle correlates each instance's message through the replica after the
// one it started on and completes its user task through the one after that,
// calling fault once faultAt of these operations were acknowledged.
func (c *replicaCluster) settle(ctx context.Context, ids []string, startedOn []int, faultAt int, fault func()) {
	tasks := c.openTasks(ctx)
	c.t.Logf("%d open tasks of %d instances", len(tasks), len(ids))
	var acked atomic.Int64
	var once sync.Once
	ack := func() {
		if acked.Add(1) >= int64(faultAt) {
			once.Do(fault)
		}
	}
	start := time.Now()
	parallel(ctx, len(ids), func(i int) {
		if ids[i] == "" {
			return
		}
		if c.correlate(ctx, startedOn[i]+1, i) {
			ack()
		}
		if task, ok := tasks[ids[i]]; ok && c.complete(ctx, startedOn[i]+2, task) {
			ack()
		}
	})
	once.Do(fault) // fewer operations than faultAt: fail a replica now
	c.t.Logf("%d operations acknowledged in %s", acked.Load(), time.Since(start).Round(time.Millisecond))
}

// correlate sends instance i's message and reports whether a replica
// acknowledged it. A 404 (nothing waits) may be a delivery whose answer was
// lost, or an instance whose partition is changing hands: retried a few
// times, then left to waitAllCompleted.
func (c *replicaCluster) correlate(ctx context.Context, prefer, i int) bool {
	body, _ := json.Marshal(map[string]any{"name": "paid", "correlationKey": orderID(i)})
	for attempt := range 10 {
		var out struct{ Correlated int }
		_, err := c.send(ctx, prefer+attempt, func(r *child) error {
			return r.call(ctx, http.MethodPost, "/api/v1/messages", body, &out, http.StatusOK)
		})
		switch {
		case err == nil && out.Correlated != 1:
			c.t.Errorf("message %s: correlated with %d instances, want 1", orderID(i), out.Correlated)
			return true
		case err == nil:
			return true
		case !strings.Contains(err.Error(), ": 404 "):
			c.t.Errorf("message %s: %v", orderID(i), err)
			return false
		}
		backoff(ctx, attempt+3)
	}
	return false
}

// complete completes a task and reports whether a replica acknowledged it;
// 409 means an earlier attempt did (whose answer was cut off) or the task
// is being completed: waitAllCompleted and the store check see which.
func (c *replicaCluster) complete(ctx context.Context, prefer int, task string) bool {
	_, err := c.send(ctx, prefer, func(r *child) error { return r.completeTask(ctx, task) })
	if err != nil {
		c.t.Errorf("completing task %s: %v", task, err)
	}
	return err == nil
}

// openTasks maps each instance of the model to its open task.
func (c *replicaCluster) openTasks(ctx context.Context) map[string]string {
	tasks := map[string]string{}
	cursor := ""
	for {
		var page struct {
			Items []engine.Task
			Next  string
		}
		_, err := c.send(ctx, 0, func(r *child) error {
			return r.call(ctx, http.MethodGet, "/api/v1/tasks?status=open&limit=500&cursor="+cursor, nil, &page, http.StatusOK)
		})
		require.NoError(c.t, err, "listing open tasks")
		for _, task := range page.Items {
			if task.DefinitionKey == replicasKey {
				tasks[task.InstanceID] = task.ID
			}
		}
		if page.Next == "" {
			return tasks
		}
		cursor = page.Next
	}
}

// inflict kills or stops replica victim. A stopped replica is resumed past
// twice the lease TTL, by when the others have taken its partitions.
func (c *replicaCluster) inflict(ctx context.Context, fault string, victim int) {
	r := c.replicas[victim]
	c.down[victim].Store(true)
	for _, l := range c.leases(ctx) {
		if l.Owner == fmt.Sprintf("r%d", victim+1) {
			c.victimHeld = append(c.victimHeld, l)
		}
	}
	switch fault {
	case faultKill:
		if err := r.kill(); err != nil {
			c.t.Errorf("killing r%d: %v", victim+1, err)
		}
		c.t.Logf("r%d killed", victim+1)
	case faultStop:
		r.mu.Lock()
		p := r.cmd.Process
		r.mu.Unlock()
		require.NoError(c.t, p.Signal(syscall.SIGSTOP))
		c.t.Logf("r%d stopped", victim+1)
		c.resumes.Go(func() {
			timer := time.NewTimer(2*replicasLeaseTTL + time.Second)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
			if err := p.Signal(syscall.SIGCONT); err != nil {
				c.t.Errorf("resuming r%d: %v", victim+1, err)
			}
			c.t.Logf("r%d resumed", victim+1)
			c.down[victim].Store(false)
		})
	}
}

// leases reads the partition leases from the store.
func (c *replicaCluster) leases(ctx context.Context) []engine.PartitionLease {
	var leases []engine.PartitionLease
	cur, err := c.db.Collection("partitions").Find(ctx, bson.D{})
	if err == nil {
		err = cur.All(ctx, &leases)
	}
	if err != nil {
		c.t.Errorf("reading the partition leases: %v", err)
	}
	return leases
}

// checkTakeover checks that the failed replica held partitions and that
// each was leased anew since (a higher epoch), so the run took over.
func (c *replicaCluster) checkTakeover(ctx context.Context) {
	if len(c.victimHeld) == 0 {
		c.t.Errorf("the failed replica held no partition when it failed: nothing was taken over")
		return
	}
	now := map[int]engine.PartitionLease{}
	for _, l := range c.leases(ctx) {
		now[l.Partition] = l
	}
	for _, l := range c.victimHeld {
		if after := now[l.Partition]; after.Epoch <= l.Epoch {
			c.t.Errorf("partition %d: %s held it at epoch %d when it failed, and now %s at epoch %d: not taken over",
				l.Partition, l.Owner, l.Epoch, after.Owner, after.Epoch)
		}
	}
	c.t.Logf("%d partitions of the failed replica taken over", len(c.victimHeld))
}

// waitAllCompleted polls the instances through the replicas that are up,
// correlating messages and completing tasks of those still waiting, until
// every instance has completed or ctx ends.
func (c *replicaCluster) waitAllCompleted(ctx context.Context, ids []string) {
	left := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "" })
	index := map[string]int{}
	for i, id := range ids {
		index[id] = i
	}
	last := map[string]string{}
	for attempt := 0; len(left) > 0; attempt++ {
		if ctx.Err() != nil {
			desc := make([]string, 0, 5)
			for _, id := range left[:min(5, len(left))] {
				desc = append(desc, id+": "+last[id])
			}
			c.t.Fatalf("%d of %d instances did not complete in time; e.g. %s", len(left), len(ids), strings.Join(desc, "; "))
		}
		states := make([]string, len(left))
		done := make([]bool, len(left))
		parallel(ctx, len(left), func(k int) {
			states[k], done[k] = c.nudge(ctx, k, left[k], orderID(index[left[k]]))
		})
		var still []string
		for k, id := range left {
			if last[id] = states[k]; !done[k] {
				still = append(still, id)
			}
		}
		left = still
		if len(left) > 0 {
			backoff(ctx, attempt+3)
		}
	}
}

// nudge reads instance id through replica k (or the next one up) and, if
// it has not completed, sends its message again (404: delivered already)
// and completes its open tasks (errors: the next round retries). It
// returns the instance's state for the report and whether it completed.
func (c *replicaCluster) nudge(ctx context.Context, k int, id, order string) (string, bool) {
	var inst struct {
		Status string
		Tokens []engine.TokenState
		Tasks  []engine.Task
	}
	if err := c.replicas[c.up(k)].call(ctx, http.MethodGet, "/api/v1/instances/"+id, nil, &inst, http.StatusOK); err != nil {
		return err.Error(), false
	}
	if inst.Status == string(engine.StatusCompleted) {
		return "completed", true
	}
	var at []string
	for _, tok := range inst.Tokens {
		at = append(at, tok.ElementID+"/"+string(tok.Status))
	}
	body, _ := json.Marshal(map[string]any{"name": "paid", "correlationKey": order})
	_ = c.replicas[c.up(k+1)].call(ctx, http.MethodPost, "/api/v1/messages", body, nil, http.StatusOK)
	for _, task := range inst.Tasks {
		_ = c.replicas[c.up(k+2)].completeTask(ctx, task.ID)
	}
	return fmt.Sprintf("status %s, tokens %v, %d open tasks", inst.Status, at, len(inst.Tasks)), false
}

// stopAll stops the replicas that still run with SIGINT, each exiting 0
// and handing its partitions back: none may stay leased to it.
func (c *replicaCluster) stopAll(t *testing.T) {
	t.Helper()
	stopped := map[string]bool{}
	for i, r := range c.replicas {
		r.mu.Lock()
		running := r.cmd != nil
		r.mu.Unlock()
		if running {
			r.stop(t)
			stopped[fmt.Sprintf("r%d", i+1)] = true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := time.Now()
	for _, l := range c.leases(ctx) {
		if stopped[l.Owner] && l.Held(l.Owner, now) {
			t.Errorf("partition %d still leased to %s until %s after it stopped: not handed back",
				l.Partition, l.Owner, l.Expires.Format(time.RFC3339Nano))
		}
	}
}

// logClusterView logs what GET /api/v1/cluster says on each replica up.
func (c *replicaCluster) logClusterView() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i, r := range c.replicas {
		r.mu.Lock()
		running := r.cmd != nil
		r.mu.Unlock()
		if !running || c.down[i].Load() {
			continue
		}
		status, body, err := r.do(ctx, http.MethodGet, "/api/v1/cluster", "", nil)
		c.t.Logf("GET /api/v1/cluster on r%d: %d %v %s", i+1, status, err, body)
	}
}

// parallel runs fn(0..n-1) on replicasClients goroutines, or until ctx ends.
func parallel(ctx context.Context, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(replicasClients, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// completionWatch is a WebSocket client of one replica subscribed to the
// model's events; it counts the instance.completed events per instance.
type completionWatch struct {
	mu      sync.Mutex
	seen    map[string]int
	err     error         // why reading ended, if it did
	changed chan struct{} // closed and replaced on every change
}

func watchCompletions(ctx context.Context, t *testing.T, r *child) *completionWatch {
	t.Helper()
	r.mu.Lock()
	url := "ws" + strings.TrimPrefix(r.base, "http") + "/ws"
	r.mu.Unlock()
	conn, resp, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if resp != nil {
		resp.Body.Close()
	}
	require.NoError(t, err, "dialing %s", url)
	require.NoError(t, conn.WriteJSON(map[string]any{"type": "subscribe", "definition": replicasKey}))
	var ack struct{ Type, Message string }
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	require.NoError(t, conn.ReadJSON(&ack))
	require.Equal(t, "subscribed", ack.Type, "subscribing: %+v", ack)
	require.NoError(t, conn.SetReadDeadline(time.Time{}))

	w := &completionWatch{seen: map[string]int{}, changed: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var m struct {
				Type    string
				Message string
				Event   *engine.Event
			}
			err := conn.ReadJSON(&m)
			w.mu.Lock()
			switch {
			case err != nil:
				w.err = err
			case m.Type == "error":
				w.err = fmt.Errorf("error message: %s", m.Message)
			case m.Type == "event" && m.Event != nil && m.Event.Type == engine.EventInstanceCompleted:
				w.seen[m.Event.InstanceID]++
			}
			close(w.changed)
			w.changed = make(chan struct{})
			ended := w.err != nil
			w.mu.Unlock()
			if ended {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = conn.Close()
		<-done
	})
	return w
}

// waitFor waits until the client saw instance.completed of every instance
// started on another replica than its own (r1), and checks that none came
// twice.
func (w *completionWatch) waitFor(ctx context.Context, t *testing.T, ids []string, startedOn []int) {
	t.Helper()
	var want []string
	for i, id := range ids {
		if id != "" && startedOn[i] != 0 {
			want = append(want, id)
		}
	}
	for {
		w.mu.Lock()
		missing := slices.DeleteFunc(slices.Clone(want), func(id string) bool { return w.seen[id] > 0 })
		err, changed := w.err, w.changed
		w.mu.Unlock()
		if len(missing) == 0 {
			break
		}
		if err != nil || ctx.Err() != nil {
			t.Fatalf("the WebSocket client of r1 saw no instance.completed of %d of the %d instances started on r2 and r3 (e.g. %s); reading ended with: %v; %v",
				len(missing), len(want), strings.Join(missing[:min(5, len(missing))], ", "), err, ctx.Err())
		}
		select {
		case <-changed:
		case <-ctx.Done():
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, n := range w.seen {
		if n > 1 {
			t.Errorf("the WebSocket client of r1 saw instance.completed of %s %d times", id, n)
		}
	}
}

// checkReplicasStore reads the shared store and checks every instance's log
// and tasks: completed, its log numbered 1..N, each element completed once,
// its timer fired once, its message correlated once, its task completed once.
func checkReplicasStore(t *testing.T, uri string, ids []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := connectURI(ctx, t, uri)
	defer func() { require.NoError(t, client.Disconnect(context.Background())) }()
	db := client.Database(mongoDBDefault)
	store, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)

	all, _, err := store.Instances(ctx, engine.InstanceFilter{DefinitionKey: replicasKey})
	require.NoError(t, err)
	if len(all) != len(ids) {
		t.Errorf("store holds %d instances of %s, want %d (one per request id)", len(all), replicasKey, len(ids))
	}
	snaps := map[string]*engine.Snapshot{}
	for _, s := range all {
		snaps[s.ID] = s
	}
	tasksOf := readTasks(ctx, t, db)

	problems := map[string][]string{} // kind of problem → instances with it
	add := func(kind, id, detail string) { problems[kind] = append(problems[kind], id+" "+detail) }
	for i, id := range ids {
		if id == "" {
			add("start never acknowledged", fmt.Sprintf("replicas-%d", i), "")
			continue
		}
		snap, ok := snaps[id]
		if !ok {
			add("instance missing", id, "")
			continue
		}
		if snap.Status != engine.StatusCompleted {
			add("not completed", id, string(snap.Status))
		}
		evs, err := store.Events(ctx, id, 0, 0)
		if err != nil {
			add("log unreadable", id, fmt.Sprintf("(status %s, seq %d): %v", snap.Status, snap.Seq, err))
			continue
		}
		slices.SortStableFunc(evs, func(a, b engine.Event) int { return int(a.Seq) - int(b.Seq) })
		for i, ev := range evs {
			if ev.Seq != uint64(i+1) {
				add("log seq gap or duplicate", id, fmt.Sprintf("event %d has seq %d (%s)", i+1, ev.Seq, ev.Type))
				break
			}
		}
		if snap.Seq != uint64(len(evs)) {
			add("snapshot seq differs from log length", id, fmt.Sprintf("snapshot seq %d, %d events", snap.Seq, len(evs)))
		}
		counts := map[string]int{} // type/element → events
		for _, ev := range evs {
			counts[string(ev.Type)+"/"+ev.ElementID]++
			if ev.Type == engine.EventTaskDone {
				counts[fmt.Sprintf("task %v completed", ev.Detail["taskId"])]++
			}
		}
		for key, n := range counts {
			if strings.HasPrefix(key, "task ") && n > 1 {
				add("task completed twice", id, fmt.Sprintf("%s %d times", key, n))
			}
		}
		for _, elem := range replicasElements {
			if n := counts[string(engine.EventElementCompleted)+"/"+elem]; n != 1 {
				add("element.completed not once for "+elem, id, fmt.Sprintf("%d times", n))
			}
		}
		for _, key := range []string{
			string(engine.EventInstanceStarted) + "/", string(engine.EventInstanceCompleted) + "/",
			string(engine.EventTimerFired) + "/wait", string(engine.EventMessageCorrelated) + "/paid",
			string(engine.EventTaskCreated) + "/review", string(engine.EventTaskDone) + "/review",
		} {
			if n := counts[key]; n != 1 {
				add(key+" not once", id, fmt.Sprintf("%d times", n))
			}
		}
		tasks := tasksOf[id]
		if len(tasks) != 1 || tasks[0].Status != engine.TaskCompleted {
			st := make([]string, len(tasks))
			for i, task := range tasks {
				st[i] = task.ID + "/" + string(task.Status)
			}
			add("inbox tasks not exactly one completed", id, fmt.Sprint(st))
		}
	}
	for _, kind := range slices.Sorted(func(yield func(string) bool) {
		for k := range problems {
			if !yield(k) {
				return
			}
		}
	}) {
		list := problems[kind]
		t.Errorf("%s: %d of %d instances, e.g. %s", kind, len(list), len(ids), strings.Join(list[:min(3, len(list))], "; "))
	}
}

// readTasks reads the inbox tasks of every instance in one query.
func readTasks(ctx context.Context, t *testing.T, db *mongo.Database) map[string][]engine.Task {
	t.Helper()
	var tasks []engine.Task
	readAll(ctx, t, db.Collection("tasks"), &tasks)
	tasksOf := map[string][]engine.Task{}
	for _, task := range tasks {
		tasksOf[task.InstanceID] = append(tasksOf[task.InstanceID], task)
	}
	return tasksOf
}
