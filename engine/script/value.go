package script

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// Inputs are copied into fresh JavaScript values (never wrapped Go maps), so
// code cannot reach Go memory and mutations never leak to the caller.

type importer struct {
	vm     *goja.Runtime
	left   int // remaining input byte budget
	maxStr int
	maxDep int
}

func (c *importer) spend(n int) error {
	c.left -= n
	if c.left < 0 {
		return fmt.Errorf("%w: variables are larger than MaxInputBytes", ErrLimit)
	}
	return nil
}

func (c *importer) str(s string) (goja.Value, error) {
	if err := c.spend(len(s) + 2); err != nil {
		return nil, err
	}
	if len(s) > c.maxStr && utf8.RuneCountInString(s) > c.maxStr {
		return nil, fmt.Errorf("%w: a string of %d characters is longer than MaxStringLen (%d)", ErrLimit, utf8.RuneCountInString(s), c.maxStr)
	}
	return c.vm.ToValue(s), nil
}

// toJS converts a Go value into a JavaScript value owned by the runtime.
func (c *importer) toJS(v any, depth int) (goja.Value, error) {
	if depth > c.maxDep {
		return nil, fmt.Errorf("%w: value nested deeper than MaxDepth (%d), or cyclic", ErrLimit, c.maxDep)
	}
	if err := c.spend(8); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return goja.Null(), nil
	case bool:
		return c.vm.ToValue(v), nil
	case string:
		return c.str(v)
	case int:
		return c.vm.ToValue(v), nil
	case int8, int16, int32, int64, uint8, uint16, uint32, float32:
		return c.vm.ToValue(v), nil
	case uint:
		return c.vm.ToValue(float64(v)), nil
	case uint64:
		return c.vm.ToValue(float64(v)), nil
	case float64:
		return c.vm.ToValue(v), nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return c.vm.ToValue(i), nil
		}
		f, err := v.Float64()
		if err != nil {
			return nil, fmt.Errorf("%w: invalid json.Number %q", ErrResult, v)
		}
		return c.vm.ToValue(f), nil
	case time.Time:
		return c.str(v.Format(time.RFC3339Nano))
	case map[string]any:
		o := c.vm.NewObject()
		for k, x := range v {
			if err := c.spend(len(k)); err != nil {
				return nil, err
			}
			jv, err := c.toJS(x, depth+1)
			if err != nil {
				return nil, err
			}
			// Define, not set: frozen prototypes must not block keys like "toString".
			if err := o.DefineDataProperty(k, jv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		return o, nil
	case []any:
		items := make([]any, len(v))
		for i, x := range v {
			jv, err := c.toJS(x, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = jv
		}
		return c.vm.NewArray(items...), nil
	case []string:
		items := make([]any, len(v))
		for i, x := range v {
			jv, err := c.str(x)
			if err != nil {
				return nil, err
			}
			items[i] = jv
		}
		return c.vm.NewArray(items...), nil
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = x
		}
		return c.toJS(m, depth)
	default:
		// Anything else (structs, typed maps and slices) goes through JSON.
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %T is not a JSON value: %w", ErrResult, v, err)
		}
		if err := c.spend(len(b)); err != nil {
			return nil, err
		}
		var plain any
		if err := json.Unmarshal(b, &plain); err != nil {
			return nil, fmt.Errorf("%w: %T is not a JSON value: %w", ErrResult, v, err)
		}
		return c.toJS(plain, depth)
	}
}

// exporter converts a JavaScript result into a plain JSON value:
// map[string]any, []any, string, int64 (integral numbers within ±2^53),
// float64, bool or nil.
type exporter struct {
	left   int
	maxStr int
	maxDep int
	stack  []*goja.Object // objects on the current path, for cycle detection
}

func (x *exporter) spend(n int) error {
	x.left -= n
	if x.left < 0 {
		return fmt.Errorf("%w: result is larger than MaxOutputBytes", ErrLimit)
	}
	return nil
}

