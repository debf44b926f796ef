package bpmn

import (
	"cmp"
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
		CounterFrom: 1,
		Sequential:  strings.EqualFold(el.attr("", "isSequential"), "true"),
		Cardinality: el.child(nsBPMN, "loopCardinality").trimmed(),
		Completion:  el.child(nsBPMN, "completionCondition").trimmed(),
		// BPMN's own: the collection a data input refers to (a variable
		// name, as Camunda 7 reads it) and the item's name.
		Collection: el.child(nsBPMN, "loopDataInputRef").trimmed(),
	}
	if v := strings.TrimSpace(el.attr(nsWF, "maxParallelism")); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 {
			c.probs.Add(n.ID, "wf:maxParallelism %q is not a positive whole number: write how many instances may run at once, e.g. 5", v)
		}
		mi.MaxParallel = m
	}
	switch p := strings.TrimSpace(el.attr(nsWF, "errorPolicy")); p {
	case "", model.ErrorPolicyStop, model.ErrorPolicyContinue, model.ErrorPolicyCollect:
		mi.ErrorPolicy = p
	default:
		c.probs.Add(n.ID, "wf:errorPolicy %q: write stop (an incident, the default), continue (skip the failed item) or collect (skip it and gather its error)", p)
	}
	mi.ErrorsVariable = el.attr(nsWF, "errorsVariable")
	if item := el.child(nsBPMN, "inputDataItem"); item != nil {
		mi.Element = cmp.Or(item.attr("", "name"), item.id())
	}
	set(&mi.Collection, el.attr(nsCamunda, "collection"))
	set(&mi.Element, el.attr(nsCamunda, "elementVariable"))
	if c.camunda7 || el.attr(nsCamunda, "collection") != "" {
		mi.CounterFrom = 0 // Camunda 7 counts instances from 0
	}
	for _, z := range el.extensions(nsZeebe) {
		if z.name.Local != "loopCharacteristics" {
			continue
		}
		mi.CounterFrom = 1
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
