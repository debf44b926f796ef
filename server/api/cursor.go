package api

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Page sizes of every list: ?limit= defaults to PageDefault and may not
// exceed PageMax.
const (
	PageDefault = 50
	PageMax     = 500

	TaskPageDefault = PageDefault
	TaskPageMax     = PageMax
)

// listPage is the body of every list response; next is the cursor of the
// following page, absent on the last one.
type listPage[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// newListPage makes the body of a list page; next is the raw key of the
// page's last item (as the store and paginate return it), sent as an opaque
// cursor.
func newListPage[T any](items []T, next string) listPage[T] {
	if items == nil {
		items = []T{}
	}
	return listPage[T]{Items: items, Next: cursorOut(next)}
}

// Cursors are opaque to clients: the key of the last item of a page behind
// a prefix, base64url encoded. A cursor the server did not make is a 400,
// not an empty page.
const cursorPrefix = "wfpp1:"

// maxCursor bounds what ?cursor= may carry; keys are ids and definition keys.
const maxCursor = 1024

func cursorOut(key string) string {
	if key == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + key))
}

// cursorIn reads ?cursor=: the key the previous page ended at, or "" for
// the first page.
func cursorIn(c *fiber.Ctx) (string, error) {
	v := c.Query("cursor")
	if v == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	key, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if err != nil || !ok || key == "" || len(v) > maxCursor {
		return "", BadRequest("query parameter \"cursor\" is not a cursor this server made: pass the \"next\" of the previous page, or leave it out for the first page")
	}
	return key, nil
}

// limitOf reads ?limit=.
func limitOf(c *fiber.Ctx) (int, error) {
	l := c.Query("limit")
	if l == "" {
		return PageDefault, nil
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > PageMax {
		return 0, BadRequest("query parameter \"limit\" is %q: use a number from 1 to %d", l, PageMax)
	}
	return n, nil
}

// paginate returns the items after the one whose key is cursor, at most
// limit, and the cursor of the next page. items must be sorted; after says
// whether an item's key sorts after the cursor, so a cursor whose item is
// gone still pages on.
func paginate[T any](items []T, cursor string, limit int, key func(T) string, after func(k, cursor string) bool) ([]T, string) {
	if cursor != "" {
		i := 0
		for i < len(items) && !after(key(items[i]), cursor) {
			i++
		}
		items = items[i:]
	}
	if len(items) <= limit {
		return items, ""
	}
	return items[:limit], key(items[limit-1])
}

func ascending(k, cursor string) bool  { return k > cursor }
func descending(k, cursor string) bool { return k < cursor }

// onlyParams refuses query parameters a list does not take (400 naming
// them), so a typo or an injection attempt ("assignee[$ne]") is not
// silently ignored.
func onlyParams(c *fiber.Ctx, allowed ...string) error {
	var unknown []string
	for k := range c.Queries() {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return BadRequest("unknown query parameter %s: this list takes %s", strings.Join(unknown, ", "), strings.Join(allowed, ", "))
}
