package bpmn_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

// exportSources are definitions of every format, the seeds' first: each is
// exported as BPMN and must parse back into a definition that runs alike.
var exportSources = []string{
	"../../testdata/seeds/dataworkflows-15.1.json",
	"../../testdata/seeds/dataworkflows-15.2.json",
	"../../testdata/seeds/execution-engine-4.2.json",
	"../../testdata/seeds/execution-engine-4.2.yaml",
	"../../testdata/seeds/execution-engine-4.3.json",
	"../../testdata/seeds/execution-engine-4.3.yaml",
	"testdata/export/resilience.dag.json",
	"testdata/export/resilience.graph.yaml",
	"../dag/testdata/conditions.dag.json",
	"../dag/testdata/continue.dag.json",
	"../dag/testdata/failure.dag.json",
	"../dag/testdata/order.dag.json",
	"../graph/testdata/loan.graph.yaml",
	"../graph/testdata/nested.graph.yaml",
	"../graph/testdata/parallel.graph.yaml",
	"../graph/testdata/subflow.graph.yaml",
	"../graph/testdata/switch.graph.yaml",
	"../graph/testdata/tasks.graph.json",
	"../../testdata/steps/agent.yaml",
	"../../testdata/steps/conditional.yaml",
	"../../testdata/steps/fork_join.yaml",
	"../../testdata/steps/loop.yaml",
	"../../testdata/steps/parallel.json",
	"../../testdata/steps/sub_workflow.yaml",
	"../../testdata/steps/wait_for_event.yaml",
	"../../testdata/steps/webhook.yaml",
	"../../testdata/steps/validate.yaml",
	"testdata/wf.bpmn",
	"testdata/circuit.bpmn",
	"../testdata/step_cache.bpmn",
	"../testdata/step_cache_instance.bpmn",
	"testdata/zeebe.bpmn",
	"testdata/events.bpmn",
	"testdata/subprocess.bpmn",
	"testdata/export/extensions.bpmn",
}

// TestExportRunsAlike: parse a definition, export it as BPMN, parse that,
// and the two definitions agree on everything the engine runs: nodes and
// their kinds, jobs, parameters, retry policies, circuit breakers, join
// policies, limits, fallback flows, conditions, scripts, timers, user
// tasks, error catches, loops, the default variables and the read model.
func TestExportRunsAlike(t *testing.T) {
	t.Parallel()
	for _, path := range exportSources {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			def, err := engine.Parse(src, "")
			require.NoError(t, err)
			xml := bpmn.Export(def)
			back, err := engine.Parse(xml, engine.FormatBPMN)
			require.NoError(t, err, "%s", xml)
			require.Equal(t, engine.Validate(def).Error(), engine.Validate(back).Error(), "deploy checks, %s", xml)
			requireRunsAlike(t, def, back)
		})
	}
}

// TestExportRunsAlikeBPMN: the same for the BPMN files the engine's and
// the server's tests run, which use what DAGs and graphs do not (calls,
// messages, signals, escalations, compensation, listeners, loops...).
func TestExportRunsAlikeBPMN(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"../testdata/*.bpmn", "../testdata/*/*.bpmn", "../../server/testdata/*.bpmn", "../../testdata/*.bpmn"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	exportedFiles := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		def, err := engine.Parse(src, engine.FormatBPMN)
		if err != nil {
			continue // made to be refused: nothing runs to export
		}
		exportedFiles++
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			xml := bpmn.Export(def)
			back, err := engine.Parse(xml, engine.FormatBPMN)
			require.NoError(t, err, "%s", xml)
			require.Equal(t, engine.Validate(def).Error(), engine.Validate(back).Error(), "deploy checks, %s", xml)
			requireRunsAlike(t, def, back)
		})
	}
	require.Greater(t, exportedFiles, 60, "the BPMN files exported")
}

