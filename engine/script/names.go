package script

import (
	"reflect"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/unistring"
)

// collectNames adds every identifier appearing under node to names. It
// over-approximates free variables (it also sees property names, locals and
// labels); an extra name only costs a parameter that is never read.
func collectNames(node any, names map[string]bool) {
	walk(reflect.ValueOf(node), names)
}

var (
	identType      = reflect.TypeFor[ast.Identifier]()
	fileType       = reflect.TypeFor[*file.File]()
	dotType        = reflect.TypeFor[ast.DotExpression]()
	privateDotType = reflect.TypeFor[ast.PrivateDotExpression]()
)

func walk(v reflect.Value, names map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() && v.Type() != fileType {
			walk(v.Elem(), names)
		}
	case reflect.Struct:
		if t := v.Type(); t == dotType || t == privateDotType {
			walk(v.FieldByName("Left"), names) // a.b reads a, not b
			return
		}
		if v.Type() == identType {
			// Name is a unistring.String: non-ASCII names are stored as UTF-16.
			names[unistring.String(v.FieldByName("Name").String()).String()] = true
			return
		}
		for i := range v.NumField() {
			walk(v.Field(i), names)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), names)
		}
	}
}

// declaredNames returns the names a script body declares in its own
// function scope: var (anywhere), and top-level let, const, function and
// class. Those are locals, so they are not parameters.
func declaredNames(fn *ast.FunctionLiteral) map[string]bool {
	names := map[string]bool{}
	for _, d := range fn.DeclarationList {
		for _, b := range d.List {
			bindingNames(b.Target, names)
		}
	}
	for _, st := range fn.Body.List {
		switch st := st.(type) {
		case *ast.VariableStatement:
			for _, b := range st.List {
				bindingNames(b.Target, names)
			}
		case *ast.LexicalDeclaration:
			for _, b := range st.List {
				bindingNames(b.Target, names)
			}
		case *ast.FunctionDeclaration:
			if st.Function.Name != nil {
				names[st.Function.Name.Name.String()] = true
			}
		case *ast.ClassDeclaration:
			if st.Class.Name != nil {
				names[st.Class.Name.Name.String()] = true
			}
		}
	}
	return names
}

// bindingNames adds the names bound by a declaration target (an identifier
// or a destructuring pattern), not the names read by its defaults.
func bindingNames(t ast.Expression, names map[string]bool) {
	switch t := t.(type) {
	case *ast.Identifier:
		names[t.Name.String()] = true
	case *ast.ArrayPattern:
		for _, el := range t.Elements {
			bindingNames(el, names)
		}
		bindingNames(t.Rest, names)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				names[p.Name.Name.String()] = true
			case *ast.PropertyKeyed:
				bindingNames(p.Value, names)
			}
		}
		bindingNames(t.Rest, names)
	case *ast.AssignExpression: // element with a default: [a = 1]
		bindingNames(t.Left, names)
	}
}
