package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// crashInstancesDefault is the figure; WFPP_CRASH_INSTANCES changes
// it for a quicker run.
const crashInstancesDefault = 500

const (
	crashClients = 16
	crashKey     = "crash"          // process id in testdata/crash.bpmn
	crashBudget  = 60 * time.Second // after the build (10-25 s): the test stays under 90 s
)

// TestCrash is issue 3's acceptance test: a `wfpp serve` child on the
// embedded store is killed with SIGKILL once while instances start and once
// while their user tasks complete, and restarted on the same data directory
// each time. Every instance must end completed, with a log numbered 1..N, its
// task completed once and its join fired once.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a wfpp serve child twice")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("seed %d", seed)

	crashInstances := crashInstancesDefault
	if v := os.Getenv("WFPP_CRASH_INSTANCES"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "WFPP_CRASH_INSTANCES")
		crashInstances = n
	}
	bin := buildWfpp(t)

	ctx, cancel := context.WithTimeout(t.Context(), crashBudget)
	defer cancel()
	dataDir := filepath.Join(t.TempDir(), "data")
	srv := startChild(t, bin, dataDir)
	require.NoError(t, srv.restart(ctx, t))
	model, err := os.ReadFile("testdata/crash.bpmn")
	require.NoError(t, err)
	status, body, err := srv.do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", model)
	require.NoError(t, err)
	require.Containsf(t, []int{http.StatusCreated, http.StatusOK}, status, "deploying: %s", body)

	// Phase 1: start every instance; kill the server while they start.
	ids := make([]string, crashInstances)
	killAt := crashInstances/10 + rng.IntN(crashInstances*7/10)
	t.Logf("killing while starting, after %d acknowledged starts", killAt)
	forEach(ctx, t, srv, crashInstances, killAt, func(i int) error {
		reqID := fmt.Sprintf("crash-%d", i)
		var inst struct{ ID, Status string }
		req, _ := json.Marshal(map[string]any{"definition": crashKey, "requestId": reqID})
		if err := srv.call(ctx, http.MethodPost, "/api/v1/instances", req, &inst, http.StatusCreated, http.StatusOK); err != nil {
			return err
		}
		// A retried start must return the instance the first one made.
		if ids[i] != "" && ids[i] != inst.ID {
			t.Errorf("request %s started instance %s, then %s", reqID, ids[i], inst.ID)
		}
		ids[i] = inst.ID
		return nil
	})
	require.NoError(t, ctx.Err(), "starting instances")

	// Phase 2: complete the user tasks; kill the server while they complete.
	tasks := openTasks(ctx, t, srv)
	t.Logf("%d open tasks after phase 1", len(tasks))
	if len(tasks) > 0 {
		killAt = 1 + rng.IntN(max(1, len(tasks)*4/5))
		t.Logf("killing while completing, after %d acknowledged completions", killAt)
		forEach(ctx, t, srv, len(tasks), killAt, func(i int) error {
			return srv.completeTask(ctx, tasks[i])
		})
	}

	// Phase 3: complete what is still open (tasks created by recovery, or
	// whose completion the kill cut off) until every instance has completed.
	waitCompleted(ctx, t, srv, ids)
	srv.stop(t)

	checkStore(t, dataDir, ids)
}

// forEach runs fn(0..n-1) on crashClients goroutines, retrying each call
// while it fails for a transport error or a 5xx (the server is down or
// recovering), and kills and restarts srv once killAt calls succeeded.
func forEach(ctx context.Context, t *testing.T, srv *child, n, killAt int, fn func(i int) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next, acked atomic.Int64
		killNow     = make(chan struct{})
		wg          sync.WaitGroup
	)
	wg.Go(func() {
		select {
		case <-killNow:
		case <-ctx.Done():
			return
		}
		if err := errors.Join(srv.kill(), srv.restart(ctx, t)); err != nil {
			t.Errorf("kill and restart: %v", err)
			cancel()
		}
	})
	for range crashClients {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				rejected := 0
				for attempt := 0; ; attempt++ {
					err := fn(i)
					if err == nil {
						break
					}
					if ctx.Err() != nil {
						return
					}
					// A 4xx may be a projection the restart has not caught up
					// with; a few retries, then it is a finding.
					if errors.Is(err, errRejected) {
						if rejected++; rejected == 20 {
							t.Errorf("call %d: %v", i, err)
							break
						}
					}
					if attempt%50 == 49 {
						t.Logf("call %d still failing: %v", i, err)
					}
					backoff(ctx, attempt)
				}
				if acked.Add(1) == int64(killAt) {
					close(killNow)
				}
			}
		})
	}
	start := time.Now()
	wg.Wait()
	t.Logf("%d of %d calls acknowledged in %s", acked.Load(), n, time.Since(start).Round(time.Millisecond))
}

