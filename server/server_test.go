package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/api"
)

type fixture struct {
	t     *testing.T
	srv   *server.Server
	store *memstore.Store
	eng   *engine.Engine
}

func setup(t *testing.T, mods ...func(*server.Config)) *fixture {
	t.Helper()
	return setupEngine(t, nil, mods...)
}

// setupEngine is setup with a change to the engine's config too.
func setupEngine(t *testing.T, engMod func(*engine.Config), mods ...func(*server.Config)) *fixture {
	t.Helper()
	store := memstore.New()
	ecfg := engine.Config{Store: store, Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2}
	if engMod != nil {
		engMod(&ecfg)
	}
	eng, err := engine.New(ecfg)
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	cfg := server.Config{Engine: eng}
	for _, m := range mods {
		m(&cfg)
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return &fixture{t: t, srv: srv, store: store, eng: eng}
}

// do sends a request through app.Test and decodes a JSON body into out (if
// not nil). It returns the response with its body read.
func (f *fixture) do(method, path, contentType string, body []byte, out any) *http.Response {
	f.t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := f.srv.App().Test(req, -1)
	require.NoError(f.t, err)
	data, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	require.NoError(f.t, resp.Body.Close())
	if out != nil {
		require.NoError(f.t, json.Unmarshal(data, out), "body: %s", data)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp
}

func (f *fixture) json(method, path string, in, out any) *http.Response {
	f.t.Helper()
	return f.as(nil, method, path, in, out)
}

// as sends a JSON request with extra headers (e.g. the acting user) and
// decodes a JSON response into out (if not nil).
func (f *fixture) as(headers map[string]string, method, path string, in, out any) *http.Response {
	f.t.Helper()
	var body []byte
	if in != nil {
		var err error
		body, err = json.Marshal(in)
		require.NoError(f.t, err)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := f.srv.App().Test(req, -1)
	require.NoError(f.t, err)
	data, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	require.NoError(f.t, resp.Body.Close())
	if out != nil {
		require.NoError(f.t, json.Unmarshal(data, out), "body: %s", data)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp
}

// deploy deploys a BPMN file from testdata and returns its version.
func (f *fixture) deploy(file string) int {
	f.t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(f.t, err)
	return f.deploySource(src)
}

func (f *fixture) deploySource(src []byte) int {
	f.t.Helper()
	var rec struct {
		Version int `json:"version"`
	}
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", src, &rec)
	require.Less(f.t, resp.StatusCode, 300)
	return rec.Version
}

func (f *fixture) deployApproval() {
	f.t.Helper()
	src, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(f.t, err)
	var rec map[string]any
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", src, &rec)
	require.Equal(f.t, http.StatusCreated, resp.StatusCode)
	require.Equal(f.t, "approval", rec["key"])
}

type envelope struct {
	Error struct {
		Code          string           `json:"code"`
		Message       string           `json:"message"`
		Details       []map[string]any `json:"details"`
		CorrelationID string           `json:"correlationId"`
		Timestamp     time.Time        `json:"timestamp"`
	} `json:"error"`
}

func requireEnvelope(t *testing.T, resp *http.Response, status int, code string) envelope {
	t.Helper()
	var env envelope
	data, _ := io.ReadAll(resp.Body)
	require.Equal(t, status, resp.StatusCode, "body: %s", data)
	require.NoError(t, json.Unmarshal(data, &env), "body: %s", data)
	require.Equal(t, code, env.Error.Code)
	require.NotEmpty(t, env.Error.Message)
	require.NotEmpty(t, env.Error.CorrelationID)
	require.Equal(t, env.Error.CorrelationID, resp.Header.Get(api.CorrelationHeader))
	require.False(t, env.Error.Timestamp.IsZero())
	return env
}

type instance struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Definition string `json:"definition"`
	Version    int    `json:"version"`
	Tokens     []struct {
		ID        uint64 `json:"id"`
		ElementID string `json:"elementId"`
		Status    string `json:"status"`
	} `json:"tokens"`
	Variables map[string]any   `json:"variables"`
	Tasks     []map[string]any `json:"tasks"`
	Incidents []map[string]any `json:"incidents"`
	History   []map[string]any `json:"history"`
}

type task struct {
	ID              string   `json:"id"`
	InstanceID      string   `json:"instanceId"`
	ElementID       string   `json:"elementId"`
	Name            string   `json:"name"`
	CandidateGroups []string `json:"candidateGroups"`
	Status          string   `json:"status"`
}

type taskPage struct {
	Items []task `json:"items"`
	Next  string `json:"next"`
}

// waitTask polls the task list until the instance has an open task.
func (f *fixture) waitTask(instanceID string) task {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var page taskPage
		f.json(http.MethodGet, "/api/v1/tasks?status=open&instance="+instanceID, nil, &page)
		if len(page.Items) > 0 {
			return page.Items[0]
		}
		runtime.Gosched()
	}
	f.t.Fatalf("instance %s has no open task after 10s", instanceID)
	return task{}
}

// waitStatus polls the instance until it has the status.
func (f *fixture) waitStatus(id, status string) instance {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var inst instance
	for time.Now().Before(deadline) {
		inst = instance{}
		f.json(http.MethodGet, "/api/v1/instances/"+id+"?include=history", nil, &inst)
		if inst.Status == status {
			return inst
		}
		runtime.Gosched()
	}
	f.t.Fatalf("instance %s is %s, not %s, after 10s", id, inst.Status, status)
	return inst
}

func (f *fixture) start(body map[string]any) (instance, *http.Response) {
	f.t.Helper()
	var inst instance
	resp := f.json(http.MethodPost, "/api/v1/instances", body, &inst)
	return inst, resp
}

func TestApprovalLifecycle(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()

	inst, resp := f.start(map[string]any{"definition": "approval", "variables": map[string]any{"amount": 1500}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.NotEmpty(t, inst.ID)
	require.Equal(t, "/api/v1/instances/"+inst.ID, resp.Header.Get("Location"))
	require.Equal(t, "approval", inst.Definition)
	require.Equal(t, 1, inst.Version)

	tk := f.waitTask(inst.ID)
	require.Equal(t, "review", tk.ElementID)
	require.Equal(t, "Review expense", tk.Name)
	require.Equal(t, []string{"managers"}, tk.CandidateGroups)

	var byGroup taskPage
	f.json(http.MethodGet, "/api/v1/tasks?group=managers&status=open", nil, &byGroup)
	require.Len(t, byGroup.Items, 1)

	var got instance
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	require.Len(t, got.Tokens, 1)
	require.Equal(t, "review", got.Tokens[0].ElementID)
	require.NotNil(t, got.Incidents)

	var done task
	resp = f.json(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", map[string]any{"variables": map[string]any{"approved": true}}, &done)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "completed", done.Status)

	final := f.waitStatus(inst.ID, "completed")
	require.Equal(t, true, final.Variables["approved"])
	require.Equal(t, 1500.0, final.Variables["bookedAmount"])
	require.NotEmpty(t, final.History)

	resp = f.json(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", nil, nil)
	requireEnvelope(t, resp, http.StatusConflict, "task_not_open")
}

func TestDeployTwiceIsOK(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	src, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(t, err)
	var rec map[string]any
	resp := f.do(http.MethodPost, "/api/v1/definitions", "text/xml; charset=utf-8", src, &rec)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "approval", rec["key"])
	require.Equal(t, 1.0, rec["version"])
	require.Equal(t, "approval:1", rec["id"])
}

func TestIdempotentStart(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()

	const n = 20
	ids := make([]string, n)
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body, _ := json.Marshal(map[string]any{"definition": "approval", "requestId": "req-1"})
			req := httptest.NewRequest(http.MethodPost, "/api/v1/instances", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := f.srv.App().Test(req, -1)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			var inst instance
			_ = json.NewDecoder(resp.Body).Decode(&inst)
			ids[i], codes[i] = inst.ID, resp.StatusCode
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		require.NotEmpty(t, ids[i])
		require.Equal(t, ids[0], ids[i], "every start with one requestId returns one instance")
		if codes[i] == http.StatusCreated {
			created++
		} else {
			require.Equal(t, http.StatusOK, codes[i])
		}
	}
	require.Equal(t, 1, created)
}

func TestConcurrentCompletion(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)

	requireOneWinner(t, f.race(50, func(int) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete",
			strings.NewReader(`{"variables":{"approved":false}}`))
		req.Header.Set("Content-Type", "application/json")
		return req
	}))
	f.waitStatus(inst.ID, "completed")
}

func TestErrors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()

	t.Run("malformed JSON", func(t *testing.T) {
		resp := f.do(http.MethodPost, "/api/v1/instances", "application/json", []byte(`{"definition":`), nil)
		requireEnvelope(t, resp, http.StatusBadRequest, "invalid_input")
	})
	t.Run("wrong type names the field", func(t *testing.T) {
		resp := f.do(http.MethodPost, "/api/v1/instances", "application/json", []byte(`{"definition":"approval","variables":[1]}`), nil)
		env := requireEnvelope(t, resp, http.StatusBadRequest, "invalid_input")
		require.Contains(t, env.Error.Message, "variables")
	})
	t.Run("missing definition", func(t *testing.T) {
		resp := f.json(http.MethodPost, "/api/v1/instances", map[string]any{}, nil)
		env := requireEnvelope(t, resp, http.StatusBadRequest, "invalid_input")
		require.Contains(t, env.Error.Message, "definition")
	})
	t.Run("unknown definition", func(t *testing.T) {
		resp := f.json(http.MethodPost, "/api/v1/instances", map[string]any{"definition": "nope"}, nil)
		requireEnvelope(t, resp, http.StatusNotFound, "not_found")
	})
	t.Run("unknown instance", func(t *testing.T) {
		resp := f.json(http.MethodGet, "/api/v1/instances/nope", nil, nil)
		requireEnvelope(t, resp, http.StatusNotFound, "not_found")
	})
	t.Run("unknown task", func(t *testing.T) {
		resp := f.json(http.MethodPost, "/api/v1/tasks/nope/complete", nil, nil)
		requireEnvelope(t, resp, http.StatusNotFound, "not_found")
	})
	t.Run("message nobody waits for", func(t *testing.T) {
		resp := f.json(http.MethodPost, "/api/v1/messages", map[string]any{"name": "ghost", "correlationKey": "k"}, nil)
		requireEnvelope(t, resp, http.StatusNotFound, "not_found")
	})
	t.Run("bad task status", func(t *testing.T) {
		resp := f.json(http.MethodGet, "/api/v1/tasks?status=weird", nil, nil)
		requireEnvelope(t, resp, http.StatusBadRequest, "invalid_input")
	})
	t.Run("correlation id is echoed", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/instances/nope", nil)
		req.Header.Set(api.CorrelationHeader, "abc-123")
		resp, err := f.srv.App().Test(req, -1)
		require.NoError(t, err)
		env := requireEnvelope(t, resp, http.StatusNotFound, "not_found")
		require.Equal(t, "abc-123", env.Error.CorrelationID)
	})
}

