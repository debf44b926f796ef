package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const e2eSlackToken = "xoxb-e2e-0123456789"

// slackStub stands in for the Slack Web API: it records each
// chat.postMessage and refuses channel C-gone with a 401 that echoes the
// Authorization header, as a careless proxy might.
type slackStub struct {
	URL  string
	mu   sync.Mutex
	auth []string
	sent []map[string]any
}

func newSlackStub(t *testing.T) *slackStub {
	t.Helper()
	s := &slackStub{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.URL.Path != "/chat.postMessage" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "not chat.postMessage", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.sent = append(s.sent, body)
		s.mu.Unlock()
		if body["channel"] == "C-gone" {
			http.Error(w, "not allowed for "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": body["channel"], "ts": "1700000000.000200"})
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *slackStub) received() ([]string, []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...), append([]map[string]any(nil), s.sent...)
}

// TestRunConnectors: wfpp run registers the connectors the environment
// configures, and a JSON DAG's slack.post-message reaches Slack.
func TestRunConnectors(t *testing.T) {
	slack := newSlackStub(t)
	for _, name := range []string{"WFPP_SECRETS_FILE", "WFPP_MONDAY_TOKEN", "WFPP_CONFLUENCE_URL", "WFPP_SMTP_ADDR", "WFPP_HTTP_CONNECTIONS"} {
		t.Setenv(name, "")
	}
	t.Setenv("WFPP_SLACK_TOKEN", e2eSlackToken)
	t.Setenv("WFPP_SLACK_URL", slack.URL)
	dag := filepath.Join(t.TempDir(), "notify.json")
	require.NoError(t, os.WriteFile(dag, []byte(`{
  "id": "notify", "startNode": "post",
  "nodes": [{"id": "post", "actionType": "slack.post-message", "parameters": {"channelId": "${channel}", "message": "Hello ${name}"}}]
}`), 0o600))

	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"run", dag, "--jobs", "strict", "--vars", `{"channel": "C0123", "name": "Ada"}`}, &stdout, &stderr)
	require.Equal(t, exitCompleted, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	var res struct {
		Status    string
		Variables map[string]any
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	require.Equal(t, "1700000000.000200", res.Variables["ts"])
	auth, sent := slack.received()
	require.Equal(t, []string{"Bearer " + e2eSlackToken}, auth)
	require.Equal(t, "C0123", sent[0]["channel"])
	require.Equal(t, "Hello Ada", sent[0]["text"])

	t.Setenv("WFPP_SLACK_URL", "ftp://slack.example.com")
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, exitUsage, run(t.Context(), []string{"run", dag}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "connectors.slack.url (WFPP_SLACK_URL)")
}

// TestServeConnectors: wfpp serve reads the secrets file and runs a JSON
// DAG through slack.post-message; monday.get-items, not configured, waits
// for an external worker; a failing Slack call leaves an incident whose
// error, like the server's log, holds no token.
func TestServeConnectors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	slack := newSlackStub(t)
	secrets := filepath.Join(t.TempDir(), "secrets.yaml")
	require.NoError(t, os.WriteFile(secrets, []byte("connectors:\n  slack: {token: "+e2eSlackToken+", url: \""+slack.URL+"\"}\n"), 0o600))

	srv := startChild(t, buildWfpp(t), t.TempDir())
	srv.env = []string{"WFPP_SECRETS_FILE=" + secrets}
	require.NoError(t, srv.restart(ctx, t)) // startChild's cleanup stops it should the test fail

	dag := []byte(`{
  "id": "connector-e2e", "startNode": "notify", "failureMode": "incident",
  "nodes": [
    {"id": "notify", "actionType": "slack.post-message", "parameters": {"channelId": "${channel}", "message": "Hello ${name}"},
     "edges": [{"targetNode": "fetch"}]},
    {"id": "fetch", "actionType": "monday.get-items", "parameters": {"boardId": "42"}, "edges": [{"targetNode": "alert"}]},
    {"id": "alert", "actionType": "slack.post-message", "parameters": {"channelId": "C-gone", "message": "done"},
     "policies": {"retry": {"maxAttempts": 1}}}
  ]
}`)
	status, body, err := srv.do(ctx, http.MethodPost, "/api/v1/definitions", "application/json", dag)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	var inst struct{ ID string }
	start, _ := json.Marshal(map[string]any{"definition": "connector-e2e", "variables": map[string]any{"channel": "C0123", "name": "Ada"}})
	require.NoError(t, srv.call(ctx, http.MethodPost, "/api/v1/instances", start, &inst, http.StatusCreated))

	// monday.get-items has no handler: an external worker gets its job.
	var job struct{ Key, ElementID string }
	require.Eventually(t, func() bool {
		var p struct {
			Items []struct{ Key, ElementID, InstanceID string }
		}
		req, _ := json.Marshal(map[string]any{"type": "monday.get-items", "worker": "w1", "max": 1, "lockMs": 60_000})
		if srv.call(ctx, http.MethodPost, "/api/v1/jobs/fetch-and-lock", req, &p, http.StatusOK) != nil || len(p.Items) == 0 {
			return false
		}
		job.Key, job.ElementID = p.Items[0].Key, p.Items[0].ElementID
		return p.Items[0].InstanceID == inst.ID
	}, 30*time.Second, 20*time.Millisecond, "no monday.get-items job for an external worker")
	require.Equal(t, "fetch", job.ElementID)
	auth, sent := slack.received()
	require.Equal(t, []string{"Bearer " + e2eSlackToken}, auth, "notify ran before fetch")
	require.Equal(t, "Hello Ada", sent[0]["text"])

	done, _ := json.Marshal(map[string]any{"worker": "w1", "variables": map[string]any{"items": []any{}}})
	require.NoError(t, srv.call(ctx, http.MethodPost, "/api/v1/jobs/"+url.PathEscape(job.Key)+"/complete", done, nil, http.StatusOK, http.StatusNoContent))

	// alert's call is refused: an incident, its error coded and redacted.
	var history []byte
	require.Eventually(t, func() bool {
		status, b, err := srv.do(ctx, http.MethodGet, "/api/v1/instances/"+inst.ID+"?include=history", "", nil)
		history = b
		return err == nil && status == http.StatusOK && strings.Contains(string(b), `"status":"incident"`)
	}, 30*time.Second, 20*time.Millisecond, "the instance never got its incident")
	require.Contains(t, string(history), "HTTP_401")
	require.Contains(t, string(history), "not allowed for Bearer [redacted]")
	require.NotContains(t, string(history), e2eSlackToken)

	srv.stop(t) // the log is complete
	f, err := os.Open(srv.logPath)
	require.NoError(t, err)
	defer f.Close()
	log, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Contains(t, string(log), `"msg":"connectors configured","job_types":["slack.post-message"]`)
	require.NotContains(t, string(log), e2eSlackToken)
}