// openTasks lists every open task of the crash model.
func openTasks(ctx context.Context, t *testing.T, srv *child) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for {
		var page struct {
			Items []engine.Task
			Next  string
		}
		err := retry(ctx, func() error {
			return srv.call(ctx, http.MethodGet, "/api/v1/tasks?status=open&limit=500&cursor="+cursor, nil, &page, http.StatusOK)
		})
		require.NoError(t, err, "listing open tasks")
		for _, task := range page.Items {
			if task.DefinitionKey == crashKey {
				ids = append(ids, task.ID)
			}
		}
		if page.Next == "" {
			return ids
		}
		cursor = page.Next
	}
}

// waitCompleted completes open tasks and polls the instances until all have
// completed or ctx ends.
func waitCompleted(ctx context.Context, t *testing.T, srv *child, ids []string) {
	t.Helper()
	left := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "" })
	last := map[string]string{}
	for attempt := 0; len(left) > 0; attempt++ {
		if ctx.Err() != nil {
			desc := make([]string, 0, 5)
			for _, id := range left[:min(5, len(left))] {
				desc = append(desc, id+": "+last[id])
			}
			t.Fatalf("%d of %d instances did not complete in time; e.g. %s", len(left), len(ids), strings.Join(desc, "; "))
		}
		for _, task := range openTasks(ctx, t, srv) {
			_ = srv.completeTask(ctx, task) // errors: the next round retries
		}
		left = slices.DeleteFunc(left, func(id string) bool {
			var inst struct {
				Status string
				Tokens []engine.TokenState
				Tasks  []engine.Task // open tasks the snapshot holds
			}
			if err := srv.call(ctx, http.MethodGet, "/api/v1/instances/"+id, nil, &inst, http.StatusOK); err != nil {
				if ctx.Err() == nil {
					last[id] = err.Error()
				}
				return false
			}
			var at, open []string
			for _, tok := range inst.Tokens {
				at = append(at, tok.ElementID+"/"+string(tok.Status))
			}
			for _, task := range inst.Tasks {
				open = append(open, task.ID)
			}
			last[id] = fmt.Sprintf("status %s, tokens %v, open tasks in the snapshot %v (the inbox, GET /api/v1/tasks?status=open, is what this test completes)",
				inst.Status, at, open)
			return inst.Status == string(engine.StatusCompleted)
		})
		if len(left) > 0 {
			backoff(ctx, attempt)
		}
	}
}

