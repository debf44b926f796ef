package connectortest

import (
	"net/http"
	"strconv"
	"testing"
)

// Slack stands in for the Web API's chat.postMessage. Channels in
// Unknown answer {"ok": false, "error": "channel_not_found"}.
type Slack struct {
	URL     string
	Unknown map[string]bool
	rec     recorder
}

// NewSlack starts a Slack stub.
func NewSlack(t testing.TB) *Slack {
	s := &Slack{Unknown: map[string]bool{}}
	s.URL = serve(t, "/chat.postMessage", "Bearer "+SlackToken, func(w http.ResponseWriter, body map[string]any) {
		channel, _ := body["channel"].(string)
		if s.Unknown[channel] {
			writeJSON(w, map[string]any{"ok": false, "error": "channel_not_found"})
			return
		}
		s.rec.add(body)
		writeJSON(w, map[string]any{"ok": true, "channel": channel, "ts": "1700000000." + strconv.Itoa(100000+len(s.rec.all()))})
	})
	return s
}

// Messages are the chat.postMessage bodies accepted, in order.
func (s *Slack) Messages() []map[string]any { return s.rec.all() }