func TestInvalidBPMN(t *testing.T) {
	t.Parallel()
	f := setup(t)
	src, err := os.ReadFile("testdata/invalid.bpmn")
	require.NoError(t, err)
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", src, nil)
	env := requireEnvelope(t, resp, http.StatusUnprocessableEntity, "invalid_definition")
	require.NotEmpty(t, env.Error.Details)
	var ids []string
	for _, d := range env.Error.Details {
		ids = append(ids, fmt.Sprint(d["elementId"]))
		require.NotEmpty(t, d["message"])
	}
	require.Contains(t, ids, "f2")
}

func TestDOCTYPERejected(t *testing.T) {
	t.Parallel()
	f := setup(t)
	src, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(t, err)
	evil := bytes.Replace(src, []byte("?>"), []byte("?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"), 1)
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", evil, nil)
	var env envelope
	data, _ := io.ReadAll(resp.Body)
	require.GreaterOrEqual(t, resp.StatusCode, 400)
	require.Less(t, resp.StatusCode, 500)
	require.NoError(t, json.Unmarshal(data, &env))
	require.Contains(t, env.Error.Message, "DOCTYPE")
	defs, err := f.store.Definitions(context.Background())
	require.NoError(t, err)
	require.Empty(t, defs)
}

func TestOversizeBody(t *testing.T) {
	t.Parallel()
	f := setup(t, func(c *server.Config) { c.BodyLimit = 1024 })
	base := f.listen()
	body := `{"definition":"approval","variables":{"x":"` + strings.Repeat("a", 4096) + `"}}`
	resp, err := http.Post(base+"/api/v1/instances", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	requireEnvelope(t, resp, http.StatusRequestEntityTooLarge, "payload_too_large")
}

func TestUnsupportedContentType(t *testing.T) {
	t.Parallel()
	f := setup(t)
	req := httptest.NewRequest(http.MethodPost, "/api/v1/definitions", strings.NewReader("x"))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := f.srv.App().Test(req, -1)
	require.NoError(t, err)
	requireEnvelope(t, resp, http.StatusUnsupportedMediaType, "unsupported_media_type")
}

func TestPauseResumeCancel(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	f.waitTask(inst.ID)

	var got instance
	resp := f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/pause", nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "paused", got.Status)
	resp = f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/resume", nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotEqual(t, "paused", got.Status)
	resp = f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/cancel", nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "cancelled", got.Status)
	resp = f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/pause", nil, nil)
	requireEnvelope(t, resp, http.StatusConflict, "instance_ended")
}

// listen serves f on a real listener until the test ends and returns its
// base URL.
func (f *fixture) listen() string {
	f.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(f.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- f.srv.Serve(ctx, ln) }()
	f.t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			require.NoError(f.t, err)
		case <-time.After(10 * time.Second):
			f.t.Error("Serve did not return after its context was done")
		}
	})
	return "http://" + ln.Addr().String()
}

