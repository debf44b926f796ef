package bpmn

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
)

// camundaFormData turns Camunda 7 generated-form fields (camunda:formData)
// into the equivalent form-js schema, so the inbox renders them and the
// server checks submissions against them like any designed form.
func (x *extension) camundaFormData(fd *element) {
	var components []map[string]any
	for _, f := range fd.children {
		if f.name.Space != nsCamunda || f.name.Local != "formField" {
			continue
		}
		id := f.attr("", "id")
		if id == "" {
			x.problem("camunda:formField without an id: give every field an id (the variable it sets)")
			continue
		}
		c := map[string]any{"id": "Field_" + id, "key": id, "label": cmpOr(f.attr("", "label"), id)}
		validate := map[string]any{}
		switch typ := f.attr("", "type"); typ {
		case "string", "":
			c["type"] = "textfield"
		case "long":
			c["type"], c["decimalDigits"] = "number", 0
		case "boolean":
			c["type"] = "checkbox"
		case "date":
			c["type"], c["subtype"], c["dateLabel"] = "datetime", "date", c["label"]
		case "enum":
			var values []map[string]any
			for _, v := range f.all(nsCamunda, "value") {
				values = append(values, map[string]any{"value": v.attr("", "id"), "label": cmpOr(v.attr("", "name"), v.attr("", "id"))})
			}
			c["type"], c["values"] = "select", values
		default:
			x.problem("camunda:formField %q has type %q, which has no form-js equivalent: use string, long, boolean, date or enum", id, typ)
			continue
		}
		if d := f.attr("", "defaultValue"); d != "" {
			c["defaultValue"] = formDefault(c["type"].(string), d)
		}
		if v := f.child(nsCamunda, "validation"); v != nil {
			for _, con := range v.all(nsCamunda, "constraint") {
				x.formConstraint(id, c, validate, con.attr("", "name"), con.attr("", "config"))
			}
		}
		if len(validate) > 0 {
			c["validate"] = validate
		}
		components = append(components, c)
	}
	schema, _ := json.Marshal(map[string]any{"type": "default", "id": "FormData_" + x.n.ID, "components": components})
	x.n.Human.Form = string(schema)
}

func (x *extension) formConstraint(field string, c, validate map[string]any, name, config string) {
	num := func() (float64, bool) {
		v, err := strconv.ParseFloat(strings.TrimSpace(config), 64)
		if err != nil {
			x.problem("camunda:formField %q: constraint %s needs a number, not %q", field, name, config)
		}
		return v, err == nil
	}
	switch name {
	case "required":
		validate["required"] = true
	case "readonly":
		c["readonly"] = true
	case "min", "max":
		if v, ok := num(); ok {
			validate[name] = v
		}
	case "minlength", "maxlength":
		if v, ok := num(); ok {
			validate[map[string]string{"minlength": "minLength", "maxlength": "maxLength"}[name]] = int(v)
		}
	default:
		x.problem("camunda:formField %q: constraint %q %s: use required, readonly, min, max, minlength or maxlength", field, name, unsupportedMarker)
	}
}

func formDefault(typ, v string) any {
	switch typ {
	case "number":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
	case "checkbox":
		return v == "true"
	}
	return v
}

// camundaFormKey reads camunda:formKey: a deployed form-js form
// ("camunda-forms:deployment:invoice.form", "camunda-forms:app:forms/invoice.form"
// or a plain form id) is linked by id; HTML forms (embedded:, app:) cannot
// be rendered here and are refused.
func (x *extension) camundaFormKey(key string) {
	switch {
	case key == "":
	case strings.HasPrefix(key, "camunda-forms:"):
		rest := strings.TrimPrefix(key, "camunda-forms:")
		binding := "latest"
		if where, file, ok := strings.Cut(rest, ":"); ok {
			rest = file
			if where == "deployment" {
				binding = "deployment"
			}
		}
		x.linkForm(strings.TrimSuffix(path.Base(rest), ".form"), binding, "")
	case strings.Contains(key, ":"):
		x.problem("camunda:formKey %q is an HTML form, which Workflow++ cannot render: design the form with form-js, deploy it as a .form file and link it with camunda:formKey=\"camunda-forms:deployment:ID.form\" or camunda:formRef", key)
	default:
		x.linkForm(key, "latest", "")
	}
}

// camundaFormRef reads Camunda 7.15+'s camunda:formRef with its binding
// (latest, deployment or version).
func (x *extension) camundaFormRef(ref, binding, version string) {
	switch binding {
	case "", "latest":
		x.linkForm(ref, "latest", "")
	case "deployment":
		x.linkForm(ref, "deployment", "")
	case "version":
		x.linkForm(ref, "versionTag", version)
	default:
		x.problem("camunda:formRefBinding %q is unknown: use latest, deployment or version", binding)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
