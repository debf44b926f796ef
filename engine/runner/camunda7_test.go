package runner_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/runner"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// The Camunda 7 conformance suite: models of Camunda 7's own engine tests
// (camunda/camunda-bpm-platform, Apache 2.0; testdata/camunda7/README.md
// says where each comes from), each case run as the Java test method it
// names runs it and asserting what that method asserts. Where the Java test
// expects an exception at start (no sequence flow selected, unknown
// variable), the case expects an incident at the element that raised it.
//
// A case with knownGap fails on purpose: its assertions are recorded, not
// reported, and the case fails once they all pass, so that a fixed gap is
// noticed and the knownGap removed.

const camunda7Dir = "../testdata/camunda7"

// c7Task is an open user task. Fields a wanted task leaves empty are not compared.
type c7Task struct {
	elementID       string
	name            string
	assignee        string
	candidateUsers  []string
	candidateGroups []string
}

// open lists user tasks open at these elements.
func open(elementIDs ...string) []c7Task {
	tasks := make([]c7Task, len(elementIDs))
	for i, id := range elementIDs {
		tasks[i] = c7Task{elementID: id}
	}
	return tasks
}

// c7Want is the state a Java test asserts.
type c7Want struct {
	status   string         // completed, waiting or incident
	tasks    []c7Task       // open user tasks, in any order; none when empty
	vars     map[string]any // instance variables (numbers compared as float64)
	noVars   []string       // variables that must not be set
	incident string         // element with an incident; none when empty
}

// c7Step is one move of a Java test (exactly one of complete, message,
// signal, trigger, timer, setVars; none for the state after start) and the
// state it asserts afterwards. Its tasks are those of the instance and of
// the instances it called.
type c7Step struct {
	complete string         // taskService.complete on the open task of this element
	message  string         // runtimeService.correlateMessage
	signal   string         // runtimeService.signalEventReceived
	trigger  string         // runtimeService.signal on what waits at this element
	timer    bool           // the next due timer fires
	setVars  map[string]any // runtimeService.setVariables
	vars     map[string]any // variables the move carries
	want     c7Want
}

type camunda7Case struct {
	name     string
	file     string   // under testdata/camunda7
	deploy   []string // deployed first: the processes it calls
	upstream string   // the Java test method(s) it mirrors
	vars     map[string]any

	// Either a run as `wfpp run` does it (runner.Run), to its end or to a
	// wait nothing given can end...
	completeTasks bool
	taskVars      map[string]any
	messages      []engine.Message
	signals       []runner.Signal
	problemAt     string   // the definition is rejected with a problem naming this element
	activated     []string // tasks activated, in any order; nil: not checked
	want          c7Want   // the instance's own open tasks

	// ...or the Java test's moves, one by one.
	steps []c7Step

	knownGap string // how the engine deviates from Camunda 7 here
}

func TestConformanceCamunda7(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, tc := range camunda7Cases() {
		covered[tc.file] = true
		for _, d := range tc.deploy {
			covered[d] = true
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("upstream: %s", tc.upstream)
			if tc.knownGap == "" {
				runCamunda7Case(t, t, tc)
				return
			}
			t.Logf("known gap: %s", tc.knownGap)
			var gap gapRecorder
			runCamunda7Case(t, &gap, tc)
			if len(gap.failures) == 0 {
				t.Errorf("the known gap is closed, the engine now does what Camunda 7 does: remove knownGap %q", tc.knownGap)
				return
			}
			for _, f := range gap.failures {
				t.Logf("still deviates: %s", f)
			}
		})
	}
	t.Run("every model has a case", func(t *testing.T) {
		n := 0
		err := filepath.WalkDir(camunda7Dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".bpmn") || strings.HasSuffix(path, ".bpmn20.xml")) {
				return err
			}
			n++
			rel, err := filepath.Rel(camunda7Dir, path)
			if err != nil {
				return err
			}
			assert.True(t, covered[filepath.ToSlash(rel)], "no case runs %s", rel)
			return nil
		})
		require.NoError(t, err)
		require.NotZero(t, n, "no models under %s", camunda7Dir)
	})
}

// gapRecorder keeps the failures of a known-gap case instead of failing it.
type gapRecorder struct{ failures []string }

