package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/api"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	f.deploy("testdata/external.bpmn")
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)
	f.json(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", map[string]any{"variables": map[string]any{"approved": true}}, nil)
	f.waitStatus(inst.ID, "completed")
	cancelled, _ := f.start(map[string]any{"definition": "approval"})
	f.json(http.MethodPost, "/api/v1/instances/"+cancelled.ID+"/cancel", nil, nil)
	f.failToIncident()

	resp := f.json(http.MethodGet, "/metrics", nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, _ := io.ReadAll(resp.Body)
	text := string(body)
	for _, want := range []string{
		`wfpp_instances_started_total{definition="approval"} 2`,
		`wfpp_instances_completed_total{definition="approval"} 1`,
		`wfpp_instances_cancelled_total{definition="approval"} 1`,
		`wfpp_instances_started_total{definition="external"} 1`,
		`wfpp_element_duration_seconds_count{definition="approval",element="review"} 1`,
		`wfpp_element_duration_seconds_bucket{definition="approval",element="book",le="+Inf"} 1`,
		`wfpp_incidents_open 1`,
		`wfpp_dead_letters{status="pending"} 1`,
		`wfpp_dead_letters{status="discarded"} 0`,
		`wfpp_queue_depth{element="book"} 0`,
		`wfpp_http_request_duration_seconds_count{method="POST",route="/api/v1/instances",status="201"} 3`,
		`wfpp_http_request_duration_seconds_count{method="POST",route="/api/v1/tasks/:id/complete",status="200"} 1`,
	} {
		require.True(t, strings.Contains(text, want), "metrics lack %s", want)
	}
}

func TestOpenAPICoversRoutes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	resp := f.json(http.MethodGet, "/api/v1/openapi.json", nil, &doc)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "3.1.0", doc.OpenAPI)
	n := 0
	for _, r := range f.srv.App().GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/api/v1/") || r.Method == http.MethodHead {
			continue
		}
		n++
		p := strings.TrimPrefix(r.Path, "/api/v1")
		parts := strings.Split(p, "/")
		for i, s := range parts {
			if strings.HasPrefix(s, ":") {
				parts[i] = "{" + strings.TrimPrefix(s, ":") + "}"
			}
		}
		p = strings.Join(parts, "/")
		ops, ok := doc.Paths[p]
		require.True(t, ok, "route %s %s is not in openapi.json", r.Method, r.Path)
		op, ok := ops[strings.ToLower(r.Method)]
		require.True(t, ok, "route %s %s is not in openapi.json", r.Method, r.Path)
		require.NotEmpty(t, op["summary"])
		require.NotEmpty(t, op["responses"])
	}
	require.GreaterOrEqual(t, n, 35)
}

