package connectortest

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Board is a Monday board: its columns by title (besides the name) and
// its items, whose Values are keyed by column title.
type Board struct {
	ID      string
	Columns []string
	Items   []Item
}

// Item is an item of a Board.
type Item struct {
	ID, Name string
	Values   map[string]string
}

// Monday stands in for the GraphQL API's boards items_page and
// next_items_page queries, PageSize items a page (all when 0). A board
// it does not hold answers as Monday does: no boards.
type Monday struct {
	URL      string
	PageSize int
	rec      recorder // the queries' variables
	boards   map[string]Board
}

// NewMonday starts a Monday stub holding boards.
func NewMonday(t testing.TB, boards ...Board) *Monday {
	m := &Monday{boards: map[string]Board{}}
	for _, b := range boards {
		m.boards[b.ID] = b
	}
	m.URL = serve(t, "/v2", MondayToken, func(w http.ResponseWriter, body map[string]any) {
		query, _ := body["query"].(string)
		vars, _ := body["variables"].(map[string]any)
		m.rec.add(vars)
		switch {
		case strings.Contains(query, "next_items_page"):
			cursor, _ := vars["cursor"].(string)
			board, offset, _ := strings.Cut(cursor, ":")
			from, _ := strconv.Atoi(offset)
			writeJSON(w, map[string]any{"data": map[string]any{"next_items_page": m.page(m.boards[board], from)}})
		case strings.Contains(query, "boards("):
			ids, _ := vars["board"].([]any)
			var out []any
			for _, id := range ids {
				if b, ok := m.boards[id.(string)]; ok {
					cols := []any{map[string]any{"id": "name", "title": "Name"}}
					for i, title := range b.Columns {
						cols = append(cols, map[string]any{"id": columnID(i), "title": title})
					}
					out = append(out, map[string]any{"columns": cols, "items_page": m.page(b, 0)})
				}
			}
			writeJSON(w, map[string]any{"data": map[string]any{"boards": out}})
		default:
			writeJSON(w, map[string]any{"errors": []any{map[string]any{"message": "unknown query", "extensions": map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}}}})
		}
	})
	return m
}

// Queries are the variables of the queries answered, in order.
func (m *Monday) Queries() []map[string]any { return m.rec.all() }

// page is b's items from index from on, with the cursor of the next page.
func (m *Monday) page(b Board, from int) map[string]any {
	to := len(b.Items)
	if m.PageSize > 0 {
		to = min(to, from+m.PageSize)
	}
	items := []any{}
	for _, it := range b.Items[min(from, to):to] {
		values := []any{}
		for i, title := range b.Columns {
			values = append(values, map[string]any{"id": columnID(i), "text": it.Values[title]})
		}
		items = append(items, map[string]any{"id": it.ID, "name": it.Name, "column_values": values})
	}
	var cursor any
	if to < len(b.Items) {
		cursor = b.ID + ":" + strconv.Itoa(to)
	}
	return map[string]any{"cursor": cursor, "items": items}
}

func columnID(i int) string { return "col_" + strconv.Itoa(i) }
