package server_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPageRootRedirectsToInbox(t *testing.T) {
	t.Parallel()
	f := setup(t)
	resp := f.do("GET", "/", "", nil, nil)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Equal(t, "/inbox", resp.Header.Get("Location"))
}

func TestPagesRender(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	for _, path := range []string{"/inbox", "/definitions", "/definitions/approval", "/instances", "/incidents", "/designer", "/designer/approval"} {
		resp := f.do("GET", path, "", nil, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Contains(t, resp.Header.Get("Content-Type"), "text/html", path)
		require.NotEmpty(t, resp.Header.Get("Content-Security-Policy"), path)
	}
	resp := f.do("GET", "/definitions/nope", "", nil, nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
}

func TestStaticCachingAndCompression(t *testing.T) {
	t.Parallel()
	f := setup(t)
	req := httptest.NewRequest("GET", "/static/vendor/bpmn-viewer.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := f.srv.App().Test(req, -1)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	require.Contains(t, resp.Header.Get("Cache-Control"), "max-age=")
	require.Contains(t, resp.Header.Get("Content-Type"), "javascript")
	etag := resp.Header.Get("ETag")
	require.NotEmpty(t, etag)

	req = httptest.NewRequest("GET", "/static/vendor/bpmn-viewer.js", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err = f.srv.App().Test(req, -1)
	require.NoError(t, err)
	require.Equal(t, http.StatusNotModified, resp.StatusCode)

	resp = f.do("GET", "/static/js/common.js", "", nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	require.Equal(t, http.StatusNotFound, f.do("GET", "/static/js/nope.js", "", nil, nil).StatusCode)
}

func TestValidateReportsProblemsByElement(t *testing.T) {
	t.Parallel()
	f := setup(t)
	src, err := os.ReadFile("testdata/invalid.bpmn")
	require.NoError(t, err)
	var out struct {
		Valid    bool `json:"valid"`
		Problems []struct {
			ElementID string `json:"elementId"`
			Message   string `json:"message"`
		} `json:"problems"`
	}
	resp := f.do("POST", "/api/v1/definitions/validate", "application/xml", src, &out)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.False(t, out.Valid)
	require.NotEmpty(t, out.Problems)
	require.NotEmpty(t, out.Problems[0].Message)

	src, err = os.ReadFile("testdata/browser_review.bpmn")
	require.NoError(t, err)
	f.do("POST", "/api/v1/definitions/validate", "application/xml", src, &out)
	require.True(t, out.Valid, "%+v", out.Problems)
	require.Empty(t, out.Problems)
}
