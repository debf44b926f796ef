package bpmn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

// parseFile parses testdata/name and returns the definition with its problems.
func parseFile(t *testing.T, name string) (*model.Definition, model.Problems) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	def, err := bpmn.Parse(data, bpmn.Options{})
	var probs model.Problems
	if err != nil {
		require.ErrorAs(t, err, &probs, "a readable document fails only with problems")
	}
	require.NotNil(t, def)
	return def, probs
}

// valid parses testdata/name, which must have no problem, parsed or validated.
func valid(t *testing.T, name string) *model.Process {
	t.Helper()
	def, probs := parseFile(t, name)
	require.Empty(t, probs)
	require.Empty(t, model.Validate(def, model.Checks{}))
	return def.Main()
}

// node returns the node id of p, which must exist.
func node(t *testing.T, p *model.Process, id string) *model.Node {
	t.Helper()
	n := p.Node(id)
	require.NotNil(t, n, "node %q", id)
	return n
}

// requireProblem asserts that probs hold a problem about id whose message contains want.
func requireProblem(t *testing.T, probs model.Problems, id, want string) {
	t.Helper()
	for _, p := range probs {
		if p.ElementID == id && strings.Contains(p.Message, want) {
			return
		}
	}
	require.Failf(t, "problem missing", "want a problem about %q containing %q, got:\n%s", id, want, list(probs))
}

func list(probs model.Problems) string {
	var b strings.Builder
	for _, p := range probs {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

func TestParseNodeKinds(t *testing.T) {
	t.Parallel()
	def, probs := parseFile(t, "nodes.bpmn")
	require.Empty(t, probs)
	require.Empty(t, model.Validate(def, model.Checks{}))
	require.Equal(t, "nodes", def.Key)
	require.Equal(t, "Nodes", def.Name)
	require.Equal(t, model.FormatBPMN, def.Format)
	p := def.Main()
	require.Equal(t, "All nodes", p.Name)
	require.True(t, p.Executable, "isExecutable defaults to true")

	tests := []struct {
		id      string
		kind    model.Kind
		element string // Attrs["element"] when the kind does not say it
	}{
		{"start", model.KindStartEvent, ""},
		{"end", model.KindEndEvent, ""},
		{"catch", model.KindIntermediateCatchEvent, ""},
		{"throw", model.KindIntermediateThrowEvent, ""},
		{"xor", model.KindExclusiveGateway, ""},
		{"and", model.KindParallelGateway, ""},
		{"or", model.KindInclusiveGateway, ""},
		{"events", model.KindEventBasedGateway, ""},
		{"task", model.KindTask, ""},
		{"manual", model.KindTask, "manualTask"},
		{"user", model.KindUserTask, ""},
		{"service", model.KindServiceTask, ""},
		{"send", model.KindServiceTask, "sendTask"},
		{"rule", model.KindServiceTask, "businessRuleTask"},
		{"script", model.KindScriptTask, ""},
		{"receive", model.KindReceiveTask, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			n := node(t, p, tt.id)
			require.Equal(t, tt.kind, n.Kind)
			require.Equal(t, tt.element, n.Attrs["element"])
		})
	}

	t.Run("documentation", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "Begins here.", node(t, p, "start").Documentation)
		require.Equal(t, "Start", node(t, p, "start").Name)
	})
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "toTask", node(t, p, "xor").Default.ID)
		require.Equal(t, "orDefault", node(t, p, "or").Default.ID)
		require.Equal(t, "serviceDefault", node(t, p, "service").Default.ID, "activities have defaults too")
		require.True(t, p.Flow("toTask").IsDefault())
	})
	t.Run("conditions", func(t *testing.T) {
		t.Parallel()
		for id, want := range map[string]string{
			"toTask":   "",
			"feel":     "=amount > 100",
			"juel":     "${amount > 10}",
			"js":       "amount < 5 && vip",
			"feelLang": `=status = "new"`,
		} {
			require.Equal(t, want, p.Flow(id).Condition, id)
		}
	})
	t.Run("script", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, model.Script{Format: "javascript", Source: "return {ok: true}"}, node(t, p, "script").Script)
	})
	t.Run("receive", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, &model.Message{Name: "order-paid"}, node(t, p, "receive").Message)
	})
}

