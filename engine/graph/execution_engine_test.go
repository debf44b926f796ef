package graph_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
)

// The graphs of the Execution Engine document (§4.2, §4.3), as printed and
// with their scripts in JavaScript, and each field it adds to the format.

func seed(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "seeds", name))
	require.NoError(t, err)
	return data
}

func TestParseExecutionEngineExample(t *testing.T) {
	t.Parallel()
	fromJSON, err := graph.Parse(seed(t, "execution-engine-4.2.json"))
	require.NoError(t, err)
	fromYAML, err := graph.Parse(seed(t, "execution-engine-4.2.yaml"))
	require.NoError(t, err)
	require.Equal(t, fromJSON, fromYAML)

	p := fromYAML.Main()
	require.Equal(t, map[string]string{
		"timer-1": "startEvent", "task-1": "scriptTask", "foreach-1": "exclusiveGateway", "task-2": "scriptTask",
		"data-processing-workflow__start": "startEvent*",
		"task-1__join":                    "inclusiveGateway*",
		"foreach-1__init":                 "scriptTask*",
		"foreach-1__next":                 "scriptTask*",
		"foreach-1__advance":              "scriptTask*",
		"foreach-1__end":                  "endEvent*",
	}, kinds(p))
	require.ElementsMatch(t, []string{
		"timer-1 -> task-1__join",
		"data-processing-workflow__start -> task-1__join",
		"task-1__join -> task-1",
		"task-1 -> foreach-1__init",
		"foreach-1__init -> foreach-1",
		"foreach-1 -> foreach-1__next if currentFileIndex < __foreach_1_items.length",
		"foreach-1 -> foreach-1__end (default)",
		"foreach-1__next -> task-2",
		"task-2 -> foreach-1__advance", // no edge back: the body returns to the ForEach
		"foreach-1__advance -> foreach-1",
	}, flows(p))

	timer := p.Node("timer-1")
	require.Equal(t, "Daily Trigger", timer.Name, "nodeName")
	require.Equal(t, model.TriggerTimer, timer.Trigger)
	require.Equal(t, &model.Timer{Kind: model.TimerCycle, Expr: "0 0 * * *"}, timer.Timer)
	require.Len(t, p.NoneStarts(), 1, "a plain start runs the graph at once")
	require.Equal(t, "timer-1", p.Flow("edge-1").SourceID, "edgeId names the flow")
	require.Equal(t, "Ingest to Kusto", p.Node("task-2").Name)
	require.Contains(t, p.Node("foreach-1__init").Script.Source, `})(variables["files"])`, `context.Variables["files"] reads the variable`)
	require.Contains(t, p.Node("task-1").Script.Source, `variables["inputFiles"] ||`)
}

// The examples as printed, in C# and PowerShell, are refused saying that
// JavaScript runs, every node at once.
func TestParseExecutionEngineOriginalsRefused(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"execution-engine-4.2-original.json": {"task-1", "task-2"},
		"execution-engine-4.2-original.yaml": {"task-1", "task-2"},
		"execution-engine-4.3-original.json": {"compiled-task-1", "ps-script-task-1", "inline-cs-task", "inline-ps-task"},
		"execution-engine-4.3-original.yaml": {"compiled-task-1", "ps-script-task-1", "inline-cs-task", "inline-ps-task"},
	}
	for name, nodes := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			def, err := graph.Parse(seed(t, name))
			require.Nil(t, def)
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			var about []string
			for _, p := range probs {
				about = append(about, p.ElementID)
				require.Regexp(t, `JavaScript`, p.Message)
				require.Regexp(t, `does not run|do not load`, p.Message)
			}
			require.Equal(t, nodes, about, "one problem per node, nothing else: %v", err)
		})
	}
}

// parse parses a graph that must convert.
func parse(t *testing.T, doc string) *model.Process {
	t.Helper()
	def, err := graph.Parse([]byte(doc))
	require.NoError(t, err)
	return def.Main()
}

const (
	action = "{actionType: work}"
	script = "{language: JavaScript, script: '({})'}"
)

