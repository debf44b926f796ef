package bpmn

import (
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// multiInstance reads multiInstanceLoopCharacteristics: isSequential,
// loopCardinality and completionCondition from BPMN; the collection, item
// variable and outputs from zeebe:loopCharacteristics or camunda:collection
// and camunda:elementVariable.
func (c *converter) multiInstance(n *model.Node, el *element) {
	if !n.Kind.IsActivity() {
		c.probs.Add(n.ID, "a %s cannot be multi-instance: only activities have loop markers", n.Kind)
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

// standardLoop reads standardLoopCharacteristics: loopCondition (an
// expression), testBefore and loopMaximum.
func (c *converter) standardLoop(n *model.Node, el *element) {
	if !n.Kind.IsActivity() {
		c.probs.Add(n.ID, "a %s cannot loop: only activities have loop markers", n.Kind)
		return
	}
	r := &model.StandardLoop{TestBefore: strings.EqualFold(el.attr("", "testBefore"), "true")}
	if cond := el.child(nsBPMN, "loopCondition"); cond != nil {
		r.Condition = c.condition(n.ID, cond)
	}
	if v := strings.TrimSpace(el.attr("", "loopMaximum")); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 0 {
			c.probs.Add(n.ID, "loopMaximum %q is not a whole number of runs: write e.g. 5", v)
		}
		r.Maximum = m
	}
	n.Repeat = r
}