func TestDollarKeysRejected(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	for _, tc := range []struct {
		method, path string
		body         any
		names        string
	}{
		{http.MethodGet, "/api/v1/tasks?$where=sleep(1)", nil, "$where"},
		{http.MethodGet, "/api/v1/instances?definition=approval&$or=1", nil, "$or"},
		{http.MethodGet, "/api/v1/incidents?$ne=1", nil, "$ne"},
		{http.MethodPost, "/api/v1/instances", map[string]any{"definition": "approval", "variables": map[string]any{"$gt": ""}}, "variables.$gt"},
		{http.MethodPost, "/api/v1/instances", map[string]any{"definition": "approval", "variables": map[string]any{"list": []any{map[string]any{"$where": 1}}}}, "variables.list.$where"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			env := requireEnvelope(t, f.json(tc.method, tc.path, tc.body, nil), http.StatusBadRequest, "invalid_input")
			require.Contains(t, env.Error.Message, tc.names)
		})
	}
	// whatever the Content-Type says, the body is read as JSON, so it is checked
	resp := f.do(http.MethodPost, "/api/v1/instances", "text/plain", []byte(`{"definition":"approval","variables":{"$gt":1}}`), nil)
	env := requireEnvelope(t, resp, http.StatusBadRequest, "invalid_input")
	require.Contains(t, env.Error.Message, "variables.$gt")
	// a definition's source may say its "$schema"
	dag := []byte(`{"$schema":"https://workflowpp.dev/schema/dag.json","id":"linear","startNode":"a",` +
		`"nodes":[{"id":"a","actionType":"step","edges":[{"targetNode":"b"}]},{"id":"b","actionType":"step"}]}`)
	resp = f.do(http.MethodPost, "/api/v1/definitions", "application/json", dag, nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	// a value that starts with $ is data, not an operator
	_, resp = f.start(map[string]any{"definition": "approval", "variables": map[string]any{"price": "$5"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	f := setup(t, func(c *server.Config) { c.RateLimit, c.RateWindow = 2, time.Hour })
	f.deployApproval()
	for range 2 {
		_, resp := f.start(map[string]any{"definition": "approval"})
		require.Equal(t, http.StatusCreated, resp.StatusCode)
	}
	_, resp := f.start(map[string]any{"definition": "approval"})
	requireEnvelope(t, resp, http.StatusTooManyRequests, "rate_limited")
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	// completions share the budget; reads are not limited
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/tasks/x/complete", nil, nil), http.StatusTooManyRequests, "rate_limited")
	for range 5 {
		require.Equal(t, http.StatusOK, f.json(http.MethodGet, "/api/v1/instances", nil, nil).StatusCode)
	}

	unlimited := setup(t, func(c *server.Config) { c.RateLimit = -1 })
	unlimited.deployApproval()
	for range 5 {
		_, resp := unlimited.start(map[string]any{"definition": "approval"})
		require.Equal(t, http.StatusCreated, resp.StatusCode)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) records(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		out = append(out, r)
	}
	return out
}

func TestRequestLoggedOnce(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := setup(t, func(c *server.Config) { c.Logger = log })
	f.srv.App().Get("/test/panic", func(*fiber.Ctx) error { panic("boom") })
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/api/v1/instances/nope", http.StatusNotFound},
		{"/health/live", http.StatusOK},
		{"/no/such/route", http.StatusNotFound},
		{"/test/panic", http.StatusInternalServerError},
	} {
		req := map[string]string{api.CorrelationHeader: "corr-" + tc.path}
		resp := f.as(req, http.MethodGet, tc.path, nil, nil)
		require.Equal(t, tc.status, resp.StatusCode)
		var mine []map[string]any
		for _, r := range buf.records(t) {
			if r["msg"] == "request" && r["path"] == tc.path {
				mine = append(mine, r)
			}
		}
		require.Len(t, mine, 1, tc.path)
		r := mine[0]
		require.Equal(t, "GET", r["method"])
		require.Equal(t, float64(tc.status), r["status"])
		require.Contains(t, r, "latency_ms")
		require.Equal(t, "corr-"+tc.path, r["correlation_id"])
	}
}

// TestRolesAndIdentity: with configured users, writes need their role and
// the X-User headers name nobody.
func TestRolesAndIdentity(t *testing.T) {
	t.Parallel()
	f := setup(t, func(c *server.Config) { c.Identity = identityConfig(t) })
	f.deployApprovalAs(bearer(t, "dora", nil, time.Minute))
	alice := bearer(t, "alice", []string{"managers"}, time.Minute)
	olga := bearer(t, "olga", []string{"ops"}, time.Minute)
	for _, tc := range []struct {
		name   string
		h      http.Header
		method string
		path   string
		status int
		code   string
	}{
		{"worker deploys", alice, http.MethodPost, "/api/v1/definitions", http.StatusForbidden, "forbidden"},
		{"operator deploys", olga, http.MethodPost, "/api/v1/definitions", http.StatusForbidden, "forbidden"},
		{"worker pauses", alice, http.MethodPost, "/api/v1/instances/x/pause", http.StatusForbidden, "forbidden"},
		{"worker cancels", alice, http.MethodPost, "/api/v1/instances/x/cancel", http.StatusForbidden, "forbidden"},
		{"operator completes a task", olga, http.MethodPost, "/api/v1/tasks/x/complete", http.StatusForbidden, "forbidden"},
		{"operator pauses an unknown instance", olga, http.MethodPost, "/api/v1/instances/x/pause", http.StatusNotFound, "not_found"},
		{"worker modifies", alice, http.MethodPost, "/api/v1/instances/x/modify", http.StatusForbidden, "forbidden"},
		{"worker sets variables", alice, http.MethodPost, "/api/v1/instances/x/variables", http.StatusForbidden, "forbidden"},
		{"worker resolves", alice, http.MethodPost, "/api/v1/incidents/x/resolve", http.StatusForbidden, "forbidden"},
		{"worker replays", alice, http.MethodPost, "/api/v1/dead-letters/x/replay", http.StatusForbidden, "forbidden"},
		{"worker enables", alice, http.MethodPost, "/api/v1/definitions/approval/versions/1/enable", http.StatusForbidden, "forbidden"},
		{"operator claims", olga, http.MethodPost, "/api/v1/tasks/x/claim", http.StatusForbidden, "forbidden"},
		{"operator resolves an unknown incident", olga, http.MethodPost, "/api/v1/incidents/x/resolve", http.StatusNotFound, "not_found"},
		{"worker claims an unknown task", alice, http.MethodPost, "/api/v1/tasks/x/claim", http.StatusNotFound, "not_found"},
		{"anonymous lists", nil, http.MethodGet, "/api/v1/incidents", http.StatusUnauthorized, "unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			for k := range tc.h {
				h[k] = tc.h.Get(k)
			}
			requireEnvelope(t, f.as(h, tc.method, tc.path, map[string]any{}, nil), tc.status, tc.code)
		})
	}

	// X-User headers do not turn alice into an admin
	inst, _ := f.startAs(olga, map[string]any{"definition": "approval"})
	fake := map[string]string{"Authorization": alice.Get("Authorization"), "X-User": "root", "X-Roles": "admin"}
	require.Eventually(t, func() bool {
		var p taskPage
		f.as(fake, http.MethodGet, "/api/v1/tasks?status=open&instance="+inst.ID, nil, &p)
		return len(p.Items) == 1
	}, 10*time.Second, 5*time.Millisecond, "alice sees the managers' task")
	var tasks taskPage
	f.as(map[string]string{"Authorization": olga.Get("Authorization")}, http.MethodGet, "/api/v1/tasks?status=open", nil, &tasks)
	require.Len(t, tasks.Items, 1, "olga, an operator, oversees every task")
	requireEnvelope(t, f.as(fake, http.MethodGet, "/api/v1/tasks?user=root", nil, nil), http.StatusForbidden, "forbidden")
}

func (f *fixture) deployApprovalAs(h http.Header) {
	f.t.Helper()
	src, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(f.t, err)
	req := httptest.NewRequest(http.MethodPost, "/api/v1/definitions", bytes.NewReader(src))
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("Authorization", h.Get("Authorization"))
	resp, err := f.srv.App().Test(req, -1)
	require.NoError(f.t, err)
	require.Equal(f.t, http.StatusCreated, resp.StatusCode)
	require.NoError(f.t, resp.Body.Close())
}

func (f *fixture) startAs(h http.Header, body map[string]any) (instance, *http.Response) {
	f.t.Helper()
	var inst instance
	resp := f.as(map[string]string{"Authorization": h.Get("Authorization")}, http.MethodPost, "/api/v1/instances", body, &inst)
	return inst, resp
}