func TestParseEvents(t *testing.T) {
	t.Parallel()
	p := valid(t, "events.bpmn")
	tests := []struct {
		id    string
		check func(t *testing.T, n *model.Node)
	}{
		{"start", func(t *testing.T, n *model.Node) { require.Equal(t, model.TriggerNone, n.Trigger) }},
		{"timeout", func(t *testing.T, n *model.Node) {
			require.Equal(t, model.TriggerTimer, n.Trigger)
			require.Equal(t, &model.Timer{Kind: model.TimerDuration, Expr: "PT15M"}, n.Timer)
			require.Equal(t, "work", n.AttachedTo.ID)
			require.True(t, n.Interrupting, "cancelActivity defaults to true")
		}},
		{"reminder", func(t *testing.T, n *model.Node) {
			require.Equal(t, &model.Timer{Kind: model.TimerCycle, Expr: "R3/PT1H"}, n.Timer)
			require.False(t, n.Interrupting)
		}},
		{"atDate", func(t *testing.T, n *model.Node) {
			require.Equal(t, &model.Timer{Kind: model.TimerDate, Expr: "2030-01-02T10:00:00Z"}, n.Timer)
		}},
		{"anyError", func(t *testing.T, n *model.Node) {
			require.Equal(t, model.TriggerError, n.Trigger)
			require.Empty(t, n.ErrorCode, "no errorRef catches every error")
		}},
		{"notFoundError", func(t *testing.T, n *model.Node) {
			require.Equal(t, "NOT_FOUND", n.ErrorCode)
			require.Equal(t, "the order does not exist", n.ErrorMessage, "the error's message, not its name")
			require.Equal(t, "whatCode", n.ErrorCodeVariable)
			require.Equal(t, "whatMessage", n.ErrorMessageVariable)
		}},
		{"fail", func(t *testing.T, n *model.Node) {
			require.Equal(t, model.TriggerError, n.Trigger)
			require.Equal(t, "NOT_FOUND", n.ErrorCode)
		}},
		{"cancelled", func(t *testing.T, n *model.Node) {
			require.Equal(t, model.TriggerMessage, n.Trigger)
			require.Equal(t, &model.Message{Name: "order-paid", CorrelationKey: "=orderId"}, n.Message, "a QName messageRef resolves too")
			require.False(t, n.Interrupting)
		}},
		{"waitShipped", func(t *testing.T, n *model.Node) {
			require.Equal(t, &model.Message{Name: `="shipped-" + region`, CorrelationKey: "=order.tracking"}, n.Message,
				"the event's wf:correlationKey wins over the message's")
		}},
		{"alarmed", func(t *testing.T, n *model.Node) {
			require.Equal(t, model.TriggerSignal, n.Trigger)
			require.Equal(t, "fire-alarm", n.SignalName)
		}},
		{"waitNameless", func(t *testing.T, n *model.Node) { require.Equal(t, "nameless", n.SignalName) }},
		{"goto", func(t *testing.T, n *model.Node) {
			require.Equal(t, model.TriggerLink, n.Trigger)
			require.Equal(t, "next", n.LinkName)
		}},
		{"landing", func(t *testing.T, n *model.Node) { require.Equal(t, "next", n.LinkName) }},
		{"stop", func(t *testing.T, n *model.Node) { require.Equal(t, model.TriggerTerminate, n.Trigger) }},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			tt.check(t, node(t, p, tt.id))
		})
	}
	require.Len(t, node(t, p, "work").Boundaries, 6)
}

func TestParseSubProcess(t *testing.T) {
	t.Parallel()
	p := valid(t, "subprocess.bpmn")
	sub := node(t, p, "sub")
	require.Equal(t, model.KindSubProcess, sub.Kind)
	require.Equal(t, "Does the work.", sub.Documentation)
	require.NotNil(t, sub.Body)
	require.Same(t, sub, sub.Body.Owner)
	require.Equal(t, []string{"subStart", "inner", "subEnd"}, ids(sub.Body.Nodes))

	inner := node(t, p, "inner")
	require.Same(t, sub.Body, inner.Scope)
	require.Equal(t, []string{"innerStart", "innerTask", "innerEnd"}, ids(inner.Body.Nodes))
	require.Same(t, inner.Body, node(t, p, "innerTask").Scope)
	require.Len(t, inner.Body.Flows, 2)

	require.Equal(t, []string{"start", "sub", "subTimeout", "end"}, ids(p.Nodes))
	require.Same(t, sub, node(t, p, "subTimeout").AttachedTo)
	require.Len(t, p.AllNodes, 10)
}

