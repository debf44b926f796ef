package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server"
)

func TestApplyLimits(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"WFPP_MAX_VARIABLE": "2KiB", "WFPP_MAX_INSTANCE_VARIABLES": " 3 MiB ", "WFPP_SCRIPT_MEMORY": "1GiB",
		"WFPP_BPMN_MAX_VALUE": "1000", "WFPP_BPMN_MAX_ELEMENTS": "50", "WFPP_BPMN_MAX_ATTRIBUTES": "70", "WFPP_BPMN_MAX_DEPTH": "9",
		"WFPP_MAX_BODY": "1MiB", "WFPP_MAX_CHAIN_DEPTH": "4",
	}
	var e engine.Config
	var s server.Config
	require.NoError(t, applyLimits(func(k string) string { return env[k] }, &e, &s))
	require.Equal(t, 2048, e.MaxVariableBytes)
	require.Equal(t, 3<<20, e.MaxInstanceVariableBytes)
	require.Equal(t, int64(1<<30), e.Script.MaxMemory)
	require.Equal(t, 1000, e.BPMN.MaxValue)
	require.Equal(t, 50, e.BPMN.MaxElements)
	require.Equal(t, 70, e.BPMN.MaxAttributes)
	require.Equal(t, 9, e.BPMN.MaxDepth)
	require.Equal(t, 1<<20, s.BodyLimit)
	require.Equal(t, 4, e.MaxChainDepth)

	for k, v := range map[string]string{"WFPP_MAX_VARIABLE": "lots", "WFPP_BPMN_MAX_ELEMENTS": "5KiB", "WFPP_SCRIPT_MEMORY": "-1", "WFPP_MAX_BODY": "0"} {
		err := applyLimits(func(n string) string {
			if n == k {
				return v
			}
			return ""
		}, &e, &s)
		require.ErrorContains(t, err, k, v)
	}
}

// TestServeLimits: a cap set in the environment holds in the running server.
func TestServeLimits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := startChild(t, buildWfpp(t), t.TempDir())
	srv.env = []string{"WFPP_MAX_VARIABLE=1KiB", "WFPP_BPMN_MAX_VALUE=8KiB"}
	require.NoError(t, srv.restart(ctx, t))
	defer srv.stop(t)

	small := `{"definition":"approval","variables":{"note":"` + strings.Repeat("x", 900) + `"}}`
	require.NoError(t, srv.call(ctx, http.MethodPost, "/api/v1/instances", []byte(small), nil, http.StatusCreated))
	big := `{"definition":"approval","variables":{"note":"` + strings.Repeat("x", 1100) + `"}}`
	status, body, err := srv.do(ctx, http.MethodPost, "/api/v1/instances", "application/json", []byte(big))
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestEntityTooLarge, status, "%s", body)
	require.Contains(t, string(body), `variable \"note\" is 1102 bytes, the limit is 1024`)

	bpmn := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p" name="` + strings.Repeat("n", 8193) + `"/></definitions>`
	status, body, err = srv.do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", []byte(bpmn))
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestEntityTooLarge, status, "%s", body)
	require.Contains(t, string(body), "the limit is 8192")
}
