package runner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/runner"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// The lib-bpmn-engine conformance suite: the BPMN files of
// nitram509/lib-bpmn-engine (MIT), run through runner.Run with the inputs
// its own tests (pkg/bpmn_engine/*_test.go) use, asserting the outcome they
// assert, or the BPMN 2.0 one where upstream deviates from the spec.
// docs/conformance.md lists every case and every difference.

// TestMain checks that no run leaves an engine goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// libBPMNEngineDir finds shared/conformance/lib-bpmn-engine beside the
// repository. Missing is a failure, not a skip: the suite must run.
func libBPMNEngineDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the package")
		dir = parent
	}
	conf := filepath.Join(dir, "..", "shared", "conformance", "lib-bpmn-engine")
	info, err := os.Stat(conf)
	require.NoError(t, err, "the lib-bpmn-engine files must sit beside the repository in shared/conformance/lib-bpmn-engine")
	require.True(t, info.IsDir(), "%s is not a directory", conf)
	return conf
}

// work is what a job handler does after the call is recorded.
type work func(job *engine.Job) (map[string]any, error)

// done completes the job with no output: upstream's cp.TaskHandler.
var done work = func(*engine.Job) (map[string]any, error) { return nil, nil }

// fail fails the job for good: upstream's job.Fail("...").
var fail work = func(*engine.Job) (map[string]any, error) {
	return nil, engine.Permanent(errors.New("just because I can"))
}

// returns completes the job with vars: upstream's job.SetVariable + Complete.
func returns(vars map[string]any) work {
	return func(*engine.Job) (map[string]any, error) { return vars, nil }
}

// number reads a numeric variable whatever Go type the engine keeps it as.
func number(v any) (float64, error) {
	switch n := v.(type) {
	case float64:
		return n, nil
	case float32:
		return float64(n), nil
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case interface{ Float64() (float64, error) }:
		return n.Float64()
	}
	return 0, fmt.Errorf("%v (%T) is not a number", v, v)
}

// msg is a message for any subscription of that name in the instance:
// upstream's PublishEventForInstance(key, name, vars).
func msg(name string, vars map[string]any) engine.Message {
	return engine.Message{Name: name, Variables: vars}
}

type openTask struct {
	elementID       string
	assignee        string
	candidateGroups []string
}

type conformanceCase struct {
	name     string
	file     string
	upstream string // the upstream test(s) the case mirrors; "" for a plain expectation

	// inputs
	vars          map[string]any
	handlers      map[string]work // by job type (zeebe:taskDefinition type; "" for tasks without one)
	messages      []engine.Message
	completeTasks bool
	lenient       bool // complete service tasks nobody handles (else they wait, as upstream's do)

	// expectations
	problemAt   string   // runner.Run rejects the file with model.Problems naming this element
	status      string   // completed, waiting, incident
	called      []string // elements whose handler ran, in any order (handlers run concurrently)
	activated   []string // tasks in activation order
	anyOrder    bool     // activated is a multiset: the tasks run on concurrent branches
	before      [][2]string
	wantVars    map[string]any // values (numbers compared as float64)
	noVars      []string       // variables that must not be set
	incident    string         // element with an incident
	incidentHas string         // text the incident's message contains
	tasks       []openTask     // open user tasks

	knownGap string // the engine deviates from the spec here: the case fails on purpose
	check    func(t *testing.T, src []byte, res *runner.Result)
}

func TestConformanceLibBPMNEngine(t *testing.T) {
	t.Parallel()
	dir := libBPMNEngineDir(t)
	covered := map[string]bool{}
	for _, tc := range libBPMNEngineCases() {
		covered[tc.file] = true
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runConformanceCase(t, dir, tc)
		})
	}
	t.Run("every file has a case", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(dir, "*.bpmn"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			assert.True(t, covered[filepath.Base(f)], "no conformance case runs %s", filepath.Base(f))
		}
	})
}

