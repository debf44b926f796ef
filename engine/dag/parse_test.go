package dag_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/model"
)

func parseFile(t *testing.T, name string) *model.Definition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	def, err := dag.Parse(data)
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

// kinds maps every node id of p to its kind, "generated" marked with a star.
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
			file: "linear.dag.json",
			nodes: map[string]string{
				"a": "serviceTask", "b": "serviceTask",
				"a__start": "startEvent*", "b__end": "endEvent*",
			},
			flows: []string{"a__start -> a", "a -> b", "b -> b__end"},
		},
		{
			file: "order.dag.json",
			nodes: map[string]string{
				"validate": "serviceTask", "reserveStock": "serviceTask", "chargePayment": "serviceTask",
				"ship": "serviceTask", "notifyCustomer": "serviceTask", "notifyFailure": "serviceTask",
				"validate__start":          "startEvent*",
				"validate__split":          "inclusiveGateway*",
				"validate__onFailure":      "boundaryEvent*",
				"chargePayment__onFailure": "boundaryEvent*",
				"ship__onFailure":          "boundaryEvent*",
				"ship__join":               "inclusiveGateway*",
				"notifyCustomer__join":     "inclusiveGateway*",
				"notifyCustomer__end":      "endEvent*",
				"notifyFailure__end":       "endEvent*",
			},
			flows: []string{
				"validate__start -> validate",
				"validate -> validate__split",
				"validate__split -> reserveStock",
				"validate__split -> chargePayment if total > 0",
				"validate__onFailure -> notifyFailure",
				"reserveStock -> ship__join",
				"chargePayment -> ship__join",
				"chargePayment__onFailure -> ship__join",
				"ship__join -> ship",
				"ship -> notifyCustomer__join",
				"ship__onFailure -> notifyCustomer__join",
				"notifyCustomer__join -> notifyCustomer",
				"notifyCustomer -> notifyCustomer__end",
				"notifyFailure -> notifyFailure__end",
			},
		},
		{
			file: "conditions.dag.json",
			nodes: map[string]string{
				"route": "serviceTask", "big": "serviceTask", "small": "serviceTask", "audit": "serviceTask",
				"route__start": "startEvent*",
				"route__split": "inclusiveGateway*", "small__split": "inclusiveGateway*",
				"route__end": "endEvent*", "big__end": "endEvent*", "small__end": "endEvent*", "audit__end": "endEvent*",
			},
			flows: []string{
				"route__start -> route",
				"route -> route__split",
				"route__split -> big if amount >= 1000",
				"route__split -> small if ${amount < 1000}",
				"route__split -> route__end (default)",
				"big -> big__end",
				"small -> small__split",
				"small__split -> audit if =flagged",
				"small__split -> small__end (default)",
				"audit -> audit__end",
			},
		},
		{
			file: "failure.dag.json",
			nodes: map[string]string{
				"fetch": "serviceTask", "store": "serviceTask", "alert": "serviceTask", "page": "serviceTask", "log": "serviceTask",
				"fetch__start":            "startEvent*",
				"fetch__split":            "inclusiveGateway*",
				"fetch__onFailure":        "boundaryEvent*",
				"fetch__onFailure__split": "inclusiveGateway*",
				"log__join":               "inclusiveGateway*",
				"store__end":              "endEvent*",
				"alert__end":              "endEvent*",
				"page__end":               "endEvent*",
				"log__end":                "endEvent*",
			},
			flows: []string{
				"fetch__start -> fetch",
				"fetch -> fetch__split",
				"fetch__split -> store",
				"fetch__split -> log__join",
				"fetch__onFailure -> fetch__onFailure__split",
				"fetch__onFailure__split -> alert",
				"fetch__onFailure__split -> page if severity == 'high'",
				"fetch__onFailure__split -> log__join",
				"log__join -> log",
				"store -> store__end",
				"alert -> alert__end",
				"page -> page__end",
				"log -> log__end",
			},
		},
		{
			file: "continue.dag.json",
			nodes: map[string]string{
				"optional": "serviceTask", "main": "serviceTask",
				"optional__start":     "startEvent*",
				"optional__onFailure": "boundaryEvent*",
				"main__onFailure":     "boundaryEvent*",
				"main__join":          "inclusiveGateway*",
				"main__end":           "endEvent*",
			},
			flows: []string{
				"optional__start -> optional",
				"optional -> main__join",
				"optional__onFailure -> main__join",
				"main__join -> main",
				"main -> main__end",
				"main__onFailure -> main__end",
			},
		},
		{
			file: "diamond.dag.json",
			nodes: map[string]string{
				"a": "serviceTask", "b": "serviceTask", "c": "serviceTask", "d": "serviceTask", "e": "serviceTask",
				"a__start": "startEvent*", "a__split": "inclusiveGateway*",
				"b__join": "inclusiveGateway*", "e__join": "inclusiveGateway*", "e__end": "endEvent*",
			},
			flows: []string{
				"a__start -> a",
				"a -> a__split",
				"a__split -> b__join",
				"a__split -> c",
				"a__split -> d",
				"b__join -> b",
				"b -> e__join",
				"c -> e__join",
				"d -> b__join",
				"e__join -> e",
				"e -> e__end",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			def := parseFile(t, tt.file)
			require.Equal(t, model.FormatDAG, def.Format)
			require.Len(t, def.Processes, 1)
			p := def.Main()
			require.Equal(t, def.Key, p.ID)
			require.Equal(t, tt.nodes, kinds(p))
			require.ElementsMatch(t, tt.flows, flows(p))
		})
	}
}

