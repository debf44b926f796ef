package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
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

func TestScriptCheck(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	check := func(src string) map[string]any {
		body, err := json.Marshal(map[string]string{"source": src})
		require.NoError(t, err)
		resp, err := http.Post("http://"+f.addr+"/api/v1/scripts/check", "application/json", strings.NewReader(string(body)))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return out
	}
	require.Equal(t, true, check("return {total: price * qty}")["ok"])
	bad := check("return {total: price * (qty}")
	require.Equal(t, false, bad["ok"])
	require.EqualValues(t, 1, bad["line"])
	require.NotEmpty(t, bad["error"])
}