// checkStore opens the data directory the child used and checks every
// instance's log, tasks and end. It reads each collection with one query:
// FerretDB scans a collection for any filter but {_id}, and this process
// runs it under the race detector.
func checkStore(t *testing.T, dataDir string, ids []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	es, err := embedded.Start(ctx, embedded.Config{DataDir: dataDir})
	require.NoError(t, err)
	defer func() { require.NoError(t, es.Close(context.Background())) }()
	client, err := mongo.Connect(options.Client().ApplyURI(es.URI()))
	require.NoError(t, err)
	defer func() { require.NoError(t, client.Disconnect(context.Background())) }()
	db := client.Database(mongoDBDefault)
	store, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)

	all, _, err := store.Instances(ctx, engine.InstanceFilter{DefinitionKey: crashKey})
	require.NoError(t, err)
	if len(all) != len(ids) {
		t.Errorf("store holds %d instances of %s, want %d (one per request id)", len(all), crashKey, len(ids))
	}
	snaps := map[string]*engine.Snapshot{}
	for _, s := range all {
		snaps[s.ID] = s
	}
	var tasks []engine.Task
	readAll(ctx, t, db.Collection("tasks"), &tasks)
	tasksOf := map[string][]engine.Task{}
	for _, task := range tasks {
		tasksOf[task.InstanceID] = append(tasksOf[task.InstanceID], task)
	}

	problems := map[string][]string{} // kind of problem → instances with it
	add := func(kind, id, detail string) { problems[kind] = append(problems[kind], id+" "+detail) }
	for i, id := range ids {
		if id == "" {
			add("start never acknowledged", fmt.Sprintf("crash-%d", i), "")
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
		require.NoError(t, err)
		slices.SortStableFunc(evs, func(a, b engine.Event) int { return cmp.Compare(a.Seq, b.Seq) })
		for i, ev := range evs {
			if ev.Seq != uint64(i+1) {
				add("log seq gap or duplicate", id, fmt.Sprintf("event %d has seq %d (%s)", i+1, ev.Seq, ev.Type))
				break
			}
		}
		if snap.Seq != uint64(len(evs)) {
			add("snapshot seq differs from log length", id, fmt.Sprintf("snapshot seq %d, %d events", snap.Seq, len(evs)))
		}
		count := func(typ engine.EventType, elem string) int {
			n := 0
			for _, ev := range evs {
				if ev.Type == typ && (elem == "" || ev.ElementID == elem) {
					n++
				}
			}
			return n
		}
		completedTasks := map[any]int{}
		for _, ev := range evs {
			if ev.Type == engine.EventTaskDone {
				completedTasks[ev.Detail["taskId"]]++
			}
		}
		for task, n := range completedTasks {
			if n > 1 {
				add("task completed twice", id, fmt.Sprintf("task %v: %d task.completed events", task, n))
			}
		}
		for _, c := range []struct {
			kind string
			typ  engine.EventType
			elem string
		}{
			{"instance.started not once", engine.EventInstanceStarted, ""},
			{"task.created not once", engine.EventTaskCreated, "review"},
			{"task.completed not once", engine.EventTaskDone, "review"},
			{"timer.fired not once", engine.EventTimerFired, "wait"},
			{"join fired not once (element.completed of join)", engine.EventElementCompleted, "join"},
			{"instance.completed not once", engine.EventInstanceCompleted, ""},
		} {
			if n := count(c.typ, c.elem); n != 1 {
				add(c.kind, id, fmt.Sprintf("%d times", n))
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

// buildWfpp builds wfpp without the race detector: FerretDB under it is
// about ten times slower. After `go vet` the packages are in the build cache
// and this only links.
func buildWfpp(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	require.NoError(t, err, "the crash test builds wfpp with the go command")
	bin := filepath.Join(t.TempDir(), "wfpp")
	start := time.Now()
	out, err := exec.CommandContext(t.Context(), gobin, "build", "-o", bin, ".").CombinedOutput()
	require.NoErrorf(t, err, "go build: %s", out)
	t.Logf("built wfpp in %s", time.Since(start).Round(time.Millisecond))
	return bin
}

// readAll decodes every document of c into out.
func readAll(ctx context.Context, t *testing.T, c *mongo.Collection, out any) {
	t.Helper()
	cur, err := c.Find(ctx, bson.D{})
	require.NoError(t, err, c.Name())
	require.NoError(t, cur.All(ctx, out), c.Name())
}

// child is a `wfpp serve` process.
type child struct {
	bin     string
	dataDir string
	logPath string
	env     []string // extra environment, KEY=value
	name    string   // in the log shown when the test failed; default "wfpp serve"
	addr    string   // to listen on; default a free port on 127.0.0.1
	runs    int

	mu   sync.Mutex
	cmd  *exec.Cmd
	base string // http://host:port of the running child
	done chan struct{}

	http *http.Client
}

var listeningRE = regexp.MustCompile(`"msg":"http server listening","addr":"([^"]+)"`)

func startChild(t testing.TB, bin, dataDir string) *child {
	t.Helper()
	c := &child{
		bin:     bin,
		dataDir: dataDir,
		logPath: filepath.Join(t.TempDir(), "wfpp.log"),
		http:    &http.Client{Timeout: 10 * time.Second},
	}
	t.Cleanup(func() {
		c.mu.Lock()
		cmd, done := c.cmd, c.done
		c.mu.Unlock()
		if cmd != nil {
			_ = cmd.Process.Kill()
			<-done
		}
		c.http.CloseIdleConnections()
		if t.Failed() {
			c.dumpLog(t)
		}
	})
	return c
}

// restart starts the child and returns once it serves HTTP. It may run off
// the test goroutine: it reports by its error.
func (c *child) restart(ctx context.Context, t testing.TB) error {
	c.runs++
	log, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "=== run %d\n", c.runs)

	cmd := exec.Command(c.bin, "serve", "--addr", cmp.Or(c.addr, "127.0.0.1:0"))
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "WFPP_")
	}), append([]string{"WFPP_DATA_DIR=" + c.dataDir}, c.env...)...)
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Close()
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	done := make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_ = cmd.Wait()
		fmt.Fprintf(log, "=== ended: %v\n", cmd.ProcessState)
		log.Close()
	}()
	c.mu.Lock()
	c.cmd, c.done = cmd, done
	c.mu.Unlock()

	select {
	case a := <-addr:
		c.mu.Lock()
		c.base = "http://" + a
		c.mu.Unlock()
		t.Logf("run %d serving on %s %s after its start", c.runs, a, time.Since(start).Round(time.Millisecond))
		return nil
	case <-done:
		return fmt.Errorf("wfpp serve run %d exited before serving: %v (log below)", c.runs, cmd.ProcessState)
	case <-ctx.Done():
		return fmt.Errorf("wfpp serve run %d did not serve: %w", c.runs, ctx.Err())
	}
}

