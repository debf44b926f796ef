package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDesignerAids: the designer lists the job types the server runs and
// previews when a timer fires.
func TestDesignerAids(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + f.addr + "/api/v1" + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := get("/job-types")
	require.Equal(t, http.StatusOK, status, body)
	var types struct{ Handlers []string }
	require.NoError(t, json.Unmarshal([]byte(body), &types))
	require.Contains(t, types.Handlers, "http", "the built-in handlers are listed")

	status, body = get("/timers/preview?kind=cycle&count=3&expression=" + url.QueryEscape("R2/PT1H"))
	require.Equal(t, http.StatusOK, status, body)
	var preview struct{ Next []string }
	require.NoError(t, json.Unmarshal([]byte(body), &preview))
	require.Len(t, preview.Next, 2, "R2 fires twice")

	status, body = get("/timers/preview?kind=cycle&expression=" + url.QueryEscape("every day"))
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Contains(t, body, "neither an ISO-8601 repetition")
	status, body = get("/timers/preview?kind=soon&expression=PT1H")
	require.Equal(t, http.StatusBadRequest, status, body)
}
