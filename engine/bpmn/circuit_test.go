package bpmn_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
)

func TestParseCircuitBreaker(t *testing.T) {
	t.Parallel()
	p := valid(t, "circuit.bpmn")
	require.Equal(t, &model.CircuitPolicy{
		Key: "crm", FailureThreshold: 3, FailureRate: 0.25, MinCalls: 8,
		Window: 30 * time.Second, OpenTimeout: 2 * time.Minute, HalfOpenCalls: 2,
	}, node(t, p, "call").Circuit)
	require.Equal(t, &model.CircuitPolicy{}, node(t, p, "plain").Circuit, "true: the defaults, keyed by job type or host")
	require.Nil(t, node(t, p, "cached").Circuit)
	for _, f := range node(t, p, "call").Outgoing {
		require.Equal(t, f.ID == "fb", f.Fallback, f.ID)
	}
}

func TestParseCircuitBreakerBadValues(t *testing.T) {
	t.Parallel()
	def, probs := parseFile(t, "circuit-bad.bpmn")
	probs = append(probs, model.Validate(def, model.Checks{})...)
	tests := []struct{ id, want string }{
		{"untuned", `wf:circuitWindow tunes a circuit breaker, and the task has none`},
		{"counts", `wf:circuitFailureThreshold "0" is not a positive whole number`},
		{"counts", `wf:circuitFailureRate "2" is not a share of failed calls`},
		{"counts", `wf:circuitOpenTimeout: duration "1m"`},
		{"script", `wf:circuitBreaker is for service tasks`},
		{"maybe", `wf:fallback "yes" is not true or false`},
		{"fromGateway", `a fallback flow (wf:fallback) must leave a task`},
	}
	for _, tt := range tests {
		requireProblem(t, probs, tt.id, tt.want)
	}
	require.Len(t, probs, len(tests), list(probs))
}
