package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// stepCacheXML quotes a SKU with a result cached per SKU for an hour.
const stepCacheXML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="quoting" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="quote" wf:type="pricing.quote" wf:cacheKey="${sku}" wf:cacheTtl="PT1H"/>
    <endEvent id="done"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="quote"/>
    <sequenceFlow id="f2" sourceRef="quote" targetRef="done"/>
  </process>
</definitions>`

type cacheEntryItem struct {
	Key          string    `json:"key"`
	Scope        string    `json:"scope"`
	Definition   string    `json:"definition"`
	JobType      string    `json:"jobType"`
	Created      time.Time `json:"created"`
	Expires      time.Time `json:"expires"`
	Size         int       `json:"size"`
	ValuePreview string    `json:"valuePreview"`
}

// TestStepCacheAPI: cached results are listed (values only as a short
// preview), filtered, deleted one by one or invalidated by definition and
// prefix; hits and misses show in /metrics.
func TestStepCacheAPI(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	var calls atomic.Int32
	f.eng.RegisterHandler("pricing.quote", engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
		calls.Add(1)
		return map[string]any{"price": 12.5, "notes": strings.Repeat("long ", 100)}, nil
	}))
	f.deployXML(stepCacheXML)
	run := func(sku string) {
		id := f.start("quoting", map[string]any{"sku": sku})
		require.Eventually(t, func() bool {
			snap, err := f.eng.Instance(context.Background(), id)
			return err == nil && snap.Status == engine.StatusCompleted
		}, 10*time.Second, 5*time.Millisecond)
	}
	for _, sku := range []string{"A-1", "A-1", "B-2", "C-3"} {
		run(sku)
	}
	require.EqualValues(t, 3, calls.Load(), "the second A-1 came from the cache")

	var page struct{ Items []cacheEntryItem }
	f.getJSON("/api/v1/cache", &page)
	require.Len(t, page.Items, 3)
	a := page.Items[0]
	require.Equal(t, "definition:quoting:pricing.quote:A-1", a.Key)
	require.Equal(t, "definition", a.Scope)
	require.Equal(t, "quoting", a.Definition)
	require.Equal(t, "pricing.quote", a.JobType)
	require.Equal(t, time.Hour, a.Expires.Sub(a.Created))
	require.Greater(t, a.Size, 500)
	require.Len(t, a.ValuePreview, 200, "the value is cut to a preview")

	f.getJSON("/api/v1/cache?prefix="+url.QueryEscape("definition:quoting:pricing.quote:B"), &page)
	require.Len(t, page.Items, 1)
	require.Equal(t, "definition:quoting:pricing.quote:B-2", page.Items[0].Key)
	f.getJSON("/api/v1/cache?definition=other", &page)
	require.Empty(t, page.Items)

	metrics := f.getText("/metrics")
	require.Contains(t, metrics, "wfpp_step_cache_hits_total 1")
	require.Contains(t, metrics, "wfpp_step_cache_misses_total 3")

	del := func(key string) int {
		req, err := http.NewRequest(http.MethodDelete, "http://"+f.addr+"/api/v1/cache/"+url.PathEscape(key), nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	require.Equal(t, http.StatusNoContent, del("definition:quoting:pricing.quote:A-1"))
	require.Equal(t, http.StatusNotFound, del("definition:quoting:pricing.quote:A-1"))
	run("A-1")
	require.EqualValues(t, 4, calls.Load(), "a deleted entry is computed again")

	invalidate := func(body string) (removed int) {
		resp, err := http.Post("http://"+f.addr+"/api/v1/cache/invalidate", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var out struct{ Removed int }
		require.NoError(t, decodeJSON(resp, &out))
		return out.Removed
	}
	require.Equal(t, 0, invalidate(`{"definition":"other"}`))
	require.Equal(t, 1, invalidate(`{"definition":"quoting","prefix":"definition:quoting:pricing.quote:C"}`))
	require.Equal(t, 2, invalidate(`{}`), "no filter: every entry")
	f.getJSON("/api/v1/cache", &page)
	require.Empty(t, page.Items)

	resp, err := http.Post("http://"+f.addr+"/api/v1/cache/invalidate", "application/json", strings.NewReader(`{"definitions":"x"}`))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "an unknown field is refused")
}
