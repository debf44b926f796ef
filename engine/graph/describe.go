package graph

import (
	"encoding/json"
	"reflect"
)

// typeMessage says, without Go type names, that a value has the wrong type.
func typeMessage(prefix string, te *json.UnmarshalTypeError) string {
	what := "the document"
	switch {
	case prefix != "" && te.Field != "":
		what = prefix + "." + te.Field
	case prefix != "":
		what = prefix
	case te.Field != "":
		what = te.Field
	}
	return what + " is " + article(te.Value) + ", not " + describe(te.Type) + ": change its type"
}

func article(jsonType string) string {
	switch jsonType {
	case "object", "array":
		return "an " + jsonType
	case "string":
		return "text"
	case "bool":
		return "true or false"
	}
	return "a " + jsonType
}

func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return describe(t.Elem())
	}
	return t.String()
}
