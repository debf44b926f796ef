package steps_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/steps"
)

// TestConvertAgentResilience: an agent step's retry, circuit_breaker,
// timeout and input_mapping land on its service task.
func TestConvertAgentResilience(t *testing.T) {
	t.Parallel()
	n := parseFile(t, "agent.yaml").Main().Node("search")
	require.Equal(t, model.KindServiceTask, n.Kind)
	require.Equal(t, "web.search", n.Job.Type)
	require.Equal(t, 30*time.Second, n.Job.Timeout)
	require.Equal(t, []model.Mapping{{Source: "trigger.topic", Target: "query"}}, n.Inputs)
	require.Equal(t, model.RetryPolicy{
		Retries: 2, Backoff: model.BackoffExponential, Delay: time.Second, MaxDelay: 30 * time.Second,
		Factor: 2, RetryOn: []string{"TIMEOUT"}, RetryOnStatus: []int{429, 503},
	}, n.Retry)
	require.Equal(t, &model.CircuitPolicy{
		FailureThreshold: 5, FailureRate: 0.5, Window: 2 * time.Minute, OpenTimeout: time.Minute, HalfOpenCalls: 3,
	}, n.Circuit)
}

// TestConvertValidateAndCache: a validate step is a core.validate task with
// its schema, rules, mode and target as parameters; an agent's cache is
// its CachePolicy (the design's workflow scope is the definition).
func TestConvertValidateAndCache(t *testing.T) {
	t.Parallel()
	p := parseFile(t, "validate.yaml").Main()
	v := p.Node("check-order")
	require.Equal(t, model.ValidateJobType, v.Job.Type)
	require.Equal(t, "strict", v.Job.Parameters["mode"])
	require.Equal(t, "order", v.Job.Parameters["target"])
	require.Equal(t, []string{"amount < 10000"}, v.Job.Parameters["expressions"])
	schema := v.Job.Parameters["schema"].(map[string]any)
	require.Equal(t, []any{"orderId", "amount"}, schema["required"])
	require.Equal(t, &model.CachePolicy{Key: "quote:${orderId}", TTL: 10 * time.Minute, Condition: "(trigger.amount) > 0", Scope: model.CacheDefinition},
		p.Node("price").Cache)
}

// TestConvertWebhook: a webhook wait is a receive task with a Webhook whose
// filter compares the payload's fields, and a boundary timer that fails the
// workflow (on_timeout fail).
func TestConvertWebhook(t *testing.T) {
	t.Parallel()
	p := parseFile(t, "webhook.yaml").Main()
	n := p.Node("approval")
	require.Equal(t, model.KindReceiveTask, n.Kind)
	require.Equal(t, &model.Webhook{Filter: `JSON.stringify(payload["status"]) === "\"approved\""`}, n.Webhook)
	require.Len(t, n.Boundaries, 1)
	b := n.Boundaries[0]
	require.Equal(t, "PT86400S", b.Timer.Expr)
	end := b.Outgoing[0].Target
	require.Equal(t, model.TriggerError, end.Trigger)
	require.Equal(t, steps.TimeoutCode, end.ErrorCode)
}

// TestConvertWaits: signal and timer waits, and a signal wait racing its
// timeout through an event-based gateway.
func TestConvertWaits(t *testing.T) {
	t.Parallel()
	def, err := steps.Parse([]byte(`
workflow_id: waits
steps:
  - {id: pause, type: wait_for_event, event_source: timer, duration: PT5M, next_step: go}
  - {id: go, type: wait_for_event, event_source: signal, event_name: go-ahead, timeout_seconds: 0, next_step: maybe}
  - {id: maybe, type: wait_for_event, event_source: signal, event_name: go-ahead, timeout_seconds: 60, on_timeout: continue}
`))
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, &model.Timer{Kind: model.TimerDuration, Expr: "PT5M"}, p.Node("pause").Timer)
	require.Equal(t, model.KindIntermediateCatchEvent, p.Node("go").Kind)
	require.Equal(t, "go-ahead", p.Node("go").SignalName)
	require.Equal(t, model.KindEventBasedGateway, p.Node("maybe").Kind)
	require.Equal(t, "go-ahead", p.Node("maybe__signal").SignalName)
	require.Equal(t, "PT60S", p.Node("maybe__timeout").Timer.Expr)
}

