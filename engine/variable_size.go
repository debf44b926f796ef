package engine

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// ErrTooLarge is what VariableTooLargeError wraps.
var ErrTooLarge = errors.New("too large")

// VariableTooLargeError refuses a command whose variable, or whose
// instance's variables together, would be larger than the engine's limit
// (Config.MaxVariableBytes, Config.MaxInstanceVariableBytes).
type VariableTooLargeError struct {
	Variable string // the largest variable of the command
	Bytes    int    // its size, or the instance's total, as JSON
	Limit    int
	Instance bool // the instance's total is over, not one variable
}

func (e *VariableTooLargeError) Error() string {
	if e.Instance {
		return fmt.Sprintf("variables of the instance would be %d bytes with %q, the limit is %d: keep large data outside the instance (a URL or a key) and store a reference",
			e.Bytes, e.Variable, e.Limit)
	}
	return fmt.Sprintf("variable %q is %d bytes, the limit is %d: keep large data outside the instance (a URL or a key) and store a reference",
		e.Variable, e.Bytes, e.Limit)
}

func (e *VariableTooLargeError) Unwrap() error { return ErrTooLarge }

// incoming returns the variables a command brings from a caller.
func (c *command) incoming() map[string]any {
	switch {
	case c.start != nil:
		return c.start.snap.Variables
	case c.task != nil && c.task.complete != nil:
		return c.task.complete.Variables
	}
	return c.vars
}

// checkVariables refuses a variable over MaxVariableBytes.
func (e *Engine) checkVariables(vars map[string]any) error {
	for name, v := range vars {
		if n := jsonSize(v); n > e.cfg.MaxVariableBytes {
			return &VariableTooLargeError{Variable: name, Bytes: n, Limit: e.cfg.MaxVariableBytes}
		}
	}
	return nil
}

// checkTotal refuses incoming variables that would take the instance's
// variables past MaxInstanceVariableBytes.
func (x *instance) checkTotal(in map[string]any) error {
	if len(in) == 0 {
		return nil
	}
	total, largest, most := 0, "", -1
	for name, v := range x.vars {
		if _, replaced := in[name]; !replaced {
			total += len(name) + 4 + jsonSize(v)
		}
	}
	for name, v := range in {
		n := jsonSize(v)
		total += len(name) + 4 + n
		if n > most {
			largest, most = name, n
		}
	}
	if limit := x.e.cfg.MaxInstanceVariableBytes; total > limit {
		return &VariableTooLargeError{Variable: largest, Bytes: total, Limit: limit, Instance: true}
	}
	return nil
}

// jsonSize is about how many bytes v takes as JSON, without encoding it:
// strings count their bytes (escapes aside), numbers their digits.
func jsonSize(v any) int {
	switch v := v.(type) {
	case nil:
		return 4
	case string:
		return len(v) + 2
	case bool:
		return 5
	case int:
		return len(strconv.Itoa(v))
	case int64:
		return len(strconv.FormatInt(v, 10))
	case float64:
		return len(strconv.FormatFloat(v, 'g', -1, 64))
	case map[string]any:
		n := 2
		for k, e := range v {
			n += len(k) + 4 + jsonSize(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range v {
			n += jsonSize(e) + 1
		}
		return n
	}
	return reflectSize(reflect.ValueOf(v))
}

// reflectSize sizes the values of other Go types (typed maps and slices a
// handler returns, structs as their fields).
func reflectSize(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Invalid:
		return 4
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 4
		}
		return reflectSize(v.Elem())
	case reflect.String:
		return v.Len() + 2
	case reflect.Map:
		n := 2
		for it := v.MapRange(); it.Next(); {
			n += reflectSize(it.Key()) + 2 + reflectSize(it.Value())
		}
		return n
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len()*4/3 + 4 // base64
		}
		n := 2
		for i := range v.Len() {
			n += reflectSize(v.Index(i)) + 1
		}
		return n
	case reflect.Struct:
		n := 2
		for i := range v.NumField() {
			n += len(v.Type().Field(i).Name) + 4 + reflectSize(v.Field(i))
		}
		return n
	}
	return 8
}

// VariableLimits returns the engine's caps on one variable and on an
// instance's variables together, as JSON bytes.
func (e *Engine) VariableLimits() (perVariable, perInstance int) {
	return e.cfg.MaxVariableBytes, e.cfg.MaxInstanceVariableBytes
}

// VariablesSize is about how many bytes vars take as JSON, as the caps
// count them, without encoding them.
func VariablesSize(vars map[string]any) int {
	n := 0
	for name, v := range vars {
		n += len(name) + 4 + jsonSize(v)
	}
	return n
}