func ids(nodes []*model.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

func TestParseZeebe(t *testing.T) {
	t.Parallel()
	p := valid(t, "zeebe.bpmn")

	charge := node(t, p, "charge")
	require.Equal(t, "payment", charge.Job.Type)
	require.Equal(t, 4, charge.Retry.Retries, "retries=5 are five attempts: four after the first")
	require.Equal(t, []model.Mapping{
		{Source: "=order.total", Target: "amount"},
		{Source: `"EUR"`, Target: "currency"},
		{Source: `"say \"hi\""`, Target: "greeting"},
	}, charge.Inputs, "a source without = is a literal, quoted as a JavaScript string")
	require.Equal(t, []model.Mapping{{Source: "=receipt.id", Target: "receiptId"}}, charge.Outputs)
	require.Equal(t, map[string]string{"method": "POST", "url": "https://pay.example/charge"}, charge.Job.Headers)

	once := node(t, p, "once")
	require.Equal(t, `="dyn-" + kind`, once.Job.Type)
	require.Equal(t, model.NoRetries, once.Retry.Retries)

	require.Equal(t, model.Human{
		Assignee:        "=initiator",
		CandidateGroups: []string{"sales", "managers"},
		CandidateUsers:  []string{"=reviewers"},
		Form:            `{"components":[{"key":"approved","type":"checkbox"}]}`,
		Priority:        "75",
		DueDate:         `=now() + duration("P1D")`,
		FollowUpDate:    "2030-01-01T00:00:00Z",
	}, node(t, p, "approve").Human)
	linked := node(t, p, "linked").Human
	require.Equal(t, "invoice-form", linked.FormID)
	require.Equal(t, "latest", linked.FormBinding, "no bindingType: latest")
	require.Equal(t, "https://forms.example/a", node(t, p, "external").Human.FormKey)

	require.Equal(t, model.Script{Format: "feel", Source: "=a + b", ResultVariable: "sum"}, node(t, p, "compute").Script)
	require.Equal(t, &model.Message{Name: "payment-received", CorrelationKey: "=orderId"}, node(t, p, "wait").Message)
}

func TestParseCamunda(t *testing.T) {
	t.Parallel()
	p := valid(t, "camunda.bpmn")

	ext := node(t, p, "external")
	require.Equal(t, "invoice", ext.Job.Type)
	require.Equal(t, []model.Mapping{
		{Source: "${order.total}", Target: "amount"},
		{Source: `"EUR"`, Target: "currency"},
		{Source: "null", Target: "nothing"},
	}, ext.Inputs)
	require.Equal(t, []model.Mapping{{Source: "${result.id}", Target: "invoiceId"}}, ext.Outputs)
	require.Equal(t, model.RetryPolicy{Retries: 3, Backoff: model.BackoffFixed, Delay: 10 * time.Minute}, ext.Retry)

	require.Equal(t, model.Human{
		Assignee:        "${initiator}",
		CandidateUsers:  []string{"anna", "bob"},
		CandidateGroups: []string{"${groups}"},
		FormID:          "approve",
		FormBinding:     "deployment",
		Priority:        "60",
		DueDate:         "${dueDate}",
		FollowUpDate:    "2030-01-01T00:00:00",
	}, node(t, p, "approve").Human)
	require.Equal(t, model.Script{Format: "javascript", Source: "a + b", ResultVariable: "total"}, node(t, p, "compute").Script)
}

func TestParseWF(t *testing.T) {
	t.Parallel()
	p := valid(t, "wf.bpmn")

	call := node(t, p, "call")
	require.Equal(t, model.Job{
		Type:    "http",
		Headers: map[string]string{"url": "https://api.example/x"},
		Timeout: 5 * time.Second,
	}, call.Job)
	require.Equal(t, model.RetryPolicy{
		Retries:  4,
		Backoff:  model.BackoffLinear,
		Delay:    500 * time.Millisecond,
		MaxDelay: 90 * time.Second,
		Jitter:   0.25,
		RetryOn:  []string{"TIMEOUT", "UNAVAILABLE"},
	}, call.Retry)
	require.Equal(t, []model.Mapping{
		{Source: "order.total * 100", Target: "cents"},
		{Source: "=customer.email", Target: "to"},
	}, call.Inputs, "wf: sources are expressions as written")
	require.Equal(t, []model.Mapping{{Source: "response.body", Target: "result"}}, call.Outputs)

	require.Equal(t, model.NoRetries, node(t, p, "noRetry").Retry.Retries, "wf:retries=0 means none")

	require.Equal(t, model.Human{
		Assignee:        "=initiator",
		CandidateUsers:  []string{"anna", "bob"},
		CandidateGroups: []string{"=groups"},
		FormKey:         "review-form",
		Form:            `{"components":[]}`,
		Priority:        "90",
		DueDate:         `=now() + duration("PT4H")`,
		FollowUpDate:    "2030-01-01T00:00:00Z",
	}, node(t, p, "review").Human)
	require.Equal(t, "total", node(t, p, "compute").Script.ResultVariable)
	require.Equal(t, &model.Message{Name: "payment", CorrelationKey: "order.id"}, node(t, p, "wait").Message)
}

func TestParsePrecedence(t *testing.T) {
	t.Parallel()
	p := valid(t, "precedence.bpmn")

	all := node(t, p, "all")
	require.Equal(t, "from-wf", all.Job.Type, "wf: wins")
	require.Equal(t, 6, all.Retry.Retries)
	require.Equal(t, map[string]string{"a": "zeebe", "b": "wf"}, all.Job.Headers, "headers merge key by key")
	require.Equal(t, []model.Mapping{{Source: "=zeebe", Target: "x"}}, all.Inputs, "zeebe: wins over camunda:")

	z := node(t, p, "zeebeOverCamunda")
	require.Equal(t, "from-zeebe", z.Job.Type, "a job type makes a Java class harmless")
	require.Equal(t, []model.Mapping{{Source: "${camunda}", Target: "x"}}, z.Inputs, "lists come from the dialect that has them")
	require.Equal(t, []model.Mapping{{Source: "=zeebe", Target: "y"}}, z.Outputs)

	h := node(t, p, "human").Human
	require.Equal(t, "wf", h.Assignee)
	require.Equal(t, []string{"zeebe"}, h.CandidateGroups)
}

func TestParseIgnoresWhatDoesNotRun(t *testing.T) {
	t.Parallel()
	def, probs := parseFile(t, "collaboration.bpmn")
	require.Empty(t, probs)
	require.Empty(t, model.Validate(def, model.Checks{}))
	require.Equal(t, "shop", def.Key, "the key is the first executable process")
	require.Len(t, def.Processes, 2)
	require.False(t, def.Process("customer").Executable)
	require.True(t, def.Process("shop").Executable, "isExecutable defaults to true")
	shop := def.Process("shop")
	require.Equal(t, []string{"sStart", "receive", "sEnd"}, ids(shop.Nodes))
	require.Equal(t, "First\nSecond", node(t, shop, "receive").Documentation)
}

func TestParseKeyFallsBackToFirstProcess(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`">
		<process id="a" isExecutable="false"><startEvent id="s"/></process>
		<process id="b" isExecutable="false"/></definitions>`), bpmn.Options{})
	require.NoError(t, err)
	require.Equal(t, "a", def.Key)
}