func TestParseEdgeFields(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: g
nodes:
  - {nodeId: a, nodeName: First, description: Does a, type: Task, configuration: `+action+`}
  - {nodeId: b, type: Task, configuration: `+action+`}
  - {nodeId: c, type: Task, configuration: `+script+`}
  - {nodeId: d, type: Task, configuration: `+script+`}
  - {nodeId: e, type: Task, configuration: `+script+`}
edges:
  - {edgeId: ab, sourceNodeId: a, targetNodeId: b, type: OnComplete, messageType: Complete, maxRetries: 5, visibilityTimeout: "00:10:00", sourcePort: out, targetPort: in}
  - {sourceNodeId: a, targetNodeId: c, messageType: fail, maxRetries: 0, visibilityTimeout: 1.02:03:04.5}
  - {edgeId: bd, sourceNodeId: b, targetNodeId: d, messageType: All, visibilityTimeout: PT90S}
  - {sourceNodeId: d, targetNodeId: e, type: OnFail, messageType: Fail}
`)
	a := p.Node("a")
	require.Equal(t, "First", a.Name)
	require.Equal(t, "Does a", a.Documentation)

	b := p.Node("b")
	require.Equal(t, 5, b.Retry.Retries, "maxRetries of the edge into b")
	require.Equal(t, 10*time.Minute, b.Job.Timeout, "visibilityTimeout as a TimeSpan")
	require.Equal(t, map[string]string{"sourcePort": "out", "targetPort": "in"}, p.Flow("ab").Attrs)

	c := p.Node("c")
	require.Equal(t, model.NoRetries, c.Retry.Retries, "maxRetries 0: no retries")
	require.Equal(t, 26*time.Hour+3*time.Minute+4500*time.Millisecond, c.Job.Timeout, "d.hh:mm:ss.f")
	require.Equal(t, 90*time.Second, p.Node("d").Job.Timeout, "ISO-8601")

	require.ElementsMatch(t, []string{
		"g__start -> a",
		"a -> b",
		"a__onFail -> c", // messageType Fail
		"c -> c__end",
		"b -> d__join",         // messageType All: on completion
		"b__onFail -> d__join", // and on failure
		"d__join -> d",
		"d -> d__end",
		"d__onFail -> e",
		"e -> e__end",
	}, flows(p))
	require.Equal(t, "b", p.Flow("bd").SourceID, "the edgeId stays with the completion's flow")
}

func TestParseTaskResilience(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: g
nodes:
  - nodeId: call
    type: Task
    configuration:
      actionType: http
      retry:
        maxAttempts: 4
        strategy: exponential_backoff
        baseDelayMs: 300
        backoffFactor: 1.5
        jitter: false
        maxDelayMs: 5000
        retryOnErrors: [HTTP_503, TIMEOUT]
        doNotRetryOn: [HTTP_401]
        retryOnStatusCodes: [429, 503]
      circuitBreaker: {failureThreshold: 3, failureRateThreshold: 0.25, minCalls: 8, windowMs: 60000, timeoutMs: 30000, halfOpenMaxCalls: 2, key: crm}
      fallbackNodeId: cached
  - {nodeId: cached, type: Task, configuration: `+script+`}
  - {nodeId: linear, type: Task, configuration: {actionType: x, retry: {maxAttempts: 2, backoff: Linear-Backoff, initialDelayMs: 10, jitter: 0.3}}}
  - {nodeId: fixed, type: Task, configuration: {actionType: x, retry: {maxAttempts: 2, strategy: fixed_delay, jitter: true}}}
edges:
  - {sourceNodeId: call, targetNodeId: linear}
  - {sourceNodeId: linear, targetNodeId: fixed}
`)
	call := p.Node("call")
	require.Equal(t, model.RetryPolicy{
		Retries:       3,
		Backoff:       model.BackoffExponential,
		Delay:         300 * time.Millisecond,
		MaxDelay:      5 * time.Second,
		Factor:        1.5,
		Jitter:        model.NoJitter,
		RetryOn:       []string{"HTTP_503", "TIMEOUT"},
		DoNotRetryOn:  []string{"HTTP_401"},
		RetryOnStatus: []int{429, 503},
	}, call.Retry)
	require.Equal(t, &model.CircuitPolicy{
		Key: "crm", FailureThreshold: 3, FailureRate: 0.25, MinCalls: 8,
		Window: time.Minute, OpenTimeout: 30 * time.Second, HalfOpenCalls: 2,
	}, call.Circuit)
	var fallback *model.Flow
	for _, f := range call.Outgoing {
		if f.Fallback {
			fallback = f
		}
	}
	require.NotNil(t, fallback, "a fallback flow leaves call")
	require.Equal(t, "cached", fallback.TargetID)
	require.Len(t, p.NoneStarts(), 1)
	require.Len(t, p.NoneStarts()[0].Outgoing, 1, "the fallback node does not start the graph")

	linear := p.Node("linear").Retry
	require.Equal(t, model.BackoffLinear, linear.Backoff)
	require.Equal(t, 10*time.Millisecond, linear.Delay)
	require.InDelta(t, 0.3, linear.Jitter, 1e-9)
	fixed := p.Node("fixed").Retry
	require.Equal(t, model.BackoffFixed, fixed.Backoff)
	require.Zero(t, fixed.Jitter, "jitter true: the default share")
}

