package connector

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/workflowpp/wfpp/engine"
)

// JobTypeConfluence creates a Confluence page.
const JobTypeConfluence = "confluence.create-page"

// confluence runs confluence.create-page through the REST API (POST
// /wiki/rest/api/content, basic auth with the account and its API token).
// Parameters: space (key), title, optional body (storage format, the XHTML
// Confluence stores) and parentId. Result: {id, title, url}.
//
// Confluence refuses a second page with the same title in a space (400,
// for good): a retry after a call that created the page but timed out
// fails that way.
type confluence struct {
	api  api
	site string
}

func newConfluence(c ConfluenceConfig, client *http.Client) *confluence {
	// The site may be given with the /wiki the API path adds.
	site := strings.TrimSuffix(strings.TrimSuffix(c.URL, "/"), "/wiki")
	credentials := base64.StdEncoding.EncodeToString([]byte(c.User + ":" + c.Token.Reveal()))
	return &confluence{site: site, api: api{
		jobType: JobTypeConfluence, client: client, base: site + "/wiki/rest/api",
		authorize: func(r *http.Request) { r.Header.Set("Authorization", "Basic "+credentials) },
		redactor:  newRedactor(c.Token.Reveal(), credentials),
	}}
}

func (c *confluence) Handle(ctx context.Context, job *engine.Job) (map[string]any, error) {
	out, err := c.createPage(ctx, job)
	return out, c.api.fail(job, err)
}

func (c *confluence) createPage(ctx context.Context, job *engine.Job) (map[string]any, error) {
	p := params(job)
	space, err := required(p, "space")
	if err != nil {
		return nil, err
	}
	title, err := required(p, "title")
	if err != nil {
		return nil, err
	}
	req := map[string]any{
		"type": "page", "title": title, "space": map[string]any{"key": space},
		"body": map[string]any{"storage": map[string]any{"value": text(p, "body"), "representation": "storage"}},
	}
	if parent := text(p, "parentId"); parent != "" {
		req["ancestors"] = []any{map[string]any{"id": parent}}
	}
	var page struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Links struct {
			Base  string `json:"base"`
			WebUI string `json:"webui"`
		} `json:"_links"`
	}
	if err := c.api.post(ctx, job, "/content", req, &page); err != nil {
		return nil, err
	}
	base := page.Links.Base
	if base == "" {
		base = c.site + "/wiki"
	}
	url := ""
	if page.Links.WebUI != "" {
		url = base + page.Links.WebUI
	}
	return map[string]any{"id": page.ID, "title": page.Title, "url": url}, nil
}
