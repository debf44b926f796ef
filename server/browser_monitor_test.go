package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserMonitorKeepsUp: an instance that emits well over 100 events a
// second (a timer loop) is watched in the monitor from its start; the page
// follows it live, without a reload, and shows its last event and its end.
func TestBrowserMonitorKeepsUp(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	b := newBrowser(t)
	src, err := os.ReadFile("testdata/busy_loop.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", src, nil)
	var inst struct{ ID string }
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"busy_loop"}`), &inst)

	b.run(b.ctx, "open the monitor while the instance runs",
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"]`),
	)
	first, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById('monitor').dataset.seq || '0'`))
	require.NoError(t, err)

	// Wait for the instance to end, then measure the rate it produced events at.
	var last struct {
		Status  string
		History []struct {
			Seq  uint64
			Time time.Time
		}
	}
	require.Eventually(t, func() bool {
		last.History = nil
		ok, err := srv.getJSON(t, "/api/v1/instances/"+inst.ID+"?include=history", &last)
		return err == nil && ok && last.Status == "completed"
	}, 30*time.Second, 50*time.Millisecond, "the busy instance completes")
	h := last.History
	require.Greater(t, len(h), 500)
	span := h[len(h)-1].Time.Sub(h[0].Time).Seconds()
	rate := float64(len(h)) / span
	t.Logf("the instance emitted %d events in %.2f s: %.0f events/s", len(h), span, rate)
	require.Greater(t, rate, 100.0, "the test only means something if the instance is busy")

	final := h[len(h)-1].Seq
	opened, err := strconv.ParseUint(first, 10, 64)
	require.NoError(t, err)
	require.Less(t, opened, final, "the page opened while the instance ran (else nothing was followed live)")
	b.run(b.ctx, "the monitor catches up live",
		waitJS(fmt.Sprintf(`document.getElementById('monitor').dataset.seq === '%d'`, final)),
		waitJS(`document.body.innerText.includes('completed')`),
		waitJS(`document.querySelector('#monitor [data-seq="`+fmt.Sprint(final)+`"]') !== null`),
	)
	b.check()
}

// getJSON GETs path and decodes the JSON answer into out; it reports whether
// the answer was a 2xx.
func (l *liveServer) getJSON(t *testing.T, path string, out any) (bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := newGet(ctx, l.url+path)
	if err != nil {
		return false, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return false, nil
	}
	return true, json.NewDecoder(resp.Body).Decode(out)
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

func newGet(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
}
