package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
)

func parseFile(t *testing.T, name string) *model.Definition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	def, err := graph.Parse(data)
	require.NoError(t, err)
	require.Empty(t, model.Validate(def, model.Checks{}))
	return def
}

// flows describes every flow of p as "source -> target", with " if cond"
// or " (default)".
func flows(p *model.Process) []string {
	var out []string
	for _, f := range p.AllFlows {
		s := f.SourceID + " -> " + f.TargetID
		switch {
		case f.Condition != "":
			s += " if " + f.Condition
		case f.IsDefault():
			s += " (default)"
		}
		out = append(out, s)
	}
	return out
}

// kinds maps every node id of p to its kind, generated ones marked with a star.
func kinds(p *model.Process) map[string]string {
	out := map[string]string{}
	for _, n := range p.AllNodes {
		k := n.Kind.String()
		if n.Attrs[model.GeneratedAttr] == "true" {
			k += "*"
		}
		out[n.ID] = k
	}
	return out
}

func TestParseConverts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		nodes map[string]string
		flows []string
	}{
		{
			file: "loan.graph.yaml",
			nodes: map[string]string{
				"score": "scriptTask", "decide": "exclusiveGateway", "reject": "scriptTask",
				"checks": "parallelGateway", "eachDocument": "exclusiveGateway", "verify": "scriptTask",
				"pollBureau": "exclusiveGateway", "askBureau": "scriptTask", "pause": "intermediateCatchEvent",
				"review": "userTask", "record": "scriptTask",
				"loan__start":           "startEvent*",
				"eachDocument__init":    "scriptTask*",
				"eachDocument__next":    "scriptTask*",
				"eachDocument__advance": "scriptTask*",
				"review__join":          "inclusiveGateway*",
				"reject__end":           "endEvent*",
				"record__end":           "endEvent*",
			},
			flows: []string{
				"loan__start -> score",
				"score -> decide",
				"decide -> checks if score >= 50",
				"decide -> reject (default)",
				"reject -> reject__end",
				"checks -> eachDocument__init",
				"checks -> pollBureau",
				"eachDocument__init -> eachDocument",
				"eachDocument -> eachDocument__next if documentIndex < __eachDocument_items.length",
				"eachDocument -> review__join (default)",
				"eachDocument__next -> verify",
				"verify -> eachDocument__advance",
				"eachDocument__advance -> eachDocument",
				"pollBureau -> askBureau if !bureauReady && attempts < 5",
				"pollBureau -> review__join (default)",
				"askBureau -> pause",
				"pause -> pollBureau",
				"review__join -> review",
				"review -> record",
				"record -> record__end",
			},
		},
		{
			file: "tasks.graph.json",
			nodes: map[string]string{
				"prepare": "scriptTask", "call": "serviceTask", "wait": "intermediateCatchEvent",
				"approve": "userTask", "compensate": "serviceTask", "deadline": "intermediateCatchEvent",
				"tasks__start":     "startEvent*",
				"call__onFail":     "boundaryEvent*",
				"approve__onFail":  "boundaryEvent*",
				"approve__split":   "inclusiveGateway*",
				"approve__end":     "endEvent*",
				"compensate__join": "inclusiveGateway*",
				"compensate__end":  "endEvent*",
				"deadline__end":    "endEvent*",
			},
			flows: []string{
				"tasks__start -> prepare",
				"prepare -> call",
				"call -> wait",
				"call__onFail -> compensate__join",
				"wait -> approve",
				"approve -> approve__split",
				"approve__split -> deadline if approved",
				"approve__split -> approve__end (default)",
				"approve__onFail -> compensate__join",
				"compensate__join -> compensate",
				"compensate -> compensate__end",
				"deadline -> deadline__end",
			},
		},
		{
			file: "switch.graph.yaml",
			nodes: map[string]string{
				"tier": "exclusiveGateway", "gold": "serviceTask", "silver": "serviceTask", "big": "serviceTask", "other": "serviceTask",
				"switch__start": "startEvent*",
				"gold__end":     "endEvent*", "silver__end": "endEvent*", "big__end": "endEvent*", "other__end": "endEvent*",
			},
			flows: []string{
				"switch__start -> tier",
				`tier -> gold if (customer.tier) === "gold"`,
				"tier -> silver if (customer.tier) === 2",
				"tier -> big if amount > 1000",
				"tier -> other (default)",
				"gold -> gold__end", "silver -> silver__end", "big -> big__end", "other -> other__end",
			},
		},
		{
			file: "subflow.graph.yaml",
			nodes: map[string]string{
				"begin": "serviceTask", "inner": "subProcess", "first": "serviceTask", "second": "serviceTask",
				"recover": "serviceTask", "finish": "serviceTask",
				"subflow__start": "startEvent*",
				"inner__start":   "startEvent*",
				"second__end":    "endEvent*",
				"inner__onFail":  "boundaryEvent*",
				"finish__join":   "inclusiveGateway*",
				"finish__end":    "endEvent*",
			},
			flows: []string{
				"subflow__start -> begin",
				"begin -> inner",
				"inner__start -> first",
				"first -> second",
				"second -> second__end",
				"inner -> finish__join",
				"inner__onFail -> recover",
				"recover -> finish__join",
				"finish__join -> finish",
				"finish -> finish__end",
			},
		},
		{
			file: "parallel.graph.yaml",
			nodes: map[string]string{
				"a": "serviceTask", "b": "serviceTask", "fork": "parallelGateway",
				"x": "serviceTask", "y": "serviceTask", "z": "serviceTask", "meet": "serviceTask",
				"again": "exclusiveGateway", "twice": "parallelGateway", "left": "scriptTask", "right": "serviceTask",
				"parallel__start": "startEvent*",
				"parallel__fork":  "parallelGateway*",
				"fork__join":      "inclusiveGateway*",
				"meet__join":      "inclusiveGateway*",
				"again__loop":     "inclusiveGateway*",
				"again__end":      "endEvent*",
			},
			flows: []string{
				"parallel__start -> parallel__fork",
				"parallel__fork -> a",
				"parallel__fork -> b",
				"a -> fork__join",
				"b -> fork__join",
				"fork__join -> fork",
				"fork -> x", "fork -> y", "fork -> z",
				"x -> meet__join", "y -> meet__join", "z -> meet__join",
				"meet__join -> meet",
				"meet -> again",
				"again -> twice if round < 3",
				"again -> again__end (default)",
				"twice -> left", "twice -> right",
				"left -> again__loop", "right -> again__loop",
				"again__loop -> again",
			},
		},
		{
			file: "nested.graph.yaml",
			nodes: map[string]string{
				"outer": "exclusiveGateway", "inner": "exclusiveGateway", "check": "exclusiveGateway",
				"ok": "serviceTask", "bad": "serviceTask", "done": "serviceTask",
				"nested__start":        "startEvent*",
				"outer__init":          "scriptTask*",
				"outer__next":          "scriptTask*",
				"outer__advance":       "scriptTask*",
				"inner__init":          "scriptTask*",
				"inner__next":          "scriptTask*",
				"inner__advance":       "scriptTask*",
				"inner__advance__join": "inclusiveGateway*",
				"done__end":            "endEvent*",
			},
			flows: []string{
				"nested__start -> outer__init",
				"outer__init -> outer",
				"outer -> outer__next if orderIndex < __outer_items.length",
				"outer -> done (default)",
				"outer__next -> inner__init",
				"inner__init -> inner",
				"inner -> inner__next if i < __inner_items.length",
				"inner -> outer__advance (default)",
				"inner__next -> check",
				"check -> ok if line.qty > 0",
				"check -> bad (default)",
				"ok -> inner__advance__join",
				"bad -> inner__advance__join",
				"inner__advance__join -> inner__advance",
				"inner__advance -> inner",
				"outer__advance -> outer",
				"done -> done__end",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			def := parseFile(t, tt.file)
			require.Equal(t, model.FormatGraph, def.Format)
			require.Len(t, def.Processes, 1)
			p := def.Main()
			require.Equal(t, def.Key, p.ID)
			require.Equal(t, tt.nodes, kinds(p))
			require.ElementsMatch(t, tt.flows, flows(p))
		})
	}
}