// TestExportKeepsResilience spells out, on the documents that set them,
// what the comparison covers: were it to miss a field, this would still
// see it lost.
func TestExportKeepsResilience(t *testing.T) {
	t.Parallel()
	dagDef := exported(t, "testdata/export/resilience.dag.json")
	require.Equal(t, model.ReadModelDataWorkflows, dagDef.ReadModel)
	require.Equal(t, map[string]any{"region": "eu", "limit": 3.0, "tags": []any{"a", "b"}}, dagDef.Variables)
	p := dagDef.Main()
	require.Equal(t, model.Limits{Timeout: 600e9, MaxConcurrent: 4, OverLimit: "refuse", RetryBudget: 7, OnFailure: "incident"}, p.Limits)
	fetch := p.Node("fetch")
	require.Equal(t, "http.get", fetch.Job.Type)
	require.Equal(t, "https://example.test/{{ trigger.region }}", fetch.Job.Parameters["url"])
	require.Equal(t, model.RetryPolicy{
		Retries: 3, Backoff: model.BackoffLinear, Delay: 250e6, MaxDelay: 9e9, Jitter: model.NoJitter, Factor: 3,
		RetryOnStatus: []int{429, 503}, RetryOn: []string{"TIMEOUT", "BUSY"}, DoNotRetryOn: []string{"FATAL"},
	}, fetch.Retry)
	require.Equal(t, &model.CircuitPolicy{Key: "orders-api", FailureThreshold: 3, FailureRate: 0.25, MinCalls: 8, Window: 60e9, OpenTimeout: 30.5e9, HalfOpenCalls: 2}, fetch.Circuit)
	require.True(t, p.Flow("fetch__fallback").Fallback)
	require.Equal(t, model.BackoffImmediate, p.Node("cached").Retry.Backoff)
	require.Equal(t, &model.JoinPolicy{Policy: model.JoinNOfM, N: 2, BranchTimeout: 45e9, CancelRemaining: true}, p.Node("merge__join").JoinPolicy)

	g := exported(t, "testdata/export/resilience.graph.yaml").Main()
	timer := g.Node("schedule")
	require.Equal(t, &model.Timer{Kind: model.TimerCycle, Expr: "0 6 * * 1-5", TimeZone: "Europe/Berlin"}, timer.Timer)
	require.Equal(t, map[string]string{"tenant": "acme"}, g.Node("call").Job.Headers)
	require.Equal(t, "staleResult", g.Node("stale").Script.ResultVariable)
	require.Equal(t, []string{"ops", "finance"}, g.Node("approve").Human.CandidateGroups)
	require.Equal(t, "70", g.Node("approve").Human.Priority)
}

// exported parses the definition at path, exports it and parses it back.
func exported(t *testing.T, path string) *model.Definition {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	def, err := engine.Parse(src, "")
	require.NoError(t, err)
	back, err := engine.Parse(bpmn.Export(def), engine.FormatBPMN)
	require.NoError(t, err)
	return back
}

// requireRunsAlike compares two definitions on what runs.
func requireRunsAlike(t *testing.T, want, got *model.Definition) {
	t.Helper()
	require.Equal(t, want.Key, got.Key)
	require.Equal(t, want.ReadModel, got.ReadModel)
	require.Equal(t, pruned(t, want.Variables), pruned(t, got.Variables), "variables")
	require.Len(t, got.Processes, len(want.Processes))
	for _, p := range want.Processes {
		q := got.Process(p.ID)
		require.NotNil(t, q, "process %s", p.ID)
		require.Equal(t, pruned(t, processRuns(p)), pruned(t, processRuns(q)), "process %s", p.ID)
		require.Len(t, q.AllNodes, len(p.AllNodes), "process %s", p.ID)
		for _, n := range p.AllNodes {
			m := q.Node(n.ID)
			require.NotNil(t, m, "node %s", n.ID)
			require.Equal(t, pruned(t, nodeRuns(n)), pruned(t, nodeRuns(m)), "node %s", n.ID)
		}
		require.Len(t, q.AllFlows, len(p.AllFlows), "process %s", p.ID)
		for _, f := range p.AllFlows {
			g := q.Flow(f.ID)
			require.NotNil(t, g, "flow %s", f.ID)
			require.Equal(t, pruned(t, flowRuns(f)), pruned(t, flowRuns(g)), "flow %s", f.ID)
		}
	}
}

func processRuns(p *model.Process) map[string]any {
	return map[string]any{"name": p.Name, "executable": p.Executable, "readers": p.Readers, "versionTag": p.VersionTag, "limits": p.Limits}
}

func flowRuns(f *model.Flow) map[string]any {
	return map[string]any{
		"name": f.Name, "source": f.SourceID, "target": f.TargetID,
		"condition": strings.TrimSpace(f.Condition), "fallback": f.Fallback,
	}
}

