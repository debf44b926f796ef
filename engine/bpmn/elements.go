package bpmn

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// nodeKinds maps the BPMN flow nodes that run to their kind.
var nodeKinds = map[string]model.Kind{
	"startEvent":             model.KindStartEvent,
	"endEvent":               model.KindEndEvent,
	"intermediateCatchEvent": model.KindIntermediateCatchEvent,
	"intermediateThrowEvent": model.KindIntermediateThrowEvent,
	"boundaryEvent":          model.KindBoundaryEvent,
	"exclusiveGateway":       model.KindExclusiveGateway,
	"parallelGateway":        model.KindParallelGateway,
	"inclusiveGateway":       model.KindInclusiveGateway,
	"eventBasedGateway":      model.KindEventBasedGateway,
	"task":                   model.KindTask,
	"manualTask":             model.KindTask,
	"userTask":               model.KindUserTask,
	"serviceTask":            model.KindServiceTask,
	"sendTask":               model.KindServiceTask,
	"businessRuleTask":       model.KindServiceTask,
	"scriptTask":             model.KindScriptTask,
	"receiveTask":            model.KindReceiveTask,
	"subProcess":             model.KindSubProcess,
	"transaction":            model.KindSubProcess,
	"adHocSubProcess":        model.KindSubProcess,
	"callActivity":           model.KindCallActivity,
	"complexGateway":         model.KindComplexGateway,
}

// converter maps the element tree of one document into a Definition,
// collecting every problem on the way.
type converter struct {
	probs       model.Problems
	messages    map[string]*element // by id: what messageRef points to
	errors      map[string]*element
	signals     map[string]*element
	escalations map[string]*element
	forms       map[string]string // zeebe:userTaskForm id → form JSON, of the process being read
	// camunda7: the document declares Camunda 7's namespace and not
	// Zeebe's, so what BPMN leaves open is read as Camunda 7 does.
	camunda7 bool
	// executable: the process being read runs; only then must what it
	// throws be complete.
	executable bool
}

func newConverter() *converter {
	return &converter{
		messages:    map[string]*element{},
		errors:      map[string]*element{},
		signals:     map[string]*element{},
		escalations: map[string]*element{},
	}
}

func (c *converter) definitions(root *element) *model.Definition {
	def := &model.Definition{Name: root.attr("", "name"), Format: model.FormatBPMN}
	declares := func(ns string) bool {
		return slices.ContainsFunc(root.attrs, func(a xml.Attr) bool { return a.Value == ns && (a.Name.Space == "xmlns" || a.Name.Local == "xmlns") })
	}
	c.camunda7 = declares(nsCamunda) && !declares(nsZeebe)
	var processes []*element
	for _, e := range root.children {
		if e.name.Space != nsBPMN {
			continue // diagram interchange and other vendors' elements
		}
		switch name := e.name.Local; {
		case name == "process":
			processes = append(processes, e)
		case name == "message":
			c.messages[e.id()] = e
		case name == "error":
			c.errors[e.id()] = e
		case name == "signal":
			c.signals[e.id()] = e
		case name == "escalation":
			c.escalations[e.id()] = e
		case name == "choreography" || name == "globalChoreographyTask":
			c.unsupported(e.id(), e, name, choreographyHint)
		case ignoredInDefinitions[name]:
		default:
			c.unknown(e.id(), e)
		}
	}
	for _, e := range processes {
		p := c.process(e)
		def.Processes = append(def.Processes, p)
		c.probs = append(c.probs, p.Link()...)
	}
	if main := def.Main(); main != nil {
		def.Key = main.ID
	} else if len(def.Processes) > 0 {
		def.Key = def.Processes[0].ID // a model that documents only: it deploys, it does not run
	}
	for _, e := range processes {
		if e.id() == def.Key {
			c.definitionWide(def, e)
		}
	}
	return def
}