func TestHealthAndListen(t *testing.T) {
	t.Parallel()
	f := setup(t)
	base := f.listen()
	for _, path := range []string{"/health/live", "/health/ready"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.NotEmpty(t, resp.Header.Get(api.CorrelationHeader))
		require.NoError(t, resp.Body.Close())
	}
}

func TestDeployFormats(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, tc := range []struct{ file, contentType, query string }{
		// engine.DetectFormat reads "actionType" as DAG, so this graph says its format.
		{"testdata/tasks.graph.json", "application/json", "?format=graph"},
		{"testdata/parallel.graph.yaml", "application/yaml", ""},
	} {
		src, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		var rec map[string]any
		resp := f.do(http.MethodPost, "/api/v1/definitions"+tc.query, tc.contentType, src, &rec)
		require.Equal(t, http.StatusCreated, resp.StatusCode, tc.file)
		require.NotEmpty(t, rec["key"])
		require.Equal(t, 1.0, rec["version"])
	}
}

func TestMessageCorrelation(t *testing.T) {
	t.Parallel()
	f := setup(t)
	src, err := os.ReadFile("testdata/message_correlation.bpmn")
	require.NoError(t, err)
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", src, nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	inst, resp := f.start(map[string]any{"definition": "message_correlation", "variables": map[string]any{"orderId": "o-1"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	// The subscription exists once the start command is applied, which Start waits for.
	var out map[string]any
	resp = f.json(http.MethodPost, "/api/v1/messages", map[string]any{"name": "payment", "correlationKey": "o-1", "variables": map[string]any{"paid": true}}, &out)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1.0, out["correlated"])
	final := f.waitStatus(inst.ID, "completed")
	require.Equal(t, true, final.Variables["paid"])
}