func TestParseParallelJoinPolicy(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: g
nodes:
  - {nodeId: fork, type: Parallel, configuration: {joinPolicy: n_of_m, n: 2, branchTimeoutMs: 5000, cancelRemaining: true}}
  - {nodeId: x, type: Task, configuration: `+action+`}
  - {nodeId: y, type: Task, configuration: `+action+`}
  - {nodeId: z1, type: Task, configuration: `+action+`}
  - {nodeId: z2, type: Task, configuration: `+action+`}
  - {nodeId: meet, type: Task, configuration: `+action+`}
  - {nodeId: later, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: fork, targetNodeId: x}
  - {sourceNodeId: fork, targetNodeId: y}
  - {sourceNodeId: fork, targetNodeId: z1}
  - {sourceNodeId: z1, targetNodeId: z2}
  - {sourceNodeId: x, targetNodeId: meet}
  - {sourceNodeId: y, targetNodeId: meet}
  - {sourceNodeId: z2, targetNodeId: meet}
  - {sourceNodeId: meet, targetNodeId: later}
  - {sourceNodeId: x, targetNodeId: later}
`)
	require.Equal(t, &model.JoinPolicy{Policy: model.JoinNOfM, N: 2, BranchTimeout: 5 * time.Second, CancelRemaining: true}, p.Node("meet__join").JoinPolicy)
	require.Nil(t, p.Node("later__join").JoinPolicy, "only the nearest join where every branch meets")

	anyOne := parse(t, `
graphId: g
nodes:
  - {nodeId: fork, type: Parallel, configuration: {joinPolicy: Any}}
  - {nodeId: x, type: Task, configuration: `+action+`}
  - {nodeId: y, type: Task, configuration: `+action+`}
  - {nodeId: meet, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: fork, targetNodeId: x}
  - {sourceNodeId: fork, targetNodeId: y}
  - {sourceNodeId: x, targetNodeId: meet}
  - {sourceNodeId: y, targetNodeId: meet}
`)
	require.Equal(t, &model.JoinPolicy{Policy: model.JoinAny}, anyOne.Node("meet__join").JoinPolicy)
}

func TestParseLoopLimits(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: g
nodes:
  - {nodeId: poll, type: While, configuration: {condition: 'context.Variables["busy"]', maxIterations: 5}}
  - {nodeId: ask, type: Task, configuration: `+script+`}
  - {nodeId: each, type: ForEach, configuration: {collection: items, maxIterations: 100, errorPolicy: collect, errorsVariable: failures}}
  - {nodeId: use, type: Task, configuration: `+action+`}
  - {nodeId: guarded, type: Task, configuration: `+action+`}
  - {nodeId: handle, type: Task, configuration: `+script+`}
edges:
  - {sourceNodeId: poll, targetNodeId: ask, type: LoopBody}
  - {sourceNodeId: ask, targetNodeId: poll}
  - {sourceNodeId: poll, targetNodeId: each, type: LoopExit}
  - {sourceNodeId: each, targetNodeId: use, type: LoopBody}
  - {sourceNodeId: use, targetNodeId: guarded}
  - {sourceNodeId: guarded, targetNodeId: handle, type: OnFail}
`)
	require.Subset(t, flows(p), []string{
		"g__start -> poll__init",
		"poll__init -> poll",
		`poll -> poll__count if variables["busy"]`,
		"poll__count -> ask",
		"ask -> poll",
		"poll -> each__init (default)",
		"use__onFail -> each__error__join", // errorPolicy collect
		"handle__onFail -> each__error__join",
		"each__error__join -> each__error",
		"each__error -> each__advance__join",
		"guarded -> each__advance__join", // returns to the loop
		"guarded__onFail -> handle",      // its own OnFail edge, not the policy
		"handle -> each__advance__join",
	})
	require.Equal(t, `({"__poll_iterations": 0})`, p.Node("poll__init").Script.Source)
	require.Contains(t, p.Node("poll__count").Script.Source, `if (n > 5) throw new Error("While \"poll\": its body would run more than maxIterations (5) times`)
	require.Equal(t, model.NoRetries, p.Node("poll__count").Retry.Retries, "a limit fails at once")
	require.Contains(t, p.Node("each__init").Script.Source, `if (items.length > 100) throw new Error("ForEach \"each\": the collection has " + items.length`)
	require.Contains(t, p.Node("each__init").Script.Source, `"failures": []`)
	require.Equal(t, `({"failures": (variables["failures"] || []).concat([{index: itemIndex, item: item, error: errorMessage}])})`, p.Node("each__error").Script.Source)
	require.Len(t, p.Node("guarded").Boundaries, 1, "a Task with an OnFail edge keeps its own")

	cont := parse(t, `
graphId: g
nodes:
  - {nodeId: each, type: ForEach, configuration: {collection: [1, 2], errorPolicy: continue}}
  - {nodeId: use, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: each, targetNodeId: use, type: LoopBody}
`)
	require.Subset(t, flows(cont), []string{"use -> each__advance__join", "use__onFail -> each__advance__join"})
}

