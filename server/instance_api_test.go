package server_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type instancePage struct {
	Items []struct {
		ID          string `json:"id"`
		Definition  string `json:"definition"`
		BusinessKey string `json:"businessKey"`
		Status      string `json:"status"`
		StatusURL   string `json:"statusUrl"`
	} `json:"items"`
	Next string `json:"next"`
}

func TestListInstances(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	f.deploy("testdata/external.bpmn")
	before := time.Now().UTC().Add(-time.Second)
	var ids []string
	for _, bk := range []string{"order-1", "order-2", "order-3"} {
		inst, resp := f.start(map[string]any{"definition": "approval", "businessKey": bk})
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		ids = append(ids, inst.ID)
		f.waitTask(inst.ID)
	}
	ext, _ := f.start(map[string]any{"definition": "external"})
	f.json(http.MethodPost, "/api/v1/instances/"+ids[0]+"/cancel", nil, nil)

	list := func(query string) instancePage {
		t.Helper()
		var p instancePage
		resp := f.json(http.MethodGet, "/api/v1/instances"+query, nil, &p)
		require.Equal(t, http.StatusOK, resp.StatusCode, query)
		return p
	}
	idsOf := func(p instancePage) []string {
		var out []string
		for _, it := range p.Items {
			out = append(out, it.ID)
		}
		return out
	}

	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"all, newest first", "", []string{ext.ID, ids[2], ids[1], ids[0]}},
		{"by definition", "?definition=approval", []string{ids[2], ids[1], ids[0]}},
		{"by business key", "?businessKey=order-2", []string{ids[1]}},
		{"by status", "?status=cancelled", []string{ids[0]}},
		{"by statuses", "?definition=approval&status=cancelled,waiting", []string{ids[2], ids[1], ids[0]}},
		{"started after", "?startedAfter=" + url.QueryEscape(before.Format(time.RFC3339Nano)), []string{ext.ID, ids[2], ids[1], ids[0]}},
		{"started before", "?startedBefore=" + url.QueryEscape(before.Format(time.RFC3339)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, idsOf(list(tc.query)))
		})
	}

	t.Run("pages", func(t *testing.T) {
		p := list("?limit=3")
		require.Equal(t, []string{ext.ID, ids[2], ids[1]}, idsOf(p))
		require.NotEmpty(t, p.Next)
		p = list("?limit=3&cursor=" + url.QueryEscape(p.Next))
		require.Equal(t, []string{ids[0]}, idsOf(p))
		require.Empty(t, p.Next)
		require.Equal(t, "/api/v1/instances/"+ids[0], p.Items[0].StatusURL)
	})

	t.Run("errors", func(t *testing.T) {
		for _, q := range []string{"?status=sleeping", "?startedAfter=yesterday", "?startedBefore=2026-13-01", "?limit=-1", "?limit=1000", "?$where=1"} {
			requireEnvelope(t, f.json(http.MethodGet, "/api/v1/instances"+q, nil, nil), http.StatusBadRequest, "invalid_input")
		}
	})
}

func TestStartReturnsStatusURL(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	var inst struct {
		ID          string `json:"id"`
		StatusURL   string `json:"statusUrl"`
		BusinessKey string `json:"businessKey"`
	}
	resp := f.json(http.MethodPost, "/api/v1/instances", map[string]any{"definition": "approval", "businessKey": "bk-7"}, &inst)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, "/api/v1/instances/"+inst.ID, inst.StatusURL)
	require.Equal(t, inst.StatusURL, resp.Header.Get("Location"))
	require.Equal(t, "bk-7", inst.BusinessKey)
}

func TestVariablesAndModify(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval", "variables": map[string]any{"amount": 10}})
	f.waitTask(inst.ID)

	var got instance
	resp := f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/variables", map[string]any{"variables": map[string]any{"note": "hi", "amount": 20}}, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "hi", got.Variables["note"])
	require.Equal(t, 20.0, got.Variables["amount"])

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		code   string
	}{
		{"no variables", "/variables", map[string]any{}, http.StatusBadRequest, "invalid_input"},
		{"variables not an object", "/variables", map[string]any{"variables": []int{1}}, http.StatusBadRequest, "invalid_input"},
		{"$ key in variables", "/variables", map[string]any{"variables": map[string]any{"$set": 1}}, http.StatusBadRequest, "invalid_input"},
		{"modify without token", "/modify", map[string]any{"to": "rejected"}, http.StatusBadRequest, "invalid_input"},
		{"modify without target", "/modify", map[string]any{"token": 1}, http.StatusBadRequest, "invalid_input"},
		{"modify unknown token", "/modify", map[string]any{"token": 999, "to": "rejected"}, http.StatusNotFound, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireEnvelope(t, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+tc.path, tc.body, nil), tc.status, tc.code)
		})
	}
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/instances/nope/variables", map[string]any{"variables": map[string]any{"a": 1}}, nil), http.StatusNotFound, "not_found")

	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	require.Len(t, got.Tokens, 1)
	resp = f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/modify", map[string]any{"token": got.Tokens[0].ID, "to": "rejected"}, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	f.waitStatus(inst.ID, "completed")
	var tasks taskPage
	f.json(http.MethodGet, "/api/v1/tasks?status=open&instance="+inst.ID, nil, &tasks)
	require.Empty(t, tasks.Items, "moving the token off the user task cancels its task")
}
