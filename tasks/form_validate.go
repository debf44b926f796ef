package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// FieldError is one submitted value that does not fit its form field.
type FieldError struct {
	Key     string `json:"key"`
	Label   string `json:"label,omitempty"`
	Message string `json:"message"`
}

// FormError lists every field whose value does not fit the form.
type FormError struct {
	Fields []FieldError
}

func (e *FormError) Error() string {
	msgs := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		msgs[i] = f.Key + ": " + f.Message
	}
	return "the submitted values do not fit the form: " + strings.Join(msgs, "; ")
}

func invalidValues(err error) error {
	fe, ok := errors.AsType[*FormError](err)
	if !ok {
		return err
	}
	return &Error{Status: http.StatusBadRequest, Code: "invalid_form_values", Message: fe.Error(), Details: fe.Fields}
}

// formField is the part of a form-js component that validation reads.
type formField struct {
	Type       string          `json:"type"`
	Key        string          `json:"key"`
	Label      string          `json:"label"`
	Disabled   bool            `json:"disabled"`
	Readonly   json.RawMessage `json:"readonly"` // bool or an expression: only true counts
	Components []formField     `json:"components"`
	Values     []struct {
		Value any `json:"value"`
	} `json:"values"`
	Validate struct {
		Required  bool     `json:"required"`
		Min       *float64 `json:"min"`
		Max       *float64 `json:"max"`
		MinLength *int     `json:"minLength"`
		MaxLength *int     `json:"maxLength"`
		Pattern   string   `json:"pattern"`
	} `json:"validate"`
}

// ValidateValues checks vars against a form-js schema: required fields,
// value types, min/max, minLength/maxLength, pattern and the listed values
// of selects, radios and checklists. Disabled and read-only fields, and
// values the form does not name, are not checked. A nil schema accepts
// everything. The error is a *FormError.
func ValidateValues(schema json.RawMessage, vars map[string]any) error {
	if len(schema) == 0 {
		return nil
	}
	var form formField
	if err := json.Unmarshal(schema, &form); err != nil {
		return fmt.Errorf("the task's form is not a form-js schema: %w", err)
	}
	var fe FormError
	walkFields(form.Components, func(f formField) {
		if msg := checkField(f, vars); msg != "" {
			fe.Fields = append(fe.Fields, FieldError{Key: f.Key, Label: f.Label, Message: msg})
		}
	})
	if len(fe.Fields) > 0 {
		return &fe
	}
	return nil
}

func walkFields(cs []formField, fn func(formField)) {
	for _, c := range cs {
		if c.Key != "" && !c.Disabled && string(c.Readonly) != "true" {
			fn(c)
		}
		walkFields(c.Components, fn)
	}
}

func checkField(f formField, vars map[string]any) string {
	v, present := lookup(vars, f.Key)
	if !present || v == nil || v == "" {
		if f.Validate.Required {
			return "is required"
		}
		return ""
	}
	switch f.Type {
	case "number":
		n, ok := v.(float64)
		if !ok {
			return fmt.Sprintf("must be a number, not %s", kindOf(v))
		}
		if m := f.Validate.Min; m != nil && n < *m {
			return fmt.Sprintf("must be at least %v", *m)
		}
		if m := f.Validate.Max; m != nil && n > *m {
			return fmt.Sprintf("must be at most %v", *m)
		}
	case "checkbox":
		b, ok := v.(bool)
		if !ok {
			return fmt.Sprintf("must be true or false, not %s", kindOf(v))
		}
		if f.Validate.Required && !b {
			return "must be checked"
		}
	case "checklist", "taglist":
		list, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("must be a list, not %s", kindOf(v))
		}
		for _, item := range list {
			if msg := checkListed(f, item); msg != "" {
				return msg
			}
		}
	case "select", "radio":
		return checkListed(f, v)
	case "datetime":
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be a date as text, not %s", kindOf(v))
		}
		if !validDate(s) {
			return fmt.Sprintf("%q is not a date: write it like 2026-12-31 or 2026-12-31T09:00", s)
		}
	case "textfield", "textarea":
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be text, not %s", kindOf(v))
		}
		n := utf8.RuneCountInString(s)
		if m := f.Validate.MinLength; m != nil && n < *m {
			return fmt.Sprintf("must have at least %d characters", *m)
		}
		if m := f.Validate.MaxLength; m != nil && n > *m {
			return fmt.Sprintf("must have at most %d characters", *m)
		}
		if p := f.Validate.Pattern; p != "" {
			re, err := regexp.Compile("^(?:" + p + ")$")
			if err == nil && !re.MatchString(s) {
				return fmt.Sprintf("must match the pattern %s", p)
			}
		}
	}
	return ""
}

// checkListed accepts a value the field lists; a field whose values come
// from a variable (no static list) accepts any.
func checkListed(f formField, v any) string {
	if len(f.Values) == 0 {
		return ""
	}
	if slices.ContainsFunc(f.Values, func(o struct {
		Value any `json:"value"`
	},
	) bool {
		return fmt.Sprint(o.Value) == fmt.Sprint(v)
	}) {
		return ""
	}
	return fmt.Sprintf("%v is not one of the field's values", v)
}

// lookup reads a form key, which may be a dotted path ("customer.name").
func lookup(vars map[string]any, key string) (any, bool) {
	cur := any(vars)
	for part := range strings.SplitSeq(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func validDate(s string) bool {
	for _, layout := range []string{time.DateOnly, time.RFC3339, "2006-01-02T15:04", "2006-01-02T15:04:05", "15:04"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "text"
	case float64, int, int64:
		return "a number"
	case bool:
		return "true/false"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