// export converts v found at path. An undefined value is reported with
// ok=false so the caller decides (omitted in objects, null at top level).
func (x *exporter) export(v goja.Value, path string) (res any, ok bool, err error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, false, nil
	}
	if goja.IsNull(v) {
		return nil, true, nil
	}
	if err := x.spend(8); err != nil {
		return nil, false, err
	}
	if _, ok := v.(*goja.Symbol); ok {
		return nil, false, fmt.Errorf("%w: %s is a Symbol, not a JSON value", ErrResult, path)
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return x.primitive(v.Export(), path)
	}
	switch obj.ClassName() {
	case "Array":
		if err := x.enter(obj, path); err != nil {
			return nil, false, err
		}
		defer x.leave()
		n := obj.Get("length").ToInteger()
		if err := x.spend(int(min(n, 1<<40)) * 8); err != nil {
			return nil, false, err
		}
		out := make([]any, 0, n)
		for i := range n {
			p := path + "[" + strconv.FormatInt(i, 10) + "]"
			el, _, err := x.export(obj.Get(strconv.FormatInt(i, 10)), p)
			if err != nil {
				return nil, false, err
			}
			out = append(out, el) // undefined elements become null, as in JSON.stringify
		}
		return out, true, nil
	case "Object":
		// Set, WeakMap, Promise... have class "Object" in goja; their tag tells.
		if tag := obj.GetSymbol(goja.SymToStringTag); tag != nil && !goja.IsUndefined(tag) {
			return nil, false, fmt.Errorf("%w: %s is a %s, not a JSON value", ErrResult, path, tag.String())
		}
		if err := x.enter(obj, path); err != nil {
			return nil, false, err
		}
		defer x.leave()
		keys := obj.Keys()
		out := make(map[string]any, len(keys))
		for _, k := range keys {
			if err := x.spend(len(k)); err != nil {
				return nil, false, err
			}
			el, ok, err := x.export(obj.Get(k), path+"."+k)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out[k] = el
			}
		}
		return out, true, nil
	case "Date":
		t, ok := obj.Export().(time.Time)
		if !ok {
			return nil, false, fmt.Errorf("%w: %s is a Date that cannot be converted", ErrResult, path)
		}
		return t.UTC().Format(time.RFC3339Nano), true, nil
	case "String", "Number", "Boolean":
		return x.primitive(obj.Export(), path)
	case "Function":
		return nil, false, fmt.Errorf("%w: %s is a function, not a JSON value", ErrResult, path)
	default:
		return nil, false, fmt.Errorf("%w: %s is a %s, not a JSON value", ErrResult, path, obj.ClassName())
	}
}

func (x *exporter) primitive(v any, path string) (any, bool, error) {
	switch v := v.(type) {
	case bool:
		return v, true, nil
	case string:
		if err := x.spend(len(v)); err != nil {
			return nil, false, err
		}
		if len(v) > x.maxStr && utf8.RuneCountInString(v) > x.maxStr {
			return nil, false, fmt.Errorf("%w: %s is a string longer than MaxStringLen (%d)", ErrLimit, path, x.maxStr)
		}
		return v, true, nil
	case int64:
		return v, true, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false, fmt.Errorf("%w: %s is %v, not a JSON number", ErrResult, path, v)
		}
		if v == math.Trunc(v) && math.Abs(v) <= 1<<53 {
			return int64(v), true, nil
		}
		return v, true, nil
	default:
		return nil, false, fmt.Errorf("%w: %s is a %T, not a JSON value", ErrResult, path, v)
	}
}

func (x *exporter) enter(o *goja.Object, path string) error {
	for _, s := range x.stack {
		if s == o {
			return fmt.Errorf("%w: %s is a cyclic reference", ErrResult, path)
		}
	}
	if len(x.stack) >= x.maxDep {
		return fmt.Errorf("%w: %s is nested deeper than MaxDepth (%d)", ErrLimit, path, x.maxDep)
	}
	x.stack = append(x.stack, o)
	return nil
}

func (x *exporter) leave() { x.stack = x.stack[:len(x.stack)-1] }

// describe names the type of a JavaScript value for messages.
func describe(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if o, ok := v.(*goja.Object); ok {
		if o.ClassName() == "Function" {
			return "function"
		}
		return "object (" + o.ClassName() + ")"
	}
	s := v.String()
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	switch v.Export().(type) {
	case string:
		return "string " + strconv.Quote(s)
	case int64, float64:
		return "number " + s
	default:
		return v.ExportType().String() + " " + s
	}
}