// pingStore is a store whose Ping answers what the test says: the one
// fault of a real store that cannot be produced on demand in memory.
type pingStore struct {
	*memstore.Store
	err atomic.Pointer[error]
}

func (s *pingStore) Ping(ctx context.Context) error {
	if e := s.err.Load(); e != nil {
		return *e
	}
	return s.Store.Ping(ctx)
}

func TestHealthReady(t *testing.T) {
	t.Parallel()
	store := &pingStore{Store: memstore.New()}
	eng, err := engine.New(engine.Config{Store: store, Partitions: 1, NodeWorkers: 1})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	var diskErr atomic.Pointer[error]
	srv, err := server.New(server.Config{Engine: eng, Health: []server.HealthCheck{
		{Name: "redis", Check: func(context.Context) error { return nil }},
		{Name: "disk", Check: func(context.Context) error {
			if e := diskErr.Load(); e != nil {
				return *e
			}
			return nil
		}},
	}})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	get := func(path string) (int, map[string]any) {
		resp, err := srv.App().Test(httptest.NewRequest(http.MethodGet, path, nil), -1)
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return resp.StatusCode, body
	}

	status, body := get("/health/ready")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "ok", body["status"])

	full := errors.New("data disk: 120 MiB free of 20 GiB")
	diskErr.Store(&full)
	status, body = get("/health/ready")
	require.Equal(t, http.StatusOK, status, "degraded still serves")
	require.Equal(t, "degraded", body["status"])
	require.Equal(t, []any{map[string]any{"check": "disk", "error": full.Error()}}, body["reasons"])

	down := fmt.Errorf("connection refused: %w", engine.ErrUnavailable)
	store.err.Store(&down)
	status, body = get("/health/ready")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Contains(t, body["error"].(map[string]any)["message"], "store does not answer")
	status, _ = get("/health/live")
	require.Equal(t, http.StatusOK, status, "live does not ask the store")

	_, err = server.New(server.Config{Engine: eng, Health: []server.HealthCheck{{Name: "x"}}})
	require.ErrorContains(t, err, "Health[0] needs a Name and a Check")
}