// nodeRuns is what of a node the engine runs. Texts are trimmed: BPMN
// reads element text trimmed, and the surrounding space runs the same.
func nodeRuns(n *model.Node) map[string]any {
	script := n.Script
	script.Source = strings.TrimSpace(script.Source)
	human := n.Human
	human.Form = strings.TrimSpace(human.Form)
	var timer *model.Timer
	if n.Timer != nil {
		t := *n.Timer
		t.Expr = strings.TrimSpace(t.Expr)
		timer = &t
	}
	interrupting := false
	if n.Kind == model.KindBoundaryEvent || n.Scope.Owner != nil && n.Scope.Owner.EventSub {
		interrupting = n.Interrupting // other start events do not interrupt anything
	}
	alternatives := make([]any, len(n.Alternatives))
	for i, alt := range n.Alternatives {
		alternatives[i] = map[string]any{"trigger": alt.Trigger.String(), "error": alt.ErrorCode, "signal": alt.SignalName, "timer": alt.Timer, "message": alt.Message}
	}
	return map[string]any{
		"name": n.Name, "documentation": n.Documentation, "kind": n.Kind.String(), "trigger": n.Trigger.String(),
		"scope": n.Scope.ID, "default": n.DefaultID, "activation": n.ActivationCondition,
		"job": n.Job, "script": script, "human": human, "inputs": n.Inputs, "outputs": n.Outputs,
		"retry": n.Retry, "circuit": n.Circuit, "join": n.JoinPolicy, "cache": n.Cache,
		"timer": timer, "message": n.Message, "condition": strings.TrimSpace(n.Condition),
		"variableNames": n.VariableNames, "variableEvents": n.VariableEvents,
		"error":        []string{n.ErrorCode, n.ErrorMessage, n.ErrorCodeVariable, n.ErrorMessageVariable},
		"escalation":   []string{n.EscalationCode, n.EscalationCodeVariable},
		"alternatives": alternatives, "parallelMultiple": n.ParallelMultiple,
		"attachedTo": n.AttachedToID, "interrupting": interrupting,
		"loop": n.Loop, "repeat": n.Repeat, "link": n.LinkName, "signal": n.SignalName,
		"eventSub": n.EventSub, "adHoc": n.AdHoc, "transaction": n.Transaction,
		"forCompensation": n.ForCompensation, "handler": n.HandlerID, "activityRef": n.ActivityRef,
		"call": n.Call, "execJobs": n.ExecJobs, "execListeners": n.ExecListeners,
	}
}

// pruned is v as JSON with every unset value (null, "", 0, false, empty
// lists and objects) left out: the formats write "not set" in different
// ways, and a number is a number whether it was read from YAML or JSON.
func pruned(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return prune(out)
}

func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			if item = prune(item); item == nil {
				delete(v, k)
			} else {
				v[k] = item
			}
		}
		if len(v) == 0 {
			return nil
		}
		return v
	case []any:
		if len(v) == 0 {
			return nil
		}
		for i := range v {
			v[i] = prune(v[i])
		}
		return v
	case string:
		if v == "" {
			return nil
		}
	case float64:
		if v == 0 {
			return nil
		}
	case bool:
		if !v {
			return nil
		}
	}
	return v
}

// TestExportExtensionsBadValues: wf:parameters and wf:variables that are
// no JSON object, and an unknown wf:readModel, are problems naming the
// element and what to write.
func TestExportExtensionsBadValues(t *testing.T) {
	t.Parallel()
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d">
  <process id="p" isExecutable="true" wf:readModel="scriban">
    <extensionElements><wf:variables>[1, 2]</wf:variables></extensionElements>
    <startEvent id="s"/>
    <serviceTask id="a" wf:type="x"><extensionElements><wf:parameters>{"url": </wf:parameters></extensionElements></serviceTask>
    <serviceTask id="b" wf:type="x"><extensionElements><wf:parameters>null</wf:parameters></extensionElements></serviceTask>
    <sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
    <sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
  </process>
</definitions>`
	def, err := bpmn.Parse([]byte(src), bpmn.Options{})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	got := map[string]string{}
	for _, p := range probs {
		got[p.ElementID] += p.Message + "\n"
	}
	require.Contains(t, got["p"], `wf:readModel "scriban" is not a read model: write dataworkflows`)
	require.Contains(t, got["p"], "wf:variables is not a JSON object")
	require.Contains(t, got["a"], "wf:parameters is not a JSON object (unexpected end of JSON input)")
	require.Contains(t, got["b"], "wf:parameters is not a JSON object (it is null)")
	require.Empty(t, def.ReadModel)
	require.Nil(t, def.Variables)
}