func TestParseYAMLAndJSONAgree(t *testing.T) {
	t.Parallel()
	fromYAML := parseFile(t, "loan.graph.yaml")
	fromJSON := parseFile(t, "loan.graph.json")
	require.Equal(t, fromJSON, fromYAML)
	require.Equal(t, map[string]any{
		"amount":      25000.0,
		"documents":   []any{"payslip", "id-card", "bank-statement"},
		"verified":    []any{},
		"attempts":    0.0,
		"bureauReady": false,
	}, fromYAML.Variables)
}

func TestParseLoanDetails(t *testing.T) {
	t.Parallel()
	def := parseFile(t, "loan.graph.yaml")
	require.Equal(t, "loan", def.Key)
	require.Equal(t, "Loan application", def.Name)
	p := def.Main()

	score := p.Node("score")
	require.Equal(t, "Score the applicant", score.Name)
	require.Equal(t, model.Script{Format: "javascript", Source: "({ score: amount > 50000 ? 40 : 80 })\n"}, score.Script)
	require.Equal(t, "Task", score.Attrs["type"])

	pause := p.Node("pause")
	require.Equal(t, model.TriggerTimer, pause.Trigger)
	require.Equal(t, &model.Timer{Kind: model.TimerDuration, Expr: "PT1S"}, pause.Timer)

	review := p.Node("review")
	require.Equal(t, []string{"loan-officers"}, review.Human.CandidateGroups)
	require.Equal(t, "50", review.Human.Priority)
	require.JSONEq(t, `{"components":[{"key":"approved","label":"Approve the loan","type":"checkbox"}]}`, review.Human.Form)

	init := p.Node("eachDocument__init")
	require.Contains(t, init.Script.Source, `})(documents)`)
	require.Contains(t, init.Script.Source, `return {"__eachDocument_items": items, "documentIndex": 0};`)
	require.Equal(t, `({"document": __eachDocument_items[documentIndex]})`, p.Node("eachDocument__next").Script.Source)
	require.Equal(t, `({"documentIndex": documentIndex + 1})`, p.Node("eachDocument__advance").Script.Source)
	require.Equal(t, "Each document: start", init.Name)
	require.Contains(t, parseFile(t, "nested.graph.yaml").Main().Node("outer__init").Script.Source, "})(orders)", "${...} is unwrapped")

	require.Equal(t, "decide__to__reject", p.Node("decide").DefaultID)
	require.Len(t, p.NoneStarts(), 1)
}

