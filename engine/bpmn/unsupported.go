package bpmn

import (
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// unsupportedMarker is in the message of every problem about something
// Workflow++ does not run, so that tools can tell those from mistakes.
const unsupportedMarker = "is not supported"

// IsUnsupported reports whether a problem from Parse is about an element or
// extension Workflow++ does not run (as opposed to a mistake in the model).
func IsUnsupported(p model.Problem) bool {
	return strings.Contains(p.Message, "not supported")
}

// placeholder describes a flow element that is not supported. Parse still
// adds a node for it, of a kind that keeps the graph connected, so the only
// problem reported about it is the one saying it is not supported.
type placeholder struct {
	kind model.Kind
	hint string
}

var unsupportedFlowElements = map[string]placeholder{
	"implicitThrowEvent":     {model.KindIntermediateThrowEvent, "implicit throw events belong to choreographies: use an intermediate throw event"},
	"choreographyTask":       {model.KindTask, choreographyHint},
	"subChoreography":        {model.KindTask, choreographyHint},
	"callChoreography":       {model.KindTask, choreographyHint},
	"globalChoreographyTask": {model.KindTask, choreographyHint},
}

// unsupportedChildren are elements inside a flow node that are not supported,
// with a hint at what to do instead.
var unsupportedChildren = map[string]string{
	"eventDefinitionRef": "put the event definition inside the event",
}

const choreographyHint = "choreographies describe message exchanges and do not run: model each participant as a process"

// Elements that carry no execution semantics for Workflow++ and are skipped
// without a problem. Why each is safe to skip is in doc.go.
var (
	// Children of definitions besides process and the message, error and
	// signal elements events refer to.
	ignoredInDefinitions = nameSet(
		"documentation", "extensionElements", "import", "extension",
		"collaboration", "category", "correlationProperty", "dataStore", "endPoint",
		"interface", "itemDefinition", "partnerEntity", "partnerRole",
		"resource", "relationship", "globalConversation",
		"globalTask", "globalUserTask", "globalScriptTask", "globalManualTask", "globalBusinessRuleTask",
		// Reusable event definitions: only eventDefinitionRef uses them, and that is reported.
		"eventDefinition", "timerEventDefinition", "messageEventDefinition", "errorEventDefinition",
		"signalEventDefinition", "terminateEventDefinition", "linkEventDefinition",
		"compensateEventDefinition", "escalationEventDefinition", "conditionalEventDefinition",
		"cancelEventDefinition",
	)
	// Children of process and subProcess besides flow nodes and sequence flows.
	ignoredInScope = nameSet(
		"documentation", "extensionElements", "laneSet", "ioSpecification", "property",
		"auditing", "monitoring", "resourceRole", "performer", "humanPerformer", "potentialOwner",
		"correlationSubscription", "supports",
		"dataObject", "dataObjectReference", "dataStoreReference",
		"textAnnotation", "association", "group",
	)
	// Children of flow nodes that are read elsewhere or carry nothing to run.
	ignoredInNode = nameSet(
		"documentation", "extensionElements", "incoming", "outgoing",
		"ioSpecification", "property", "dataInput", "dataOutput", "inputSet", "outputSet",
		"dataInputAssociation", "dataOutputAssociation",
		"resourceRole", "performer", "humanPerformer", "potentialOwner", "rendering",
		"auditing", "monitoring", "categoryValueRef",
		"script", // read by scriptTask
	)
	eventDefinitions = nameSet(
		"timerEventDefinition", "messageEventDefinition", "errorEventDefinition",
		"terminateEventDefinition", "linkEventDefinition", "signalEventDefinition",
		"compensateEventDefinition", "escalationEventDefinition", "conditionalEventDefinition",
		"cancelEventDefinition", "eventDefinitionRef",
	)
)

// unsupported reports that the element id does not run: what names the
// element (or attribute, or extension) by its XML name.
func (c *converter) unsupported(id string, el *element, what, hint string) {
	if id == "" {
		c.probs.Add("", "%s (line %d) %s yet: %s", what, el.line, unsupportedMarker, hint)
		return
	}
	c.probs.Add(id, "%s %s yet: %s", what, unsupportedMarker, hint)
}

// unsupportedChild reports a child element of node id listed in unsupportedChildren.
func (c *converter) unsupportedChild(id string, el *element) {
	c.unsupported(id, el, el.name.Local, unsupportedChildren[el.name.Local])
}

// unknown reports an element in the BPMN namespace this parser does not know,
// so that nothing in a process is skipped without a word.
func (c *converter) unknown(id string, el *element) {
	c.probs.Add(id, "unknown BPMN element %q (line %d) %s: remove it or report it to Workflow++", el.name.Local, el.line, unsupportedMarker)
}

func nameSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
