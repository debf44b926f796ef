package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

// The handlers of the configured connectors, registered as wfpp serve
// does; here Slack's Web API is a local stand-in.
func ExampleHandlers() {
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg map[string]any
		_ = json.NewDecoder(r.Body).Decode(&msg)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": msg["channel"], "ts": "1700000000.000100"})
	}))
	defer slack.Close()

	handlers, err := connector.Handlers(connector.Config{
		Slack: connector.SlackConfig{URL: slack.URL, Token: "xoxb-example"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for typ := range handlers {
		fmt.Println("registered:", typ) // then engine.RegisterHandler(typ, h)
	}
	out, err := handlers[connector.JobTypeSlack].Handle(context.Background(), &engine.Job{
		Key: "instance/notify/1", ElementID: "notify",
		Parameters: map[string]any{"channelId": "C0123", "message": "Found 3 items in progress."},
	})
	fmt.Println(out, err)
	// Output:
	// registered: slack.post-message
	// map[channel:C0123 ok:true ts:1700000000.000100] <nil>
}
