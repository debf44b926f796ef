package server_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// lifecycle is GET /api/v1/definitions/:key as these tests read it.
type lifecycle struct {
	Version        int `json:"version"`
	DefaultVersion int `json:"defaultVersion"`
	Versions       []struct {
		Version       int    `json:"version"`
		Status        string `json:"status"`
		Default       bool   `json:"default"`
		ChangeSummary string `json:"changeSummary"`
		DeployedBy    string `json:"deployedBy"`
		History       []struct {
			By   string `json:"by"`
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"history"`
	} `json:"versions"`
	DefaultChanges []struct {
		From   int    `json:"from"`
		To     int    `json:"to"`
		Reason string `json:"reason"`
	} `json:"defaultChanges"`
}

func (f *fixture) lifecycle(key string) lifecycle {
	f.t.Helper()
	var l lifecycle
	require.Equal(f.t, http.StatusOK, f.json(http.MethodGet, "/api/v1/definitions/"+key, nil, &l).StatusCode)
	return l
}

func approvalSources(t *testing.T) (v1, v2, v3 []byte) {
	t.Helper()
	v1, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(t, err)
	v2 = bytes.Replace(v1, []byte(`name="Review expense"`), []byte(`name="Review the expense"`), 1)
	v3 = bytes.Replace(v1, []byte(`name="Review expense"`), []byte(`name="Check the expense"`), 1)
	return v1, v2, v3
}

func TestDefinitionVersionDeployOptions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	v1, v2, v3 := approvalSources(t)

	// A raw source with query parameters.
	resp := f.do(http.MethodPost, "/api/v1/definitions?changeSummary="+url.QueryEscape("first cut"), "application/xml", v1, nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	// A JSON envelope, as a draft.
	env, err := json.Marshal(map[string]any{"source": string(v2), "changeSummary": "wording", "status": "draft"})
	require.NoError(t, err)
	resp = f.do(http.MethodPost, "/api/v1/definitions", "application/json", env, nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	// Multipart fields, active but not the default.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "approval.bpmn")
	require.NoError(t, err)
	_, err = fw.Write(v3)
	require.NoError(t, err)
	require.NoError(t, mw.WriteField("changeSummary", "check it"))
	require.NoError(t, mw.WriteField("makeDefault", "false"))
	require.NoError(t, mw.Close())
	req := httptest.NewRequest(http.MethodPost, "/api/v1/definitions", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin") // a multipart body needs a browser's word
	resp, err = f.srv.App().Test(req, -1)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	l := f.lifecycle("approval")
	require.Equal(t, 3, l.Version, "the view is of the latest")
	require.Equal(t, 1, l.DefaultVersion)
	require.Len(t, l.Versions, 3)
	require.Equal(t, "active", l.Versions[0].Status)
	require.Equal(t, "check it", l.Versions[0].ChangeSummary)
	require.False(t, l.Versions[0].Default)
	require.Equal(t, "draft", l.Versions[1].Status)
	require.Equal(t, "wording", l.Versions[1].ChangeSummary)
	require.Equal(t, "first cut", l.Versions[2].ChangeSummary)
	require.True(t, l.Versions[2].Default)
	require.Equal(t, "active", l.Versions[2].History[0].To)

	requireEnvelope(t, f.do(http.MethodPost, "/api/v1/definitions?status=archived", "application/xml", v1, nil), http.StatusBadRequest, "invalid_input")
	requireEnvelope(t, f.do(http.MethodPost, "/api/v1/definitions?makeDefault=maybe", "application/xml", v1, nil), http.StatusBadRequest, "invalid_input")
}

func TestDefinitionVersionStatusAndRollback(t *testing.T) {
	t.Parallel()
	f := setup(t)
	v1, v2, v3 := approvalSources(t)
	require.Equal(t, 1, f.deploySource(v1))
	require.Equal(t, 2, f.deploySource(v2))
	resp := f.do(http.MethodPost, "/api/v1/definitions?status=draft", "application/xml", v3, nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	// A deprecated version starts with a warning.
	var l lifecycle
	resp = f.json(http.MethodPatch, "/api/v1/definitions/approval/versions/1", map[string]any{"status": "deprecated"}, &l)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "deprecated", l.Versions[2].Status)
	require.Equal(t, 2, l.DefaultVersion)
	var started struct {
		Version  int      `json:"version"`
		Warnings []string `json:"warnings"`
	}
	resp = f.json(http.MethodPost, "/api/v1/instances", map[string]any{"definition": "approval", "version": 1}, &started)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, []string{"definition approval:1 is deprecated: it still starts, but move to the default version"}, started.Warnings)
	require.Contains(t, resp.Header.Get("Warning"), `299 wfpp "definition approval:1 is deprecated`)

	// Drafts do not start; activating one makes it the default.
	_, resp = f.start(map[string]any{"definition": "approval", "version": 3})
	env := requireEnvelope(t, resp, http.StatusConflict, "version_not_startable")
	require.Contains(t, env.Error.Message, "approval:3 is draft")
	resp = f.json(http.MethodPatch, "/api/v1/definitions/approval/versions/3", map[string]any{"status": "active"}, &l)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 3, l.DefaultVersion)

	// Rollback to the deprecated v1 reactivates it.
	resp = f.json(http.MethodPost, "/api/v1/definitions/approval/rollback", map[string]any{"version": 1}, &l)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, l.DefaultVersion)
	require.Equal(t, "active", l.Versions[2].Status)
	require.True(t, l.Versions[2].Default)
	require.Equal(t, "rollback", l.DefaultChanges[len(l.DefaultChanges)-1].Reason)
	inst, resp := f.start(map[string]any{"definition": "approval"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, 1, inst.Version)

	// Archiving the default falls back to the highest active below: none.
	resp = f.json(http.MethodPatch, "/api/v1/definitions/approval/versions/1", map[string]any{"status": "archived"}, &l)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 0, l.DefaultVersion)
	_, resp = f.start(map[string]any{"definition": "approval"})
	env = requireEnvelope(t, resp, http.StatusConflict, "no_default_version")
	require.Contains(t, env.Error.Message, `definition "approval" has no default version`)
	_, resp = f.start(map[string]any{"definition": "approval", "version": 1})
	requireEnvelope(t, resp, http.StatusConflict, "version_not_startable")

	for _, tc := range []struct {
		method, path string
		body         map[string]any
		status       int
		code         string
	}{
		{http.MethodPatch, "/api/v1/definitions/approval/versions/1", map[string]any{"status": "active"}, http.StatusConflict, "invalid_transition"},
		{http.MethodPatch, "/api/v1/definitions/approval/versions/3", map[string]any{"status": "draft"}, http.StatusConflict, "invalid_transition"},
		{http.MethodPost, "/api/v1/definitions/approval/rollback", map[string]any{"version": 1}, http.StatusConflict, "invalid_transition"},
		{http.MethodPatch, "/api/v1/definitions/approval/versions/1", map[string]any{"status": "gone"}, http.StatusBadRequest, "invalid_input"},
		{http.MethodPatch, "/api/v1/definitions/approval/versions/latest", map[string]any{"status": "active"}, http.StatusBadRequest, "invalid_input"},
		{http.MethodPatch, "/api/v1/definitions/approval/versions/9", map[string]any{"status": "active"}, http.StatusNotFound, "not_found"},
		{http.MethodPost, "/api/v1/definitions/approval/rollback", map[string]any{}, http.StatusBadRequest, "invalid_input"},
		{http.MethodPost, "/api/v1/definitions/nope/rollback", map[string]any{"version": 1}, http.StatusNotFound, "not_found"},
	} {
		requireEnvelope(t, f.json(tc.method, tc.path, tc.body, nil), tc.status, tc.code)
	}
	env = requireEnvelope(t, f.json(http.MethodPatch, "/api/v1/definitions/approval/versions/1", map[string]any{"status": "active"}, nil), http.StatusConflict, "invalid_transition")
	require.Contains(t, env.Error.Message, "approval:1 is archived and cannot become active")
}