// TestConvertLoopAndForkJoin: a loop is a multi-instance sub-process over
// the first max_iterations items; a fork_join's join carries its policy,
// one flow per branch named after it.
func TestConvertLoopAndForkJoin(t *testing.T) {
	t.Parallel()
	loop := parseFile(t, "loop.yaml").Main().Node("each-document")
	require.Equal(t, model.KindSubProcess, loop.Kind)
	require.Equal(t, &model.MultiInstance{MaxParallel: 2, ErrorPolicy: model.ErrorPolicyCollect, Collection: "(trigger.documents).slice(0, 4)", Element: "doc"}, loop.Loop)
	require.Equal(t, loop.Body, loop.Body.Nodes[1].Scope)

	p := parseFile(t, "fork_join.yaml").Main()
	join := p.Node("ask__join")
	require.Equal(t, &model.JoinPolicy{Policy: model.JoinNOfM, N: 2, BranchTimeout: 10 * time.Minute}, join.JoinPolicy)
	var in []string
	for _, f := range join.Incoming {
		in = append(in, f.ID)
	}
	require.ElementsMatch(t, []string{"ask__alpha", "ask__beta", "ask__gamma"}, in)
}

// TestParseJSONAndYAMLAlike: a document reads the same in JSON and YAML,
// steps as a list or as a map by id.
func TestParseJSONAndYAMLAlike(t *testing.T) {
	t.Parallel()
	fromJSON, err := steps.Parse([]byte(`{"workflow_id": "w", "start_step": "a", "steps": {"b": {"type": "agent", "agent_name": "y"}, "a": {"type": "agent", "agent_name": "x", "next_step": "b"}}}`))
	require.NoError(t, err)
	fromYAML, err := steps.Parse([]byte("workflow_id: w\nsteps:\n  - {id: a, type: agent, agent_name: x, next_step: b}\n  - {id: b, type: agent, agent_name: y}\n"))
	require.NoError(t, err)
	ids := func(d *model.Definition) (out []string) {
		for _, f := range d.Main().AllFlows {
			out = append(out, f.SourceID+">"+f.TargetID)
		}
		return out
	}
	require.ElementsMatch(t, ids(fromJSON), ids(fromYAML))
}

// TestParseProblems: every problem names its step and says what to do.
func TestParseProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, element, message string }{
		{"unknown type", `{id: a, type: agentt}`, "a", `type "agentt" is not a step type`},
		{"no type", `{id: a}`, "a", "has no type"},
		{"unknown field", `{id: a, type: agent, agent_name: x, agentname: y}`, "a", `unknown field "agentname"`},
		{"unknown next_step", `{id: a, type: agent, agent_name: x, next_step: b}`, "a", `next_step "b" is not a step`},
		{"agent without agent_name", `{id: a, type: agent}`, "a", "needs agent_name"},
		{"field of another type", `{id: a, type: agent, agent_name: x, then: a}`, "a", "a step of type agent has no then"},
		{"input_mapping on a gateway", "{id: a, type: parallel, parallel_steps: [b], input_mapping: {x: y}}\n  - {id: b, type: agent, agent_name: x}", "a", "a step of type parallel has no input_mapping"},
		{"unknown then", `{id: a, type: conditional, condition: x, then: b}`, "a", `then "b" is not a step`},
		{"conditional without condition", "{id: a, type: conditional, then: b}\n  - {id: b, type: agent, agent_name: x}", "a", "needs a condition"},
		{"cycle", "{id: a, type: agent, agent_name: x, next_step: b}\n  - {id: b, type: agent, agent_name: x, next_step: a}", "a", "cycle"},
		{"unreachable", "{id: a, type: agent, agent_name: x}\n  - {id: b, type: agent, agent_name: x}", "b", "no step leads to it"},
		{"two places", "{id: a, type: parallel, parallel_steps: [b, c]}\n  - {id: b, type: agent, agent_name: x, next_step: c}\n  - {id: c, type: agent, agent_name: x}", "c", "is used in"},
		{"parallel capped", "{id: a, type: parallel, parallel_steps: [b, c], max_parallelism: 1}\n  - {id: b, type: agent, agent_name: x}\n  - {id: c, type: agent, agent_name: x}", "a", "max_parallelism 1 is less than its 2 parallel_steps"},
		{"loop without items", "{id: a, type: loop, body: [b]}\n  - {id: b, type: agent, agent_name: x}", "a", "needs items"},
		{"loop body leaves", "{id: a, type: loop, items: xs, body: [b]}\n  - {id: b, type: agent, agent_name: x, next_step: a}", "a", "is used in"},
		{"n_of_m without n", "{id: a, type: fork_join, join_policy: n_of_m, branches: {x: {steps: [b]}}}\n  - {id: b, type: agent, agent_name: x}", "a", "needs n_required"},
		{"kafka", `{id: a, type: wait_for_event, event_source: kafka}`, "a", `event_source "kafka" does not run here`},
		{"bad retry", `{id: a, type: agent, agent_name: x, retry: {strategy: random}}`, "a", `strategy "random"`},
		{"map without start_step", "", "w", "start_step is not set"},
		{"cache without key", `{id: a, type: agent, agent_name: x, cache: {ttl_seconds: 5}}`, "a", "cache needs key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := "workflow_id: w\nsteps:\n  - " + tc.doc + "\n"
			if tc.doc == "" {
				doc = "workflow_id: w\nsteps: {a: {type: agent, agent_name: x}}\n"
			}
			_, err := steps.Parse([]byte(doc))
			requireProblem(t, err, tc.element, tc.message)
		})
	}
}