const bpmnNS = "http://www.omg.org/spec/BPMN/20100524/MODEL"

func TestParseUnsupported(t *testing.T) {
	t.Parallel()
	def, probs := parseFile(t, "unsupported.bpmn")
	tests := []struct{ id, want string }{
		{"adhoc", "callChoreography is not supported yet"},
		{"java", "camunda:class \"com.example.Charge\" is not supported: Workflow++ runs no Java"},
		{"delegate", "camunda:delegateExpression \"${charger}\" is not supported"},
		{"chor", "choreography is not supported yet"},
		{"choreoTask", "choreographyTask is not supported yet"},
		{"unknown", `unknown BPMN element "frobnicator"`},
		{"groovy", `script format "groovy" does not run: write the script in JavaScript`},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			requireProblem(t, probs, tt.id, tt.want)
		})
	}
	for _, p := range probs {
		if p.ElementID != "groovy" {
			require.True(t, bpmn.IsUnsupported(p), "every problem here is about something unsupported: %s", p)
		}
	}
	require.False(t, bpmn.IsUnsupported(model.Problem{ElementID: "groovy", Message: "script format \"groovy\" does not run"}))

	// Placeholders keep the graph whole: the only problems are the unsupported ones.
	p := def.Main()
	require.Equal(t, "choreographyTask", node(t, p, "choreoTask").Attrs["element"])
	for _, v := range model.Validate(def, model.Checks{}) {
		require.Truef(t, mentions(probs, v.ElementID), "validation problem about an element not reported as unsupported: %s", v)
	}
}

