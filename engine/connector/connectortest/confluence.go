package connectortest

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"testing"
)

// Confluence stands in for the REST API's content creation.
type Confluence struct {
	URL string
	rec recorder
}

// NewConfluence starts a Confluence stub.
func NewConfluence(t testing.TB) *Confluence {
	c := &Confluence{}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(ConfluenceUser+":"+ConfluenceToken))
	c.URL = serve(t, "/wiki/rest/api/content", auth, func(w http.ResponseWriter, body map[string]any) {
		c.rec.add(body)
		id := strconv.Itoa(10000 + len(c.rec.all()))
		writeJSON(w, map[string]any{
			"id": id, "type": "page", "title": body["title"],
			"_links": map[string]any{"base": c.URL + "/wiki", "webui": "/pages/" + id},
		})
	})
	return c
}

// Pages are the content bodies accepted, in order.
func (c *Confluence) Pages() []map[string]any { return c.rec.all() }
