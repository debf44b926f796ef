package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

func TestDiskFree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, diskFree(dir, 0, 0), "nothing is nearly full with no minimum")
	err := diskFree(dir, 1.01, 0)
	require.ErrorContains(t, err, "is nearly full")
	require.ErrorContains(t, err, dir)
	require.ErrorContains(t, diskFree(dir, 0, 1<<62), "MiB free of")
	require.ErrorContains(t, diskFree(dir+"/missing", 0, 0), "no such file")
}

// TestReadyDegradedWithoutRedis: a real wfpp serve with a real Redis says
// "degraded" on /health/ready when Redis stops, and still serves.
func TestReadyDegradedWithoutRedis(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	redis := redistest.Start(t)
	srv := startChild(t, buildWfpp(t), t.TempDir())
	srv.env = []string{"WFPP_REDIS_URL=" + redis.URL()}
	require.NoError(t, srv.restart(ctx, t))
	defer srv.stop(t)

	var ready struct {
		Status  string `json:"status"`
		Reasons []struct{ Check, Error string }
	}
	require.NoError(t, srv.call(ctx, http.MethodGet, "/health/ready", nil, &ready, http.StatusOK))
	require.Equal(t, "ok", ready.Status)

	redis.Stop()
	require.NoError(t, srv.call(ctx, http.MethodGet, "/health/ready", nil, &ready, http.StatusOK))
	require.Equal(t, "degraded", ready.Status, "%+v", ready)
	require.Len(t, ready.Reasons, 1)
	require.Equal(t, "redis", ready.Reasons[0].Check)
	require.Contains(t, ready.Reasons[0].Error, "redis does not answer")

	var defs json.RawMessage
	require.NoError(t, srv.call(ctx, http.MethodGet, "/api/v1/definitions", nil, &defs, http.StatusOK), "a degraded server serves")
}