// A body without an edge back to its loop returns from every path that
// ends: after a Task, an IfElse without FalseBranch, or a split whose
// conditions all fail; a body with one keeps its ends.
func TestParseImplicitLoopReturns(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: g
nodes:
  - {nodeId: each, type: ForEach, configuration: {collection: items}}
  - {nodeId: check, type: IfElse, configuration: {condition: item.ok}}
  - {nodeId: use, type: Task, configuration: `+action+`}
  - {nodeId: more, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: each, targetNodeId: check, type: LoopBody}
  - {sourceNodeId: check, targetNodeId: use, type: TrueBranch}
  - {sourceNodeId: use, targetNodeId: more, condition: item.more}
`)
	require.Subset(t, flows(p), []string{
		"check -> each__advance__join (default)",
		"use__split -> more if item.more",
		"use__split -> each__advance__join (default)",
		"more -> each__advance__join",
		"each__advance__join -> each__advance",
	})
	require.Nil(t, p.Node("use__end"))

	ordered := parse(t, `
graphId: g
nodes:
  - {nodeId: each, type: ForEach, configuration: {collection: items}}
  - {nodeId: check, type: IfElse, configuration: {condition: item.ok}}
  - {nodeId: use, type: Task, configuration: `+action+`}
  - {nodeId: x, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: each, targetNodeId: use, type: LoopBody}
  - {sourceNodeId: use, targetNodeId: check}
  - {sourceNodeId: check, targetNodeId: x, type: TrueBranch}
`)
	require.Subset(t, flows(ordered), []string{"use -> check", "check -> each__advance__join (default)", "x -> each__advance__join"})
	require.NotNil(t, ordered.Node("each__advance"))

	w := parse(t, `
graphId: g
nodes:
  - {nodeId: loop, type: While, configuration: {condition: again}}
  - {nodeId: step, type: Task, configuration: `+action+`}
  - {nodeId: stop, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: loop, targetNodeId: step, type: LoopBody}
  - {sourceNodeId: step, targetNodeId: loop, condition: '!failed'}
  - {sourceNodeId: step, targetNodeId: stop, condition: failed}
`)
	require.Subset(t, flows(w), []string{"stop -> stop__end"}, "an edge back: paths that end, end")
}

func TestParseGraphLimits(t *testing.T) {
	t.Parallel()
	def, err := graph.Parse([]byte(`{"graphId":"g","timeoutMs":60000,"maxConcurrentInstances":3,"overLimit":"refuse","retryBudget":10,"onFailure":"incident",
"nodes":[{"nodeId":"a","type":"Task","configuration":{"actionType":"x"}}],"edges":[]}`))
	require.NoError(t, err)
	require.Equal(t, model.Limits{Timeout: time.Minute, MaxConcurrent: 3, OverLimit: model.OverLimitRefuse, RetryBudget: 10, OnFailure: model.FailureIncident}, def.Main().Limits)
	require.Equal(t, model.Limits{OnFailure: model.FailureFail}, parse(t, "graphId: g\nnodes: [{nodeId: a, type: Task, configuration: "+action+"}]\nedges: []\n").Limits,
		"a graph stops when a node fails with no OnFail edge")
}

func TestParseSchedules(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: g
nodes:
  - {nodeId: hourly, type: Timer, configuration: {schedule: "30 0 * * * *", timeZone: Europe/Berlin}}
  - {nodeId: daily, type: Timer, configuration: {schedule: "@daily"}}
  - {nodeId: a, type: Task, configuration: `+action+`}
  - {nodeId: b, type: Task, configuration: `+action+`}
edges:
  - {sourceNodeId: hourly, targetNodeId: a}
  - {sourceNodeId: daily, targetNodeId: b}
`)
	require.Equal(t, &model.Timer{Kind: model.TimerCycle, Expr: "30 0 * * * *", TimeZone: "Europe/Berlin"}, p.Node("hourly").Timer)
	require.Equal(t, model.KindStartEvent, p.Node("daily").Kind)
	require.ElementsMatch(t, []string{
		"g__start -> g__fork", "g__fork -> a__join", "g__fork -> b__join",
		"hourly -> a__join", "a__join -> a", "a -> a__end",
		"daily -> b__join", "b__join -> b", "b -> b__end",
	}, flows(p))
}

