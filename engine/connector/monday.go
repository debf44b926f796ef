package connector

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// JobTypeMonday reads the items of a Monday board.
const JobTypeMonday = "monday.get-items"

// mondayPage is how many items one Monday call asks for (the API's most).
const mondayPage = 500

// mondayRetried are the Monday API error codes that go away by themselves.
var mondayRetried = map[string]bool{
	"ComplexityException": true, "COMPLEXITY_BUDGET_EXHAUSTED": true, "RATE_LIMIT_EXCEEDED": true,
	"IP_RATE_LIMIT_EXCEEDED": true, "maxConcurrencyExceeded": true, "INTERNAL_SERVER_ERROR": true,
}

// monday runs monday.get-items through the GraphQL API (POST /v2).
// Parameters: boardId, optional filter {rules: [{column, operator,
// value}]} and limit. Result: {items: [{id, Name, <column title>: <text>,
// ...}]}, in board order.
//
// The filter is applied by the connector, not by Monday: Monday filters by
// column id and compares some column types by label index, while a rule
// names a column by its title and compares the text the board shows. So
// the board is read page by page (500 items each) until limit items match
// or the board ends. A rule's column is a column title, "Name" (the item's
// name) or "id" (the item's id); its operator is eq (the default: the same
// text), neq, contains (case-insensitive) or in (value is a list; any one
// matches). Every rule must hold. A column the board does not have fails
// the task for good, naming the columns it has.
type monday struct{ api api }

func newMonday(c MondayConfig, client *http.Client) *monday {
	token := c.Token.Reveal()
	return &monday{api: api{
		jobType: JobTypeMonday, client: client, base: strings.TrimSuffix(c.URL, "/"),
		authorize: func(r *http.Request) { r.Header.Set("Authorization", token) },
		redactor:  newRedactor(token),
	}}
}

func (m *monday) Handle(ctx context.Context, job *engine.Job) (map[string]any, error) {
	out, err := m.getItems(ctx, job)
	return out, m.api.fail(job, err)
}

const (
	mondayItemFields = `cursor items { id name column_values { id text } }`
	mondayFirstPage  = `query ($board: [ID!], $limit: Int!) { boards(ids: $board) { columns { id title } items_page(limit: $limit) { ` + mondayItemFields + ` } } }`
	mondayNextPage   = `query ($cursor: String!, $limit: Int!) { next_items_page(cursor: $cursor, limit: $limit) { ` + mondayItemFields + ` } }`
)

type mondayItemsPage struct {
	Cursor string `json:"cursor"`
	Items  []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Values []struct {
			ID   string  `json:"id"`
			Text *string `json:"text"`
		} `json:"column_values"`
	} `json:"items"`
}

func (m *monday) getItems(ctx context.Context, job *engine.Job) (map[string]any, error) {
	p := params(job)
	board, err := required(p, "boardId")
	if err != nil {
		return nil, err
	}
	rules, err := parseRules(p["filter"])
	if err != nil {
		return nil, err
	}
	limit := 0 // every matching item
	if raw := text(p, "limit"); raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit < 1 {
			return nil, engine.Permanent(fmt.Errorf("parameter limit is %q: give a positive whole number", raw))
		}
	}

	var first struct {
		Boards []struct {
			Columns []struct{ ID, Title string } `json:"columns"`
			Page    mondayItemsPage              `json:"items_page"`
		} `json:"boards"`
	}
	if err := m.query(ctx, job, mondayFirstPage, map[string]any{"board": []string{board}, "limit": mondayPage}, &first); err != nil {
		return nil, err
	}
	if len(first.Boards) == 0 {
		return nil, engine.Permanent(fmt.Errorf("board %s not found, or the token may not read it", board))
	}
	titles := map[string]string{} // column id -> title
	known := map[string]bool{"id": true, "Name": true}
	for _, c := range first.Boards[0].Columns {
		titles[c.ID] = c.Title
		known[c.Title] = true
	}
	for _, r := range rules {
		if !known[r.column] {
			return nil, engine.Permanent(fmt.Errorf("filter: board %s has no column titled %q; its columns are %s", board, r.column, columnList(first.Boards[0].Columns)))
		}
	}

	items := []any{}
	page := first.Boards[0].Page
	for {
		for _, it := range page.Items {
			item := map[string]any{"id": it.ID, "Name": it.Name}
			if title := titles["name"]; title != "" {
				item[title] = it.Name // the name column, whatever its title
			}
			for _, v := range it.Values {
				if title := titles[v.ID]; title != "" {
					item[title] = derefOr(v.Text)
				}
			}
			if matches(item, rules) {
				items = append(items, item)
				if limit > 0 && len(items) == limit {
					return map[string]any{"items": items}, nil
				}
			}
		}
		if page.Cursor == "" {
			return map[string]any{"items": items}, nil
		}
		var next struct {
			Page mondayItemsPage `json:"next_items_page"`
		}
		if err := m.query(ctx, job, mondayNextPage, map[string]any{"cursor": page.Cursor, "limit": mondayPage}, &next); err != nil {
			return nil, err
		}
		page = next.Page
	}
}

// query runs a GraphQL query. Monday reports most failures with status 200
// and errors in the answer: a rate or complexity limit is retried (after
// the wait Monday asks for), any other fails the task for good; both are
// coded MONDAY_<Monday's error code>.
func (m *monday) query(ctx context.Context, job *engine.Job, query string, vars map[string]any, data any) error {
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code           string  `json:"code"`
				RetryInSeconds float64 `json:"retry_in_seconds"`
			} `json:"extensions"`
		} `json:"errors"`
		ErrorCode    string `json:"error_code"`
		ErrorMessage string `json:"error_message"`
	}
	if err := m.api.post(ctx, job, "/v2", map[string]any{"query": query, "variables": vars}, &answer); err != nil {
		return err
	}
	code, msg, wait := answer.ErrorCode, answer.ErrorMessage, 0.0
	if len(answer.Errors) > 0 {
		e := answer.Errors[0]
		code, msg, wait = cmp.Or(e.Extensions.Code, code), e.Message, e.Extensions.RetryInSeconds
	}
	if code != "" || msg != "" {
		code = cmp.Or(code, "GRAPHQL_ERROR")
		err := &engine.CodedError{Code: "MONDAY_" + code, Err: fmt.Errorf("the Monday API answered %s: %s", code, msg)}
		switch {
		case !mondayRetried[code]:
			return engine.Permanent(err)
		case wait > 0:
			return engine.RetryAfter(time.Duration(wait*float64(time.Second)), err)
		}
		return err
	}
	if err := json.Unmarshal(answer.Data, data); err != nil {
		return engine.Permanent(fmt.Errorf("the Monday API answered data the connector does not understand: %w", err))
	}
	return nil
}

func columnList(cols []struct{ ID, Title string }) string {
	titles := []string{`"id"`}
	for _, c := range cols {
		titles = append(titles, fmt.Sprintf("%q", c.Title))
	}
	return strings.Join(titles, ", ")
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