// definitionWide reads what the main process says for the whole
// definition, as Export writes a JSON DAG or a graph: the default
// variables (wf:variables, a JSON object) and the read model its instances
// see (wf:readModel).
func (c *converter) definitionWide(def *model.Definition, e *element) {
	switch v := strings.TrimSpace(e.attr(nsWF, "readModel")); v {
	case "":
	case model.ReadModelDataWorkflows:
		def.ReadModel = v
	default:
		c.probs.Add(e.id(), "wf:readModel %q is not a read model: write dataworkflows (a JSON DAG's trigger, context and {{ }} templates) or remove it", v)
	}
	for _, x := range e.extensions(nsWF) {
		if x.name.Local != "variables" {
			continue
		}
		vars, err := jsonObject(x.trimmed())
		if err != nil {
			c.probs.Add(e.id(), "wf:variables is not a JSON object (%v): write the variables every instance starts with as {\"name\": value, ...}", err)
			continue
		}
		def.Variables = vars
	}
}

func (c *converter) process(e *element) *model.Process {
	p := model.NewProcess(e.id(), e.attr("", "name"))
	p.Executable = e.attr("", "isExecutable") != "false"
	c.executable = p.Executable
	p.Readers = splitList(e.attr(nsWF, "readers"))
	c.processLimits(p, e)
	c.processTriggers(p, e)
	c.forms = map[string]string{}
	p.VersionTag = e.attr(nsCamunda, "versionTag")
	for _, f := range e.extensions(nsZeebe) {
		switch f.name.Local {
		case "userTaskForm":
			c.forms[f.attr("", "id")] = f.trimmed()
		case "versionTag":
			p.VersionTag = f.attr("", "value")
		}
	}
	c.scope(&p.Scope, e, false)
	return p
}

// scope reads the flow elements of a process or sub-process into s.
func (c *converter) scope(s *model.Scope, e *element, sub bool) {
	var associations []*element
	defer func() {
		// A compensation boundary event names its handler by an association;
		// other associations annotate the drawing.
		for _, a := range associations {
			src, dst := ref(a.attr("", "sourceRef")), ref(a.attr("", "targetRef"))
			for _, n := range s.Nodes {
				if n.ID == src && n.Kind == model.KindBoundaryEvent && n.Trigger == model.TriggerCompensation {
					n.HandlerID = dst
				}
			}
		}
	}()
	for _, child := range e.children {
		if child.name.Space != nsBPMN {
			continue
		}
		name := child.name.Local
		switch {
		case name == "association":
			associations = append(associations, child)
		case name == "sequenceFlow":
			f := c.flow(child)
			if f.ID == "" {
				f.ID = unnamedFlowID(s, f)
			}
			s.Flows = append(s.Flows, f)
		case nodeKinds[name] != model.KindUnknown:
			s.Nodes = append(s.Nodes, c.node(child))
		case unsupportedFlowElements[name].kind != model.KindUnknown:
			s.Nodes = append(s.Nodes, c.placeholder(child, unsupportedFlowElements[name], name))
		case ignoredInScope[name], sub && isFlowNodeChild(name):
		default:
			c.unknown(cmp.Or(child.id(), s.ID), child)
		}
	}
}

// unnamedFlowID names a sequence flow that has no id (the BPMN schema
// makes it optional): "source->target", numbered when several such flows
// join the same pair. A ':' or '>' never stands in an XML id, so it cannot
// collide with a real one.
func unnamedFlowID(s *model.Scope, f *model.Flow) string {
	base := "flow:" + f.SourceID + "->" + f.TargetID
	id := base
	for n := 2; slices.ContainsFunc(s.Flows, func(o *model.Flow) bool { return o.ID == id }); n++ {
		id = fmt.Sprintf("%s#%d", base, n)
	}
	return id
}

// placeholder returns a node standing in for an unsupported flow element, and
// reports it.
func (c *converter) placeholder(e *element, ph placeholder, what string) *model.Node {
	n := &model.Node{
		ID:    e.id(),
		Name:  e.attr("", "name"),
		Kind:  ph.kind,
		Attrs: map[string]string{"element": e.name.Local, "unsupported": "true"},
	}
	c.unsupported(n.ID, e, what, ph.hint)
	return n
}