func TestParseNewFieldsRejects(t *testing.T) {
	t.Parallel()
	const head = "graphId: g\nnodes:\n"
	task := func(id, cfg string) string {
		return "  - {nodeId: " + id + ", type: Task, configuration: " + cfg + "}\n"
	}
	two := head + task("a", action) + task("b", action) + "edges:\n  - {sourceNodeId: a, targetNodeId: b, "
	tests := []struct {
		name, doc, element, message string
	}{
		{"name and nodeName", head + "  - {nodeId: a, name: A, nodeName: B, type: Task, configuration: " + action + "}\nedges: []\n", "a", `name "A" and nodeName "B" differ`},
		{"CSharpTask", head + "  - {nodeId: a, type: CSharpTask, configuration: {batchSize: 1}}\nedges: []\n", "a", "type CSharpTask does not run: only JavaScript runs"},
		{"runtimeType", head + "  - {nodeId: a, type: Task, runtimeType: PowerShell, configuration: " + action + "}\nedges: []\n", "a", `runtimeType "PowerShell" does not run: only JavaScript runs`},
		{"assemblyPath", head + "  - {nodeId: a, type: Task, assemblyPath: x.dll, typeName: X, configuration: " + action + "}\nedges: []\n", "a", "compiled .NET nodes (assemblyPath, typeName) do not load: only JavaScript runs"},
		{"scriptPath", head + "  - {nodeId: a, type: Task, scriptPath: x.ps1, requiredModules: [M], configuration: " + action + "}\nedges: []\n", "a", "PowerShell script files and modules"},
		{"Progress", two + "messageType: Progress}\n", "a", "messageType Progress does not route here"},
		{"unknown messageType", two + "messageType: Cancel}\n", "a", `messageType "Cancel" is not Complete, Fail or All`},
		{"Complete on OnFail", two + "type: OnFail, messageType: Complete}\n", "a", "type OnFail and messageType Complete contradict"},
		{"Fail on OnComplete", two + "type: OnComplete, messageType: Fail}\n", "a", "type OnComplete and messageType Fail contradict"},
		{"All from a Timer", head + "  - {nodeId: a, type: Timer, configuration: {duration: PT1M}}\n" + task("b", action) + "edges:\n  - {sourceNodeId: a, targetNodeId: b, messageType: All}\n", "a", "messageType All is taken on failure too, and a Timer does not fail"},
		{"port not text", two + "sourcePort: 3}\n", "a", "sourcePort is 3, not text"},
		{"ports that would route", head + task("a", action) + task("b", action) + task("c", action) + "edges:\n  - {sourceNodeId: a, targetNodeId: b, sourcePort: valid}\n  - {sourceNodeId: a, targetNodeId: c, sourcePort: invalid}\n", "a", "edges leave by the ports invalid, valid, and ports do not route here"},
		{"negative maxRetries", two + "maxRetries: -1}\n", "b", "maxRetries is -1"},
		{"maxRetries and retry", head + task("a", action) + task("b", "{actionType: x, retry: {maxAttempts: 2}}") + "edges:\n  - {sourceNodeId: a, targetNodeId: b, maxRetries: 3}\n", "b", "maxRetries and the Task's configuration.retry both say how often it runs"},
		{"visibilityTimeout and timeoutMs", head + task("a", action) + task("b", "{actionType: x, timeoutMs: 100}") + "edges:\n  - {sourceNodeId: a, targetNodeId: b, visibilityTimeout: PT1M}\n", "b", "visibilityTimeout and the Task's configuration.timeoutMs both bound an attempt"},
		{"queue settings twice", head + task("a", action) + task("c", action) + task("b", action) + "edges:\n  - {sourceNodeId: a, targetNodeId: b, maxRetries: 3}\n  - {sourceNodeId: c, targetNodeId: b, maxRetries: 4}\n", "b", "both set maxRetries or visibilityTimeout"},
		{"queue settings into an IfElse", head + task("a", action) + "  - {nodeId: i, type: IfElse, configuration: {condition: x}}\n" + task("b", action) + "edges:\n  - {sourceNodeId: a, targetNodeId: i, maxRetries: 3}\n  - {sourceNodeId: i, targetNodeId: b, type: TrueBranch}\n", "i", `maxRetries and visibilityTimeout set how a Task's work runs, and "i" is a IfElse`},
		{"visibilityTimeout in words", two + "visibilityTimeout: ten minutes}\n", "b", `"ten minutes" is neither a TimeSpan (00:10:00) nor an ISO-8601 duration`},
		{"visibilityTimeout a number", two + "visibilityTimeout: 600}\n", "b", "600 is not text"},
		{"visibilityTimeout out of range", two + "visibilityTimeout: '00:61:00'}\n", "b", "out of range"},
		{"visibilityTimeout zero", two + "visibilityTimeout: PT0S}\n", "b", "is not above zero"},
		{"visibilityTimeout in months", two + "visibilityTimeout: P1M}\n", "b", "counts years or months"},
		{"retry strategy", head + task("a", "{actionType: x, retry: {maxAttempts: 2, strategy: random}}") + "edges: []\n", "a", `configuration.retry.backoff "random" is not exponential, fixed, linear or immediate`},
		{"backoff and strategy", head + task("a", "{actionType: x, retry: {maxAttempts: 2, backoff: fixed, strategy: linear}}") + "edges: []\n", "a", `backoff "fixed" and strategy "linear" differ`},
		{"backoffFactor", head + task("a", "{actionType: x, retry: {maxAttempts: 2, backoffFactor: 0.5}}") + "edges: []\n", "a", "configuration.retry.backoffFactor is 0.5"},
		{"jitter share", head + task("a", "{actionType: x, retry: {maxAttempts: 2, jitter: 2}}") + "edges: []\n", "a", "configuration.retry.jitter: 2 is not a share between 0 and 1"},
		{"jitter text", head + task("a", "{actionType: x, retry: {maxAttempts: 2, jitter: lots}}") + "edges: []\n", "a", "lots is neither true, false nor a share"},
		{"status code", head + task("a", "{actionType: x, retry: {maxAttempts: 2, retryOnStatusCodes: [42]}}") + "edges: []\n", "a", "retryOnStatusCodes holds 42, not an HTTP status"},
		{"two delays", head + task("a", "{actionType: x, retry: {maxAttempts: 2, initialDelayMs: 1, baseDelayMs: 2}}") + "edges: []\n", "a", "initialDelayMs 1 and baseDelayMs 2 differ"},
		{"failure rate", head + task("a", "{actionType: x, circuitBreaker: {failureRateThreshold: 1.5}}") + "edges: []\n", "a", "configuration.circuitBreaker.failureRateThreshold 1.5 is not a share"},
		{"circuit counts", head + task("a", "{actionType: x, circuitBreaker: {minCalls: -1}}") + "edges: []\n", "a", "configuration.circuitBreaker.counts are negative"},
		{"circuit on a script", head + task("a", "{language: JavaScript, script: x, circuitBreaker: {}}") + "edges: []\n", "a", "configuration.circuitBreaker guards actions"},
		{"fallback without circuit", head + task("a", "{actionType: x, fallbackNodeId: b}") + task("b", action) + "edges: []\n", "a", "it has no configuration.circuitBreaker"},
		{"fallback to nothing", head + task("a", "{actionType: x, circuitBreaker: {}, fallbackNodeId: zz}") + "edges: []\n", "a", `configuration.fallbackNodeId "zz" is not a node`},
		{"fallback to itself", head + task("a", "{actionType: x, circuitBreaker: {}, fallbackNodeId: a}") + "edges: []\n", "a", "configuration.fallbackNodeId names the Task itself"},
		{"join policy", head + "  - {nodeId: p, type: Parallel, configuration: {joinPolicy: most}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: p, targetNodeId: a}\n", "p", `configuration.joinPolicy "most" is not all, any, majority or n_of_m`},
		{"n_of_m without n", head + "  - {nodeId: p, type: Parallel, configuration: {joinPolicy: n_of_m}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: p, targetNodeId: a}\n", "p", "joinPolicy n_of_m needs n"},
		{"n without n_of_m", head + "  - {nodeId: p, type: Parallel, configuration: {joinPolicy: any, n: 2}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: p, targetNodeId: a}\n", "p", "configuration.n counts the branches of joinPolicy n_of_m only"},
		{"branches never meet", head + "  - {nodeId: p, type: Parallel, configuration: {joinPolicy: any}}\n" + task("a", action) + task("b", action) + "edges:\n  - {sourceNodeId: p, targetNodeId: a}\n  - {sourceNodeId: p, targetNodeId: b}\n", "p", "they never meet at one node"},
		{"While maxIterations", head + "  - {nodeId: w, type: While, configuration: {condition: x, maxIterations: -1}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: w, targetNodeId: a, type: LoopBody}\n", "w", "configuration.maxIterations is -1"},
		{"ForEach maxIterations", head + "  - {nodeId: f, type: ForEach, configuration: {collection: x, maxIterations: -2}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n", "f", "configuration.maxIterations is -2"},
		{"errorPolicy", head + "  - {nodeId: f, type: ForEach, configuration: {collection: x, errorPolicy: ignore}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n", "f", `configuration.errorPolicy "ignore" is not stop, continue or collect`},
		{"errorsVariable without collect", head + "  - {nodeId: f, type: ForEach, configuration: {collection: x, errorPolicy: continue, errorsVariable: errs}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n", "f", "errorPolicy is continue"},
		{"errorsVariable name", head + "  - {nodeId: f, type: ForEach, configuration: {collection: x, errorPolicy: collect, errorsVariable: my-errors}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n", "f", `configuration.errorsVariable "my-errors" is not a JavaScript name`},
		{"collection twice", head + "  - {nodeId: f, type: ForEach, configuration: {collection: x, collectionExpression: y}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n", "f", "both collection and collectionExpression"},
		{"item variable twice", head + "  - {nodeId: f, type: ForEach, configuration: {collection: x, itemVariable: a, itemVariableName: b}}\n" + task("a", action) + "edges:\n  - {sourceNodeId: f, targetNodeId: a, type: LoopBody}\n", "f", `itemVariable "a" and itemVariableName "b" differ`},
		{"onFailure", "graphId: g\nonFailure: notify-error\nnodes:\n" + task("a", action) + "edges: []\n", "g", `onFailure "notify-error" is not fail or incident`},
		{"overLimit", "graphId: g\nmaxConcurrentInstances: 2\noverLimit: drop\nnodes:\n" + task("a", action) + "edges: []\n", "g", `overLimit "drop" is not queue or refuse`},
		{"overLimit alone", "graphId: g\noverLimit: queue\nnodes:\n" + task("a", action) + "edges: []\n", "g", "there is no maxConcurrentInstances"},
		{"negative limits", "graphId: g\ntimeoutMs: -1\nnodes:\n" + task("a", action) + "edges: []\n", "g", "timeoutMs, maxConcurrentInstances and retryBudget are negative"},
		{"schedule fields", head + "  - {nodeId: t, type: Timer, configuration: {schedule: '0 0 *'}}\nedges: []\n", "t", `configuration.schedule "0 0 *" has 3 fields: write a cron expression of 5 fields`},
		{"schedule values", head + "  - {nodeId: t, type: Timer, configuration: {schedule: '0 25 * * *'}}\nedges: []\n", "t", `configuration.schedule "0 25 * * *" is not a cron expression`},
		{"schedule and duration", head + "  - {nodeId: t, type: Timer, configuration: {schedule: '0 0 * * *', duration: PT1M}}\nedges: []\n", "t", "both a schedule and a duration or date"},
		{"time zone", head + "  - {nodeId: t, type: Timer, configuration: {schedule: '0 0 * * *', timeZone: Mars/Olympus}}\nedges: []\n", "t", `configuration.timeZone "Mars/Olympus" is not an IANA time zone`},
		{"time zone alone", head + "  - {nodeId: t, type: Timer, configuration: {duration: PT1M, timeZone: UTC}}\nedges: []\n", "t", "configuration.timeZone applies to a schedule"},
		{"schedule in a Subflow", head + "  - {nodeId: s, type: Subflow, configuration: {nodes: [{nodeId: t, type: Timer, configuration: {schedule: '0 0 * * *'}}]}}\nedges: []\n", "t", "a Timer with a schedule starts the graph, and this one is inside Subflow \"s\""},
		{"assigning context.Variables", head + task("a", `{language: JavaScript, script: 'context.Variables["n"] = 1'}`) + "edges: []\n", "a", "the script assigns to context.Variables, which changes nothing"},
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

func TestParseExecutionEngineNodeDefinitions(t *testing.T) {
	t.Parallel()
	fromJSON, err := graph.Parse(seed(t, "execution-engine-4.3.json"))
	require.NoError(t, err)
	fromYAML, err := graph.Parse(seed(t, "execution-engine-4.3.yaml"))
	require.NoError(t, err)
	require.Equal(t, fromJSON, fromYAML)
	p := fromYAML.Main()
	ingest := p.Node("ps-script-task-1")
	require.Equal(t, 5, ingest.Retry.Retries, "edge-1's maxRetries")
	require.Equal(t, 10*time.Minute, ingest.Job.Timeout, "edge-1's visibilityTimeout")
	processor := p.Node("compiled-task-1")
	require.Equal(t, 3, processor.Retry.Retries)
	require.Equal(t, 5*time.Minute, processor.Job.Timeout)
	require.Equal(t, "ps-script-task-1", p.Flow("edge-1").TargetID)
}
