package connector_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

const slackToken = "xoxb-test-1234567890"

func slackHandlers(t *testing.T, url string) map[string]engine.Handler {
	t.Helper()
	hs, err := connector.Handlers(connector.Config{Slack: connector.SlackConfig{URL: url, Token: slackToken}})
	require.NoError(t, err)
	return hs
}

// TestSlackPostMessage: chat.postMessage gets the bot token and the
// message; the task's result is Slack's channel and ts.
func TestSlackPostMessage(t *testing.T) {
	t.Parallel()
	slack := newStub(t, func(w http.ResponseWriter, c call, _ int) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": c.Body["channel"], "ts": "1700000000.000100"})
	})
	out, err := handle(t, slackHandlers(t, slack.URL)[connector.JobTypeSlack], map[string]any{
		"channelId": "C0123", "message": "Found 3 items in progress.", "threadTs": "1699999999.000001",
		"blocks": []any{map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": "*3* items"}}},
	})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"ok": true, "channel": "C0123", "ts": "1700000000.000100"}, out)

	calls := slack.received()
	require.Len(t, calls, 1)
	c := calls[0]
	require.Equal(t, "POST", c.Method)
	require.Equal(t, "/chat.postMessage", c.Path)
	require.Equal(t, "Bearer "+slackToken, c.Header.Get("Authorization"))
	require.Equal(t, "C0123", c.Body["channel"])
	require.Equal(t, "Found 3 items in progress.", c.Body["text"])
	require.Equal(t, "1699999999.000001", c.Body["thread_ts"])
	require.Len(t, c.Body["blocks"], 1)

	_, err = handle(t, slackHandlers(t, slack.URL)[connector.JobTypeSlack], map[string]any{"channel": "C0123"})
	require.ErrorContains(t, err, "parameter message (or text) or blocks is required")
	_, err = handle(t, slackHandlers(t, slack.URL)[connector.JobTypeSlack], map[string]any{"message": "hi"})
	require.ErrorContains(t, err, "parameter channelId (or channel) is required")
	require.Len(t, slack.received(), 1, "bad parameters call nothing")
}

// TestSlackFailures: Slack's {"ok": false} answers and HTTP statuses end
// as the engine's outcomes: a rate limit is retried (after Retry-After),
// anything else fails for good with its code, and the token never shows
// in what the run records, even when Slack echoes it.
func TestSlackFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		respond  func(w http.ResponseWriter, c call, n int)
		code     string // "" : the task completes
		attempts int
		delays   []int64
	}{
		{
			name: "unknown channel fails for good",
			respond: func(w http.ResponseWriter, _ call, _ int) {
				writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "channel_not_found"})
			},
			code: "SLACK_CHANNEL_NOT_FOUND", attempts: 1,
		},
		{
			name: "ratelimited is retried",
			respond: func(w http.ResponseWriter, _ call, n int) {
				if n == 1 {
					writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "ratelimited"})
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": "C1", "ts": "1.2"})
			},
			attempts: 2,
		},
		{
			name: "429 is retried after Retry-After",
			respond: func(w http.ResponseWriter, _ call, n int) {
				if n == 1 {
					w.Header().Set("Retry-After", "7")
					writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error": "ratelimited"})
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": "C1", "ts": "1.2"})
			},
			attempts: 2, delays: []int64{7000},
		},
		{
			name: "503 is retried, then fails",
			respond: func(w http.ResponseWriter, c call, _ int) {
				http.Error(w, "down for "+c.Header.Get("Authorization"), http.StatusServiceUnavailable)
			},
			code: "HTTP_503", attempts: 3,
		},
		{
			name: "a 401 echoing the token fails for good, redacted",
			respond: func(w http.ResponseWriter, c call, _ int) {
				http.Error(w, "bad token "+c.Header.Get("Authorization"), http.StatusUnauthorized)
			},
			code: "HTTP_401", attempts: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			slack := newStub(t, tc.respond)
			res := runTask(t, slackHandlers(t, slack.URL), connector.JobTypeSlack, map[string]any{"channelId": "C1", "message": "hello"})
			noSecret(t, res, slackToken)
			require.Len(t, slack.received(), tc.attempts)
			if tc.delays != nil {
				require.Equal(t, tc.delays, retryDelays(res))
			}
			if tc.code == "" {
				require.Equal(t, "completed", res.Status)
				require.NotContains(t, res.Visited, "failed")
				require.Equal(t, "1.2", res.Variables["ts"])
				return
			}
			failedWith(t, res, tc.code, tc.attempts)
			if tc.code == "HTTP_401" {
				require.Contains(t, res.Variables["errorMessage"], "bad token Bearer [redacted]")
			}
		})
	}
}