func (c *converter) node(e *element) *model.Node {
	name := e.name.Local
	n := &model.Node{
		ID:            e.id(),
		Name:          e.attr("", "name"),
		Documentation: documentation(e),
		Kind:          nodeKinds[name],
		DefaultID:     ref(e.attr("", "default")),
	}
	if name != n.Kind.String() {
		n.Attrs = map[string]string{"element": name} // sendTask, businessRuleTask, manualTask
	}
	if name == "adHocSubProcess" {
		n.AdHoc = &model.AdHoc{
			CancelRemaining: e.attr("", "cancelRemainingInstances") != "false",
			Sequential:      e.attr("", "ordering") == "Sequential",
		}
		for _, z := range e.extensions(nsZeebe) {
			if z.name.Local == "adHoc" {
				n.AdHoc.ActiveElements = z.attr("", "activeElementsCollection")
			}
		}
	}
	c.children(n, e)
	switch n.Kind {
	case model.KindBoundaryEvent:
		n.AttachedToID = ref(e.attr("", "attachedToRef"))
		n.Interrupting = e.attr("", "cancelActivity") != "false"
	case model.KindEventBasedGateway:
		if e.attr("", "instantiate") == "true" {
			c.unsupported(n.ID, e, `eventBasedGateway with instantiate="true"`, "start the process with a message or timer start event")
		}
	case model.KindScriptTask:
		c.script(n, e)
	case model.KindReceiveTask, model.KindServiceTask:
		if r := e.attr("", "messageRef"); r != "" { // receiveTask, sendTask
			n.Message = c.message(n.ID, r)
		}
	case model.KindSubProcess:
		n.Body = &model.Scope{ID: n.ID}
		n.EventSub = e.attr("", "triggeredByEvent") == "true"
		n.Transaction = name == "transaction"
		c.scope(n.Body, e, true)
	case model.KindStartEvent:
		n.Interrupting = e.attr("", "isInterrupting") != "false"
	case model.KindUserTask:
		resourceAssignments(n, e)
	case model.KindCallActivity:
		c.call(n, e)
	}
	n.ForCompensation = n.Kind.IsActivity() && e.attr("", "isForCompensation") == "true"
	c.extensions(n, e)
	return n
}

// children reads what is inside a flow node: event definitions and loop
// characteristics. Anything else in the BPMN namespace must be known.
func (c *converter) children(n *model.Node, e *element) {
	var defs []*element
	for _, child := range e.children {
		if child.name.Space != nsBPMN {
			continue
		}
		name := child.name.Local
		switch {
		case eventDefinitions[name]:
			defs = append(defs, child)
		case name == "multiInstanceLoopCharacteristics":
			c.multiInstance(n, child)
		case name == "standardLoopCharacteristics":
			c.standardLoop(n, child)
		case name == "activationCondition" && n.Kind == model.KindComplexGateway:
			n.ActivationCondition = c.condition(n.ID, child)
		case name == "completionCondition" && n.AdHoc != nil:
			n.AdHoc.Completion = c.condition(n.ID, child)
		case unsupportedChildren[name] != "":
			c.unsupportedChild(n.ID, child)
		case ignoredInNode[name]:
		case n.Kind == model.KindSubProcess && isScopeChild(name):
		default:
			c.unknown(n.ID, child)
		}
	}
	switch {
	case len(defs) == 0:
	case !n.Kind.IsEvent():
		c.probs.Add(n.ID, "a %s cannot have a %s: only events have event definitions", n.Kind, defs[0].name.Local)
	case len(defs) > 1:
		n.Trigger = model.TriggerMultiple
		n.ParallelMultiple = e.attr("", "parallelMultiple") == "true"
		for _, d := range defs {
			alt := &model.Node{ID: n.ID, Name: n.Name, Kind: n.Kind}
			c.eventDefinition(alt, d)
			n.Alternatives = append(n.Alternatives, alt)
		}
	default:
		c.eventDefinition(n, defs[0])
	}
}

