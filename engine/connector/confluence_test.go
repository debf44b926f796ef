package connector_test

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

const confluenceToken = "atlassian-api-token-xyz"

func confluenceHandlers(t *testing.T, url string) map[string]engine.Handler {
	t.Helper()
	hs, err := connector.Handlers(connector.Config{Confluence: connector.ConfluenceConfig{URL: url, User: "bot@example.com", Token: confluenceToken}})
	require.NoError(t, err)
	return hs
}

// TestConfluenceCreatePage: the page goes to the content API with basic
// auth, in the space, under its parent, with its storage-format body; the
// result links to it.
func TestConfluenceCreatePage(t *testing.T) {
	t.Parallel()
	confluence := newStub(t, func(w http.ResponseWriter, c call, _ int) {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "98765", "type": "page", "title": c.Body["title"],
			"_links": map[string]any{"base": "https://example.atlassian.net/wiki", "webui": "/spaces/PROJECTS/pages/98765/Apollo"},
		})
	})
	out, err := handle(t, confluenceHandlers(t, confluence.URL+"/wiki/")[connector.JobTypeConfluence], map[string]any{
		"space": "PROJECTS", "title": "Apollo - Project Brief", "body": "<p>Kick-off on <strong>Monday</strong>.</p>", "parentId": float64(1234),
	})
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"id": "98765", "title": "Apollo - Project Brief", "url": "https://example.atlassian.net/wiki/spaces/PROJECTS/pages/98765/Apollo",
	}, out)

	calls := confluence.received()
	require.Len(t, calls, 1)
	c := calls[0]
	require.Equal(t, "/wiki/rest/api/content", c.Path)
	require.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("bot@example.com:"+confluenceToken)), c.Header.Get("Authorization"))
	require.Equal(t, map[string]any{
		"type": "page", "title": "Apollo - Project Brief", "space": map[string]any{"key": "PROJECTS"},
		"body":      map[string]any{"storage": map[string]any{"value": "<p>Kick-off on <strong>Monday</strong>.</p>", "representation": "storage"}},
		"ancestors": []any{map[string]any{"id": "1234"}},
	}, c.Body)

	_, err = handle(t, confluenceHandlers(t, confluence.URL)[connector.JobTypeConfluence], map[string]any{"title": "No space"})
	require.ErrorContains(t, err, "parameter space is required")
}

// TestConfluenceFailures: a refused page fails for good with its status
// code and Confluence's reason; neither the token nor the encoded
// credentials show, though the stub echoes them.
func TestConfluenceFailures(t *testing.T) {
	t.Parallel()
	confluence := newStub(t, func(w http.ResponseWriter, c call, _ int) {
		writeJSON(w, http.StatusBadRequest, map[string]any{
			"statusCode": 400, "message": "A page with this title already exists (sent " + c.Header.Get("Authorization") + ")",
		})
	})
	res := runTask(t, confluenceHandlers(t, confluence.URL), connector.JobTypeConfluence, map[string]any{"space": "PROJECTS", "title": "Apollo"})
	failedWith(t, res, "HTTP_400", 1)
	require.Contains(t, res.Variables["errorMessage"], "A page with this title already exists (sent Basic [redacted])")
	noSecret(t, res, confluenceToken)
	noSecret(t, res, base64.StdEncoding.EncodeToString([]byte("bot@example.com:"+confluenceToken)))
}