func (g *gapRecorder) Errorf(format string, args ...any) {
	g.failures = append(g.failures, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// runCamunda7Case runs tc and reports to check how it differs from what
// Camunda 7 does; t only provides the context and fails on broken test data.
func runCamunda7Case(t *testing.T, check assert.TestingT, tc camunda7Case) {
	read := func(name string) []byte {
		src, err := os.ReadFile(filepath.Join(camunda7Dir, name))
		require.NoError(t, err)
		return src
	}
	src := read(tc.file)
	var deploy [][]byte
	for _, d := range tc.deploy {
		deploy = append(deploy, read(d))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if len(tc.steps) > 0 {
		runCamunda7Steps(ctx, check, src, deploy, tc)
		return
	}

	res, err := runner.Run(ctx, src, runner.Options{
		Variables: tc.vars, Deploy: deploy, Strict: true, Timeout: 20 * time.Second,
		CompleteTasks: tc.completeTasks, TaskVariables: tc.taskVars, Messages: tc.messages, Signals: tc.signals,
	})
	if tc.problemAt != "" {
		var probs model.Problems
		if assert.ErrorAs(check, err, &probs, "the definition must be rejected") {
			// Camunda 7 names the element in its message; a problem may
			// sit on a neighbour and name it in its message too.
			names := func(p model.Problem) bool {
				return p.ElementID == tc.problemAt || strings.Contains(p.Message, strconv.Quote(tc.problemAt))
			}
			assert.True(check, slices.ContainsFunc(probs, names), "no problem names %s: %v", tc.problemAt, probs)
		}
		return
	}
	if !assert.NoError(check, err, "running the model") {
		return
	}
	got := c7State{status: res.Status, vars: res.Variables}
	for _, tk := range res.Tasks {
		got.tasks = append(got.tasks, c7Task{tk.ElementID, tk.Name, tk.Assignee, tk.CandidateUsers, tk.CandidateGroups})
	}
	for _, inc := range res.Incidents {
		got.incidents = append(got.incidents, inc.ElementID)
	}
	checkCamunda7(check, tc.want, got)
	if tc.activated != nil {
		assert.ElementsMatch(check, tc.activated, res.Activated, "activated tasks")
	}
}

// c7State is what an instance looks like between two moves.
type c7State struct {
	status    string
	tasks     []c7Task
	vars      map[string]any
	incidents []string // elements
}

func checkCamunda7(check assert.TestingT, want c7Want, got c7State) {
	assert.Equal(check, want.status, got.status, "status; incidents at %v", got.incidents)
	assert.ElementsMatch(check, want.tasks, projectTasks(got.tasks, want.tasks), "open user tasks")
	for k, w := range want.vars {
		g, ok := got.vars[k]
		if !assert.True(check, ok, "variable %q is not set: %v", k, got.vars) {
			continue
		}
		switch w.(type) {
		case int, float64:
			wn, _ := number(w)
			gn, err := number(g)
			if assert.NoError(check, err, "variable %q", k) {
				assert.Equal(check, wn, gn, "variable %q", k)
			}
		default:
			assert.Equal(check, w, g, "variable %q", k)
		}
	}
	for _, k := range want.noVars {
		assert.NotContains(check, got.vars, k, "variable %q must not be set", k)
	}
	if want.incident != "" {
		assert.Contains(check, got.incidents, want.incident, "incident")
	} else {
		assert.Empty(check, got.incidents, "incidents")
	}
}

// projectTasks keeps of each task only the fields some wanted task sets.
func projectTasks(got, want []c7Task) []c7Task {
	var keep c7Task
	for _, w := range want {
		keep.name += w.name
		keep.assignee += w.assignee
		keep.candidateUsers = append(keep.candidateUsers, w.candidateUsers...)
		keep.candidateGroups = append(keep.candidateGroups, w.candidateGroups...)
	}
	out := make([]c7Task, len(got))
	for i, g := range got {
		out[i].elementID = g.elementID
		if keep.name != "" {
			out[i].name = g.name
		}
		if keep.assignee != "" {
			out[i].assignee = g.assignee
		}
		if keep.candidateUsers != nil && len(g.candidateUsers) > 0 {
			out[i].candidateUsers = g.candidateUsers
		}
		if keep.candidateGroups != nil && len(g.candidateGroups) > 0 {
			out[i].candidateGroups = g.candidateGroups
		}
	}
	return out
}

// runCamunda7Steps makes the Java test's moves on an engine of its own and
// checks the state after each.
func runCamunda7Steps(ctx context.Context, check assert.TestingT, src []byte, deploy [][]byte, tc camunda7Case) {
	clock := engine.NewVirtualClock(time.Now().UTC().Truncate(time.Second))
	e, err := engine.New(engine.Config{
		Store: memstore.New(), Clock: clock, Unhandled: engine.JobsExternal, NoStartTimers: true, Partitions: 1,
	})
	if !assert.NoError(check, err) || !assert.NoError(check, e.Run(ctx)) {
		return
	}
	defer e.Close()
	r := c7Run{e: e, clock: clock}
	if !assert.NoError(check, r.start(ctx, src, deploy, tc.vars), "starting the model") {
		return
	}
	for i, s := range tc.steps {
		if !assert.NoError(check, r.do(ctx, s), "step %d", i+1) {
			return
		}
		got, err := r.state(ctx)
		if !assert.NoError(check, err, "step %d", i+1) {
			return
		}
		checkCamunda7(&stepCheck{check, i + 1}, s.want, got)
	}
}

// stepCheck says which step an assertion is about.
type stepCheck struct {
	assert.TestingT
	step int
}

func (s *stepCheck) Errorf(format string, args ...any) {
	s.TestingT.Errorf("after step %d: "+format, append([]any{s.step}, args...)...)
}

// c7Run is one instance on its own engine, moved as a Java test moves it.
type c7Run struct {
	e     *engine.Engine
	clock *engine.VirtualClock
	id    string
}

func (r *c7Run) start(ctx context.Context, src []byte, deploy [][]byte, vars map[string]any) error {
	for _, d := range deploy {
		if _, _, err := r.e.Deploy(ctx, engine.DeployRequest{Source: d}); err != nil {
			return fmt.Errorf("deploying a called process: %w", err)
		}
	}
	rec, _, err := r.e.Deploy(ctx, engine.DeployRequest{Source: src})
	if err != nil {
		return err
	}
	snap, _, err := r.e.Start(ctx, engine.StartRequest{Definition: rec.Key, Version: rec.Version, Variables: vars})
	if err != nil {
		return err
	}
	r.id = snap.ID
	return r.e.WaitIdle(ctx)
}

func (r *c7Run) do(ctx context.Context, s c7Step) error {
	var err error
	switch {
	case s.complete != "":
		var tasks []engine.Task
		if tasks, err = r.openTasks(ctx); err != nil {
			return err
		}
		i := slices.IndexFunc(tasks, func(t engine.Task) bool { return t.ElementID == s.complete })
		if i < 0 {
			return fmt.Errorf("no user task is open at %q", s.complete)
		}
		_, err = r.e.CompleteTask(ctx, tasks[i].ID, "kermit", s.vars)
	case s.message != "":
		_, err = r.e.Correlate(ctx, engine.Message{Name: s.message, Variables: s.vars})
	case s.signal != "":
		var n int
		if n, err = r.e.Signal(ctx, s.signal, s.vars); err == nil && n == 0 {
			err = fmt.Errorf("nothing waits for signal %q", s.signal)
		}
	case s.trigger != "":
		_, err = r.e.Trigger(ctx, r.id, s.trigger, s.vars)
	case s.timer:
		if !r.clock.AdvanceToNext() {
			err = errors.New("no timer is due")
		}
	case s.setVars != nil:
		_, err = r.e.SetVariables(ctx, r.id, "kermit", s.setVars)
	}
	if err != nil {
		return err
	}
	return r.e.WaitIdle(ctx)
}

// openTasks lists the open user tasks of the instance and those it called:
// the engine holds nothing else.
func (r *c7Run) openTasks(ctx context.Context) ([]engine.Task, error) {
	tasks, _, err := r.e.Queries().Tasks(ctx, engine.TaskFilter{Status: engine.TaskOpen})
	return tasks, err
}

func (r *c7Run) state(ctx context.Context) (c7State, error) {
	snap, err := r.e.Instance(ctx, r.id)
	if err != nil {
		return c7State{}, err
	}
	got := c7State{status: string(snap.Status), vars: snap.Variables}
	if snap.Status == engine.StatusRunning || snap.Status == engine.StatusPaused {
		got.status = string(engine.StatusWaiting)
	}
	for _, inc := range snap.Incidents {
		got.incidents = append(got.incidents, inc.ElementID)
	}
	tasks, err := r.openTasks(ctx)
	if err != nil {
		return c7State{}, err
	}
	for _, tk := range tasks {
		got.tasks = append(got.tasks, c7Task{tk.ElementID, tk.Name, tk.Assignee, tk.CandidateUsers, tk.CandidateGroups})
	}
	return got, nil
}

// waiting is an instance that waits with these user tasks open.
func waiting(elementIDs ...string) c7Want {
	return c7Want{status: "waiting", tasks: open(elementIDs...)}
}

var completed = c7Want{status: "completed"}

// incidentAt is an instance stuck where Camunda 7 throws a ProcessEngineException.
func incidentAt(elementID string) c7Want {
	return c7Want{status: "incident", incident: elementID}
}

func camunda7Cases() []camunda7Case {
	const (
		exclusive = "gateway/ExclusiveGatewayTest."
		parallel  = "gateway/ParallelGatewayTest."
		inclusive = "gateway/InclusiveGatewayTest."
		eventGw   = "gateway/EventBasedGatewayTest."
	)
	input := func(i int) map[string]any { return map[string]any{"input": i} }
	return []camunda7Case{
		// --- exclusive gateway (ExclusiveGatewayTest) ---
		{
			name: "exclusive/diverging input 1", file: exclusive + "testDivergingExclusiveGateway.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testDivergingExclusiveGateway", vars: input(1),
			want: waiting("theTask1"),
		},
		{
			name: "exclusive/diverging input 2", file: exclusive + "testDivergingExclusiveGateway.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testDivergingExclusiveGateway", vars: input(2),
			want: waiting("theTask2"),
		},
		{
			name: "exclusive/diverging input 3", file: exclusive + "testDivergingExclusiveGateway.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testDivergingExclusiveGateway", vars: input(3),
			want: waiting("theTask3"),
		},
		{
			name: "exclusive/unknown variable in expression", file: exclusive + "testDivergingExclusiveGateway.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testUnknownVariableInExpression (\"Unknown property used in expression\")",
			vars:     map[string]any{"iinput": 1},
			want:     incidentAt("exclusiveGw"),
		},
		{
			name: "exclusive/merging", file: exclusive + "testMergingExclusiveGateway.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testMergingExclusiveGateway (3 tasks)",
			want:     waiting("theTask", "theTask", "theTask"),
		},
		{
			name: "exclusive/first valid condition wins", file: exclusive + "testMultipleValidConditions.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testMultipleValidConditions", vars: input(5),
			want: waiting("theTask2"),
		},
		{
			name: "exclusive/no sequence flow selected", file: exclusive + "testNoSequenceFlowSelected.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testNoSequenceFlowSelected", vars: input(4),
			want: incidentAt("exclusiveGw"),
		},
		{
			name: "exclusive/whitespace in expression", file: exclusive + "testWhitespaceInExpression.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testWhitespaceInExpression", vars: input(1),
			want: waiting("theTask1"),
		},
		{
			name: "exclusive/default flow not taken", file: exclusive + "testDefaultSequenceFlow.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testDefaultSequenceFlow (input 1)", vars: input(1),
			want: waiting("theTask1"),
		},
		{
			name: "exclusive/default flow taken", file: exclusive + "testDefaultSequenceFlow.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testDefaultSequenceFlow (input 5)", vars: input(5),
			want: waiting("theTask2"),
		},
		{
			name: "exclusive/no id on sequence flow", file: exclusive + "testNoIdOnSequenceFlow.bpmn20.xml",
			upstream: "ExclusiveGatewayTest.testNoIdOnSequenceFlow", vars: input(3),
			want: waiting("theTask2"),
		},

		// --- parallel gateway (ParallelGatewayTest) ---
		{
			name: "parallel/fork join", file: parallel + "testForkJoin.bpmn20.xml",
			upstream: "ParallelGatewayTest.testForkJoin",
			steps: []c7Step{
				{want: waiting("receivePayment", "shipOrder")},
				{complete: "receivePayment", want: waiting("shipOrder")},
				{complete: "shipOrder", want: waiting("archiveOrder")},
			},
		},
		{
			name: "parallel/split merge without wait states", file: parallel + "testSplitMergeNoWaitstates.bpmn20.xml",
			upstream: "ParallelGatewayTest.testSplitMergeNoWaitstates", want: completed,
		},
		{
			name: "parallel/unstructured two forks", file: parallel + "testUnstructuredConcurrencyTwoForks.bpmn20.xml",
			upstream: "ParallelGatewayTest.testUnstructuredConcurrencyTwoForks", want: completed,
		},
		{
			name: "parallel/unstructured two joins", file: parallel + "testUnstructuredConcurrencyTwoJoins.bpmn20.xml",
			upstream: "ParallelGatewayTest.testUnstructuredConcurrencyTwoJoins", want: completed,
		},
		{
			name: "parallel/fork followed by end events", file: parallel + "testForkFollowedByOnlyEndEvents.bpmn20.xml",
			upstream: "ParallelGatewayTest.testForkFollowedByOnlyEndEvents", want: completed,
		},
		{
			name: "parallel/nested forks followed by end events", file: parallel + "testNestedForksFollowedByEndEvents.bpmn20.xml",
			upstream: "ParallelGatewayTest.testNestedForksFollowedByEndEvents", want: completed,
		},
		{
			name: "parallel/nested fork join", file: parallel + "testNestedForkJoin.bpmn20.xml",
			upstream: "ParallelGatewayTest.testNestedForkJoin",
			steps: []c7Step{
				{want: waiting("Task_0")},
				{complete: "Task_0", want: waiting("Task_A", "Task_B")},
				{complete: "Task_A", want: waiting("Task_B")},
				{complete: "Task_B", want: waiting("Task_B1", "Task_B2")},
				{complete: "Task_B1", want: waiting("Task_B2")},
				{complete: "Task_B2", want: waiting("Task_C")},
				{complete: "Task_C", want: completed},
			},
		},
		{
			name: "parallel/unbalanced fork join", file: parallel + "testUnbalancedForkJoin.bpmn20.xml",
			upstream: "ParallelGatewayTest.testUnbalancedForkJoin",
			steps: []c7Step{
				{want: waiting("task1", "task2", "task3")},
				{complete: "task1", want: waiting("task2", "task3")},
				{complete: "task2", want: waiting("task3", "task4")},
				{complete: "task3", want: waiting("task4")},
				{complete: "task4", want: completed},
			},
		},

		// --- inclusive gateway (InclusiveGatewayTest) ---
		{
			name: "inclusive/diverging input 1", file: inclusive + "testDivergingInclusiveGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDivergingInclusiveGateway", vars: input(1),
			want: waiting("theTask1", "theTask2", "theTask3"),
		},
		{
			name: "inclusive/diverging input 2", file: inclusive + "testDivergingInclusiveGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDivergingInclusiveGateway", vars: input(2),
			want: waiting("theTask2", "theTask3"),
		},
		{
			name: "inclusive/diverging input 3", file: inclusive + "testDivergingInclusiveGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDivergingInclusiveGateway", vars: input(3),
			want: waiting("theTask3"),
		},
		{
			name: "inclusive/unknown variable in expression", file: inclusive + "testDivergingInclusiveGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testUnknownVariableInExpression (\"Unknown property used in expression\")",
			vars:     map[string]any{"iinput": 1},
			want:     incidentAt("inclusiveGw"),
		},
		{
			name: "inclusive/merging", file: inclusive + "testMergingInclusiveGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testMergingInclusiveGateway (1 task)", vars: input(2),
			want: waiting("theTask"),
		},
		{
			name: "inclusive/partial merging", file: inclusive + "testPartialMergingInclusiveGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testPartialMergingInclusiveGateway", vars: input(2),
			steps: []c7Step{
				{want: waiting("partialTask")},
				{complete: "partialTask", want: waiting("theTask")},
			},
		},
		{
			name: "inclusive/no sequence flow selected", file: inclusive + "testNoSequenceFlowSelected.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testNoSequenceFlowSelected (ENGINE-02004)", vars: input(4),
			want: incidentAt("inclusiveGw"),
		},
		{
			name: "inclusive/default flow input 1", file: inclusive + "testDefaultSequenceFlow.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDefaultSequenceFlow", vars: input(1),
			want: waiting("theTask1", "theTask3"),
		},
		{
			name: "inclusive/default flow input 3", file: inclusive + "testDefaultSequenceFlow.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDefaultSequenceFlow", vars: input(3),
			want: waiting("theTask3"),
		},
		{
			name: "inclusive/default flow input 5", file: inclusive + "testDefaultSequenceFlow.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDefaultSequenceFlow / testDefaultSequenceFlowExecutionIsActive", vars: input(5),
			want: waiting("theTask2"),
		},
		{
			name: "inclusive/split merge split", file: inclusive + "testSplitMergeSplit.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testSplitMergeSplit", vars: input(1),
			steps: []c7Step{
				{want: waiting("theTask1", "theTask2")},
				{complete: "theTask1", want: waiting("theTask2")},
				{complete: "theTask2", want: waiting("theTask3")},
			},
		},
		{
			name: "inclusive/decision input 1", file: inclusive + "testDecisionFunctionality.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDecisionFunctionality", vars: input(1),
			want: waiting("theTask1", "theTask2", "theTask3"),
		},
		{
			name: "inclusive/decision input 2", file: inclusive + "testDecisionFunctionality.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDecisionFunctionality", vars: input(2),
			want: waiting("theTask2", "theTask3"),
		},
		{
			name: "inclusive/decision input 3", file: inclusive + "testDecisionFunctionality.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDecisionFunctionality", vars: input(3),
			want: waiting("theTask3"),
		},
		{
			name: "inclusive/decision input 4", file: inclusive + "testDecisionFunctionality.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testDecisionFunctionality (no flow matches: exception)", vars: input(4),
			want: incidentAt("inclusiveGw"),
		},
		{
			name: "inclusive/join after sub-processes a=1 b=1", file: inclusive + "testJoinAfterSubprocesses.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testJoinAfterSubprocesses", vars: map[string]any{"a": 1, "b": 1},
			steps: []c7Step{
				{want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "usertask1", assignee: "a"}, {elementID: "usertask2", assignee: "b"}}}},
				{complete: "usertask1", want: waiting("usertask2")},
				{complete: "usertask2", want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "usertask3", assignee: "c"}}}},
				{complete: "usertask3", want: completed},
			},
		},
		{
			name: "inclusive/join after sub-processes a=1 b=2", file: inclusive + "testJoinAfterSubprocesses.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testJoinAfterSubprocesses", vars: map[string]any{"a": 1, "b": 2},
			steps: []c7Step{
				{want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "usertask1", assignee: "a"}}}},
				{complete: "usertask1", want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "usertask3", assignee: "c"}}}},
				{complete: "usertask3", want: completed},
			},
		},
		{
			name: "inclusive/join after sub-processes a=2 b=2", file: inclusive + "testJoinAfterSubprocesses.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testJoinAfterSubprocesses (\"No outgoing sequence flow\")",
			vars:     map[string]any{"a": 2, "b": 2},
			want:     incidentAt("inclusivegateway1"),
		},
		{
			name: "inclusive/join after event-based gateway", file: inclusive + "testJoinAfterEventBasedGateway.bpmn20.xml",
			upstream: "InclusiveGatewayTest.testJoinAfterEventBasedGateway",
			steps: []c7Step{
				{want: waiting("theTask")},
				{complete: "theTask", want: waiting()},
				{message: "foo", want: waiting("taskAfterJoin")},
			},
		},

		// --- event-based gateway (EventBasedGatewayTest) ---
		{
			name: "event-based/signal cancels timer", file: eventGw + "testCatchAlertAndTimer.bpmn20.xml",
			upstream: "EventBasedGatewayTest.testCatchSignalCancelsTimer",
			steps: []c7Step{
				{want: waiting()},
				{signal: "alert", want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "task2", name: "afterSignal", assignee: "kermit"}}}},
				{complete: "task2", want: completed},
			},
		},
		{
			name: "event-based/timer cancels signal", file: eventGw + "testCatchAlertAndTimer.bpmn20.xml",
			upstream: "EventBasedGatewayTest.testCatchTimerCancelsSignal",
			steps: []c7Step{
				{want: waiting()},
				{timer: true, want: waiting("task1")},
				{complete: "task1", want: completed},
			},
		},
		{
			name: "event-based/message among signal, message and timer", file: eventGw + "testCatchSignalAndMessageAndTimer.bpmn20.xml",
			upstream: "EventBasedGatewayTest.testCatchSignalAndMessageAndTimer",
			steps: []c7Step{
				{want: waiting()},
				{message: "newInvoice", want: waiting("task3")},
				{complete: "task3", want: completed},
			},
		},
		{
			name: "event-based/connected to an activity", file: eventGw + "testConnectedToActivity.bpmn20.xml",
			upstream:  "EventBasedGatewayTest.testConnectedToActitiy (\"Event based gateway can only be connected to elements of type intermediateCatchEvent\")",
			problemAt: "gw1",
		},

		// --- error events (BoundaryErrorEventTest) ---
		{
			name: "error/boundary on embedded sub-process", file: "error/BoundaryErrorEventTest.testCatchErrorOnEmbeddedSubprocess.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testCatchErrorOnEmbeddedSubprocess",
			steps: []c7Step{
				{want: waiting("subprocessTask")},
				{complete: "subprocessTask", want: waiting("taskAfterErrorCatch")},
			},
		},
		{
			name: "error/catch-all boundary, thrown error with code", file: "error/BoundaryErrorEventTest.testCatchErrorOnEmbeddedSubprocessWithoutErrorCode.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testCatchErrorOnEmbeddedSubprocessWithoutErrorCode",
			steps: []c7Step{
				{want: waiting("subprocessTask")},
				{complete: "subprocessTask", want: waiting("taskAfterErrorCatch")},
			},
		},
		{
			name: "error/throwing an error without errorCode", file: "error/BoundaryErrorEventTest.testThrowErrorWithoutErrorCode.bpmn20.xml",
			upstream:  "BoundaryErrorEventTest.testThrowErrorWithoutErrorCode (\"'errorCode' is mandatory on errors referenced by throwing error event definitions\")",
			problemAt: "theEnd",
		},
		{
			name: "error/inner sub-process error caught on the outer one", file: "error/BoundaryErrorEventTest.testCatchErrorOfInnerSubprocessOnOuterSubprocess.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testCatchErrorOfInnerSubprocessOnOuterSubprocess",
			steps: []c7Step{
				{want: waiting("innerTask1", "innerTask2")},
				{complete: "innerTask2", want: waiting("taskAfterErrorCatch")},
			},
		},
		{
			name: "error/concurrent sub-processes, task A", file: "error/BoundaryErrorEventTest.testCatchErrorInConcurrentEmbeddedSubprocesses.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testCatchErrorInConcurrentEmbeddedSubprocesses (completing task A)",
			steps: []c7Step{
				{want: waiting("taskA", "taskB")},
				{complete: "taskA", want: waiting("taskD")},
				{complete: "taskD", want: completed},
			},
		},
		{
			name: "error/concurrent sub-processes, task B", file: "error/BoundaryErrorEventTest.testCatchErrorInConcurrentEmbeddedSubprocesses.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testCatchErrorInConcurrentEmbeddedSubprocesses (completing task B)",
			steps: []c7Step{
				{want: waiting("taskA", "taskB")},
				{complete: "taskB", want: waiting("taskA", "taskC")},
				{complete: "taskC", want: waiting("taskA")},
				{complete: "taskA", want: waiting("taskD")},
			},
		},
		{
			name: "error/deeply nested, error 1", file: "error/BoundaryErrorEventTest.testDeeplyNestedErrorThrown.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testDeeplyNestedErrorThrown (input 1)",
			steps: []c7Step{
				{want: waiting("taskInSubprocess")},
				{complete: "taskInSubprocess", vars: input(1), want: completed},
			},
		},
		{
			name: "error/deeply nested, error 2", file: "error/BoundaryErrorEventTest.testDeeplyNestedErrorThrown.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testDeeplyNestedErrorThrown (input 2)",
			steps: []c7Step{
				{want: waiting("taskInSubprocess")},
				{complete: "taskInSubprocess", vars: input(2), want: waiting("taskAfterCatch")},
				{complete: "taskAfterCatch", want: completed},
			},
		},
		{
			name: "error/caught on a call activity", file: "callactivity/BoundaryErrorEventTest.testCatchErrorOnCallActivity-parent.bpmn20.xml",
			deploy:   []string{"callactivity/BoundaryErrorEventTest.subprocess.bpmn20.xml"},
			upstream: "BoundaryErrorEventTest.testCatchErrorOnCallActivity",
			steps: []c7Step{
				{want: waiting("task")},
				{complete: "task", want: waiting("escalatedTask")},
				{complete: "escalatedTask", want: completed},
			},
		},
		{
			name: "error/uncaught error end event", file: "callactivity/BoundaryErrorEventTest.subprocess.bpmn20.xml",
			upstream: "BoundaryErrorEventTest.testUncaughtError (no catcher: the execution ends, none end event semantics, BpmnExceptionHandler)",
			// A deliberate difference (docs/conformance.md): Camunda 7 ends the
			// path as a none end event would and the error is lost; Camunda 8
			// and Workflow++ raise an incident, so someone sees the error no
			// one handles and can fix the model and retry.
			steps: []c7Step{
				{want: waiting("task")},
				{complete: "task", want: c7Want{status: "incident", incident: "theEnd"}},
			},
		},

		// --- escalation events (EscalationEventTest) ---
		{
			name: "escalation/from embedded sub-process", file: "escalation/EscalationEventTest.testThrowEscalationEventFromEmbeddedSubprocess.bpmn20.xml",
			upstream: "EscalationEventTest.testThrowEscalationEventFromEmbeddedSubprocess",
			want:     waiting("taskInSubprocess", "taskAfterCatchedEscalation"),
		},
		{
			name: "escalation/hierarchical", file: "escalation/EscalationEventTest.testThrowEscalationEventHierarchical.bpmn20.xml",
			upstream: "EscalationEventTest.testThrowEscalationEventHierarchical",
			want:     waiting("taskInSubprocess", "taskAfterCatchedEscalationInsideSubprocess"),
		},
		{
			name: "escalation/boundary by escalation code", file: "escalation/EscalationEventTest.testBoundaryEventWithEscalationCode.bpmn20.xml",
			upstream: "EscalationEventTest.testBoundaryEventWithEscalationCode",
			want:     waiting("taskInSubprocess", "taskAfterCatchedEscalation1"),
		},
		{
			name: "escalation/interrupting boundary", file: "escalation/EscalationEventTest.testInterruptingEscalationBoundaryEvent.bpmn20.xml",
			upstream: "EscalationEventTest.testInterruptingEscalationBoundaryEvent",
			want:     waiting("taskAfterCatchedEscalation"),
		},
		{
			name: "escalation/end event", file: "escalation/EscalationEventTest.testEscalationEndEvent.bpmn20.xml",
			upstream: "EscalationEventTest.testEscalationEndEvent",
			want:     waiting("taskAfterCatchedEscalation"),
		},
		{
			name: "escalation/not caught", file: "escalation/EscalationEventTest.throwEscalationEvent.bpmn20.xml",
			upstream: "EscalationEventTest.testThrowEscalationEventNotCaught",
			want:     waiting("task"),
		},
		{
			name: "escalation/from call activity", file: "escalation/EscalationEventTest.nonInterruptingEscalationBoundaryEventOnCallActivity.bpmn20.xml",
			deploy:   []string{"escalation/EscalationEventTest.throwEscalationEvent.bpmn20.xml"},
			upstream: "EscalationEventTest.testThrowEscalationEventFromCallActivity",
			steps:    []c7Step{{want: waiting("taskAfterCatchedEscalation", "task")}},
		},
		{
			name: "escalation/code variable", file: "escalation/EscalationEventTest.testRetrieveEscalationCodeVariableOnBoundaryEvent.bpmn20.xml",
			upstream: "EscalationEventTest.testRetrieveEscalationCodeVariableOnBoundaryEvent",
			want: c7Want{
				status: "waiting", tasks: open("taskInSubprocess", "taskAfterCatchedEscalation"),
				vars: map[string]any{"escalationCodeVar": "escalationCode"},
			},
		},

		// --- terminate end event (TerminateEndEventTest) ---
		{
			name: "terminate/process", file: "end/TerminateEndEventTest.testProcessTerminate.bpmn",
			upstream: "TerminateEndEventTest.testProcessTerminate",
			steps: []c7Step{
				{want: waiting("preTerminateTask", "preNormalTerminateTask")},
				{complete: "preTerminateTask", want: completed},
			},
		},
		{
			name: "terminate/in concurrent sub-process", file: "end/TerminateEndEventTest.testTerminateInSubProcessConcurrent.bpmn",
			upstream: "TerminateEndEventTest.testTerminateInSubProcessConcurrent",
			steps: []c7Step{
				{want: waiting("preNormalEnd")},
				{complete: "preNormalEnd", want: completed},
			},
		},

		// --- timers (IntermediateTimerEventTest, BoundaryTimerEventTest) ---
		{
			name: "timer/intermediate catch", file: "timer/IntermediateTimerEventTest.testCatchingTimerEvent.bpmn20.xml",
			upstream: "IntermediateTimerEventTest.testCatchingTimerEvent",
			steps: []c7Step{
				{want: waiting()},
				{timer: true, want: completed},
			},
		},
		{
			name: "timer/earliest of three boundary timers", file: "timer/BoundaryTimerEventTest.testMultipleTimersOnUserTask.bpmn20.xml",
			upstream: "BoundaryTimerEventTest.testMultipleTimersOnUserTask",
			steps: []c7Step{
				{want: waiting("firstTask")},
				{timer: true, want: waiting("thirdTask")},
			},
		},
		{
			name: "timer/on nested sub-processes", file: "timer/BoundaryTimerEventTest.testTimerOnNestingOfSubprocesses.bpmn20.xml",
			upstream: "BoundaryTimerEventTest.testTimerOnNestingOfSubprocesses",
			steps: []c7Step{
				{want: waiting("innerTask1", "innerTask2")},
				{timer: true, want: waiting("taskAfterCatch")},
			},
		},

		// --- message events ---
		{
			name: "message/intermediate catch", file: "message/MessageIntermediateEventTest.testSingleIntermediateMessageEvent.bpmn20.xml",
			upstream: "MessageIntermediateEventTest.testSingleIntermediateMessageEvent",
			steps: []c7Step{
				{want: waiting()},
				{message: "newInvoiceMessage", want: waiting("task")},
				{complete: "task", want: completed},
			},
		},
		{
			name: "message/concurrent intermediate catches", file: "message/MessageIntermediateEventTest.testConcurrentIntermediateMessageEvent.bpmn20.xml",
			upstream: "MessageIntermediateEventTest.testConcurrentIntermediateMessageEvent",
			steps: []c7Step{
				{want: waiting()},
				{message: "newInvoiceMessage", want: waiting()},
				{message: "newInvoiceMessage", want: waiting("task")},
			},
		},
		{
			name: "message/boundary on user task", file: "message/MessageBoundaryEventTest.testSingleBoundaryMessageEvent.bpmn20.xml",
			upstream: "MessageBoundaryEventTest.testSingleBoundaryMessageEvent (message)",
			steps: []c7Step{
				{want: waiting("task")},
				{message: "messageName", want: waiting("taskAfterMessage")},
				{complete: "taskAfterMessage", want: completed},
			},
		},
		{
			name: "message/boundary not triggered", file: "message/MessageBoundaryEventTest.testSingleBoundaryMessageEvent.bpmn20.xml",
			upstream: "MessageBoundaryEventTest.testSingleBoundaryMessageEvent (task completed)",
			steps: []c7Step{
				{want: waiting("task")},
				{complete: "task", want: waiting("taskAfterTask")},
				{complete: "taskAfterTask", want: completed},
			},
		},
		{
			name: "message/interrupting event sub-process", file: "message/MessageEventSubprocessTest.testInterruptingUnderProcessDefinition.bpmn20.xml",
			upstream: "MessageEventSubprocessTest.testInterruptingUnderProcessDefinition",
			steps: []c7Step{
				{want: waiting("task")},
				{message: "newMessage", want: waiting("eventSubProcessTask")},
				{complete: "eventSubProcessTask", want: completed},
			},
		},

		// --- signal events (SignalEventTest) ---
		{
			name: "signal/interrupting boundary", file: "signal/SignalEventTests.catchAlertSignalBoundary.bpmn20.xml",
			upstream: "SignalEventTest.testSignalCatchBoundary",
			steps: []c7Step{
				{want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "task", assignee: "kermit"}}}},
				{signal: "alert", want: completed},
			},
		},
		{
			name: "signal/different signals", file: "signal/SignalEventTests.catchMultipleSignals.bpmn20.xml",
			upstream: "SignalEventTest.testSignalCatchDifferentSignals",
			steps: []c7Step{
				{want: waiting("task")},
				{signal: "abort", want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "task", assignee: "kermit"}, {elementID: "taskAfterAbort", assignee: "gonzo"}}}},
				{complete: "taskAfterAbort", want: waiting("task")},
				{signal: "alert", want: completed},
			},
		},
		{
			name: "signal/non-interrupting boundary", file: "signal/SignalEventTest.testNonInterruptingSignal.bpmn20.xml",
			upstream: "SignalEventTest.testNonInterruptingSignal",
			steps: []c7Step{
				{want: waiting("theUserTask")},
				{signal: "alert", want: waiting("theUserTask", "theUserTask2")},
				{complete: "theUserTask", want: waiting("theUserTask2")},
			},
		},

		// --- user task assignment ---
		{
			name: "usertask/camunda:assignee", file: "usertask/TaskAssignmentExtensionsTest.testAssigneeExtension.bpmn20.xml",
			upstream: "TaskAssignmentExtensionsTest.testAssigneeExtension",
			want:     c7Want{status: "waiting", tasks: []c7Task{{elementID: "theTask", name: "my task", assignee: "kermit"}}},
		},
		{
			name: "usertask/camunda:candidateGroups", file: "usertask/TaskAssignmentExtensionsTest.testCandidateGroupsExtension.bpmn20.xml",
			upstream: "TaskAssignmentExtensionsTest.testCandidateGroupsExtension",
			want:     c7Want{status: "waiting", tasks: []c7Task{{elementID: "theTask", candidateGroups: []string{"management", "accountancy"}}}},
		},
		{
			name: "usertask/potentialOwner user and group", file: "usertask/TaskCandidateTest.testMixedCandidateUserAndGroup.bpmn20.xml",
			upstream: "TaskCandidateTest.testMixedCandidateUserAndGroup",
			want: c7Want{status: "waiting", tasks: []c7Task{
				{elementID: "theTask", candidateUsers: []string{"kermit"}, candidateGroups: []string{"sales"}},
			}},
		},
		{
			name: "usertask/humanPerformer", file: "usertask/TaskAssigneeTest.testTaskAssignee.bpmn20.xml",
			upstream: "TaskAssigneeTest.testTaskAssignee",
			want:     c7Want{status: "waiting", tasks: []c7Task{{elementID: "theTask", name: "Schedule meeting", assignee: "kermit"}}},
		},

		// --- call activity (CallActivityTest) ---
		{
			name: "callactivity/simple", file: "callactivity/CallActivity.testCallSimpleSubProcess.bpmn20.xml",
			deploy:   []string{"callactivity/simpleSubProcess.bpmn20.xml"},
			upstream: "CallActivityTest.testCallSimpleSubProcess",
			steps: []c7Step{
				{want: waiting("taskBeforeSubProcess")},
				{complete: "taskBeforeSubProcess", want: waiting("task")},
				{complete: "task", want: waiting("taskAfterSubProcess")},
				{complete: "taskAfterSubProcess", want: completed},
			},
		},
		{
			name: "callactivity/camunda:in and camunda:out", file: "callactivity/CallActivity.testSubProcessDataInputOutput.bpmn20.xml",
			deploy:   []string{"callactivity/simpleSubProcess.bpmn20.xml"},
			upstream: "CallActivityTest.testSubProcessWithDataInputOutput",
			vars:     map[string]any{"superVariable": "Hello from the super process."},
			steps: []c7Step{
				{want: waiting("task")},
				{
					complete: "task", vars: map[string]any{"subVariable": "Hello from sub process."},
					want: c7Want{status: "waiting", tasks: open("userTask1"), vars: map[string]any{"superVariable": "Hello from sub process."}},
				},
				{complete: "userTask1", vars: map[string]any{"x": 5}, want: waiting("task")},
				{complete: "task", want: c7Want{status: "waiting", tasks: open("userTask2"), vars: map[string]any{"z": 15}}},
			},
		},

		// --- multi-instance (MultiInstanceTest) ---
		{
			name: "multiinstance/sequential user tasks", file: "multiinstance/MultiInstanceTest.sequentialUserTasks.bpmn20.xml",
			upstream: "MultiInstanceTest.testSequentialUserTasks", vars: map[string]any{"nrOfLoops": 3},
			steps: []c7Step{
				{want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "miTasks", name: "My Task", assignee: "kermit_0"}}}},
				{complete: "miTasks", want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "miTasks", name: "My Task", assignee: "kermit_1"}}}},
				{complete: "miTasks", want: c7Want{status: "waiting", tasks: []c7Task{{elementID: "miTasks", name: "My Task", assignee: "kermit_2"}}}},
				{complete: "miTasks", want: completed},
			},
		},
		{
			name: "multiinstance/sequential completion condition", file: "multiinstance/MultiInstanceTest.sequentialUserTasks.bpmn20.xml",
			upstream: "MultiInstanceTest.testSequentialUserTasksCompletionCondition", vars: map[string]any{"nrOfLoops": 10},
			steps: []c7Step{
				{complete: "miTasks", want: waiting("miTasks")},
				{complete: "miTasks", want: waiting("miTasks")},
				{complete: "miTasks", want: waiting("miTasks")},
				{complete: "miTasks", want: waiting("miTasks")},
				{complete: "miTasks", want: completed},
			},
		},
		{
			name: "multiinstance/sequential with timer", file: "multiinstance/MultiInstanceTest.sequentialUserTasks.bpmn20.xml",
			upstream: "MultiInstanceTest.testSequentialUserTasksWithTimer", vars: map[string]any{"nrOfLoops": 3},
			steps: []c7Step{
				{complete: "miTasks", want: waiting("miTasks")},
				{timer: true, want: waiting("taskAfterTimer")},
				{complete: "taskAfterTimer", want: completed},
			},
		},
		{
			name: "multiinstance/parallel user tasks", file: "multiinstance/MultiInstanceTest.testParallelUserTasks.bpmn20.xml",
			upstream: "MultiInstanceTest.testParallelUserTasks / testParallelUserTasksHistory",
			want: c7Want{status: "waiting", tasks: []c7Task{
				{elementID: "miTasks", name: "My Task 0", assignee: "kermit_0"},
				{elementID: "miTasks", name: "My Task 1", assignee: "kermit_1"},
				{elementID: "miTasks", name: "My Task 2", assignee: "kermit_2"},
			}},
		},
		{
			name: "multiinstance/parallel completion condition", file: "multiinstance/MultiInstanceTest.testParallelUserTasksCompletionCondition.bpmn20.xml",
			upstream: "MultiInstanceTest.testParallelUserTasksCompletionCondition",
			steps: []c7Step{
				{want: waiting("miTasks", "miTasks", "miTasks", "miTasks", "miTasks")},
				{complete: "miTasks", want: waiting("miTasks", "miTasks", "miTasks", "miTasks")},
				{complete: "miTasks", want: waiting("miTasks", "miTasks", "miTasks")},
				{complete: "miTasks", want: completed},
			},
		},
		{
			name: "multiinstance/parallel over a collection", file: "multiinstance/MultiInstanceTest.testParallelUserTasksBasedOnCollection.bpmn20.xml",
			upstream: "MultiInstanceTest.testParallelUserTasksBasedOnCollection",
			vars:     map[string]any{"assigneeList": []any{"kermit", "gonzo", "mispiggy", "fozzie", "bubba"}},
			steps: []c7Step{
				{want: c7Want{status: "waiting", tasks: []c7Task{
					{elementID: "miTasks", assignee: "kermit"},
					{elementID: "miTasks", assignee: "gonzo"},
					{elementID: "miTasks", assignee: "mispiggy"},
					{elementID: "miTasks", assignee: "fozzie"},
					{elementID: "miTasks", assignee: "bubba"},
				}}},
				{complete: "miTasks", want: waiting("miTasks", "miTasks", "miTasks", "miTasks")},
				{complete: "miTasks", want: waiting("miTasks", "miTasks", "miTasks")},
				{complete: "miTasks", want: completed},
			},
		},
		{
			name: "multiinstance/sequential sub-process", file: "multiinstance/MultiInstanceTest.testSequentialSubProcess.bpmn20.xml",
			upstream: "MultiInstanceTest.testSequentialSubProcess", completeTasks: true,
			activated: []string{
				"subProcessTask1", "subProcessTask2", "subProcessTask1", "subProcessTask2",
				"subProcessTask1", "subProcessTask2", "subProcessTask1", "subProcessTask2",
			},
			want: completed,
		},
		{
			name: "multiinstance/parallel sub-process", file: "multiinstance/MultiInstanceTest.testParallelSubProcess.bpmn20.xml",
			upstream: "MultiInstanceTest.testParallelSubProcess",
			steps: []c7Step{
				{want: waiting("subProcessTask1", "subProcessTask2", "subProcessTask1", "subProcessTask2")},
				{complete: "subProcessTask1", want: waiting("subProcessTask2", "subProcessTask1", "subProcessTask2")},
				{complete: "subProcessTask1", want: waiting("subProcessTask2", "subProcessTask2")},
				{complete: "subProcessTask2", want: waiting("subProcessTask2")},
				{complete: "subProcessTask2", want: completed},
			},
		},

		// --- receive task (ReceiveTaskTest) ---
		{
			name: "receivetask/message", file: "receivetask/ReceiveTaskTest.singleReceiveTask.bpmn20.xml",
			upstream: "ReceiveTaskTest.testSupportsCorrelateMessageOnSingleReceiveTask",
			messages: []engine.Message{msg("newInvoiceMessage", nil)},
			want:     completed,
		},
		{
			name: "receivetask/sequential multi-instance", file: "receivetask/ReceiveTaskTest.multiSequentialReceiveTask.bpmn20.xml",
			upstream: "ReceiveTaskTest.testSupportsCorrelateMessageOnSequentialMultiReceiveTask",
			steps: []c7Step{
				{want: waiting()},
				{message: "newInvoiceMessage", want: waiting()},
				{message: "newInvoiceMessage", want: waiting("interaction")},
				{complete: "interaction", want: completed},
			},
		},
		{
			name: "receivetask/parallel multi-instance with boundary, tasks", file: "receivetask/ReceiveTaskTest.boundaryReceiveTask.bpmn20.xml",
			upstream: "ReceiveTaskTest.testSupportsMessageEventReceivedOnParallelMultiInstanceWithBoundary",
			steps: []c7Step{
				{want: waiting()},
				{message: "newInvoiceMessage", want: waiting()},
				{message: "newInvoiceMessage", want: completed},
			},
		},
		{
			name: "receivetask/parallel multi-instance with boundary, boundary", file: "receivetask/ReceiveTaskTest.boundaryReceiveTask.bpmn20.xml",
			upstream: "ReceiveTaskTest.testSupportsMessageEventReceivedOnParallelMultiInstanceWithBoundaryEventReceived",
			steps: []c7Step{
				{want: waiting()},
				{message: "cancelInvoiceMessage", want: completed},
			},
		},

		// --- link events (LinkEventTest) ---
		{
			name: "link/valid", file: "link/LinkEventTest.testValidEventLink.bpmn20.xml",
			upstream: "LinkEventTest.testValidEventLink",
			steps: []c7Step{
				{want: waiting()},
				{trigger: "waitAfterLink1", want: waiting()},
				{trigger: "waitAfterLink2", want: completed},
			},
		},
		{
			name: "link/two sources", file: "link/LinkEventTest.testEventLinkMultipleSources.bpmn20.xml",
			upstream:  "LinkEventTest.testEventLinkMultipleSources (WaitAfterLink active twice)",
			activated: []string{"ManualTask_1", "WaitAfterLink", "WaitAfterLink"},
			want:      waiting(),
		},
		{
			name: "link/two targets", file: "link/LinkEventTest.testInvalidEventLinkMultipleTargets.bpmn20.xml",
			upstream:  "LinkEventTest.testInvalidEventLinkMultipleTargets (\"Multiple Intermediate Catch Events with the same link event name\")",
			problemAt: "IntermediateCatchEvent_2",
		},

		// --- conditional events (IntermediateConditionalEventTest) ---
		{
			name: "conditional/intermediate on variable", file: "conditional/IntermediateConditionalEventTest.testVariableValue.bpmn20.xml",
			upstream: "IntermediateConditionalEventTest.testVariableValue",
			steps: []c7Step{
				{want: waiting()},
				{setVars: map[string]any{"variable": 1}, want: completed},
			},
		},

		// --- sub-processes (SubProcessTest, TransactionSubProcessTest) ---
		{
			name: "subprocess/simple", file: "subprocess/SubProcessTest.testSimpleSubProcess.bpmn20.xml",
			upstream: "SubProcessTest.testSimpleSubProcess",
			steps: []c7Step{
				{want: waiting("subProcessTask")},
				{complete: "subProcessTask", want: completed},
			},
		},
		{
			name: "subprocess/automatic", file: "subprocess/SubProcessTest.testSimpleAutomaticSubProcess.bpmn20.xml",
			upstream: "SubProcessTest.testSimpleAutomaticSubProcess", want: completed,
		},
		{
			name: "subprocess/cancel boundary needs a transaction", file: "subprocess/TransactionSubProcessTest.testCancelBoundaryNoTransactionFails.bpmn20.xml",
			upstream:  "TransactionSubProcessTest.testCancelBoundaryNoTransactionFails",
			problemAt: "catchCancelTx",
		},
	}
}