func TestParseOrderDetails(t *testing.T) {
	t.Parallel()
	def := parseFile(t, "order.dag.json")
	require.Equal(t, "order", def.Key)
	require.Equal(t, "Order fulfilment", def.Name)
	require.Equal(t, map[string]any{"currency": "EUR"}, def.Variables)
	p := def.Main()

	validate := p.Node("validate")
	require.Equal(t, "Validate order", validate.Name)
	require.Equal(t, "order.validate", validate.Job.Type)
	require.Equal(t, map[string]any{"orderId": "${orderId}", "strict": true}, validate.Job.Parameters)
	require.Equal(t, 5*time.Second, validate.Job.Timeout)
	require.Equal(t, model.RetryPolicy{
		Retries: 2, Backoff: model.BackoffExponential, Delay: 200 * time.Millisecond, MaxDelay: 2 * time.Second,
	}, validate.Retry)
	require.Equal(t, "order.validate", validate.Attrs["actionType"])

	bound := p.Node("validate__onFailure")
	require.Equal(t, model.TriggerError, bound.Trigger)
	require.Empty(t, bound.ErrorCode, "catches every error")
	require.True(t, bound.Interrupting)
	require.Same(t, validate, bound.AttachedTo)
	require.Equal(t, []*model.Node{bound}, validate.Boundaries)

	charge := p.Node("chargePayment")
	require.Equal(t, model.NoRetries, charge.Retry.Retries)
	require.Equal(t, "continue", charge.Attrs["onFailure"])
	require.Zero(t, charge.Job.Timeout)

	require.Zero(t, p.Node("reserveStock").Retry, "no policy: the engine's defaults")
	require.Len(t, p.NoneStarts(), 1)
}