// mentions reports whether probs hold a problem about id.
func mentions(probs model.Problems, id string) bool {
	for _, p := range probs {
		if p.ElementID == id {
			return true
		}
	}
	return false
}

func TestParseBadValues(t *testing.T) {
	t.Parallel()
	_, probs := parseFile(t, "bad-values.bpmn")
	tests := []struct{ id, want string }{
		{"retries", `wf:retries "x" is not a whole number`},
		{"backoff", `wf:backoff "random" is not a backoff`},
		{"delay", `wf:retryDelay: duration "5s": not an ISO-8601 duration`},
		{"months", `wf:maxDelay: duration "P1M": years and months have no fixed length`},
		{"timeout", `wf:timeout: duration "PT"`},
		{"jitter", `wf:jitter "1.5" is not a share between 0 and 1`},
		{"typo", "unknown attribute wf:retry"},
		{"element", "unknown element wf:inputs"},
		{"zeebeRetries", `zeebe:taskDefinition retries "=n" is not a whole number`},
		{"cycle", `camunda:failedJobRetryTimeCycle "PT1M,PT5M"`},
		{"form", `refers to zeebe:userTaskForm "missing"`},
		{"noMessage", "wf:correlationKey needs a message"},
		{"f1", `condition language "groovy" does not run`},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			requireProblem(t, probs, tt.id, tt.want)
		})
	}
	require.Len(t, probs, len(tests), list(probs))
}

func TestParseReferences(t *testing.T) {
	t.Parallel()
	_, probs := parseFile(t, "references.bpmn")
	tests := []struct{ id, want string }{
		{"twice", "id is used more than once"},
		{"f2", "id is used more than once"},
		{"f2", `targetRef "missing" does not exist`},
		{"xor", `default flow "nowhere" does not exist`},
		{"orphan", `attachedToRef "ghost" does not exist`},
		{"wait", `messageRef "noMessage" does not name a message`},
		{"signal", `signalRef "noSignal" does not name a signal`},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.want, func(t *testing.T) {
			t.Parallel()
			requireProblem(t, probs, tt.id, tt.want)
		})
	}
}

func TestParseProblemsWithoutIDsSayWhere(t *testing.T) {
	t.Parallel()
	_, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`">
<process id="p">
  <choreographyTask/>
</process></definitions>`), bpmn.Options{})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	requireProblem(t, probs, "", "choreographyTask (line 3) is not supported yet")
}