func TestParseTaskDetails(t *testing.T) {
	t.Parallel()
	def := parseFile(t, "tasks.graph.json")
	p := def.Main()
	require.Equal(t, map[string]any{"region": "eu", "limits": map[string]any{"max": 3.0}}, def.Variables)

	prepare := p.Node("prepare")
	require.Equal(t, model.Script{Format: "javascript", Source: "({ ready: true })", ResultVariable: "prep"}, prepare.Script)

	call := p.Node("call")
	require.Equal(t, "Call the API", call.Name)
	require.Equal(t, model.Job{
		Type:       "http",
		Headers:    map[string]string{"x-source": "wfpp"},
		Parameters: map[string]any{"url": "https://example.com/${region}", "method": "POST"},
		Timeout:    2500 * time.Millisecond,
	}, call.Job)
	require.Equal(t, model.RetryPolicy{Retries: 4, Backoff: model.BackoffLinear, Delay: 100 * time.Millisecond, MaxDelay: time.Second}, call.Retry)
	require.Equal(t, "Task", call.Attrs["type"], "type names match ignoring case")
	require.NotNil(t, p.Flow("called"), "edgeId names the flow")

	bound := p.Node("call__onFail")
	require.Equal(t, model.TriggerError, bound.Trigger)
	require.Empty(t, bound.ErrorCode)
	require.True(t, bound.Interrupting)
	require.Same(t, call, bound.AttachedTo)

	require.Equal(t, &model.Timer{Kind: model.TimerDuration, Expr: "PT1.5S"}, p.Node("wait").Timer)
	require.Equal(t, &model.Timer{Kind: model.TimerDate, Expr: "2030-01-01T09:00:00Z"}, p.Node("deadline").Timer)

	require.Equal(t, model.Human{
		Assignee:        "${initiator}",
		CandidateUsers:  []string{"anna", "bob"},
		CandidateGroups: []string{"managers"},
		FormKey:         "approval",
		Priority:        "70",
		DueDate:         "PT24H",
	}, p.Node("approve").Human)
}

