package connector_test

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

const crmToken = "crm-bearer-token-123"

func httpHandlers(t *testing.T, url string) map[string]engine.Handler {
	t.Helper()
	hs, err := connector.Handlers(connector.Config{HTTP: map[string]connector.Connection{
		"crm": {URL: url + "/api/", Token: crmToken, Headers: map[string]connector.Secret{"X-Tenant": "acme", "accept": "application/json"}},
		"erp": {URL: url, User: "erp-user", Password: "erp-password"},
	}})
	require.NoError(t, err)
	return hs
}

// echoRequest answers with what it was sent.
func echoRequest(w http.ResponseWriter, c call, _ int) {
	writeJSON(w, http.StatusOK, map[string]any{
		"path": c.Path, "auth": c.Header.Get("Authorization"), "tenant": c.Header.Get("X-Tenant"),
		"accept": c.Header.Get("Accept"), "key": c.Header.Get("Idempotency-Key"), "body": c.Body,
	})
}

// TestHTTPConnections: a task naming a connection calls under its URL with
// its headers and credentials; a task naming none keeps the http
// handler's behaviour and gets no credentials.
func TestHTTPConnections(t *testing.T) {
	t.Parallel()
	srv := newStub(t, echoRequest)
	h := httpHandlers(t, srv.URL)[engine.JobTypeHTTP]

	out, err := handle(t, h, map[string]any{
		"connection": "crm", "url": "/orders/42?full=1", "method": "POST", "body": map[string]any{"qty": 3},
		"headers": map[string]any{"ACCEPT": "text/plain"},
	})
	require.NoError(t, err)
	resp := out["response"].(map[string]any)
	require.EqualValues(t, 200, resp["status"])
	require.Equal(t, map[string]any{
		"path": "/api/orders/42?full=1", "auth": "Bearer " + crmToken, "tenant": "acme",
		"accept": "text/plain", "key": "inst-1/task/1", "body": map[string]any{"qty": float64(3)},
	}, resp["body"], "the task's own headers win over the connection's")

	out, err = handle(t, h, map[string]any{"connection": "erp", "url": "stock"})
	require.NoError(t, err)
	body := out["response"].(map[string]any)["body"].(map[string]any)
	require.Equal(t, "/stock", body["path"])
	require.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("erp-user:erp-password")), body["auth"])

	out, err = handle(t, h, map[string]any{"url": srv.URL + "/plain", "resultVariable": "plain"})
	require.NoError(t, err)
	body = out["plain"].(map[string]any)["body"].(map[string]any)
	require.Equal(t, "/plain", body["path"])
	require.Empty(t, body["auth"], "no connection, no credentials")

	_, err = handle(t, h, map[string]any{"connection": "crm", "url": "https://elsewhere.example.com/steal"})
	require.ErrorContains(t, err, `connection "crm": url "https://elsewhere.example.com/steal": write a path relative to the connection's URL`)
	_, err = handle(t, h, map[string]any{"connection": "billing", "url": "x"})
	require.ErrorContains(t, err, `no connection "billing" is configured (configured: crm, erp)`)
	require.Len(t, srv.received(), 3, "refused tasks call nothing")
}

// TestHTTPConnectionFailure: a connection's failure keeps the http
// handler's outcome (coded HTTP_<status>, 4xx for good) without the
// connection's credentials.
func TestHTTPConnectionFailure(t *testing.T) {
	t.Parallel()
	srv := newStub(t, func(w http.ResponseWriter, c call, _ int) {
		http.Error(w, "who is "+c.Header.Get("Authorization")+" of "+c.Header.Get("X-Tenant"), http.StatusForbidden)
	})
	res := runTask(t, httpHandlers(t, srv.URL), engine.JobTypeHTTP, map[string]any{"connection": "crm", "url": "orders"})
	failedWith(t, res, "HTTP_403", 1)
	noSecret(t, res, crmToken)
	require.Len(t, srv.received(), 1)
}
