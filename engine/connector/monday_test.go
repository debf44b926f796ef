package connector_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

const mondayToken = "monday-token-abcdef"

func mondayHandlers(t *testing.T, url string) map[string]engine.Handler {
	t.Helper()
	hs, err := connector.Handlers(connector.Config{Monday: connector.MondayConfig{URL: url, Token: mondayToken}})
	require.NoError(t, err)
	return hs
}

// mondayItem is an item as the GraphQL API returns it on the stub's board,
// whose columns are name "Project", status "Status" and item_id "Item ID".
func mondayItem(id, name, status string) map[string]any {
	return map[string]any{"id": id, "name": name, "column_values": []any{
		map[string]any{"id": "status", "text": status},
		map[string]any{"id": "item_id", "text": id},
		map[string]any{"id": "notes", "text": nil},
	}}
}

// mondayBoard answers the first page (two items and a cursor) and the next
// (two more, the last page), as Monday's items_page and next_items_page do.
func mondayBoard(w http.ResponseWriter, c call, _ int) {
	query, _ := c.Body["query"].(string)
	switch {
	case strings.Contains(query, "boards("):
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"boards": []any{map[string]any{
			"columns": []any{
				map[string]any{"id": "name", "title": "Project"},
				map[string]any{"id": "status", "title": "Status"},
				map[string]any{"id": "item_id", "title": "Item ID"},
				map[string]any{"id": "notes", "title": "Notes"},
			},
			"items_page": map[string]any{"cursor": "page-2", "items": []any{
				mondayItem("101", "Apollo", "In Progress"), mondayItem("102", "Borealis", "Done"),
			}},
		}}}})
	case strings.Contains(query, "next_items_page"):
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"next_items_page": map[string]any{
			"cursor": nil, "items": []any{mondayItem("103", "Cassini", "In progress"), mondayItem("104", "Dawn", "Approved")},
		}}})
	default:
		http.Error(w, "unknown query", http.StatusBadRequest)
	}
}

// TestMondayGetItems: the board is read page by page with the token, the
// filter rules hold on column titles, and each item reads as
// items[0].Name and items[0].Status do in the seeds' examples.
func TestMondayGetItems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   []string // item ids
		calls  int
	}{
		{"every item", map[string]any{"boardId": "42"}, []string{"101", "102", "103", "104"}, 2},
		{"eq on a status", map[string]any{"boardId": 42, "filter": map[string]any{"rules": []any{
			map[string]any{"column": "Status", "operator": "eq", "value": "In Progress"},
		}}}, []string{"101"}, 2},
		{"contains ignores case", map[string]any{"boardId": "42", "filter": map[string]any{"rules": []any{
			map[string]any{"column": "Status", "operator": "contains", "value": "progress"},
		}}}, []string{"101", "103"}, 2},
		{"a number matches the Item ID column", map[string]any{"boardId": "42", "filter": map[string]any{"rules": []any{
			map[string]any{"column": "Item ID", "operator": "eq", "value": float64(104)},
		}}}, []string{"104"}, 2},
		{"neq and in, all rules hold", map[string]any{"boardId": "42", "filter": map[string]any{"rules": []any{
			map[string]any{"column": "Status", "operator": "neq", "value": "Done"},
			map[string]any{"column": "Name", "operator": "in", "value": []any{"Apollo", "Dawn", "Borealis"}},
		}}}, []string{"101", "104"}, 2},
		{"limit stops the scan", map[string]any{"boardId": "42", "limit": float64(2)}, []string{"101", "102"}, 1},
		{"a rendered limit is text", map[string]any{"boardId": "42", "limit": "3"}, []string{"101", "102", "103"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			monday := newStub(t, mondayBoard)
			out, err := handle(t, mondayHandlers(t, monday.URL)[connector.JobTypeMonday], tc.params)
			require.NoError(t, err)
			items := out["items"].([]any)
			var ids []string
			for _, it := range items {
				ids = append(ids, it.(map[string]any)["id"].(string))
			}
			require.Equal(t, tc.want, ids)

			calls := monday.received()
			require.Len(t, calls, tc.calls)
			for _, c := range calls {
				require.Equal(t, "/v2", c.Path)
				require.Equal(t, mondayToken, c.Header.Get("Authorization"), "Monday takes the bare token")
			}
			vars := calls[0].Body["variables"].(map[string]any)
			require.Equal(t, []any{"42"}, vars["board"])
			if tc.calls > 1 {
				require.Equal(t, "page-2", calls[1].Body["variables"].(map[string]any)["cursor"])
			}
		})
	}

	monday := newStub(t, mondayBoard)
	out, err := handle(t, mondayHandlers(t, monday.URL)[connector.JobTypeMonday], map[string]any{"boardId": "42", "limit": float64(1)})
	require.NoError(t, err)
	require.Equal(t, []any{map[string]any{
		"id": "101", "Name": "Apollo", "Project": "Apollo", "Status": "In Progress", "Item ID": "101", "Notes": "",
	}}, out["items"])
}

