package bpmn

import (
	"encoding/xml"
	"strings"
)

// Namespaces, matched by URI: the prefix a file uses does not matter.
const (
	nsBPMN    = "http://www.omg.org/spec/BPMN/20100524/MODEL"
	nsCamunda = "http://camunda.org/schema/1.0/bpmn"
	nsZeebe   = "http://camunda.org/schema/zeebe/1.0"
	nsWF      = "https://workflowpp.dev/schema/bpmn/1.0"
)

// element is one XML element of the document, read into memory by readTree.
// The mapping walks this tree instead of unmarshalling into structs so that it
// sees every element, including the ones it has to reject.
type element struct {
	name     xml.Name
	attrs    []xml.Attr
	children []*element
	text     []byte // character data directly inside the element
	line     int
}

// is reports whether the element is local in namespace space.
func (e *element) is(space, local string) bool {
	return e.name.Space == space && e.name.Local == local
}

// attr returns the value of the attribute space:local; space "" is an
// unqualified attribute, as BPMN's own attributes are.
func (e *element) attr(space, local string) string {
	for _, a := range e.attrs {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func (e *element) id() string { return e.attr("", "id") }

// child returns the first child space:local, or nil.
func (e *element) child(space, local string) *element {
	if e == nil {
		return nil
	}
	for _, c := range e.children {
		if c.is(space, local) {
			return c
		}
	}
	return nil
}

// all returns the children space:local.
func (e *element) all(space, local string) []*element {
	if e == nil {
		return nil
	}
	var cs []*element
	for _, c := range e.children {
		if c.is(space, local) {
			cs = append(cs, c)
		}
	}
	return cs
}

// extensions returns the children in namespace space of the element's
// bpmn:extensionElements.
func (e *element) extensions(space string) []*element {
	var cs []*element
	for _, x := range e.all(nsBPMN, "extensionElements") {
		for _, c := range x.children {
			if c.name.Space == space {
				cs = append(cs, c)
			}
		}
	}
	return cs
}

// trimmed returns the element's text without surrounding white space.
func (e *element) trimmed() string {
	if e == nil {
		return ""
	}
	return strings.TrimSpace(string(e.text))
}
