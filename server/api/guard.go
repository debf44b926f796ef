package api

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// GuardKeys rejects any $-prefixed key in the query string or in a JSON
// request body (filters, variables): such keys are operators to a document
// store, never data or filters of ours. Deployed sources are exempt.
func GuardKeys(c *fiber.Ctx) error {
	var bad string
	c.Context().QueryArgs().VisitAll(func(k, _ []byte) {
		if bad == "" && bytes.HasPrefix(k, []byte("$")) {
			bad = string(k)
		}
	})
	if bad != "" {
		return BadRequest("query parameter %q starts with $: operator keys are not accepted", bad)
	}
	if c.Method() == fiber.MethodPost && sourceRoutes[strings.TrimSuffix(c.Path(), "/")] {
		return c.Next() // a definition's source may carry "$schema"; the parsers check it
	}
	body := c.Request().Body() // read only: Body() would copy it (Immutable)
	// Bodies are decoded as JSON whatever their Content-Type says, so every
	// body is checked; the cheap test skips those without a "$ key.
	if !bytes.Contains(body, []byte(`"$`)) {
		return c.Next()
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return c.Next() // the handler reports the syntax error
	}
	if path := dollarKey(v, ""); path != "" {
		return BadRequest("key %q in the request body starts with $: operator keys are not accepted", path)
	}
	return c.Next()
}

// sourceRoutes take a definition's source as their body.
var sourceRoutes = map[string]bool{"/api/v1/definitions": true, "/api/v1/definitions/validate": true}

// dollarKey returns the path of the first $-prefixed object key in v.
func dollarKey(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if strings.HasPrefix(k, "$") {
				return p
			}
			if found := dollarKey(x, p); found != "" {
				return found
			}
		}
	case []any:
		for _, x := range v {
			if found := dollarKey(x, path); found != "" {
				return found
			}
		}
	}
	return ""
}
