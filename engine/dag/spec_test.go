package dag_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/model"
)

// The DataWorkflows spec's own documents (§15), as printed.
func parseSeed(t *testing.T, name string) *model.Definition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "seeds", name))
	require.NoError(t, err)
	def, err := dag.Parse(data)
	require.NoError(t, err)
	return def
}

func TestParseSpecExamples(t *testing.T) {
	t.Parallel()
	linear := parseSeed(t, "dataworkflows-15.1.json")
	require.Equal(t, "get-monday-status-report", linear.Key)
	fetch := linear.Main().Node("fetch-monday-items")
	require.Equal(t, model.RetryPolicy{Retries: 2, Backoff: model.BackoffExponential, Delay: 300 * time.Millisecond, Factor: 2}, fetch.Retry)
	require.Equal(t, model.FailureFail, linear.Main().Limits.OnFailure, "the DAG default: fail-fast")

	branching := parseSeed(t, "dataworkflows-15.2.json")
	p := branching.Main()
	require.Equal(t, map[string]string{
		"get-project-item": "serviceTask", "create-confluence-page": "serviceTask",
		"notify-not-approved": "serviceTask", "notify-error": "serviceTask",
		"get-project-item__start":     "startEvent*",
		"get-project-item__split":     "inclusiveGateway*",
		"get-project-item__end":       "endEvent*",
		"get-project-item__onFailure": "boundaryEvent*",
		"create-confluence-page__end": "endEvent*",
		"notify-not-approved__end":    "endEvent*",
		"notify-error__end":           "endEvent*",
	}, kinds(p))
	require.ElementsMatch(t, []string{
		"get-project-item__start -> get-project-item",
		"get-project-item -> get-project-item__split",
		"get-project-item__split -> create-confluence-page if context.data['get-project-item'].items[0].Status === 'Approved'",
		"get-project-item__split -> notify-not-approved if context.data['get-project-item'].items[0].Status !== 'Approved'",
		"get-project-item__split -> get-project-item__end (default)",
		"get-project-item__onFailure -> notify-error",
		"create-confluence-page -> create-confluence-page__end",
		"notify-not-approved -> notify-not-approved__end",
		"notify-error -> notify-error__end",
	}, flows(p))
}

func parseNode(t *testing.T, node string) *model.Node {
	t.Helper()
	def, err := dag.Parse([]byte(`{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x",` + node + `}]}`))
	require.NoError(t, err)
	return def.Main().Node("a")
}

func TestParseRetryPolicies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		retry string
		want  model.RetryPolicy
	}{
		{`{}`, model.RetryPolicy{}},
		{`{"maxAttempts":0}`, model.RetryPolicy{Retries: model.NoRetries}},
		{`{"maxAttempts":1}`, model.RetryPolicy{Retries: model.NoRetries}},
		{`{"maxAttempts":4,"baseDelayMs":100,"backoffFactor":3,"jitter":false,"maxDelayMs":900}`, model.RetryPolicy{
			Retries: 3, Delay: 100 * time.Millisecond, Factor: 3, Jitter: model.NoJitter, MaxDelay: 900 * time.Millisecond,
		}},
		{`{"jitter":true}`, model.RetryPolicy{}},
		{`{"baseDelayMs":0}`, model.RetryPolicy{Backoff: model.BackoffImmediate}},
		{`{"type":"fixed_delay","initialDelayMs":50}`, model.RetryPolicy{Backoff: model.BackoffFixed, Delay: 50 * time.Millisecond}},
		{`{"type":"linear_backoff"}`, model.RetryPolicy{Backoff: model.BackoffLinear}},
		{`{"type":"exponential_backoff","backoff":"exponential"}`, model.RetryPolicy{Backoff: model.BackoffExponential}},
		{`{"backoff":"immediate"}`, model.RetryPolicy{Backoff: model.BackoffImmediate}},
		{`{"retryOnErrors":["TIMEOUT"],"doNotRetryOn":["AUTH"],"retryOnStatusCodes":[429,503]}`, model.RetryPolicy{
			RetryOn: []string{"TIMEOUT"}, DoNotRetryOn: []string{"AUTH"}, RetryOnStatus: []int{429, 503},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.retry, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, parseNode(t, `"policies":{"retry":`+tt.retry+`}`).Retry)
		})
	}
}

func TestParseCircuitBreakerAndFallback(t *testing.T) {
	t.Parallel()
	def, err := dag.Parse([]byte(`{"id":"w","startNode":"a","nodes":[
		{"id":"a","actionType":"x","edges":[{"targetNode":"b"}],"policies":{"fallback":"cached","circuitBreaker":{
			"key":"crm","failureThreshold":3,"failureRateThreshold":0.25,"minCalls":8,"windowMs":60000,"timeoutMs":5000,"halfOpenMaxCalls":2}}},
		{"id":"b","actionType":"y"},
		{"id":"cached","actionType":"z"}]}`))
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, &model.CircuitPolicy{
		Key: "crm", FailureThreshold: 3, FailureRate: 0.25, MinCalls: 8,
		Window: time.Minute, OpenTimeout: 5 * time.Second, HalfOpenCalls: 2,
	}, p.Node("a").Circuit)
	var fallback []*model.Flow
	for _, f := range p.AllFlows {
		if f.Fallback {
			fallback = append(fallback, f)
		}
	}
	require.Len(t, fallback, 1)
	require.Equal(t, "a", fallback[0].SourceID)
	require.Equal(t, "cached", fallback[0].TargetID)
}

