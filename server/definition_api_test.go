package server_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// deployTwoApprovals deploys approval v1 and a v2 that renames the review
// task, changes a condition, adds a task and drops nothing.
func deployTwoApprovals(f *fixture) (v1, v2 []byte) {
	f.t.Helper()
	v1, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(f.t, err)
	v2 = bytes.Replace(v1, []byte(`name="Review expense"`), []byte(`name="Review the expense"`), 1)
	v2 = bytes.Replace(v2, []byte(`=approved = true`), []byte(`=approved = true and amount &lt; 10000`), 1)
	v2 = bytes.Replace(v2, []byte(`zeebe:taskDefinition type="core.echo" retries="3"`), []byte(`zeebe:taskDefinition type="core.echo" retries="5"`), 1)
	require.Equal(f.t, 1, f.deploySource(v1))
	require.Equal(f.t, 2, f.deploySource(v2))
	return v1, v2
}

func TestDefinitionQueries(t *testing.T) {
	t.Parallel()
	f := setup(t)
	v1, v2 := deployTwoApprovals(f)
	f.deploy("testdata/external.bpmn")
	_, resp := f.start(map[string]any{"definition": "approval"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	t.Run("list has the latest of each key with counts", func(t *testing.T) {
		var page struct {
			Items []struct {
				Key       string         `json:"key"`
				Version   int            `json:"version"`
				Versions  int            `json:"versions"`
				Instances map[string]int `json:"instances"`
			} `json:"items"`
			Next string `json:"next"`
		}
		f.json(http.MethodGet, "/api/v1/definitions", nil, &page)
		require.Len(t, page.Items, 2)
		require.Equal(t, "approval", page.Items[0].Key)
		require.Equal(t, 2, page.Items[0].Version)
		require.Equal(t, 2, page.Items[0].Versions)
		total := 0
		for _, n := range page.Items[0].Instances {
			total += n
		}
		require.Equal(t, 1, total)
		require.Equal(t, "external", page.Items[1].Key)
		require.Empty(t, page.Next)

		f.json(http.MethodGet, "/api/v1/definitions?limit=1", nil, &page)
		require.Len(t, page.Items, 1)
		require.NotEmpty(t, page.Next)
		cursor := page.Next
		page.Next = ""
		f.json(http.MethodGet, "/api/v1/definitions?limit=1&cursor="+cursor, nil, &page)
		require.Len(t, page.Items, 1)
		require.Equal(t, "external", page.Items[0].Key)
		require.Empty(t, page.Next)
	})

	t.Run("get latest and a version with model and source", func(t *testing.T) {
		for _, tc := range []struct {
			path    string
			version int
			source  []byte
		}{
			{"/api/v1/definitions/approval", 2, v2},
			{"/api/v1/definitions/approval/versions/1", 1, v1},
			{"/api/v1/definitions/approval/versions/latest", 2, v2},
		} {
			var view struct {
				Version int    `json:"version"`
				Source  string `json:"source"`
				Model   struct {
					Processes []struct {
						ID       string `json:"id"`
						Elements []struct {
							ID, Name, Kind string
						} `json:"elements"`
						Flows []map[string]any `json:"flows"`
					} `json:"processes"`
				} `json:"model"`
			}
			resp := f.json(http.MethodGet, tc.path, nil, &view)
			require.Equal(t, http.StatusOK, resp.StatusCode, tc.path)
			require.Equal(t, tc.version, view.Version, tc.path)
			require.Equal(t, string(tc.source), view.Source, tc.path)
			require.Len(t, view.Model.Processes, 1)
			require.Equal(t, "approval", view.Model.Processes[0].ID)
			require.Len(t, view.Model.Processes[0].Elements, 9)
			require.Len(t, view.Model.Processes[0].Flows, 9)
		}
	})

	t.Run("raw source with its content type", func(t *testing.T) {
		resp := f.json(http.MethodGet, "/api/v1/definitions/approval/versions/1/xml", nil, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, resp.Header.Get("Content-Type"), "application/xml")
		body, _ := io.ReadAll(resp.Body)
		require.Equal(t, v1, body)
	})

	t.Run("versions newest first, paginated", func(t *testing.T) {
		var page struct {
			Items []struct {
				Version int `json:"version"`
			} `json:"items"`
			Next string `json:"next"`
		}
		f.json(http.MethodGet, "/api/v1/definitions/approval/versions", nil, &page)
		require.Len(t, page.Items, 2)
		require.Equal(t, 2, page.Items[0].Version)
		f.json(http.MethodGet, "/api/v1/definitions/approval/versions?limit=1", nil, &page)
		require.NotEmpty(t, page.Next)
		cursor := page.Next
		page.Next = ""
		f.json(http.MethodGet, "/api/v1/definitions/approval/versions?limit=1&cursor="+cursor, nil, &page)
		require.Len(t, page.Items, 1)
		require.Equal(t, 1, page.Items[0].Version)
		require.Empty(t, page.Next)
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			method, path string
			status       int
			code         string
		}{
			{http.MethodGet, "/api/v1/definitions/nope", http.StatusNotFound, "not_found"},
			{http.MethodGet, "/api/v1/definitions/approval/versions/9", http.StatusNotFound, "not_found"},
			{http.MethodGet, "/api/v1/definitions/approval/versions/x", http.StatusBadRequest, "invalid_input"},
			{http.MethodGet, "/api/v1/definitions/approval/versions/0/xml", http.StatusBadRequest, "invalid_input"},
			{http.MethodGet, "/api/v1/definitions/nope/versions", http.StatusNotFound, "not_found"},
			{http.MethodGet, "/api/v1/definitions/approval/versions?cursor=x", http.StatusBadRequest, "invalid_input"},
			{http.MethodGet, "/api/v1/definitions?limit=0", http.StatusBadRequest, "invalid_input"},
			{http.MethodGet, "/api/v1/definitions?limit=501", http.StatusBadRequest, "invalid_input"},
			{http.MethodPost, "/api/v1/definitions/approval/versions/7/enable", http.StatusNotFound, "not_found"},
		} {
			t.Run(tc.method+" "+tc.path, func(t *testing.T) {
				requireEnvelope(t, f.json(tc.method, tc.path, nil, nil), tc.status, tc.code)
			})
		}
	})
}

func TestDefinitionEnableDisable(t *testing.T) {
	t.Parallel()
	f := setup(t)
	deployTwoApprovals(f)

	var rec struct {
		ID      string `json:"id"`
		Enabled bool   `json:"enabled"`
	}
	resp := f.json(http.MethodPost, "/api/v1/definitions/approval/versions/2/disable", nil, &rec)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "approval:2", rec.ID)
	require.False(t, rec.Enabled)

	_, resp = f.start(map[string]any{"definition": "approval", "version": 2})
	requireEnvelope(t, resp, http.StatusConflict, "definition_disabled")
	inst, resp := f.start(map[string]any{"definition": "approval"})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "the disabled default handed over to version 1")
	require.Equal(t, 1, inst.Version)

	resp = f.json(http.MethodPost, "/api/v1/definitions/approval/versions/2/enable", nil, &rec)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, rec.Enabled)
	inst, resp = f.start(map[string]any{"definition": "approval"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, 1, inst.Version, "enabling moves no default")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/definitions/approval/rollback", map[string]any{"version": 2}, nil).StatusCode)
	inst, resp = f.start(map[string]any{"definition": "approval"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, 2, inst.Version)
}

func TestDefinitionDiff(t *testing.T) {
	t.Parallel()
	f := setup(t)
	deployTwoApprovals(f)
	src, err := os.ReadFile("testdata/form.bpmn")
	require.NoError(t, err)
	f.deploySource(src)
	// form v2: drop the keyed task, add a script-free task in its place.
	v2 := bytes.Replace(src, []byte(`<bpmn:userTask id="keyed" name="Keyed form" wf:candidateGroups="clerks" wf:formKey="invoice-form">`), []byte(`<bpmn:task id="check" name="Check">`), 1)
	v2 = bytes.Replace(v2, []byte("</bpmn:userTask>\n    <bpmn:endEvent"), []byte("</bpmn:task>\n    <bpmn:endEvent"), 1)
	v2 = bytes.ReplaceAll(v2, []byte(`targetRef="keyed"`), []byte(`targetRef="check"`))
	v2 = bytes.ReplaceAll(v2, []byte(`sourceRef="keyed"`), []byte(`sourceRef="check"`))
	require.Equal(t, 2, f.deploySource(v2))

	type change struct {
		Property, Category, From, To string
	}
	type diff struct {
		From, To int
		Added    []struct{ ID, Kind string } `json:"added"`
		Removed  []struct{ ID, Kind string } `json:"removed"`
		Changed  []struct {
			ID      string   `json:"id"`
			Changes []change `json:"changes"`
		} `json:"changed"`
		UnifiedDiff string `json:"unifiedDiff"`
	}

	var d diff
	resp := f.json(http.MethodGet, "/api/v1/definitions/approval/diff?from=1&to=2", nil, &d)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, d.From)
	require.Equal(t, 2, d.To)
	require.Empty(t, d.Added)
	require.Empty(t, d.Removed)
	changed := map[string][]change{}
	for _, c := range d.Changed {
		changed[c.ID] = c.Changes
	}
	require.Equal(t, []change{{"name", "name", "Review expense", "Review the expense"}}, changed["review"])
	require.Equal(t, []change{{"condition", "condition", "=approved = true", "=approved = true and amount < 10000"}}, changed["approved-flow"])
	require.Len(t, changed["book"], 1)
	require.Equal(t, "retry", changed["book"][0].Property)
	require.Equal(t, "extension", changed["book"][0].Category)
	require.Len(t, changed, 3)
	require.Contains(t, d.UnifiedDiff, "--- approval v1\n+++ approval v2\n@@ ")
	require.Contains(t, d.UnifiedDiff, "\n-    <bpmn:userTask id=\"review\" name=\"Review expense\">\n+    <bpmn:userTask id=\"review\" name=\"Review the expense\">\n")

	d = diff{}
	f.json(http.MethodGet, "/api/v1/definitions/form/diff?from=1&to=2", nil, &d)
	require.Len(t, d.Added, 1)
	require.Equal(t, "check", d.Added[0].ID)
	require.Equal(t, "task", d.Added[0].Kind)
	require.Len(t, d.Removed, 1)
	require.Equal(t, "keyed", d.Removed[0].ID)
	changed = map[string][]change{}
	for _, c := range d.Changed {
		changed[c.ID] = c.Changes
	}
	require.Equal(t, []change{{"target", "extension", "keyed", "check"}}, changed["to-keyed"])

	d = diff{}
	f.json(http.MethodGet, "/api/v1/definitions/approval/diff?from=2&to=2", nil, &d)
	require.Empty(t, d.Changed)
	require.Empty(t, d.UnifiedDiff)

	for _, tc := range []struct {
		query  string
		status int
		code   string
	}{
		{"", http.StatusBadRequest, "invalid_input"},
		{"?from=1", http.StatusBadRequest, "invalid_input"},
		{"?from=a&to=2", http.StatusBadRequest, "invalid_input"},
		{"?from=1&to=5", http.StatusNotFound, "not_found"},
	} {
		requireEnvelope(t, f.json(http.MethodGet, "/api/v1/definitions/approval/diff"+tc.query, nil, nil), tc.status, tc.code)
	}
	requireEnvelope(t, f.json(http.MethodGet, "/api/v1/definitions/nope/diff?from=1&to=2", nil, nil), http.StatusNotFound, "not_found")
}