func TestParseSubflowScopes(t *testing.T) {
	t.Parallel()
	p := parseFile(t, "subflow.graph.yaml").Main()
	inner := p.Node("inner")
	require.NotNil(t, inner.Body)
	require.Same(t, inner.Body, p.Node("first").Scope)
	require.Same(t, inner.Body, p.Node("inner__start").Scope)
	require.Same(t, &p.Scope, p.Node("finish").Scope)
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	const head = "graphId: g\nnodes:\n"
	tests := []struct {
		name    string
		doc     string
		element string
		message string
	}{
		{
			name:    "CSharp task",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {language: CSharp, script: 'return 1;'}}\nedges: []\n",
			element: "t",
			message: `language "CSharp" does not run: write the task in JavaScript`,
		},
		{
			name:    "PowerShell task",
			doc:     `{"graphId":"g","nodes":[{"nodeId":"t","type":"Task","configuration":{"scriptLanguage":"PowerShell","script":"Get-Date"}}],"edges":[]}`,
			element: "t",
			message: `language "PowerShell" does not run: write the task in JavaScript`,
		},
		{
			name:    "subflow by reference",
			doc:     head + "  - {nodeId: s, type: Subflow, configuration: {graphId: other}}\nedges: []\n",
			element: "s",
			message: "Subflow by reference is not supported yet",
		},
		{
			name:    "TrueBranch from a Task",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\n  - {nodeId: u, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: t, targetNodeId: u, type: TrueBranch}\n",
			element: "t",
			message: "edges[0] (t -> u): a TrueBranch edge cannot leave a Task: use OnComplete or OnFail",
		},
		{
			name:    "unknown target",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: t, targetNodeId: nope}\n",
			element: "g",
			message: `edges[0] (t -> nope): targetNodeId "nope" is not a node`,
		},
		{
			name:    "unknown source",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: nope, targetNodeId: t}\n",
			element: "g",
			message: `sourceNodeId "nope" is not a node`,
		},
		{
			name:    "edge into a subflow",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\n  - {nodeId: s, type: Subflow, configuration: {nodes: [{nodeId: in, type: Task, configuration: {actionType: a}}]}}\nedges:\n  - {sourceNodeId: t, targetNodeId: in}\n  - {sourceNodeId: t, targetNodeId: s}\n",
			element: "g",
			message: "edges cannot cross into or out of a Subflow",
		},
		{
			name:    "unknown node type",
			doc:     head + "  - {nodeId: t, type: Script}\nedges: []\n",
			element: "t",
			message: `type "Script" is not a node type`,
		},
		{
			name:    "unknown edge type",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: t, targetNodeId: t, type: OnSuccess}\n",
			element: "t",
			message: `type "OnSuccess" is not an edge type`,
		},
		{
			name:    "duplicate nodeId",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\n  - {nodeId: t, type: Task, configuration: {actionType: b}}\nedges: []\n",
			element: "t",
			message: "nodeId is used more than once",
		},
		{
			name:    "task without work",
			doc:     head + "  - {nodeId: t, type: Task}\nedges: []\n",
			element: "t",
			message: "the Task does nothing",
		},
		{
			name:    "misspelt configuration",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {language: JavaScript, scirpt: x}}\nedges: []\n", //nolint:misspell // the misspelling is the case
			element: "t",
			message: `configuration has no field "scirpt"`, //nolint:misspell // the misspelling is the case
		},
		{
			name:    "misspelt top-level field",
			doc:     head + "  - {nodeId: t, type: Task, configuration: {actionType: a}}\negdes: []\n",
			message: `unknown field "egdes"`,
		},
		{
			name:    "IfElse without condition",
			doc:     head + "  - {nodeId: i, type: IfElse}\n  - {nodeId: t, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: i, targetNodeId: t, type: TrueBranch}\n",
			element: "i",
			message: "has no condition: set configuration.condition",
		},
		{
			name:    "IfElse without TrueBranch",
			doc:     head + "  - {nodeId: i, type: IfElse, configuration: {condition: x}}\n  - {nodeId: t, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: i, targetNodeId: t, type: FalseBranch}\n",
			element: "i",
			message: "a IfElse needs a TrueBranch edge",
		},
		{
			name:    "While without body",
			doc:     head + "  - {nodeId: w, type: While, configuration: {condition: x}}\nedges: []\n",
			element: "w",
			message: "needs a LoopBody edge",
		},
		{
			name:    "two defaults",
			doc:     head + "  - {nodeId: s, type: Switch}\n  - {nodeId: a, type: Task, configuration: {actionType: a}}\n  - {nodeId: b, type: Task, configuration: {actionType: b}}\nedges:\n  - {sourceNodeId: s, targetNodeId: a, type: SwitchCase}\n  - {sourceNodeId: s, targetNodeId: b, type: SwitchCase}\n",
			element: "s",
			message: "only one can be the default",
		},
		{
			name:    "case without expression",
			doc:     head + "  - {nodeId: s, type: Switch}\n  - {nodeId: a, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: s, targetNodeId: a, type: SwitchCase, case: 1}\n",
			element: "s",
			message: "has a case but the Switch has no configuration.expression",
		},
		{
			name:    "condition on a Parallel branch",
			doc:     head + "  - {nodeId: p, type: Parallel}\n  - {nodeId: a, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: p, targetNodeId: a, condition: x}\n",
			element: "p",
			message: "edges leaving a Parallel take no condition",
		},
		{
			name:    "endless loop",
			doc:     head + "  - {nodeId: s, type: Task, configuration: {actionType: a}}\n  - {nodeId: a, type: Task, configuration: {actionType: a}}\n  - {nodeId: b, type: Task, configuration: {actionType: b}}\nedges:\n  - {sourceNodeId: s, targetNodeId: a}\n  - {sourceNodeId: a, targetNodeId: b}\n  - {sourceNodeId: b, targetNodeId: a}\n",
			element: "a",
			message: "is on a loop that no While, ForEach, IfElse, Switch or condition can leave",
		},
		{
			name:    "no start",
			doc:     head + "  - {nodeId: a, type: Task, configuration: {actionType: a}}\n  - {nodeId: b, type: Task, configuration: {actionType: b}}\nedges:\n  - {sourceNodeId: a, targetNodeId: b, condition: again}\n  - {sourceNodeId: b, targetNodeId: a}\n",
			element: "g",
			message: "an edge enters every node, so none starts the graph: set startNodeId",
		},
		{
			name:    "unreachable",
			doc:     head + "  - {nodeId: a, type: Task, configuration: {actionType: a}}\n  - {nodeId: b, type: Task, configuration: {actionType: a}}\n  - {nodeId: w, type: While, configuration: {condition: x}}\nstartNodeId: a\nedges:\n  - {sourceNodeId: b, targetNodeId: w}\n  - {sourceNodeId: w, targetNodeId: b, type: LoopBody}\n",
			element: "b",
			message: "cannot be reached",
		},
		{
			name:    "bad timer",
			doc:     head + "  - {nodeId: t, type: Timer, configuration: {duration: soon}}\nedges: []\n",
			element: "t",
			message: `"soon" is neither an ISO-8601 duration`,
		},
		{
			name:    "bad item variable",
			doc:     head + "  - {nodeId: f, type: ForEach, configuration: {collection: xs, itemVariable: my-item}}\n  - {nodeId: a, type: Task, configuration: {actionType: a}}\nedges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n",
			element: "f",
			message: `configuration.itemVariable "my-item" is not a JavaScript name`,
		},
		{
			name:    "no graphId",
			doc:     "nodes: []\nedges: []\n",
			message: "the graph has no graphId",
		},
		{
			name:    "not YAML",
			doc:     "graphId: [\n",
			message: "not valid YAML",
		},
		{
			name:    "not JSON",
			doc:     "{\"graphId\": \"g\",\n \"nodes\": [}",
			message: "not valid JSON at line 2",
		},
		{
			name:    "wrong type",
			doc:     `{"graphId":"g","nodes":{"a":1},"edges":[]}`,
			message: "nodes is an object, not a list: change its type",
		},
		{
			name:    "configuration of the wrong type",
			doc:     head + "  - {nodeId: t, type: Timer, configuration: 5}\nedges: []\n",
			element: "t",
			message: "configuration is a number, not an object: change its type",
		},
		{
			name:    "a list, not a graph",
			doc:     "- a\n- b\n",
			message: "the document is an array, not an object",
		},
		{
			name:    "too deep",
			doc:     `{"graphId":"g","nodes":[],"edges":[],"defaultVariables":{"v":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`,
			message: "nests objects and lists 72 deep",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			def, err := graph.Parse([]byte(tt.doc))
			require.Nil(t, def)
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			found := false
			for _, p := range probs {
				found = found || p.ElementID == tt.element && strings.Contains(p.Message, tt.message)
			}
			require.Truef(t, found, "no problem about %q saying %q in:\n%v", tt.element, tt.message, err)
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := graph.Parse([]byte(`
graphId: g
nodes:
  - {nodeId: a, type: Task, configuration: {language: CSharp, script: x}}
  - {nodeId: b, type: Task, configuration: {language: PowerShell, script: x}}
edges:
  - {sourceNodeId: a, targetNodeId: b}
`))
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	require.Len(t, probs, 2)
	require.Equal(t, "a", probs[0].ElementID)
	require.Equal(t, "b", probs[1].ElementID)
}

func ExampleParse() {
	def, err := graph.Parse([]byte(`
graphId: hello
nodes:
  - nodeId: greet
    type: Task
    configuration: {language: JavaScript, script: '({greeting: "hello " + name})'}
edges: []
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range def.Main().AllNodes {
		fmt.Println(n.ID, n.Kind)
	}
	// Output:
	// greet scriptTask
	// hello__start startEvent
	// greet__end endEvent
}
