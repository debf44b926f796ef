package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

// TestServeSharesCircuitsThroughRedis: a real wfpp serve with a real Redis
// keeps its circuit breakers there, for every replica: an http task's
// failures open the breaker of its host, GET /api/v1/circuits shows it, and
// Redis holds its state.
func TestServeSharesCircuitsThroughRedis(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	redis := redistest.Start(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()
	key := "http:" + strings.TrimPrefix(down.URL, "http://")
	srv := startChild(t, buildWfpp(t), t.TempDir())
	srv.env = []string{"WFPP_REDIS_URL=" + redis.URL()}
	require.NoError(t, srv.restart(ctx, t))
	defer srv.stop(t)

	status, body, err := srv.do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="breaker" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="call" wf:type="http" wf:retries="0" wf:circuitBreaker="true" wf:circuitFailureThreshold="2"/>
    <endEvent id="done"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <sequenceFlow id="f2" sourceRef="call" targetRef="done"/>
  </process>
</definitions>`))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	start, err := json.Marshal(map[string]any{"definition": "breaker", "variables": map[string]any{"url": down.URL}})
	require.NoError(t, err)
	for range 2 {
		require.NoError(t, srv.call(ctx, http.MethodPost, "/api/v1/instances", start, nil, http.StatusCreated))
	}

	var page struct {
		Items []struct{ Key, State string }
	}
	require.Eventually(t, func() bool {
		page.Items = nil
		return srv.call(ctx, http.MethodGet, "/api/v1/circuits", nil, &page, http.StatusOK) == nil &&
			len(page.Items) == 1 && page.Items[0].State == "open"
	}, 30*time.Second, 20*time.Millisecond, "the breaker opens: %+v", &page)
	require.Equal(t, key, page.Items[0].Key)

	rdb := redis.Client()
	defer rdb.Close()
	keys, err := rdb.SMembers(ctx, "wfpp:circuit:keys").Result()
	require.NoError(t, err)
	require.Equal(t, []string{key}, keys)
	state, err := rdb.HGet(ctx, "wfpp:circuit:b:"+key, "state").Result()
	require.NoError(t, err)
	require.Equal(t, "1", state, "open, in Redis")
}
