// Package connectortest has local stand-ins for the APIs the connectors
// call (Slack's Web API, Monday's GraphQL API, Confluence's REST API), for
// tests that run workflows through the real connectors: each stub answers
// as its service does for the calls the connector makes, checks the
// credentials of Config, and records what it was sent.
package connectortest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/workflowpp/wfpp/engine/connector"
)

// Credentials the stubs expect, as Config sets them.
const (
	SlackToken      = "xoxb-connectortest"
	MondayToken     = "monday-connectortest"
	ConfluenceUser  = "bot@example.com"
	ConfluenceToken = "confluence-connectortest"
)

// Config configures the connectors for the stubs given (nil: not configured).
func Config(s *Slack, m *Monday, c *Confluence) connector.Config {
	var cfg connector.Config
	if s != nil {
		cfg.Slack = connector.SlackConfig{URL: s.URL, Token: SlackToken}
	}
	if m != nil {
		cfg.Monday = connector.MondayConfig{URL: m.URL, Token: MondayToken}
	}
	if c != nil {
		cfg.Confluence = connector.ConfluenceConfig{URL: c.URL, User: ConfluenceUser, Token: ConfluenceToken}
	}
	return cfg
}

// recorder keeps the request bodies a stub accepted.
type recorder struct {
	mu   sync.Mutex
	sent []map[string]any
}

func (r *recorder) add(body map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, body)
}

func (r *recorder) all() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.sent...)
}

// serve starts a stub that accepts POST path with the Authorization
// header auth and a JSON body, and hands the body to answer.
func serve(t testing.TB, path, auth string, answer func(w http.ResponseWriter, body map[string]any)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		switch {
		case r.Method != http.MethodPost || r.URL.Path != path:
			http.Error(w, "no such endpoint", http.StatusNotFound)
		case r.Header.Get("Authorization") != auth:
			http.Error(w, "invalid credentials", http.StatusUnauthorized)
		case json.NewDecoder(r.Body).Decode(&body) != nil:
			http.Error(w, "the body is not JSON", http.StatusBadRequest)
		default:
			answer(w, body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
