package statemachine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/statemachine"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "steps", name))
	require.NoError(t, err)
	return src
}

func TestParseOrderLifecycle(t *testing.T) {
	t.Parallel()
	src := read(t, "state-machine-order.yaml")
	require.True(t, statemachine.Is(src))
	def, err := statemachine.Parse(src)
	require.NoError(t, err)
	require.Equal(t, model.FormatStateMachine, def.Format)
	require.Equal(t, "order_lifecycle", def.Key)
	p := def.Main()
	for _, id := range []string{
		"pending__start", "pending", "pending__entry", "pending__action", "pending__choice",
		"approved", "approved__action", "approved__message", "approved__exit__shipped",
		"shipped", "shipped__entry", "shipped__timer",
		"delivered", "delivered__entry", "delivered__end", "rejected__end",
	} {
		require.NotNil(t, p.Node(id), id)
	}
	require.Equal(t, "pending", p.Node("pending").Attrs[statemachine.StateAttr])
	require.Equal(t, model.KindExclusiveGateway, p.Node("pending__choice").Kind)
	require.Nil(t, p.Node("pending__choice").Default, "no default: none holding is an incident")
	require.Equal(t, model.KindIntermediateCatchEvent, p.Node("approved__message").Kind, "one event: a catch, no gateway")
	require.Equal(t, &model.Message{Name: "order.shipped", CorrelationKey: "${orderId}"}, p.Node("approved__message").Message)
	require.Equal(t, "P3D", p.Node("shipped__timer").Timer.Expr)
	require.Equal(t, "order.reserve", p.Node("approved__action").Job.Type)
	require.Equal(t, map[string]any{"orderId": "${orderId}"}, p.Node("approved__action").Job.Parameters)

	out := p.Node("pending__choice").Outgoing
	require.Len(t, out, 2)
	require.Equal(t, "condition: total <= 1000", out[0].Attrs[statemachine.TransitionAttr])
	require.Equal(t, "approved", out[0].Target.ID)
	exit := p.Node("approved__message").Outgoing[0]
	require.Equal(t, "message: order.shipped", exit.Attrs[statemachine.TransitionAttr])
	require.Equal(t, "approved__exit__shipped", exit.Target.ID, "on_exit runs on the way out")
}

func TestParseListOfStatesJSON(t *testing.T) {
	t.Parallel()
	def, err := statemachine.Parse(read(t, "state-machine-support.json"))
	require.NoError(t, err)
	p := def.Main()
	choice := p.Node("open__choice")
	require.NotNil(t, choice.Default, "conditions first, then wait for the events")
	require.Equal(t, "open__events", choice.Default.Target.ID)
	require.Len(t, p.Node("open__events").Outgoing, 2)
	require.Equal(t, "signal: ticket.closed", p.Node("open__signal").Outgoing[0].Attrs[statemachine.TransitionAttr])
	require.Equal(t, "always", p.Node("escalated__entry").Outgoing[0].Attrs[statemachine.TransitionAttr])
	require.Equal(t, map[string]any{"team": "oncall"}, p.Node("escalated__entry").Job.Parameters)
}

func TestParseProblemsNameTheState(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ src, id, want string }{
		"unknown target": {
			`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"transitions":[{"target":"nowhere"}]}}}`,
			"a", `target "nowhere" is not a state`,
		},
		"no initial state": {
			`{"workflow_id":"w","type":"state_machine","states":{"a":{"terminal":true}}}`,
			"w", "no initial_state",
		},
		"unreachable": {
			`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"terminal":true},"b":{"terminal":true}}}`,
			"b", "no transition leads to the state",
		},
		"dead end": {
			`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"actions":["x"]}}}`,
			"a", "no transitions and is not terminal",
		},
		"bad duration": {
			`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"transitions":[{"target":"b","event":{"timer":"3 days"}}]},"b":{"terminal":true}}}`,
			"a", `transitions[0].event.timer: "3 days" is not an ISO-8601 duration`,
		},
		"always not last": {
			`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"transitions":[{"target":"b"},{"target":"b","condition":"x"}]},"b":{"terminal":true}}}`,
			"a", "always taken: move that one last",
		},
		"two events": {
			`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"transitions":[{"target":"b","event":{"signal":"s","timer":"PT1M"}}]},"b":{"terminal":true}}}`,
			"a", "exactly one of message, signal and timer",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := statemachine.Parse([]byte(c.src))
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			found := false
			for _, p := range probs {
				found = found || (p.ElementID == c.id && strings.Contains(p.Message, c.want))
			}
			require.True(t, found, "want %s: %s in %v", c.id, c.want, probs)
		})
	}
}

func TestParseUnknownFieldsAreErrors(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"terminal":true,"termnal":true}}}`,
		"workflow_id: w\ntype: state_machine\ninitial_state: a\nstates:\n  a:\n    terminal: true\n    transitions:\n      - target: a\n        when: x\n",
		`{"workflow_id":"w","type":"state_machine","initial_state":"a","extra":1,"states":{"a":{"terminal":true}}}`,
		`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"on_entry":[{"agent":"x"}],"terminal":true}}}`,
	} {
		_, err := statemachine.Parse([]byte(src))
		require.ErrorContains(t, err, "unknown field", src)
	}
}

func TestParseAliasesCannotBlowUp(t *testing.T) {
	t.Parallel()
	src := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		src += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	_, err := statemachine.Parse([]byte(src))
	require.ErrorContains(t, err, "fewer YAML aliases")
}