func TestParseFailureRetry(t *testing.T) {
	t.Parallel()
	fetch := parseFile(t, "failure.dag.json").Main().Node("fetch")
	require.Equal(t, model.RetryPolicy{Retries: 3, Backoff: model.BackoffFixed, Delay: 100 * time.Millisecond}, fetch.Retry)
	require.Equal(t, 1500*time.Millisecond, fetch.Job.Timeout)
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		element string
		message []string // all must be in one problem about element
	}{
		{
			name:    "not JSON",
			doc:     "{\n  \"id\": \"x\",\n  oops\n}",
			message: []string{"not valid JSON at line 3, column"},
		},
		{
			name:    "missing actionType",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a"}]}`,
			element: "a",
			message: []string{"/nodes/0", "actionType", "add it"},
		},
		{
			name:    "missing startNode",
			doc:     `{"id":"w","nodes":[{"id":"a","actionType":"x"}]}`,
			element: "w",
			message: []string{"startNode", "add it"},
		},
		{
			name:    "no nodes",
			doc:     `{"id":"w","startNode":"a","nodes":[]}`,
			element: "w",
			message: []string{"/nodes", "add one"},
		},
		{
			name:    "unknown when",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"a","when":"sometimes"}]}]}`,
			element: "a",
			message: []string{"/nodes/0/edges/0/when", "allowed values"},
		},
		{
			name:    "misspelt field",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","egdes":[]}]}`,
			element: "a",
			message: []string{"/nodes/0", "egdes", "fix its spelling"},
		},
		{
			name:    "too many attempts",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"retry":{"maxAttempts":101}}}]}`,
			element: "a",
			message: []string{"/nodes/0/policies/retry/maxAttempts", "within the limit"},
		},
		{
			name:    "timeout as text",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"timeoutMs":"5s"}}]}`,
			element: "a",
			message: []string{"/nodes/0/policies/timeoutMs", "integer"},
		},
		{
			name:    "bad id",
			doc:     `{"id":"w","startNode":"a b","nodes":[{"id":"a b","actionType":"x"}]}`,
			element: "w",
			message: []string{"/startNode", "letters, digits"},
		},
		{
			name:    "duplicate id",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x"},{"id":"a","actionType":"y"}]}`,
			element: "a",
			message: []string{"used more than once"},
		},
		{
			name:    "unknown start",
			doc:     `{"id":"w","startNode":"b","nodes":[{"id":"a","actionType":"x"}]}`,
			element: "w",
			message: []string{`startNode "b" is not a node`},
		},
		{
			name:    "unknown target",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"zz"}]}]}`,
			element: "a",
			message: []string{`edges[0]: targetNode "zz" is not a node`},
		},
		{
			name:    "cycle",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"b"}]},{"id":"b","actionType":"x","edges":[{"targetNode":"a","when":"failure"}]}]}`,
			element: "b",
			message: []string{`the edge to "a" closes a cycle`},
		},
		{
			name:    "unreachable",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x"},{"id":"b","actionType":"x"}]}`,
			element: "b",
			message: []string{"cannot be reached"},
		},
		{
			name:    "too deep",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","parameters":{"p":` + deep(70) + `}}]}`,
			message: []string{"nests", "deep"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			def, err := dag.Parse([]byte(tt.doc))
			require.Nil(t, def)
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			require.Truef(t, hasProblem(probs, tt.element, tt.message), "no problem about %q with %q in:\n%v", tt.element, tt.message, err)
		})
	}
}

func hasProblem(probs model.Problems, element string, parts []string) bool {
next:
	for _, p := range probs {
		if p.ElementID != element {
			continue
		}
		for _, part := range parts {
			if !strings.Contains(p.Message, part) {
				continue next
			}
		}
		return true
	}
	return false
}

func deep(n int) string {
	s := "1"
	for range n {
		s = "[" + s + "]"
	}
	return s
}

func TestSchemaIsDraft07(t *testing.T) {
	t.Parallel()
	require.Contains(t, string(dag.Schema), "http://json-schema.org/draft-07/schema#")
}

func ExampleParse() {
	def, err := dag.Parse([]byte(`{
		"id": "hello",
		"startNode": "greet",
		"nodes": [{"id": "greet", "actionType": "log", "parameters": {"text": "hello ${name}"}}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range def.Main().AllNodes {
		fmt.Println(n.ID, n.Kind)
	}
	// Output:
	// greet serviceTask
	// greet__start startEvent
	// greet__end endEvent
}
