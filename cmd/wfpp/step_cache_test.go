package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

// TestServeKeepsStepCacheInRedis: a real wfpp serve with a real Redis keeps
// the step cache there: the second instance's http call is answered from
// it, and Redis holds the entry with a TTL.
func TestServeKeepsStepCacheInRedis(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	redis := redistest.Start(t)
	var calls atomic.Int32
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"price": 7}`))
	}))
	defer svc.Close()
	srv := startChild(t, buildWfpp(t), t.TempDir())
	srv.env = []string{"WFPP_REDIS_URL=" + redis.URL()}
	require.NoError(t, srv.restart(ctx, t))
	defer srv.stop(t)

	status, body, err := srv.do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="cached" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="call" wf:type="http" wf:retries="0" wf:cacheKey="price" wf:cacheTtl="PT1H" wf:cacheScope="global"/>
    <endEvent id="done"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <sequenceFlow id="f2" sourceRef="call" targetRef="done"/>
  </process>
</definitions>`))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	start, err := json.Marshal(map[string]any{"definition": "cached", "variables": map[string]any{"url": svc.URL}})
	require.NoError(t, err)
	for range 2 {
		var inst struct{ ID string }
		require.NoError(t, srv.call(ctx, http.MethodPost, "/api/v1/instances", start, &inst, http.StatusCreated))
		require.Eventually(t, func() bool {
			var got struct{ Status string }
			return srv.call(ctx, http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got, http.StatusOK) == nil && got.Status == "completed"
		}, 30*time.Second, 20*time.Millisecond)
	}
	require.EqualValues(t, 1, calls.Load(), "the second instance's call came from the cache")

	rdb := redis.Client()
	defer rdb.Close()
	ttl, err := rdb.PTTL(ctx, "wfpp:step:global:http:price").Result()
	require.NoError(t, err)
	require.Greater(t, ttl, 59*time.Minute, "in Redis, with the policy's TTL")
}
