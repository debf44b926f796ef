package api

import (
	"encoding/json"
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// jsonSlack is what a request body may carry beyond the instance's variable
// cap: the other fields of the body, and the quotes and escapes of JSON.
const jsonSlack = 64 << 10

// CapVariables guards the routes whose JSON body carries variables: a body
// larger than the instance's variable cap plus jsonSlack could only be
// refused after decoding, and decoding a large body costs several times its
// size, so it is refused before, as 413 naming its largest variable.
func (s *Service) CapVariables(c *fiber.Ctx) error {
	perVariable, perInstance := s.eng.VariableLimits()
	limit := perInstance + jsonSlack
	body := c.Request().Body()
	if len(body) <= limit {
		return c.Next()
	}
	e := &Error{
		Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large",
		Message: sprintf("request body is %d bytes, more than the %d a request with variables may have (the instance's variable limit of %d and %d for the rest): keep large data outside the instance (a URL or a key) and store a reference",
			len(body), limit, perInstance, jsonSlack),
	}
	if name, n := largestVariable(body); name != "" {
		e.Message = sprintf("variable %q is about %d bytes, the limit is %d; %s", name, n, perVariable, e.Message)
		e.Details = []map[string]any{{"variable": name, "bytes": n, "limit": perVariable, "bodyBytes": len(body), "bodyLimit": limit}}
	}
	return e
}

// largestVariable finds the largest member of the body's top-level
// "variables" object and its size as raw JSON, scanning the body in place:
// it decodes only keys. "" when the body has no such object.
func largestVariable(body []byte) (string, int) {
	name, most := "", -1
	eachMember(body, func(key string, val []byte) {
		if key != "variables" {
			return
		}
		eachMember(val, func(k string, v []byte) {
			if len(v) > most {
				name, most = k, len(v)
			}
		})
	})
	return name, most
}

// eachMember calls f with each member of the JSON object b, its key decoded
// and its value raw; it stops at the first byte that does not fit.
func eachMember(b []byte, f func(key string, val []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] == '"'; {
		end := skipValue(b, i)
		var key string
		if end < 0 || json.Unmarshal(b[i:end], &key) != nil {
			return
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		start := skipSpace(b, i+1)
		end = skipValue(b, start)
		if end < 0 {
			return
		}
		f(key, b[start:end])
		if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}
