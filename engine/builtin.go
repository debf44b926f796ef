package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// Job types with a built-in handler.
const (
	JobTypeEcho = "core.echo" // returns its parameters as its result
	JobTypeHTTP = "http"      // calls an HTTP endpoint
)

// scriptJobType is what script tasks show as their job type.
const scriptJobType = "script"

func registerBuiltins(r *handlerRegistry) {
	r.m[JobTypeEcho] = HandlerFunc(echo)
	r.m[JobTypeHTTP] = NewHTTPHandler(nil)
	r.m[model.ValidateJobType] = &validationHandler{}
}

// NewHTTPHandler returns a handler for the http job type that calls
// through client (a client of its own when nil). The engine registers one;
// package connector wraps one to add named connections.
func NewHTTPHandler(client *http.Client) Handler {
	if client == nil {
		client = &http.Client{}
	}
	return &httpHandler{client: client}
}

func echo(_ context.Context, job *Job) (map[string]any, error) {
	out := make(map[string]any, len(job.Parameters))
	for k, v := range job.Parameters {
		out[k] = v
	}
	return out, nil
}

// httpHandler runs `http` service tasks. Its settings come from the task's
// parameters (JSON DAG) or else its variables (BPMN input mappings): url (required), method
// (GET), headers (object), body (any JSON value), timeout (Go duration,
// default 10s), resultVariable (default "response"). The result is
// {status, headers, body}. A network error fails the attempt; a status of
// 400 or more fails it as StatusFailure says (429 and 500–504 retry unless
// the task's RetryOnStatus lists others, after Retry-After when the answer
// gives one; failures are coded HTTP_<status>).
type httpHandler struct {
	client *http.Client
}

const httpTimeoutDefault = 10 * time.Second

func (h *httpHandler) Handle(ctx context.Context, job *Job) (map[string]any, error) {
	p := job.Parameters
	if len(p) == 0 {
		p = job.Variables
	}
	url, _ := p["url"].(string)
	if url == "" {
		return nil, Permanent(fmt.Errorf("http task %q: parameter url is required", job.ElementID))
	}
	method := strings.ToUpper(stringParam(p, "method", http.MethodGet))
	timeout := httpTimeoutDefault
	if s := stringParam(p, "timeout", ""); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, Permanent(fmt.Errorf("http task %q: timeout %q: %w", job.ElementID, s, err))
		}
		timeout = d
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if b, ok := p["body"]; ok {
		data, err := json.Marshal(b)
		if err != nil {
			return nil, Permanent(fmt.Errorf("http task %q: body: %w", job.ElementID, err))
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, Permanent(fmt.Errorf("http task %q: %w", job.ElementID, err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Idempotency-Key", job.Key)
	if hs, ok := p["headers"].(map[string]any); ok {
		for k, v := range hs {
			req.Header.Set(k, fmt.Sprint(v))
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("http task %q: %w", job.ElementID, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return nil, fmt.Errorf("http task %q: reading response: %w", job.ElementID, err)
	}
	var decoded any = string(data)
	if json.Valid(data) && len(data) > 0 {
		_ = json.Unmarshal(data, &decoded)
	}
	headers := map[string]any{}
	for k := range resp.Header {
		headers[k] = resp.Header.Get(k)
	}
	result := map[string]any{"status": float64(resp.StatusCode), "headers": headers, "body": decoded}
	if code := resp.StatusCode; code >= 400 {
		return nil, StatusFailure(code, resp.Header, job.RetryOnStatus, fmt.Errorf("http task %q: %s answered %d", job.ElementID, url, code))
	}
	return map[string]any{stringParam(p, "resultVariable", "response"): result}, nil
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func stringParam(p map[string]any, key, def string) string {
	if s, ok := p[key].(string); ok && s != "" {
		return s
	}
	return def
}