// TestParseRefusesStateMachines: a state machine is another format's.
func TestParseRefusesStateMachines(t *testing.T) {
	t.Parallel()
	src := []byte("workflow_id: door\ntype: state_machine\ninitial_state: closed\nstates: {closed: {terminal: true}}\n")
	require.True(t, steps.Detect(src), "detected, so that Parse can say where it belongs")
	_, err := steps.Parse(src)
	requireProblem(t, err, "door", "is read as a state machine")
}

// TestDetect: steps at the top level make a steps document; a graph's or a
// DAG's nested steps do not.
func TestDetect(t *testing.T) {
	t.Parallel()
	require.True(t, steps.Detect([]byte(`{"workflow_id": "w", "steps": []}`)))
	require.True(t, steps.Detect([]byte("workflow_id: w\nsteps: []\n")))
	require.False(t, steps.Detect([]byte(`{"graphId": "g", "nodes": [{"configuration": {"steps": 1}}]}`)))
	require.False(t, steps.Detect([]byte("graphId: g\nnodes: []\n")))
}

func requireProblem(t *testing.T, err error, element, message string) {
	t.Helper()
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	for _, p := range probs {
		if p.ElementID == element && strings.Contains(p.Message, message) {
			return
		}
	}
	require.Failf(t, "problem not found", "want %s: %q, got %v", element, message, probs)
}

// TestConvertReferences: the design's ${...} references and Python
// operators become JavaScript over the read model; input_mapping values
// without a reference are literals.
func TestConvertReferences(t *testing.T) {
	t.Parallel()
	def, err := steps.Parse([]byte(`
workflow_id: refs
steps:
  - id: step-1
    type: agent
    agent_name: a
    input_mapping: {topic: "${workflow.input.topic}", label: "about ${workflow.input.topic}!", mode: fast, limit: 3}
    next_step: check
  - id: check
    type: conditional
    condition: "${step-1.output.results[0].score} >= 0.5 or ${workflow.input.force} == True and not 'or'"
    then: step-2
  - {id: step-2, type: agent, agent_name: b}
`))
	require.NoError(t, err)
	require.Equal(t, model.ReadModelDataWorkflows, def.ReadModel)
	p := def.Main()
	require.Equal(t, []model.Mapping{
		{Source: `"about " + String(trigger.topic) + "!"`, Target: "label"},
		{Source: "3", Target: "limit"},
		{Source: `"fast"`, Target: "mode"},
		{Source: "trigger.topic", Target: "topic"},
	}, p.Node("step-1").Inputs)
	require.Equal(t, `(context.data["step-1"].results[0].score) >= 0.5 || (trigger.force) == true && ! 'or'`, p.Flow("check__to__step-2").Condition)
}