func TestParseJoinPolicy(t *testing.T) {
	t.Parallel()
	def, err := dag.Parse([]byte(`{"id":"w","startNode":"a","nodes":[
		{"id":"a","actionType":"x","edges":[{"targetNode":"b"},{"targetNode":"c"},{"targetNode":"d"}]},
		{"id":"b","actionType":"x","edges":[{"targetNode":"j"}]},
		{"id":"c","actionType":"x","edges":[{"targetNode":"j"}]},
		{"id":"d","actionType":"x","edges":[{"targetNode":"j"}]},
		{"id":"j","actionType":"x","join":{"policy":"n_of_m","n":2,"branchTimeoutMs":3000,"cancelRemaining":true}}]}`))
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, &model.JoinPolicy{Policy: model.JoinNOfM, N: 2, BranchTimeout: 3 * time.Second, CancelRemaining: true},
		p.Node("j__join").JoinPolicy)
	require.Nil(t, p.Node("j").JoinPolicy, "the policy is the generated join's")
}

func TestParseLimits(t *testing.T) {
	t.Parallel()
	def, err := dag.Parse([]byte(`{"id":"w","startNode":"a","timeoutMs":60000,"maxConcurrentInstances":5,"overLimit":"refuse",
		"retryBudget":10,"failureMode":"incident","nodes":[{"id":"a","actionType":"x"}]}`))
	require.NoError(t, err)
	require.Equal(t, model.Limits{
		Timeout: time.Minute, MaxConcurrent: 5, OverLimit: model.OverLimitRefuse, RetryBudget: 10, OnFailure: model.FailureIncident,
	}, def.Main().Limits)
}

func TestParseOnFailureRoute(t *testing.T) {
	t.Parallel()
	def, err := dag.Parse([]byte(`{"id":"w","startNode":"a","nodes":[
		{"id":"a","actionType":"x","onFailure":"oops","edges":[{"targetNode":"b"}]},
		{"id":"b","actionType":"x","onFailure":"oops","edges":[{"targetNode":"alert","when":"failure"}]},
		{"id":"alert","actionType":"x"},
		{"id":"oops","actionType":"x"}]}`))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{
		"a__start -> a", "a -> b",
		"a__onFailure -> oops", // the implicit failure edge
		"b -> b__end",
		"b__onFailure -> alert", // an explicit failure edge wins
		"alert -> alert__end",
		"oops -> oops__end",
	}, flows(def.Main()))
}

func TestParseRejectsSpecFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		element string
		message []string
	}{
		{
			name:    "onFailure names no node",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","onFailure":"notify-error"}]}`,
			element: "a",
			message: []string{`onFailure "notify-error" is not a node`, "fail or continue"},
		},
		{
			name:    "onFailure closes a cycle",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"b"}]},{"id":"b","actionType":"x","onFailure":"a"}]}`,
			element: "b",
			message: []string{`onFailure route to "a" closes a cycle`},
		},
		{
			name: "n_of_m without n",
			doc: `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"b"},{"targetNode":"c"}]},
				{"id":"b","actionType":"x","edges":[{"targetNode":"c"}]},{"id":"c","actionType":"x","join":{"policy":"n_of_m"}}]}`,
			element: "c",
			message: []string{"n_of_m needs n"},
		},
		{
			name: "n over the branches",
			doc: `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"b"},{"targetNode":"c"}]},
				{"id":"b","actionType":"x","edges":[{"targetNode":"c"}]},{"id":"c","actionType":"x","join":{"policy":"n_of_m","n":3}}]}`,
			element: "c",
			message: []string{"n is 3 but only 2 edges enter"},
		},
		{
			name:    "join on one edge",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"b"}]},{"id":"b","actionType":"x","join":{"policy":"any"}}]}`,
			element: "b",
			message: []string{"fewer than two edges enter"},
		},
		{
			name:    "fallback names no node",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"fallback":"zz"}}]}`,
			element: "a",
			message: []string{`policies.fallback "zz" is not a node`},
		},
		{
			name:    "two delays",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"retry":{"baseDelayMs":1,"initialDelayMs":2}}}]}`,
			element: "a",
			message: []string{"baseDelayMs and initialDelayMs"},
		},
		{
			name:    "factor under one",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"retry":{"backoffFactor":0.5}}}]}`,
			element: "a",
			message: []string{"/nodes/0/policies/retry/backoffFactor", "within the limit"},
		},
		{
			name:    "jitter as a number",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"retry":{"jitter":0.2}}}]}`,
			element: "a",
			message: []string{"/nodes/0/policies/retry/jitter", "boolean"},
		},
		{
			name:    "unknown policy",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","policies":{"bulkhead":{}}}]}`,
			element: "a",
			message: []string{"/nodes/0/policies", "bulkhead", "fix its spelling"},
		},
		{
			name:    "template that does not compile",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","parameters":{"m":{"text":"hi {{ trigger. }}"}}}]}`,
			element: "a",
			message: []string{`parameter "m.text": {{ trigger. }}`},
		},
		{
			name:    "template not closed",
			doc:     `{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","parameters":{"list":["{{ '}}' "]}}]}`,
			element: "a",
			message: []string{`parameter "list[0]"`, "not closed"},
		},
		{
			name:    "unknown failure mode",
			doc:     `{"id":"w","startNode":"a","failureMode":"ignore","nodes":[{"id":"a","actionType":"x"}]}`,
			element: "w",
			message: []string{"/failureMode", "allowed values"},
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
