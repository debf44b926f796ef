package dag

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/workflowpp/wfpp/engine/model"
)

// Schema is the JSON Schema (draft-07) every DAG document must satisfy.
//
//go:embed schema.json
var Schema []byte

const schemaURL = "https://workflowpp.dev/schema/dag/rev3.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(Schema)))
	if err != nil {
		return nil, fmt.Errorf("reading the embedded DAG schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("adding the embedded DAG schema: %w", err)
	}
	return c.Compile(schemaURL)
})

var printer = message.NewPrinter(language.English)

// validateSchema checks doc (decoded with json.Number) against Schema.
func validateSchema(doc any) model.Problems {
	sch, err := compiled()
	if err != nil {
		return model.Problems{{Message: err.Error()}}
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return model.Problems{{Message: err.Error()}}
	}
	var probs model.Problems
	seen := map[model.Problem]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		p := model.Problem{
			ElementID: elementAt(doc, e.InstanceLocation),
			Message:   pointer(e.InstanceLocation) + ": " + e.ErrorKind.LocalizedString(printer) + hint(e.ErrorKind),
		}
		if !seen[p] {
			seen[p] = true
			probs = append(probs, p)
		}
	}
	walk(ve)
	return probs
}

// pointer renders a JSON pointer (RFC 6901) to an instance location.
func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, tok := range loc {
		sb.WriteByte('/')
		sb.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return sb.String()
}

// elementAt names the node a location is inside, else the workflow.
func elementAt(doc any, loc []string) string {
	root, _ := doc.(map[string]any)
	if len(loc) >= 2 && loc[0] == "nodes" {
		nodes, _ := root["nodes"].([]any)
		if i, err := strconv.Atoi(loc[1]); err == nil && i >= 0 && i < len(nodes) {
			if n, ok := nodes[i].(map[string]any); ok {
				if id, ok := n["id"].(string); ok && id != "" {
					return id
				}
			}
		}
	}
	id, _ := root["id"].(string)
	return id
}

// hint says what to do about a schema violation.
func hint(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Required:
		return ": add it"
	case *kind.AdditionalProperties:
		return ": remove it or fix its spelling"
	case *kind.Enum, *kind.Const:
		return ": use one of the allowed values"
	case *kind.Type:
		return ": change its type to " + strings.Join(k.Want, " or ")
	case *kind.Pattern:
		return ": ids use letters, digits and _ . : - and start with a letter, digit or _"
	case *kind.MinItems:
		return ": add one"
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		return ": use a value within the limit"
	case *kind.MinLength:
		return ": give it a value"
	}
	return ""
}