func TestParseCallActivity(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:camunda="http://camunda.org/schema/1.0/bpmn">
<process id="p">
  <startEvent id="s"/>
  <callActivity id="plain" calledElement="child"/>
  <callActivity id="c8"><extensionElements>
    <zeebe:calledElement processId="=childId" propagateAllChildVariables="false" bindingType="deployment"/>
    <zeebe:ioMapping><zeebe:input source="=a" target="b"/></zeebe:ioMapping>
  </extensionElements></callActivity>
  <callActivity id="c7" calledElement="child" camunda:calledElementBinding="version" camunda:calledElementVersion="3"><extensionElements>
    <camunda:in source="a" target="b"/><camunda:in sourceExpression="${x + 1}" target="y"/><camunda:in businessKey="#{execution.processBusinessKey}"/>
    <camunda:out variables="all"/><camunda:out source="r" target="result"/>
  </extensionElements></callActivity>
  <sequenceFlow id="f1" sourceRef="s" targetRef="plain"/><sequenceFlow id="f2" sourceRef="plain" targetRef="c8"/><sequenceFlow id="f3" sourceRef="c8" targetRef="c7"/>
</process></definitions>`), bpmn.Options{})
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, &model.Call{ProcessID: "child", Binding: model.BindingLatest, AllIn: true, AllOut: true}, node(t, p, "plain").Call)
	c8 := node(t, p, "c8")
	require.Equal(t, &model.Call{ProcessID: "=childId", Binding: model.BindingDeployment, AllIn: true, AllOut: false}, c8.Call)
	require.Equal(t, []model.Mapping{{Source: "=a", Target: "b"}}, c8.Inputs)
	require.Equal(t, &model.Call{
		ProcessID: "child", Binding: model.BindingVersion, Version: 3, AllIn: false, AllOut: true, ParentBusinessKey: true,
		In:  []model.Mapping{{Source: "a", Target: "b"}, {Source: "${x + 1}", Target: "y"}},
		Out: []model.Mapping{{Source: "r", Target: "result"}},
	}, node(t, p, "c7").Call)

	_, err = bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`" xmlns:camunda="http://camunda.org/schema/1.0/bpmn">
<process id="p"><callActivity id="tagged" calledElement="child" camunda:calledElementBinding="someday"/><callActivity id="nothing"/></process></definitions>`), bpmn.Options{})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	requireProblem(t, probs, "tagged", `camunda:calledElementBinding "someday" is unknown`)
}

func TestParseEscalation(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`" xmlns:camunda="http://camunda.org/schema/1.0/bpmn">
<escalation id="late" escalationCode="LATE"/><escalation id="nocode"/>
<process id="p">
  <startEvent id="s"/>
  <subProcess id="sub"><startEvent id="ss"/><intermediateThrowEvent id="t1"><escalationEventDefinition escalationRef="late"/></intermediateThrowEvent>
    <endEvent id="t2"><escalationEventDefinition escalationRef="nocode"/></endEvent>
    <sequenceFlow id="sf1" sourceRef="ss" targetRef="t1"/><sequenceFlow id="sf2" sourceRef="t1" targetRef="t2"/></subProcess>
  <boundaryEvent id="b1" attachedToRef="sub"><escalationEventDefinition escalationRef="late" camunda:escalationCodeVariable="why"/></boundaryEvent>
  <boundaryEvent id="b2" attachedToRef="sub" cancelActivity="false"><escalationEventDefinition/></boundaryEvent>
  <endEvent id="e"/><endEvent id="e1"/><endEvent id="e2"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/>
  <sequenceFlow id="f3" sourceRef="b1" targetRef="e1"/><sequenceFlow id="f4" sourceRef="b2" targetRef="e2"/>
</process></definitions>`), bpmn.Options{})
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, "LATE", node(t, p, "t1").EscalationCode)
	require.Equal(t, "nocode", node(t, p, "t2").EscalationCode, "an escalation without a code escalates its id")
	b1 := node(t, p, "b1")
	require.Equal(t, model.TriggerEscalation, b1.Trigger)
	require.Equal(t, "LATE", b1.EscalationCode)
	require.Equal(t, "why", b1.EscalationCodeVariable)
	require.True(t, b1.Interrupting)
	b2 := node(t, p, "b2")
	require.Empty(t, b2.EscalationCode, "catches every escalation")
	require.False(t, b2.Interrupting)

	_, err = bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`"><process id="p">
  <startEvent id="s"><escalationEventDefinition/></startEvent><endEvent id="e"><escalationEventDefinition escalationRef="missing"/></endEvent>
  <sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process></definitions>`), bpmn.Options{})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	requireProblem(t, probs, "e", `escalationRef "missing" does not name an escalation`)
}

func TestParseStandardLoop(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`">
<process id="p">
  <startEvent id="s"/>
  <task id="a"><standardLoopCharacteristics testBefore="true" loopMaximum="5"><loopCondition language="FEEL">n &lt; 3</loopCondition></standardLoopCharacteristics></task>
  <task id="b"><standardLoopCharacteristics/></task>
  <sequenceFlow id="f1" sourceRef="s" targetRef="a"/><sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
</process></definitions>`), bpmn.Options{})
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, &model.StandardLoop{Condition: "=n < 3", TestBefore: true, Maximum: 5}, node(t, p, "a").Repeat)
	require.Equal(t, &model.StandardLoop{}, node(t, p, "b").Repeat, "a loop marker that is only drawn")

	_, err = bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`"><process id="p">
  <startEvent id="s"/><task id="a"><standardLoopCharacteristics loopMaximum="many"/></task>
  <sequenceFlow id="f1" sourceRef="s" targetRef="a"/></process></definitions>`), bpmn.Options{})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	requireProblem(t, probs, "a", `loopMaximum "many" is not a whole number`)
}

func TestParseCamundaInputOutputValues(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`" xmlns:camunda="http://camunda.org/schema/1.0/bpmn">
<process id="p">
  <startEvent id="s"/>
  <task id="a"><extensionElements><camunda:inputOutput>
    <camunda:inputParameter name="list"><camunda:list><camunda:value>a</camunda:value><camunda:value>${n + 1}</camunda:value><camunda:value/></camunda:list></camunda:inputParameter>
    <camunda:inputParameter name="map"><camunda:map><camunda:entry key="k">v</camunda:entry><camunda:entry key="nested"><camunda:list><camunda:value>x</camunda:value></camunda:list></camunda:entry></camunda:map></camunda:inputParameter>
    <camunda:outputParameter name="sum"><camunda:script scriptFormat="JavaScript">a + b</camunda:script></camunda:outputParameter>
  </camunda:inputOutput></extensionElements></task>
  <task id="g"><extensionElements><camunda:inputOutput>
    <camunda:inputParameter name="x"><camunda:script scriptFormat="groovy">1</camunda:script></camunda:inputParameter>
  </camunda:inputOutput></extensionElements></task>
  <sequenceFlow id="f1" sourceRef="s" targetRef="a"/><sequenceFlow id="f2" sourceRef="a" targetRef="g"/>
</process></definitions>`), bpmn.Options{})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	requireProblem(t, probs, "g", `a camunda:script in "groovy" is not supported`)
	a := node(t, def.Main(), "a")
	require.Equal(t, []model.Mapping{
		{Source: `["a", (n + 1), null]`, Target: "list"},
		{Source: `({"k": "v", "nested": ["x"]})`, Target: "map"},
	}, a.Inputs)
	require.Equal(t, []model.Mapping{{Source: "a + b", Target: "sum"}}, a.Outputs)
}

func TestParseMultipleEvents(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`"><message id="m" name="go"/><signal id="s" name="now"/>
<process id="p"><startEvent id="st"/>
  <intermediateCatchEvent id="any"><messageEventDefinition messageRef="m"/><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
  <intermediateCatchEvent id="all" parallelMultiple="true"><messageEventDefinition messageRef="m"/><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
  <sequenceFlow id="f1" sourceRef="st" targetRef="any"/><sequenceFlow id="f2" sourceRef="any" targetRef="all"/>
</process></definitions>`), bpmn.Options{})
	require.NoError(t, err)
	anyOf := node(t, def.Main(), "any")
	require.Equal(t, model.TriggerMultiple, anyOf.Trigger)
	require.False(t, anyOf.ParallelMultiple)
	require.Len(t, anyOf.Alternatives, 2)
	require.Equal(t, "go", anyOf.Alternatives[0].Message.Name)
	require.Equal(t, "now", anyOf.Alternatives[1].SignalName)
	require.True(t, node(t, def.Main(), "all").ParallelMultiple)

	def, err = bpmn.Parse([]byte(`<definitions xmlns="`+bpmnNS+`"><process id="p"><startEvent id="st"/>
  <intermediateCatchEvent id="odd"><messageEventDefinition/><errorEventDefinition/></intermediateCatchEvent>
  <sequenceFlow id="f1" sourceRef="st" targetRef="odd"/></process></definitions>`), bpmn.Options{})
	require.NoError(t, err)
	probs := model.Validate(def, model.Checks{})
	requireProblem(t, probs, "odd", "this event with several definitions cannot have a definition of kind error")
}