// pid is the running child's process id, 0 when it is not running.
func (c *child) pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// kill sends SIGKILL and waits for the process to end.
func (c *child) kill() error {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.cmd = nil
	c.mu.Unlock()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing wfpp serve: %w", err)
	}
	<-done
	return nil
}

// stop shuts the child down with SIGINT and checks it exited cleanly.
func (c *child) stop(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.cmd = nil
	c.mu.Unlock()
	// Idle keep-alive connections hold up the server's graceful shutdown
	// until its read timeout (30 s).
	c.http.CloseIdleConnections()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("wfpp serve did not stop within 20 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("wfpp serve exited with code %d after SIGINT", code)
	}
}

func (c *child) dumpLog(t testing.TB) {
	b, err := os.ReadFile(c.logPath)
	if err != nil {
		t.Logf("reading child log: %v", err)
		return
	}
	// Request logs (failures are expected while the server is down or
	// recovering) are counted rather than shown.
	var keep []string
	failed := 0
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, `"path":"/api/v1/`) {
			failed++
			continue
		}
		keep = append(keep, line)
	}
	out := strings.Join(keep, "")
	if len(out) > 20000 {
		out = "...\n" + out[len(out)-20000:]
	}
	t.Logf("%s log (%d request lines left out):\n%s", cmp.Or(c.name, "wfpp serve"), failed, out)
}

// do makes one request to the running child.
func (c *child) do(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	c.mu.Lock()
	base := c.base
	c.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// errRejected is a response the test does not retry.
var errRejected = errors.New("rejected")

// call makes a JSON request and decodes the answer when its status is one
// of want. Transport errors and 5xx are retryable; other statuses wrap
// errRejected.
func (c *child) call(ctx context.Context, method, path string, body []byte, out any, want ...int) error {
	ct := ""
	if body != nil {
		ct = "application/json"
	}
	status, b, err := c.do(ctx, method, path, ct, body)
	switch {
	case err != nil:
		return err
	case slices.Contains(want, status):
		if out == nil {
			return nil
		}
		return json.Unmarshal(b, out)
	case status >= 500:
		return fmt.Errorf("%s %s: %d %s", method, path, status, b)
	}
	return fmt.Errorf("%s %s: %d %s: %w", method, path, status, b, errRejected)
}

// completeTask completes a task; 409 means an earlier attempt did, whose
// answer the kill cut off.
func (c *child) completeTask(ctx context.Context, id string) error {
	return c.call(ctx, http.MethodPost, "/api/v1/tasks/"+id+"/complete", []byte(`{"variables":{"approved":true}}`), nil,
		http.StatusOK, http.StatusConflict)
}

func retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || errors.Is(err, errRejected) || ctx.Err() != nil {
			return err
		}
		backoff(ctx, attempt)
	}
}

// backoff waits 10 ms doubling up to 200 ms, or until ctx ends.
func backoff(ctx context.Context, attempt int) {
	d := min(10*time.Millisecond<<min(attempt, 5), 200*time.Millisecond)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}