func runConformanceCase(t *testing.T, dir string, tc conformanceCase) {
	if tc.upstream != "" {
		t.Logf("upstream: %s", tc.upstream)
	}
	if tc.knownGap != "" {
		t.Logf("known gap: %s", tc.knownGap)
	}
	src, err := os.ReadFile(filepath.Join(dir, tc.file))
	require.NoError(t, err)

	var (
		mu     sync.Mutex
		called []string
	)
	handlers := map[string]engine.Handler{}
	for typ, w := range tc.handlers {
		handlers[typ] = engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
			mu.Lock()
			called = append(called, job.ElementID)
			mu.Unlock()
			return w(job)
		})
	}
	res, err := runner.Run(t.Context(), src, runner.Options{
		Variables: tc.vars, Handlers: handlers, Messages: tc.messages, Strict: !tc.lenient,
		CompleteTasks: tc.completeTasks, Timeout: 20 * time.Second,
	})
	if tc.problemAt != "" {
		var probs model.Problems
		require.ErrorAs(t, err, &probs, "%s must be rejected as invalid", tc.file)
		assert.True(t, slices.ContainsFunc(probs, func(p model.Problem) bool { return p.ElementID == tc.problemAt }),
			"no problem names %s: %v", tc.problemAt, probs)
		assert.Empty(t, called, "no handler may run for a rejected definition")
		return
	}
	require.NoError(t, err)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, tc.status, res.Status, "status; incidents: %v", res.Incidents)
	assert.ElementsMatch(t, tc.called, called, "handlers called")
	if tc.anyOrder {
		assert.ElementsMatch(t, tc.activated, res.Activated, "activated tasks")
	} else {
		assert.Equal(t, nonNil(tc.activated), res.Activated, "activated tasks, in order")
	}
	for _, b := range tc.before {
		i, j := slices.Index(res.Activated, b[0]), slices.Index(res.Activated, b[1])
		assert.True(t, i >= 0 && j >= 0 && i < j, "%s must be activated before %s: %v", b[0], b[1], res.Activated)
	}
	for k, want := range tc.wantVars {
		got, ok := res.Variables[k]
		if !assert.True(t, ok, "variable %q is not set: %v", k, res.Variables) {
			continue
		}
		switch want.(type) {
		case int, float64:
			w, _ := number(want)
			g, err := number(got)
			if assert.NoError(t, err, "variable %q", k) {
				assert.Equal(t, w, g, "variable %q", k)
			}
		default:
			assert.Equal(t, want, got, "variable %q", k)
		}
	}
	for _, k := range tc.noVars {
		assert.NotContains(t, res.Variables, k, "variable %q must not be set", k)
	}
	if tc.incident != "" {
		i := slices.IndexFunc(res.Incidents, func(inc runner.IncidentResult) bool { return inc.ElementID == tc.incident })
		if assert.GreaterOrEqual(t, i, 0, "no incident at %s: %v", tc.incident, res.Incidents) && tc.incidentHas != "" {
			assert.Contains(t, res.Incidents[i].Message, tc.incidentHas)
		}
	} else {
		assert.Empty(t, res.Incidents)
	}
	var tasks []openTask
	for _, tk := range res.Tasks {
		var groups []string
		if len(tk.CandidateGroups) > 0 {
			groups = tk.CandidateGroups
		}
		tasks = append(tasks, openTask{elementID: tk.ElementID, assignee: tk.Assignee, candidateGroups: groups})
	}
	assert.Equal(t, tc.tasks, tasks, "open user tasks")
	if tc.check != nil {
		tc.check(t, src, res)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// increaseCounter is upstream's increaseCounterHandler: counter + 1.
func increaseCounter(job *engine.Job) (map[string]any, error) {
	counter, err := number(job.Variables["counter"])
	if err != nil {
		return nil, engine.Permanent(err)
	}
	return map[string]any{"counter": counter + 1}, nil
}

// validate is upstream's "validate" handler of simple-count-loop-with-message:
// it counts the attempts and says from the second on that the maximum is reached.
func validate(job *engine.Job) (map[string]any, error) {
	attempts, err := number(job.Variables["engineValidationAttempts"])
	if err != nil {
		return nil, engine.Permanent(err)
	}
	return map[string]any{"engineValidationAttempts": attempts + 1, "hasReachedMaxAttempts": attempts >= 1}, nil
}

// checkJob is upstream's Test_activated_job_data: the job says what it is.
func checkJob(job *engine.Job) (map[string]any, error) {
	for name, v := range map[string]string{
		"Key": job.Key, "InstanceID": job.InstanceID, "DefinitionKey": job.DefinitionKey,
		"ElementID": job.ElementID, "Type": job.Type,
	} {
		if v == "" {
			return nil, engine.Permanent(fmt.Errorf("job.%s is empty", name))
		}
	}
	if job.Attempt == 0 {
		return nil, engine.Permanent(errors.New("job.Attempt is 0"))
	}
	return nil, nil
}

func libBPMNEngineCases() []conformanceCase {
	return []conformanceCase{
		// --- service tasks and handlers (engine_test.go, jobs_test.go) ---
		{
			name: "simple_task/handler by type is called", file: "simple_task.bpmn",
			upstream: "TestRegisterHandlerByTaskIdGetsCalled",
			handlers: map[string]work{"TestType": done},
			status:   "completed", called: []string{"id"}, activated: []string{"id"},
		},
		{
			name: "simple_task/handler changes a variable", file: "simple_task.bpmn",
			upstream: "TestRegisteredHandlerCanMutateVariableContext",
			vars:     map[string]any{"variable_name": "oldVal"},
			handlers: map[string]work{"TestType": func(job *engine.Job) (map[string]any, error) {
				if got := job.Variables["variable_name"]; got != "oldVal" {
					return nil, engine.Permanent(fmt.Errorf("variable_name is %v, want oldVal", got))
				}
				return map[string]any{"variable_name": "newVal"}, nil
			}},
			status: "completed", called: []string{"id"}, activated: []string{"id"},
			wantVars: map[string]any{"variable_name": "newVal"},
		},
		{
			name: "simple_task/failing job", file: "simple_task.bpmn",
			upstream: "Test_a_job_can_fail_and_keeps_the_instance_in_active_state / ..._fails_the_instance",
			handlers: map[string]work{"TestType": fail},
			status:   "incident", called: []string{"id"}, activated: []string{"id"},
			incident: "id", incidentHas: "just because I can",
		},
		{
			name: "simple_task/activated job data", file: "simple_task.bpmn",
			upstream: "Test_activated_job_data",
			handlers: map[string]work{"TestType": checkJob},
			status:   "completed", called: []string{"id"}, activated: []string{"id"},
		},
		{
			name: "simple_task/no handler waits", file: "simple_task.bpmn",
			upstream: "Test_activated_job_data (a job nobody completes keeps the instance active)",
			status:   "waiting", activated: []string{"id"},
		},
		{
			name: "simple_task_modified_taskId", file: "simple_task_modified_taskId.bpmn",
			upstream: "TestLoadingTheSameProcessWithModificationWillCreateNewVersion (versions: TestConformanceLibBPMNEngineVersions)",
			handlers: map[string]work{"Test": done},
			status:   "completed", called: []string{"XZY"}, activated: []string{"XZY"},
		},
		{
			name: "simple_task_v2", file: "simple_task_v2.bpmn",
			upstream: "Test_CreateAndRunInstanceById_uses_latest_process_version (versions: TestConformanceLibBPMNEngineVersions)",
			handlers: map[string]work{"TestType": done},
			status:   "completed", called: []string{"id", "test-2"}, activated: []string{"id", "test-2"},
		},
		{
			name: "simple-task-with-type/handler by type", file: "simple-task-with-type.bpmn",
			upstream: "Test_task_type_handler / Test_just_one_handler_called",
			handlers: map[string]work{"foobar": done},
			status:   "completed", called: []string{"id"}, activated: []string{"id"},
		},
		{
			name: "simple_task-no_output_mapping/all job variables", file: "simple_task-no_output_mapping.bpmn",
			upstream: "Test_task_default_all_output_variables_map_to_process_instance",
			handlers: map[string]work{"type": returns(map[string]any{"aVariable": true})},
			status:   "completed", called: []string{"id"}, activated: []string{"id"},
			wantVars: map[string]any{"aVariable": true},
		},
		{
			name: "simple_task-no_output_mapping/no variables on failure", file: "simple_task-no_output_mapping.bpmn",
			upstream: "Test_task_no_output_variables_mapping_on_failure",
			handlers: map[string]work{"type": fail},
			status:   "incident", called: []string{"id"}, activated: []string{"id"},
			noVars: []string{"aVariable"}, incident: "id", incidentHas: "just because I can",
		},
		{
			name: "simple_task-with_output_mapping/only mapped variables", file: "simple_task-with_output_mapping.bpmn",
			upstream: "Test_task_just_declared_output_variables_map_to_process_instance / Test_MarshallEngine",
			vars:     map[string]any{"hello": "world", "john": "doe"},
			handlers: map[string]work{"type": returns(map[string]any{"valueFromHandler": true, "otherVariable": "value"})},
			status:   "completed", called: []string{"id"}, activated: []string{"id"},
			wantVars: map[string]any{"valueFromHandler": true, "hello": "world", "john": "doe"},
			noVars:   []string{"otherVariable"},
		},
		{
			name: "service-task-input-output", file: "service-task-input-output.bpmn",
			upstream: "Test_task_InputOutput_mapping_happy_path",
			handlers: map[string]work{"input-task-1": func(job *engine.Job) (map[string]any, error) {
				// the inputs are the job's local variables
				if job.Variables["name"] != "task-1" || job.Variables["city"] != "beijing" {
					return nil, engine.Permanent(fmt.Errorf("inputs not mapped: %v", job.Variables))
				}
				return nil, nil
			}},
			completeTasks: true,
			status:        "completed", called: []string{"service-task-1"}, activated: []string{"service-task-1", "user-task-2"},
			wantVars: map[string]any{"dstcity": "beijing", "order": map[string]any{"name": "order1", "id": "1234"}, "orderId": 1234},
			// upstream also finds orderName, an input mapping of user-task-2,
			// in the instance: inputs are local to the activity (BPMN 2.0
			// §10.3.1 data input associations; Zeebe input mappings).
			noVars: []string{"id", "name", "city", "orderName"},
		},
		{
			name: "service-task-invalid-input", file: "service-task-invalid-input.bpmn",
			upstream:  "Test_instance_fails_on_Invalid_Input_mapping",
			handlers:  map[string]work{"invalid-input": done},
			problemAt: "invalid-input",
		},
		{
			name: "service-task-invalid-output", file: "service-task-invalid-output.bpmn",
			upstream:  "Test_job_fails_on_Invalid_Output_mapping",
			handlers:  map[string]work{"invalid-output": done},
			problemAt: "invalid-output",
		},
		{
			name: "simple-count-loop", file: "simple-count-loop.bpmn",
			upstream:  "Test_simple_count_loop",
			vars:      map[string]any{"counter": 0.0},
			handlers:  map[string]work{"increaseCounter": increaseCounter},
			status:    "completed",
			called:    []string{"id-increaseCounter", "id-increaseCounter", "id-increaseCounter", "id-increaseCounter"},
			activated: []string{"id-increaseCounter", "id-increaseCounter", "id-increaseCounter", "id-increaseCounter"},
			wantVars:  map[string]any{"counter": 4},
		},
		{
			name: "simple-count-loop-with-message", file: "simple-count-loop-with-message.bpmn",
			upstream: "Test_simple_count_loop_with_message",
			vars:     map[string]any{"engineValidationAttempts": 0.0},
			handlers: map[string]work{"do-nothing": done, "validate": validate},
			messages: []engine.Message{msg("msg", nil), msg("msg", nil)},
			status:   "completed",
			// the gateway's default flow leads back to do-nothing: each round runs both tasks
			called:    []string{"do-nothing", "validate", "do-nothing", "validate"},
			activated: []string{"do-nothing", "validate", "do-nothing", "validate"},
			wantVars:  map[string]any{"hasReachedMaxAttempts": true, "engineValidationAttempts": 2},
		},

		// --- parallel and forked flows (engine_test.go, engine_fork_join_test.go) ---
		{
			name: "forked-flow", file: "forked-flow.bpmn",
			upstream: "TestSimpleAndUncontrolledForkingTwoTasks",
			// id-a-1 has an empty type and id-b-1 none: upstream dispatches by id.
			handlers: map[string]work{"": done, "step3": done},
			status:   "completed", called: []string{"id-a-1", "id-b-1", "id-b-2"},
			activated: []string{"id-a-1", "id-b-1", "id-b-2"},
		},
		{
			name: "parallel-gateway-flow", file: "parallel-gateway-flow.bpmn",
			upstream: "TestParallelGateWayTwoTasks",
			handlers: map[string]work{"a1": done, "b1": done, "b2": done},
			status:   "completed", called: []string{"id-a-1", "id-b-1", "id-b-2"},
			activated: []string{"id-a-1", "id-b-1", "id-b-2"},
		},
		{
			name: "parallel-gateway-flow/missing handlers wait", file: "parallel-gateway-flow.bpmn",
			upstream: "Test_missing_task_handlers_break_execution_and_can_be_continued_later",
			handlers: map[string]work{"a1": done},
			status:   "waiting", called: []string{"id-a-1"},
			activated: []string{"id-a-1", "id-b-1", "id-b-2"},
		},
		{
			name: "fork-uncontrolled-join", file: "fork-uncontrolled-join.bpmn",
			upstream: "TestForkUncontrolledJoin",
			handlers: map[string]work{"task": done},
			status:   "completed", called: []string{"id-a-1", "id-a-2", "id-b-1", "id-b-1"},
			activated: []string{"id-a-1", "id-a-2", "id-b-1", "id-b-1"},
		},
		{
			name: "fork-controlled-parallel-join", file: "fork-controlled-parallel-join.bpmn",
			upstream: "TestForkControlledParallelJoin",
			handlers: map[string]work{"task-a-1": done, "task-a-2": done, "task-b-1": done},
			status:   "completed", called: []string{"id-a-1", "id-a-2", "id-b-1"},
			activated: []string{"id-a-1", "id-a-2", "id-b-1"},
		},
		{
			name: "fork-controlled-exclusive-join", file: "fork-controlled-exclusive-join.bpmn",
			upstream: "TestForkControlledExclusiveJoin",
			handlers: map[string]work{"task": done},
			status:   "completed", called: []string{"id-a-1", "id-a-2", "id-b-1", "id-b-1"},
			activated: []string{"id-a-1", "id-a-2", "id-b-1", "id-b-1"},
		},

		// --- exclusive and inclusive gateways (conditions_test.go) ---
		{
			name: "exclusive-gateway-with-condition/price -50", file: "exclusive-gateway-with-condition.bpmn",
			upstream: "Test_exclusive_gateway_with_expressions_selects_one_and_not_the_other",
			vars:     map[string]any{"price": -50},
			handlers: map[string]work{"task-a": done, "task-b": done},
			status:   "completed", called: []string{"task-b"}, activated: []string{"task-b"},
		},
		{
			name: "exclusive-gateway-with-condition/no variables", file: "exclusive-gateway-with-condition.bpmn",
			upstream: "Test_evaluation_error_percolates_up",
			handlers: map[string]work{"task-a": done, "task-b": done},
			status:   "incident", incident: "Gateway_01wr5g0",
		},
		{
			name: "exclusive-gateway-with-condition-and-default/price -1", file: "exclusive-gateway-with-condition-and-default.bpmn",
			upstream: "Test_exclusive_gateway_with_expressions_selects_default",
			vars:     map[string]any{"price": -1},
			handlers: map[string]work{"task-a": done, "task-b": done},
			status:   "completed", called: []string{"task-b"}, activated: []string{"task-b"},
		},
		{
			name: "exclusive-gateway-multiple-tasks/price 0", file: "exclusive-gateway-multiple-tasks.bpmn",
			upstream: "Test_exclusive_gateway_executes_just_one_matching_path",
			vars:     map[string]any{"price": 0},
			handlers: map[string]work{"task-a": done, "task-b": done, "task-default": done},
			status:   "completed", called: []string{"task-a"}, activated: []string{"task-a"},
		},
		{
			name: "exclusive-gateway-multiple-tasks/price -99", file: "exclusive-gateway-multiple-tasks.bpmn",
			upstream: "Test_exclusive_gateway_executes_just_no_matching_path_default_is_used",
			vars:     map[string]any{"price": -99},
			handlers: map[string]work{"task-a": done, "task-b": done, "task-default": done},
			status:   "completed", called: []string{"task-default"}, activated: []string{"task-default"},
		},
		{
			name: "exclusive-gateway-multiple-tasks-no-default/price -99", file: "exclusive-gateway-multiple-tasks-no-default.bpmn",
			upstream: "Test_exclusive_gateway_executes_just_no_matching_no_default_error_thrown",
			vars:     map[string]any{"price": -99},
			handlers: map[string]work{"task-a": done, "task-b": done, "task-default": done},
			status:   "incident", incident: "Gateway_01wr5g0",
		},
		{
			name: "inclusive-gateway-with-condition/price -50", file: "inclusive-gateway-with-condition.bpmn",
			upstream: "Test_inclusive_gateway_with_expressions_selects_one_and_not_the_other",
			vars:     map[string]any{"price": -50},
			handlers: map[string]work{"task-a": done, "task-b": done},
			status:   "completed", called: []string{"task-b"}, activated: []string{"task-b"},
		},
		{
			name: "inclusive-gateway-with-condition-and-default/price -1", file: "inclusive-gateway-with-condition-and-default.bpmn",
			upstream: "Test_inclusive_gateway_with_expressions_selects_default",
			vars:     map[string]any{"price": -1},
			handlers: map[string]work{"task-a": done, "task-b": done},
			status:   "completed", called: []string{"task-b"}, activated: []string{"task-b"},
		},
		{
			name: "inclusive-gateway-multiple-tasks/price 0", file: "inclusive-gateway-multiple-tasks.bpmn",
			// upstream expects task-a,task-b,task-default: its inclusive
			// gateway also takes the default flow. BPMN 2.0 §10.6.3 / §13.3.3: the
			// default flow is taken only when no condition holds.
			upstream: "Test_inclusive_gateway_executes_all_paths (spec differs)",
			vars:     map[string]any{"price": 0},
			handlers: map[string]work{"task-a": done, "task-b": done, "task-default": done},
			status:   "completed", called: []string{"task-a", "task-b"},
			activated: []string{"task-a", "task-b"}, anyOrder: true,
		},
		{
			name: "inclusive-gateway-multiple-tasks/price -99", file: "inclusive-gateway-multiple-tasks.bpmn",
			vars:     map[string]any{"price": -99},
			handlers: map[string]work{"task-a": done, "task-b": done, "task-default": done},
			status:   "completed", called: []string{"task-default"}, activated: []string{"task-default"},
		},

		// --- messages (events_test.go) ---
		{
			name: "message-intermediate-catch-event/waits", file: "message-intermediate-catch-event.bpmn",
			upstream: "Test_running_a_process_sets_state_to_ACTIVE / Test_IntermediateCatchEvent_a_catch_event_produces_an_active_subscription",
			status:   "waiting",
			check: func(t *testing.T, _ []byte, res *runner.Result) {
				assert.True(t, slices.ContainsFunc(res.Events, func(ev engine.Event) bool {
					return ev.Type == engine.EventMessageSubscribed && ev.ElementID == "id-1"
				}), "a subscription of id-1")
			},
		},
		{
			name: "message-intermediate-catch-event/message completes", file: "message-intermediate-catch-event.bpmn",
			upstream: "Test_IntermediateCatchEvent_received_message_completes_the_instance / ..._message_can_be_published_before_running_the_instance",
			messages: []engine.Message{msg("globalMsgRef", nil)},
			status:   "completed",
		},
		{
			name: "message-intermediate-catch-event/random message", file: "message-intermediate-catch-event.bpmn",
			upstream: "Test_publishing_a_random_message_does_no_harm",
			messages: []engine.Message{msg("random-message", nil)},
			status:   "waiting",
		},
		{
			name: "message-intermediate-catch-event-and-parallel-tasks/no message", file: "message-intermediate-catch-event-and-parallel-tasks.bpmn",
			upstream: "Test_Having_IntermediateCatchEvent_and_ServiceTask_in_parallel_the_process_state_is_maintained (first part)",
			handlers: map[string]work{"task-1": done, "task-2": done},
			status:   "waiting", called: []string{"task-2"}, activated: []string{"task-2"},
		},
		{
			name: "message-intermediate-catch-event-and-parallel-tasks/message", file: "message-intermediate-catch-event-and-parallel-tasks.bpmn",
			upstream: "Test_Having_IntermediateCatchEvent_and_ServiceTask_in_parallel_the_process_state_is_maintained",
			handlers: map[string]work{"task-1": done, "task-2": done},
			messages: []engine.Message{msg("event-1", nil)},
			status:   "completed", called: []string{"task-2", "task-1"}, activated: []string{"task-2", "task-1"},
		},
		{
			name: "message-multiple-intermediate-catch-events/msg-event-2", file: "message-multiple-intermediate-catch-events.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_possible",
			handlers: map[string]work{"task1": done, "task2": done, "task3": done},
			messages: []engine.Message{msg("msg-event-2", nil)},
			status:   "waiting", called: []string{"task2"}, activated: []string{"task2"},
		},
		{
			name: "message-multiple-intermediate-catch-events/all messages", file: "message-multiple-intermediate-catch-events.bpmn",
			handlers: map[string]work{"task1": done, "task2": done, "task3": done},
			messages: []engine.Message{msg("msg-event-1", nil), msg("msg-event-2", nil), msg("msg-event-3", nil)},
			status:   "completed", called: []string{"task1", "task2", "task3"}, activated: []string{"task1", "task2", "task3"},
		},
		{
			name: "message-multiple-intermediate-catch-events-merged/all messages", file: "message-multiple-intermediate-catch-events-merged.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_implicit_fork_and_merged_COMPLETED",
			messages: []engine.Message{msg("msg-event-1", nil), msg("msg-event-2", nil), msg("msg-event-3", nil)},
			status:   "completed",
		},
		{
			name: "message-multiple-intermediate-catch-events-merged/msg-event-2", file: "message-multiple-intermediate-catch-events-merged.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_implicit_fork_and_merged_ACTIVE",
			messages: []engine.Message{msg("msg-event-2", nil)},
			status:   "waiting",
		},
		{
			name: "message-multiple-intermediate-catch-events-parallel/all messages", file: "message-multiple-intermediate-catch-events-parallel.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_implicit_fork_and_parallel_gateway_COMPLETED",
			messages: []engine.Message{msg("msg-event-1", nil), msg("msg-event-2", nil), msg("msg-event-3", nil)},
			status:   "completed",
		},
		{
			name: "message-multiple-intermediate-catch-events-parallel/msg-event-2", file: "message-multiple-intermediate-catch-events-parallel.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_implicit_fork_and_parallel_gateway_ACTIVE",
			messages: []engine.Message{msg("msg-event-2", nil)},
			status:   "waiting",
		},
		{
			name: "message-multiple-intermediate-catch-events-exclusive/all messages", file: "message-multiple-intermediate-catch-events-exclusive.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_implicit_fork_and_exclusive_gateway_COMPLETED",
			messages: []engine.Message{msg("msg-event-1", nil), msg("msg-event-2", nil), msg("msg-event-3", nil)},
			status:   "completed",
		},
		{
			name: "message-multiple-intermediate-catch-events-exclusive/msg-event-2", file: "message-multiple-intermediate-catch-events-exclusive.bpmn",
			upstream: "Test_multiple_intermediate_catch_events_implicit_fork_and_exclusive_gateway_ACTIVE",
			messages: []engine.Message{msg("msg-event-2", nil)},
			status:   "waiting",
		},
		{
			name: "message-EventBasedGateway/msg-b", file: "message-EventBasedGateway.bpmn",
			upstream: "Test_eventBasedGateway_just_fires_one_event_and_instance_COMPLETED",
			handlers: map[string]work{"task-a": done, "task-b": done},
			messages: []engine.Message{msg("msg-b", nil)},
			status:   "completed", called: []string{"task-b"}, activated: []string{"task-b"},
		},
		{
			name: "simple-intermediate-message-catch-event/message variables", file: "simple-intermediate-message-catch-event.bpmn",
			upstream: "Test_intermediate_message_catch_event_publishes_variables_into_instance",
			messages: []engine.Message{msg("msg", map[string]any{"foo": "bar"})},
			status:   "completed",
			// upstream also finds foo itself: with an output mapping only the
			// mapped variables reach the instance (BPMN 2.0 §10.4.1: a catch
			// event's data outputs reach the process through its
			// dataOutputAssociations; Zeebe output mappings alike).
			wantVars: map[string]any{"mappedFoo": "bar"},
			noVars:   []string{"foo"},
			knownGap: "output mappings of intermediate catch events are ignored: engine/catch.go trigger() sets the message " +
				"variables and leaves without applying n.Outputs (only activities go through finishActivity/outputs)",
		},
		{
			name: "simple-intermediate-message-catch-event-broken", file: "simple-intermediate-message-catch-event-broken.bpmn",
			upstream: "Test_intermediate_message_catch_event_output_mapping_failed",
			messages: []engine.Message{msg("msg", nil)},
			// "= X / Y" fails without X and Y: the catch event gets an incident
			status: "incident", incident: "msg", noVars: []string{"mappedFoo"},
			knownGap: "output mappings of intermediate catch events are ignored (engine/catch.go trigger()), " +
				"so the failing mapping is never evaluated and the instance completes",
		},

		// --- timers (timer_test.go) ---
		{
			name: "message-intermediate-timer-event/message first", file: "message-intermediate-timer-event.bpmn",
			upstream: "Test_EventBasedGateway_selects_path_where_timer_occurs / Test_EventBasedGateway_selects_just_one_path",
			handlers: map[string]work{"task-for-message": done, "task-for-timer": done},
			messages: []engine.Message{msg("message", nil)},
			status:   "completed", called: []string{"task-for-message"}, activated: []string{"task-for-message"},
		},
		{
			name: "message-intermediate-timer-event/timer first", file: "message-intermediate-timer-event.bpmn",
			upstream: "Test_EventBasedGateway_selects_path_where_message_received / Test_EventBasedGateway_selects_just_one_path",
			handlers: map[string]work{"task-for-message": done, "task-for-timer": done},
			status:   "completed", called: []string{"task-for-timer"}, activated: []string{"task-for-timer"},
		},
		{
			name: "message-intermediate-invalid-timer-event", file: "message-intermediate-invalid-timer-event.bpmn",
			upstream:  "Test_InvalidTimer_will_stop_execution_and_return_err",
			handlers:  map[string]work{"task-for-timer": done},
			problemAt: "Event_1uc8qla",
		},
		{
			name: "message-intermediate-timer-event-expression/valid timer", file: "message-intermediate-timer-event-expression.bpmn",
			upstream: "Test_EventBasedGateway_selects_path_where_timer_occurs_from_expression/Valid_timer",
			vars:     map[string]any{"timeoutValue": "PT1S"},
			handlers: map[string]work{"task-for-message": done, "task-for-timer": done},
			status:   "completed", called: []string{"task-for-timer"}, activated: []string{"task-for-timer"},
		},
		{
			name: "message-intermediate-timer-event-expression/invalid type", file: "message-intermediate-timer-event-expression.bpmn",
			upstream: "Test_EventBasedGateway_selects_path_where_timer_occurs_from_expression/Invalid_type",
			vars:     map[string]any{"timeoutValue": 1.23},
			handlers: map[string]work{"task-for-message": done, "task-for-timer": done},
			status:   "incident", incident: "event-based-gateway", incidentHas: "timer1",
		},
		{
			name: "message-intermediate-timer-event-expression/invalid reference", file: "message-intermediate-timer-event-expression.bpmn",
			upstream: "Test_EventBasedGateway_selects_path_where_timer_occurs_from_expression/Invalid_reference",
			vars:     map[string]any{"wrongKey": "PT1S"},
			handlers: map[string]work{"task-for-message": done, "task-for-timer": done},
			status:   "incident", incident: "event-based-gateway", incidentHas: "timer1",
		},
		{
			name: "message-intermediate-timer-event-invalid-expression", file: "message-intermediate-timer-event-invalid-expression.bpmn",
			upstream: "Test_EventBasedGateway_selects_path_where_timer_occurs_from_expression/Invalid_expression",
			vars:     map[string]any{"timeoutValue": "PT1S"},
			handlers: map[string]work{"task-for-message": done, "task-for-timer": done},
			status:   "incident", incident: "event-based-gateway", incidentHas: "timer1",
		},

		// --- user tasks (usertasks_test.go, jobs_test.go) ---
		{
			name: "simple-user-task/completed", file: "simple-user-task.bpmn",
			upstream:      "Test_user_tasks_can_be_handled",
			completeTasks: true,
			status:        "completed", activated: []string{"user-task"},
		},
		{
			name: "simple-user-task/waits for the user", file: "simple-user-task.bpmn",
			upstream: "Test_user_tasks_can_be_continue (first run)",
			status:   "waiting", activated: []string{"user-task"},
			tasks: []openTask{{elementID: "user-task", assignee: "assignee", candidateGroups: []string{"candicate-groups"}}},
		},
		{
			name: "user-tasks-with-assignments/completed", file: "user-tasks-with-assignments.bpmn",
			upstream:      "Test_assignee_and_candidate_groups_are_assigned_to_handler",
			completeTasks: true,
			status:        "completed", activated: []string{"assignee-task", "group-task"},
		},
		{
			name: "user-tasks-with-assignments/assignee", file: "user-tasks-with-assignments.bpmn",
			upstream: "Test_assignee_and_candidate_groups_are_assigned_to_handler (the assignee)",
			status:   "waiting", activated: []string{"assignee-task"},
			tasks: []openTask{{elementID: "assignee-task", assignee: "john.doe"}},
		},
		{
			name: "user-tasks-with-assignments/candidate groups", file: "user-tasks-with-assignments.bpmn",
			upstream: "Test_assignee_and_candidate_groups_are_assigned_to_handler (the candidate groups)",
			// the runner completes every task as it appears, so the group
			// task's candidate groups are checked on the deployed model
			completeTasks: true,
			status:        "completed", activated: []string{"assignee-task", "group-task"},
			check: func(t *testing.T, src []byte, _ *runner.Result) {
				def, err := engine.ParseAndValidate(src, "")
				require.NoError(t, err)
				n := def.Process("").Node("group-task")
				require.NotNil(t, n)
				assert.Equal(t, []string{"sales", "marketing", "support"}, n.Human.CandidateGroups)
			},
		},
		{
			name: "user-tasks-with-parallel-gateways", file: "user-tasks-with-parallel-gateways.bpmn",
			upstream:      "Test_multiple_instances_with_same_user_task_ids",
			completeTasks: true,
			status:        "completed",
			activated:     []string{"assignee-task1", "assignee-task2", "assignee-task3", "assignee-task4"}, anyOrder: true,
			before: [][2]string{{"assignee-task1", "assignee-task4"}, {"assignee-task2", "assignee-task3"}},
		},

		// --- link events (links_test.go) ---
		{
			name: "simple-link-events", file: "simple-link-events.bpmn",
			upstream: "Test_Link_events_are_thrown_and_caught_and_flow_continued",
			handlers: map[string]work{"task": done},
			status:   "completed", called: []string{"Task-A", "Task-B"}, activated: []string{"Task-A", "Task-B"},
		},
		{
			name: "simple-link-event-broken", file: "simple-link-event-broken.bpmn",
			upstream:  "Test_missing_intermediate_link_catch_event_stops_engine_with_error",
			handlers:  map[string]work{"task": done},
			problemAt: "Link-A-Throw",
		},
		{
			name: "simple-link-event-output-variables", file: "simple-link-event-output-variables.bpmn",
			upstream: "Test_missing_intermediate_link_variables_mapped",
			handlers: map[string]work{"task": done},
			status:   "completed", called: []string{"Task"}, activated: []string{"Task"},
			// upstream also expects throw="throw" from the link throw event's
			// output mapping: BPMN throw events have data inputs, no outputs
			// (§10.4.1), so that one is not asserted.
			wantVars: map[string]any{"catch": "catch"},
			knownGap: "output mappings of intermediate catch events are ignored: engine/step.go enter() leaves a link " +
				"catch event at once without applying n.Outputs",
		},

		// --- sub-processes (sub_process_test.go) ---
		{
			name: "subprocess", file: "subprocess.bpmn",
			upstream: "Test_subprocess",
			handlers: map[string]work{"": done}, // task-in-sub-a has no type
			status:   "completed", called: []string{"task-in-sub-a"}, activated: []string{"task-in-sub-a"},
		},
		{
			name: "subprocess-with-gateways/COUNT 28", file: "subprocess-with-gateways.bpmn",
			upstream: "Test_subprocess_with_gateways",
			vars:     map[string]any{"COUNT": 28},
			handlers: map[string]work{"": done}, // no task has a type
			status:   "completed", called: []string{"random_generator", "print_30", "say_goodbye"},
			activated: []string{"random_generator", "print_30", "say_goodbye"},
		},
		{
			name: "subprocess-message-multiple-intermediate-catch-events-exclusive", file: "subprocess-message-multiple-intermediate-catch-events-exclusive.bpmn",
			upstream: "Test_subprocess_multiple_intermediate_catch_events_implicit_fork_and_exclusive_gateway_COMPLETED",
			messages: []engine.Message{msg("msg-event-1", nil), msg("msg-event-2", nil), msg("msg-event-3", nil)},
			status:   "completed",
		},
		{
			name: "subprocess-simple-link-events", file: "subprocess-simple-link-events.bpmn",
			upstream: "Test_subprocess_link_events_are_thrown_and_caught_and_flow_continued",
			handlers: map[string]work{"task": done},
			status:   "completed", called: []string{"Task-A", "Sub-Task-A", "Sub-Task-B", "Task-B"},
			activated: []string{"Task-A", "Sub-Task-A", "Sub-Task-B", "Task-B"}, anyOrder: true,
			before: [][2]string{{"Sub-Task-A", "Task-B"}, {"Sub-Task-B", "Task-B"}},
		},
		{
			name: "subprocess-fork-controlled-exclusive-join", file: "subprocess-fork-controlled-exclusive-join.bpmn",
			upstream:  "Test_subprocess_ForkControlledExclusiveJoin",
			handlers:  map[string]work{"task": done},
			status:    "completed",
			called:    []string{"Sub-A-Task-A1", "Sub-A-Task-A2", "Sub-A-Task-B1", "Sub-A-Task-B1", "Sub-B-Task-A1", "Task-C", "Task-C"},
			activated: []string{"Sub-A-Task-A1", "Sub-A-Task-A2", "Sub-A-Task-B1", "Sub-A-Task-B1", "Sub-B-Task-A1", "Task-C", "Task-C"},
			anyOrder:  true,
			before:    [][2]string{{"Sub-A-Task-A1", "Sub-A-Task-B1"}, {"Sub-A-Task-A2", "Sub-A-Task-B1"}, {"Sub-B-Task-A1", "Task-C"}},
		},
		{
			name: "subprocess-fork-controlled-parallel-join", file: "subprocess-fork-controlled-parallel-join.bpmn",
			upstream:  "Test_subprocess_ForkControlledParallelJoin",
			handlers:  map[string]work{"task": done},
			status:    "completed",
			called:    []string{"Sub-A-Task-A1", "Sub-A-Task-A2", "Sub-A-Task-B1", "Sub-B-Task-A1", "Task-C"},
			activated: []string{"Sub-A-Task-A1", "Sub-A-Task-A2", "Sub-A-Task-B1", "Sub-B-Task-A1", "Task-C"},
			anyOrder:  true,
			before: [][2]string{
				{"Sub-A-Task-A1", "Sub-A-Task-B1"},
				{"Sub-A-Task-A2", "Sub-A-Task-B1"},
				{"Sub-A-Task-B1", "Task-C"},
				{"Sub-B-Task-A1", "Task-C"},
			},
		},
	}
}

// TestConformanceLibBPMNEngineVersions mirrors upstream's versioning tests
// (TestLoadingTheSameFileWillNotIncreaseTheVersionNorChangeTheProcessKey,
// TestLoadingTheSameProcessWithModificationWillCreateNewVersion,
// Test_CreateInstanceById_uses_latest_process_version): deploying the same
// file again keeps its version, a changed file with the same process id is
// the next version, and starting by key runs the latest.
func TestConformanceLibBPMNEngineVersions(t *testing.T) {
	t.Parallel()
	dir := libBPMNEngineDir(t)
	read := func(name string) []byte {
		src, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return src
	}
	e, err := engine.New(engine.Config{
		Store: memstore.New(), Clock: engine.NewVirtualClock(time.Unix(0, 0).UTC()),
		Partitions: 1, NoStartTimers: true, Unhandled: engine.JobsExternal,
	})
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, e.Run(ctx))
	t.Cleanup(func() { e.Close() })

	v1, created, err := e.Deploy(ctx, engine.DeployRequest{Source: read("simple_task.bpmn")})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, "Simple_Task_Process", v1.Key)
	require.Equal(t, 1, v1.Version)

	again, created, err := e.Deploy(ctx, engine.DeployRequest{Source: read("simple_task.bpmn")})
	require.NoError(t, err)
	require.False(t, created, "the same file again is no new version")
	require.Equal(t, v1.ID, again.ID)
	require.Equal(t, 1, again.Version)

	v2, created, err := e.Deploy(ctx, engine.DeployRequest{Source: read("simple_task_modified_taskId.bpmn")})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, v1.Key, v2.Key)
	require.Equal(t, 2, v2.Version)

	v3, _, err := e.Deploy(ctx, engine.DeployRequest{Source: read("simple_task_v2.bpmn")})
	require.NoError(t, err)
	require.Equal(t, 3, v3.Version)

	snap, _, err := e.Start(ctx, engine.StartRequest{Definition: "Simple_Task_Process"})
	require.NoError(t, err)
	require.Equal(t, 3, snap.Version, "starting by key runs the latest version")
}