// TestMondayFailures: a filter the board cannot answer and Monday's error
// answers end as the engine's outcomes, without the token.
func TestMondayFailures(t *testing.T) {
	t.Parallel()
	monday := newStub(t, mondayBoard)
	_, err := handle(t, mondayHandlers(t, monday.URL)[connector.JobTypeMonday], map[string]any{"boardId": "42", "filter": map[string]any{"rules": []any{
		map[string]any{"column": "Owner", "value": "me"},
	}}})
	require.ErrorContains(t, err, `board 42 has no column titled "Owner"; its columns are "id", "Project", "Status", "Item ID", "Notes"`)
	_, err = handle(t, mondayHandlers(t, monday.URL)[connector.JobTypeMonday], map[string]any{"boardId": "42", "filter": map[string]any{"rules": []any{
		map[string]any{"column": "Status", "operator": "like", "value": "x"},
	}}})
	require.ErrorContains(t, err, `parameter filter: rule 1: operator "like": use eq, neq, contains or in`)
	_, err = handle(t, mondayHandlers(t, monday.URL)[connector.JobTypeMonday], map[string]any{"boardId": "42", "limit": "some"})
	require.ErrorContains(t, err, `parameter limit is "some": give a positive whole number`)
	require.Len(t, monday.received(), 1, "a bad operator or limit calls nothing")

	for _, tc := range []struct {
		name     string
		respond  func(w http.ResponseWriter, c call, n int)
		code     string
		attempts int
		delays   []int64
	}{
		{
			name: "a complexity limit is retried after the wait Monday asks for",
			respond: func(w http.ResponseWriter, c call, n int) {
				if n == 1 {
					writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{
						"message": "Complexity budget exhausted", "extensions": map[string]any{"code": "COMPLEXITY_BUDGET_EXHAUSTED", "retry_in_seconds": 12},
					}}})
					return
				}
				mondayBoard(w, c, n)
			},
			attempts: 3, delays: []int64{12000},
		},
		{
			name: "an unknown board fails for good",
			respond: func(w http.ResponseWriter, _ call, _ int) {
				writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"boards": []any{}}})
			},
			code: "", attempts: 1,
		},
		{
			name: "an invalid token fails for good, redacted",
			respond: func(w http.ResponseWriter, c call, _ int) {
				writeJSON(w, http.StatusOK, map[string]any{"error_code": "UserUnauthorizedException", "error_message": "token " + c.Header.Get("Authorization") + " is not valid"})
			},
			code: "MONDAY_UserUnauthorizedException", attempts: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			monday := newStub(t, tc.respond)
			res := runTask(t, mondayHandlers(t, monday.URL), connector.JobTypeMonday, map[string]any{"boardId": "42"})
			noSecret(t, res, mondayToken)
			require.Len(t, monday.received(), tc.attempts)
			if tc.delays != nil {
				require.Equal(t, tc.delays, retryDelays(res))
				require.Equal(t, "completed", res.Status)
				require.Len(t, res.Variables["items"], 4)
				return
			}
			failedWith(t, res, tc.code, tc.attempts)
			if tc.code == "" {
				require.Contains(t, res.Variables["errorMessage"], "board 42 not found, or the token may not read it")
			}
		})
	}
}
