package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/identity"
)

const webhookBPMN = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="hooked" isExecutable="true">
    <startEvent id="s"/>
    <receiveTask id="paid" wf:webhook="true" wf:webhookFilter="status == &quot;paid&quot;"/>
    <boundaryEvent id="late" attachedToRef="paid"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
    <endEvent id="e"/><endEvent id="timedOut"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="paid"/><sequenceFlow id="f2" sourceRef="paid" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="late" targetRef="timedOut"/>
  </process>
</definitions>`

// webhookView is what an instance's webhooks read as.
type webhookView struct {
	Status    string         `json:"status"`
	Seq       int            `json:"seq"`
	Variables map[string]any `json:"variables"`
	Webhooks  []struct {
		ElementID string    `json:"elementId"`
		URL       string    `json:"url"`
		MultiUse  bool      `json:"multiUse"`
		CreatedAt time.Time `json:"createdAt"`
	} `json:"webhooks"`
}

// TestWebhookHTTP: a webhook URL takes POSTs without a session on a server
// that wants one everywhere else: a matching payload moves the instance
// (200), a non-matching one is 422 and changes nothing, malformed JSON 400,
// an unknown token, a used single-use URL and one whose boundary timer
// fired 404.
func TestWebhookHTTP(t *testing.T) {
	t.Parallel()
	clock := engine.NewVirtualClock(time.Now())
	f := setupEngine(t, func(c *engine.Config) { c.Clock = clock }, func(c *server.Config) {
		c.Identity = identity.Config{JWTSecret: testJWTSecret}
	})
	admin := map[string]string{"Authorization": "Bearer " + signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret),
		jwt.MapClaims{"sub": "ada", "roles": []string{identity.RoleAdmin}, "exp": time.Now().Add(time.Hour).Unix()})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec, _, err := f.eng.Deploy(ctx, engine.DeployRequest{Source: []byte(webhookBPMN)})
	require.NoError(t, err)
	startWaiting := func() (string, webhookView) {
		t.Helper()
		inst, _, err := f.eng.Start(ctx, engine.StartRequest{Definition: rec.Key})
		require.NoError(t, err)
		require.NoError(t, f.eng.WaitIdle(ctx))
		var v webhookView
		resp := f.as(admin, http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &v)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Len(t, v.Webhooks, 1)
		require.Equal(t, "paid", v.Webhooks[0].ElementID)
		require.Regexp(t, `^/api/v1/hooks/[0-9]+\.[A-Za-z0-9_-]{22,}$`, v.Webhooks[0].URL)
		return inst.ID, v
	}
	readAs := func(id string) webhookView {
		var v webhookView
		f.as(admin, http.MethodGet, "/api/v1/instances/"+id, nil, &v)
		return v
	}

	require.Equal(t, http.StatusUnauthorized, f.json(http.MethodGet, "/api/v1/instances", nil, nil).StatusCode, "the server wants a session")
	id, before := startWaiting()
	url := before.Webhooks[0].URL

	var out map[string]map[string]any
	resp := f.json(http.MethodPost, url, map[string]any{"status": "pending"}, &out)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Equal(t, "webhook_rejected", out["error"]["code"])
	require.Contains(t, out["error"]["message"], `status == "paid"`, "it names the filter")
	after := readAs(id)
	require.Equal(t, before.Seq, after.Seq, "a refused POST changes nothing")
	require.Equal(t, "waiting", after.Status)

	require.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, url, "application/json", []byte(`{"status":`), nil).StatusCode)
	require.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, url, "application/json", []byte(`[1]`), nil).StatusCode)
	require.Equal(t, http.StatusNotFound, f.json(http.MethodPost, "/api/v1/hooks/not-a-token", map[string]any{"status": "paid"}, nil).StatusCode)

	resp = f.json(http.MethodPost, url, map[string]any{"status": "paid", "ref": "R-1"}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, f.eng.WaitIdle(ctx))
	done := readAs(id)
	require.Equal(t, "completed", done.Status)
	require.Equal(t, "R-1", done.Variables["ref"])
	require.Empty(t, done.Webhooks, "the URL is revoked")
	require.Equal(t, http.StatusNotFound, f.json(http.MethodPost, url, map[string]any{"status": "paid"}, nil).StatusCode, "single use")

	paused, held := startWaiting()
	_, err = f.eng.Pause(ctx, paused)
	require.NoError(t, err)
	requireEnvelope(t, f.json(http.MethodPost, held.Webhooks[0].URL, map[string]any{"status": "paid"}, nil), http.StatusConflict, "instance_paused")

	late, waiting := startWaiting()
	clock.Advance(time.Hour)
	require.NoError(t, f.eng.WaitIdle(ctx))
	require.Equal(t, "completed", readAs(late).Status, "the boundary timer ended the wait")
	require.Equal(t, http.StatusNotFound, f.json(http.MethodPost, waiting.Webhooks[0].URL, map[string]any{"status": "paid"}, nil).StatusCode, "after the timeout")
}

// TestWebhookRateLimited: webhook posts, public, count against the client's
// rate limit like starts and completions.
func TestWebhookRateLimited(t *testing.T) {
	t.Parallel()
	f := setup(t, func(c *server.Config) { c.RateLimit, c.RateWindow = 2, time.Hour })
	for range 2 {
		requireEnvelope(t, f.json(http.MethodPost, "/api/v1/hooks/unknown", map[string]any{}, nil), http.StatusNotFound, "not_found")
	}
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/hooks/unknown", map[string]any{}, nil), http.StatusTooManyRequests, "rate_limited")
}