// isFlowNodeChild reports whether name is a child of a flow node itself,
// which a sub-process holds besides its flow elements.
func isFlowNodeChild(name string) bool {
	return ignoredInNode[name] || eventDefinitions[name] || unsupportedChildren[name] != "" ||
		name == "multiInstanceLoopCharacteristics" || name == "standardLoopCharacteristics" ||
		name == "completionCondition" // of an ad-hoc sub-process
}

// isScopeChild reports whether name is a flow element or another child of a
// scope, which a sub-process holds besides its own flow-node children.
func isScopeChild(name string) bool {
	return name == "sequenceFlow" || nodeKinds[name] != model.KindUnknown ||
		unsupportedFlowElements[name].kind != model.KindUnknown || ignoredInScope[name]
}

func (c *converter) flow(e *element) *model.Flow {
	f := &model.Flow{
		ID:       e.id(),
		Name:     e.attr("", "name"),
		SourceID: ref(e.attr("", "sourceRef")),
		TargetID: ref(e.attr("", "targetRef")),
	}
	if cond := e.child(nsBPMN, "conditionExpression"); cond != nil {
		f.Condition = c.condition(f.ID, cond)
	}
	c.fallbackFlow(f, e)
	return f
}

// condition returns the text of a conditionExpression as the engine reads
// it: =FEEL and ${...} as they are, anything else as JavaScript. A FEEL
// condition declared by its language attribute gets its leading "=".
func (c *converter) condition(id string, e *element) string {
	text := e.trimmed()
	switch lang := scriptLanguage(e.attr("", "language")); {
	case text == "":
		return ""
	case lang == "feel":
		if !strings.HasPrefix(text, "=") {
			text = "=" + text
		}
	case foreignLanguages[lang]:
		c.probs.Add(id, "condition language %q does not run: write the condition in JavaScript, as =FEEL or as ${...}", e.attr("", "language"))
	}
	return text
}

func (c *converter) script(n *model.Node, e *element) {
	n.Script.Source = e.child(nsBPMN, "script").trimmed()
	format := e.attr("", "scriptFormat")
	switch lang := scriptLanguage(format); {
	case format == "" || lang == "javascript":
		n.Script.Format = "javascript"
	case lang == "feel":
		n.Script.Format = "feel"
	default:
		n.Script.Format = format
		c.probs.Add(n.ID, "script format %q does not run: write the script in JavaScript", format)
	}
}

// scriptLanguage names the language of a scriptFormat or expression language
// attribute: "javascript", "feel", or the lower-cased value as given.
func scriptLanguage(format string) string {
	f := strings.ToLower(strings.TrimSpace(format))
	f = strings.TrimPrefix(strings.TrimPrefix(f, "application/"), "text/")
	switch {
	case f == "javascript", f == "js", f == "ecmascript", f == "x-javascript":
		return "javascript"
	case strings.Contains(f, "feel"): // also the DMN FEEL namespace URIs
		return "feel"
	}
	return f
}

// foreignLanguages are script languages some engines run in conditions and
// Workflow++ does not. Others (XPath, the BPMN default, or JUEL) are taken as
// written: simple comparisons read the same in JavaScript.
var foreignLanguages = nameSet("groovy", "python", "jython", "ruby", "jruby", "beanshell", "bsh", "java", "kotlin")

// documentation joins the documentation texts of an element.
func documentation(e *element) string {
	var docs []string
	for _, d := range e.all(nsBPMN, "documentation") {
		if t := d.trimmed(); t != "" {
			docs = append(docs, t)
		}
	}
	return strings.Join(docs, "\n")
}

// ref returns the id a reference attribute names. References are QNames, so
// a prefix ("tns:Message_1") may come first; ids cannot contain colons.
func ref(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[i+1:]
	}
	return s
}
