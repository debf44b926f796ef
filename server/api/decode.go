package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gofiber/fiber/v2"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Decode reads c's JSON body into v strictly. An empty body leaves v as is.
func Decode(c *fiber.Ctx, v any) error {
	body := bytes.TrimSpace(c.Request().Body()) // decoded values are copies: no need for Body()'s
	if len(body) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return BadRequest("request body has data after the JSON value: send one JSON object")
		}
		return nil
	}
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return BadRequest("request body is not valid JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		return BadRequest("field %q must be %s, got %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return BadRequest("request body is truncated JSON: send a complete JSON object")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return BadRequest("unknown field %s in the request body", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return BadRequest("request body is not valid JSON: %v", err)
}

func jsonKind(k string) string {
	switch k {
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64", "float64":
		return "a number"
	}
	return k
}
