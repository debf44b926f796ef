package connector

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/workflowpp/wfpp/engine"
)

// JobTypeSlack posts a Slack message.
const JobTypeSlack = "slack.post-message"

// slackRetried are the errors of a Slack answer {"ok": false} that go away
// by themselves; any other fails the task for good.
var slackRetried = map[string]bool{
	"ratelimited": true, "internal_error": true, "fatal_error": true,
	"service_unavailable": true, "request_timeout": true,
}

// slack runs slack.post-message through the Web API's chat.postMessage.
// Parameters: channelId (or channel), message (or text), optional blocks
// (Block Kit, any JSON) and threadTs. Result: {ok, channel, ts}.
type slack struct{ api api }

func newSlack(c SlackConfig, client *http.Client) *slack {
	token := c.Token.Reveal()
	return &slack{api: api{
		jobType: JobTypeSlack, client: client, base: strings.TrimSuffix(c.URL, "/"),
		authorize: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) },
		redactor:  newRedactor(token),
	}}
}

func (s *slack) Handle(ctx context.Context, job *engine.Job) (map[string]any, error) {
	out, err := s.postMessage(ctx, job)
	return out, s.api.fail(job, err)
}

func (s *slack) postMessage(ctx context.Context, job *engine.Job) (map[string]any, error) {
	p := params(job)
	channel, err := required(p, "channelId", "channel")
	if err != nil {
		return nil, err
	}
	req := map[string]any{"channel": channel}
	if msg := text(p, "message", "text"); msg != "" {
		req["text"] = msg
	}
	if blocks, ok := p["blocks"]; ok && blocks != nil {
		req["blocks"] = blocks
	}
	if ts := text(p, "threadTs"); ts != "" {
		req["thread_ts"] = ts
	}
	if req["text"] == nil && req["blocks"] == nil {
		return nil, engine.Permanent(fmt.Errorf("parameter message (or text) or blocks is required"))
	}
	var answer struct {
		OK      bool   `json:"ok"`
		Error   string `json:"error"`
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	}
	if err := s.api.post(ctx, job, "/chat.postMessage", req, &answer); err != nil {
		return nil, err
	}
	if !answer.OK {
		// Slack answers 200 with {"ok": false, "error": "..."} for failures.
		code := cmp.Or(answer.Error, "unknown_error")
		err := &engine.CodedError{
			Code: "SLACK_" + strings.ToUpper(code),
			Err:  fmt.Errorf("the Slack API answered error %q for channel %q", code, channel),
		}
		if slackRetried[code] {
			return nil, err
		}
		return nil, engine.Permanent(err)
	}
	return map[string]any{"ok": true, "channel": answer.Channel, "ts": answer.TS}, nil
}
