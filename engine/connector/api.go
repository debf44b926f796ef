package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/workflowpp/wfpp/engine"
)

// Bounds on what a connector reads of an answer.
const (
	answerLimit  = 10 << 20 // bytes of an answer read at most
	excerptLimit = 300      // bytes of an answer a failure quotes
)

// api is how a connector calls its service: JSON over HTTP, with the
// connector's credentials, and failures that tell the engine whether to
// retry and hide the credentials.
type api struct {
	jobType   string
	client    *http.Client
	base      string // URL the paths of post are relative to
	authorize func(*http.Request)
	redactor  redactor
}

// post sends body as JSON to base+path and decodes the answer into out. A
// network error or a timeout fails the attempt (it is retried); a status
// of 400 or more fails it as engine.StatusFailure says; an answer that is
// not JSON fails it for good (the connector's URL is most likely wrong).
func (a *api) post(ctx context.Context, job *engine.Job, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return engine.Permanent(fmt.Errorf("encoding the request: %w", err))
	}
	url := a.base + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return engine.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Accept", "application/json")
	a.authorize(req)
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, answerLimit))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", url, err)
	}
	if resp.StatusCode >= 400 {
		return engine.StatusFailure(resp.StatusCode, resp.Header, job.RetryOnStatus,
			fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, excerpt(answer)))
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return engine.Permanent(fmt.Errorf("%s answered %d with no JSON the connector understands (%s): check the connector's url", url, resp.StatusCode, excerpt(answer)))
	}
	return nil
}

// fail says which task failed, and hides the credentials.
func (a *api) fail(job *engine.Job, err error) error {
	if err == nil {
		return nil
	}
	return a.redactor.redact(fmt.Errorf("%s task %q: %w", a.jobType, job.ElementID, err))
}

// excerpt is the start of an answer, on one line, for an error message.
func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) <= excerptLimit {
		return s
	}
	cut := excerptLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