// blockingStore holds every commit until release is closed: an applier
// that no longer moves, which a real store cannot be made to do on demand.
type blockingStore struct {
	*memstore.Store
	release chan struct{}
}

func (s *blockingStore) Commit(ctx context.Context, b *engine.Batch) error {
	<-s.release
	return s.Store.Commit(ctx, b)
}

func TestHealthReadyStuckPartition(t *testing.T) {
	t.Parallel()
	store := &blockingStore{Store: memstore.New(), release: make(chan struct{})}
	eng, err := engine.New(engine.Config{Store: store, Partitions: 1, NodeWorkers: 1})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	srv, err := server.New(server.Config{Engine: eng, StuckAfter: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	released := sync.OnceFunc(func() { close(store.release) })
	t.Cleanup(released) // before eng.Close
	ready := func() map[string]any {
		resp, err := srv.App().Test(httptest.NewRequest(http.MethodGet, "/health/ready", nil), -1)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "a stuck partition degrades, the server still serves")
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return body
	}
	require.Equal(t, "ok", ready()["status"])

	src, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(t, err)
	_, _, err = eng.Deploy(context.Background(), engine.DeployRequest{Source: src})
	require.NoError(t, err)
	started := make(chan error, 1)
	go func() {
		_, _, err := eng.Start(context.Background(), engine.StartRequest{Definition: "approval", Variables: map[string]any{"amount": 1}})
		started <- err
	}()
	require.Eventually(t, func() bool { return ready()["status"] == "degraded" }, 10*time.Second, 5*time.Millisecond)
	body := ready()
	require.Len(t, body["reasons"], 1)
	reason := body["reasons"].([]any)[0].(map[string]any)
	require.Equal(t, "partitions", reason["check"])
	require.Contains(t, reason["error"], "partitions [0] have been applying one round")

	released()
	require.NoError(t, <-started)
	require.Eventually(t, func() bool { return ready()["status"] == "ok" }, 10*time.Second, 5*time.Millisecond)
}
