package connector

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine"
)

// httpConnections runs http tasks. A task whose connection parameter names
// a configured Connection calls through it: its url is a path relative to
// the connection's URL, and the connection adds its headers (the task's
// own headers win) and its credentials (they win over the task's). Every
// other task is the engine's http handler's, unchanged; so is what both
// do with the answer (retries, HTTP_<status> codes, the result).
type httpConnections struct {
	next     engine.Handler
	conns    map[string]Connection
	redactor redactor
}

func newHTTPConnections(conns map[string]Connection, next engine.Handler) *httpConnections {
	var secrets []string
	for _, cn := range conns {
		secrets = append(secrets, cn.Token.Reveal(), cn.Password.Reveal(), cn.basic())
		for _, v := range cn.Headers {
			secrets = append(secrets, v.Reveal())
		}
	}
	return &httpConnections{next: next, conns: conns, redactor: newRedactor(secrets...)}
}

func (h *httpConnections) Handle(ctx context.Context, job *engine.Job) (map[string]any, error) {
	p := params(job)
	name := text(p, "connection")
	if name == "" {
		return h.next.Handle(ctx, job)
	}
	cn, ok := h.conns[name]
	if !ok {
		return nil, engine.Permanent(fmt.Errorf("http task %q: no connection %q is configured (configured: %s)",
			job.ElementID, name, strings.Join(slices.Sorted(maps.Keys(h.conns)), ", ")))
	}
	target, err := cn.resolve(text(p, "url"))
	if err != nil {
		return nil, engine.Permanent(fmt.Errorf("http task %q: connection %q: %w", job.ElementID, name, err))
	}
	call := maps.Clone(p)
	delete(call, "connection")
	call["url"] = target
	call["headers"] = cn.headers(p["headers"])
	j := *job
	j.Parameters = call
	out, err := h.next.Handle(ctx, &j)
	return out, h.redactor.redact(err)
}

// resolve turns a task's url into one under the connection's URL. An
// absolute url is refused: the connection's credentials would go with it
// to another server.
func (cn Connection) resolve(rel string) (string, error) {
	u, err := url.Parse(rel)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "", fmt.Errorf("url %q: write a path relative to the connection's URL (%s)", rel, cn.URL)
	}
	if rel == "" {
		return cn.URL, nil
	}
	return strings.TrimSuffix(cn.URL, "/") + "/" + strings.TrimPrefix(rel, "/"), nil
}

// headers are the connection's headers, then the task's, then the credentials.
func (cn Connection) headers(task any) map[string]any {
	out := map[string]any{}
	for k, v := range cn.Headers {
		out[textproto.CanonicalMIMEHeaderKey(k)] = v.Reveal()
	}
	if hs, ok := task.(map[string]any); ok {
		for k, v := range hs {
			out[textproto.CanonicalMIMEHeaderKey(k)] = v
		}
	}
	switch {
	case cn.Token != "":
		out["Authorization"] = "Bearer " + cn.Token.Reveal()
	case cn.User != "":
		out["Authorization"] = "Basic " + cn.basic()
	}
	return out
}

// basic is the connection's basic-auth credentials, encoded ("" without).
func (cn Connection) basic() string {
	if cn.User == "" {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(cn.User + ":" + cn.Password.Reveal()))
}
