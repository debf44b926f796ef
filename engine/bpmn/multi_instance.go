package bpmn

import (
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// multiInstance reads multiInstanceLoopCharacteristics: isSequential,
// loopCardinality and completionCondition from BPMN; the collection, item
// variable and outputs from zeebe:loopCharacteristics or camunda:collection
// and camunda:elementVariable.
func (c *converter) multiInstance(n *model.Node, el *element) {
	if !n.Kind.IsActivity() || n.Kind == model.KindSubProcess {
		c.unsupported(n.ID, el, "multi-instance on a "+n.Kind.String(),
			"put the multi-instance marker on a task; a multi-instance sub-process needs per-instance variables, which Workflow++ does not have yet")
		return
	}
	mi := &model.MultiInstance{
		Sequential:  strings.EqualFold(el.attr("", "isSequential"), "true"),
		Cardinality: el.child(nsBPMN, "loopCardinality").trimmed(),
		Completion:  el.child(nsBPMN, "completionCondition").trimmed(),
		Collection:  el.attr(nsCamunda, "collection"),
		Element:     el.attr(nsCamunda, "elementVariable"),
	}
	for _, z := range el.extensions(nsZeebe) {
		if z.name.Local != "loopCharacteristics" {
			continue
		}
		set(&mi.Collection, z.attr("", "inputCollection"))
		set(&mi.Element, z.attr("", "inputElement"))
		set(&mi.OutputCollection, z.attr("", "outputCollection"))
		set(&mi.OutputElement, z.attr("", "outputElement"))
	}
	n.Loop = mi // whether it says which items or how many is the validator's business
}
