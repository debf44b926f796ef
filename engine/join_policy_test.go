package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// forkJoin is a process p that forks to the given branch activities (ids
// b1, b2, …, each joining by flow in1, in2, …) and joins them at the
// parallel gateway j, with the wf: attributes attrs, before the user task
// after.
func forkJoin(attrs string, branches ...string) []byte {
	var nodes, flows strings.Builder
	for i, b := range branches {
		fmt.Fprintf(&nodes, "\n    "+b, fmt.Sprintf("b%d", i+1))
		fmt.Fprintf(&flows, `<sequenceFlow id="out%d" sourceRef="fork" targetRef="b%d"/><sequenceFlow id="in%d" sourceRef="b%d" targetRef="j"/>`, i+1, i+1, i+1, i+1)
	}
	return callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><parallelGateway id="fork"/>` + nodes.String() + `
    <parallelGateway id="j" ` + attrs + `/><userTask id="after"/><endEvent id="e"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>` + flows.String() + `
    <sequenceFlow id="f9" sourceRef="j" targetRef="after"/><sequenceFlow id="f10" sourceRef="after" targetRef="e"/></process>`)
}

// Branch activities for forkJoin: a user task, and a service task whose
// job fails for good.
const (
	waits = `<userTask id="%s"/>`
	fails = `<serviceTask id="%s" wf:type="broken"/>`
)

func setupJoins(t *testing.T) *harness {
	h := setup(t)
	h.e.RegisterHandler("broken", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.Permanent(errors.New("the service is broken"))
	}))
	return h
}

// branchResults reads the outcome of each branch from the join's results variable.
func branchResults(t *testing.T, snap *engine.Snapshot, name string) map[string]string {
	t.Helper()
	all, ok := snap.Variables[name].(map[string]any)
	require.True(t, ok, "results variable %q: %v", name, snap.Variables[name])
	out := map[string]string{}
	for flow, o := range all {
		out[flow] = o.(map[string]any)["status"].(string)
	}
	return out
}

// TestJoinPolicyAny: one completed branch is enough; a failed one does not
// stop it, and the last branch, not cancelled, finishes and is absorbed.
func TestJoinPolicyAny(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(forkJoin(`wf:joinPolicy="any"`, waits, fails, waits))
	inst := h.start("p", nil)
	require.Empty(t, h.openIncidents(inst.ID), "the failed branch is counted by the join, not an incident")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"), "a failed branch does not count as arrived")

	h.complete(inst.ID, "b1", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"), "one branch completed: the join goes on")
	snap := h.instance(inst.ID)
	require.Equal(t, map[string]string{"in1": "completed", "in2": "failed", "in3": "running"}, branchResults(t, snap, "j"))
	require.Contains(t, snap.Variables["j"].(map[string]any)["in2"].(map[string]any)["error"], "the service is broken")

	h.complete(inst.ID, "b3", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"), "a late branch does not fire the join again")
	require.Equal(t, "completed", branchResults(t, h.instance(inst.ID), "j")["in3"], "its outcome is recorded")
	h.complete(inst.ID, "after", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

// TestJoinPolicyMajority: more than half of three is two.
func TestJoinPolicyMajority(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(forkJoin(`wf:joinPolicy="majority" wf:joinResultsVariable="reviews"`, waits, fails, waits))
	inst := h.start("p", nil)
	h.complete(inst.ID, "b1", map[string]any{"score": 3})
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"), "one of three is not a majority")
	h.complete(inst.ID, "b3", map[string]any{"score": 5, "note": "fine"})
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
	snap := h.instance(inst.ID)
	require.Equal(t, map[string]string{"in1": "completed", "in2": "failed", "in3": "completed"}, branchResults(t, snap, "reviews"))
	require.NotContains(t, snap.Variables, "j", "the results go to the variable named")
	reviews := snap.Variables["reviews"].(map[string]any)
	require.Equal(t, map[string]any{"score": 3}, reviews["in1"].(map[string]any)["variables"], "each branch's own variables, as it set them")
	require.Equal(t, map[string]any{"score": 5, "note": "fine"}, reviews["in3"].(map[string]any)["variables"])
	require.NotContains(t, reviews["in2"], "variables", "the failed branch set none")
	require.EqualValues(t, 5, snap.Variables["score"], "the instance's variable is the last one set, as always")
}

// TestJoinPolicyNOfMCancelsTheRest: two of four, one failing; the fourth
// branch is cancelled once two completed.
func TestJoinPolicyNOfMCancelsTheRest(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(forkJoin(`wf:joinPolicy="n_of_m" wf:joinN="2" wf:cancelRemaining="true"`, fails, waits, waits, waits))
	inst := h.start("p", nil)
	h.complete(inst.ID, "b2", nil)
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
	h.complete(inst.ID, "b4", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
	snap := h.instance(inst.ID)
	require.Equal(t, map[string]string{"in1": "failed", "in2": "completed", "in3": "cancelled", "in4": "completed"}, branchResults(t, snap, "j"))
	require.Len(t, h.tasks(inst.ID, engine.TaskOpen), 1, "b3's task is cancelled: only after's is open")
	h.complete(inst.ID, "after", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

// TestJoinPolicyCancelRemaining: with it the branch still running is
// cancelled when the join fires; without it, it finishes and the join
// absorbs it.
func TestJoinPolicyCancelRemaining(t *testing.T) {
	t.Parallel()
	for _, cancel := range []bool{true, false} {
		t.Run(fmt.Sprint("cancelRemaining ", cancel), func(t *testing.T) {
			t.Parallel()
			h := setupJoins(t)
			h.deploySource(forkJoin(fmt.Sprintf(`wf:joinPolicy="any" wf:cancelRemaining="%v"`, cancel), waits, waits))
			inst := h.start("p", nil)
			h.complete(inst.ID, "b1", nil)
			h.complete(inst.ID, "after", nil)
			if cancel {
				snap := h.requireStatus(inst.ID, engine.StatusCompleted)
				require.Equal(t, map[string]string{"in1": "completed", "in2": "cancelled"}, branchResults(t, snap, "j"))
				require.Equal(t, engine.TaskCancelled, h.tasks(inst.ID, engine.TaskCancelled)[0].Status)
				return
			}
			require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status, "b2 runs on")
			h.complete(inst.ID, "b2", nil)
			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, map[string]string{"in1": "completed", "in2": "completed"}, branchResults(t, snap, "j"))
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
		})
	}
}

// TestJoinPolicyAllUnchanged: without a policy a parallel join waits for
// every branch and a failure is an incident, as before; the policy all
// waits for every branch too, and gathers their results.
func TestJoinPolicyAllUnchanged(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(forkJoin(``, waits, waits, waits))
	inst := h.start("p", nil)
	h.complete(inst.ID, "b1", nil)
	h.complete(inst.ID, "b2", nil)
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
	h.complete(inst.ID, "b3", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
	require.NotContains(t, h.instance(inst.ID).Variables, "j", "no policy, no results")

	h.deploySource(forkJoin(``, waits, fails))
	inst = h.start("p", nil)
	h.requireStatus(inst.ID, engine.StatusIncident)

	h.deploySource(forkJoin(`wf:joinPolicy="all"`, waits, waits))
	inst = h.start("p", nil)
	h.complete(inst.ID, "b2", nil)
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
	h.complete(inst.ID, "b1", nil)
	require.Equal(t, map[string]string{"in1": "completed", "in2": "completed"}, branchResults(t, h.instance(inst.ID), "j"))
}

// TestJoinPolicyFailsWhenOutOfReach: once too many branches failed for the
// policy, the join throws JOIN_FAILED: uncaught it is an incident at the
// join; an error boundary of a sub-process around it catches it.
func TestJoinPolicyFailsWhenOutOfReach(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(forkJoin(`wf:joinPolicy="majority"`, fails, waits, fails))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusIncident)
	incs := h.openIncidents(inst.ID)
	require.Len(t, incs, 1)
	require.Equal(t, "j", incs[0].ElementID)
	require.Contains(t, incs[0].Message, `JOIN_FAILED`)
	require.Contains(t, incs[0].Message, `0 of the 3 branches of "j" completed and 2 failed: policy majority needs 2 to complete`)
	require.Equal(t, map[string]string{"in1": "failed", "in2": "cancelled", "in3": "failed"}, branchResults(t, snap, "j"))
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "b2 is cancelled: it cannot help any more")
	_, err := h.e.ResolveIncident(h.ctx, inst.ID, incs[0].ID, nil)
	require.NoError(t, err)
	h.idle()
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"), "resolving the incident goes on past the join")

	h.deploySource(callBPMN(`<process id="q" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>
    <subProcess id="sub">
      <startEvent id="ss"/><parallelGateway id="fork"/>
      <serviceTask id="b1" wf:type="broken"/><serviceTask id="b2" wf:type="broken"/>
      <parallelGateway id="j" wf:joinPolicy="any"/><endEvent id="se"/>
      <sequenceFlow id="f1" sourceRef="ss" targetRef="fork"/>
      <sequenceFlow id="f2" sourceRef="fork" targetRef="b1"/><sequenceFlow id="f3" sourceRef="fork" targetRef="b2"/>
      <sequenceFlow id="in1" sourceRef="b1" targetRef="j"/><sequenceFlow id="in2" sourceRef="b2" targetRef="j"/>
      <sequenceFlow id="f4" sourceRef="j" targetRef="se"/>
    </subProcess>
    <boundaryEvent id="caught" attachedToRef="sub"><errorEventDefinition errorRef="joinFailed"/></boundaryEvent>
    <endEvent id="e"/><endEvent id="handled"/>
    <sequenceFlow id="f5" sourceRef="s" targetRef="sub"/><sequenceFlow id="f6" sourceRef="sub" targetRef="e"/>
    <sequenceFlow id="f7" sourceRef="caught" targetRef="handled"/></process>
    <error id="joinFailed" errorCode="JOIN_FAILED"/>`))
	inst = h.start("q", nil)
	snap = h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "handled"))
	require.Contains(t, snap.Variables["errorMessage"], "0 of the 2 branches of \"j\" completed and 2 failed: policy any needs 1 to complete")
}

// TestJoinPolicyBranchTimeout: branches that have not arrived an hour after
// the fork time out; with one of three arrived, a majority is out of reach
// and the event sub-process catching JOIN_FAILED takes over.
func TestJoinPolicyBranchTimeout(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	timer := `<intermediateCatchEvent id="%s"><timerEventDefinition><timeDuration>PT10M</timeDuration></timerEventDefinition></intermediateCatchEvent>`
	slow := `<intermediateCatchEvent id="%s"><timerEventDefinition><timeDuration>PT3H</timeDuration></timerEventDefinition></intermediateCatchEvent>`
	src := string(forkJoin(`wf:joinPolicy="majority" wf:branchTimeout="PT1H"`, timer, slow, waits))
	src = strings.Replace(src, `</process>`, `<subProcess id="onFail" triggeredByEvent="true">
      <startEvent id="es"><errorEventDefinition errorRef="joinFailed"/></startEvent><endEvent id="handled"/>
      <sequenceFlow id="ef" sourceRef="es" targetRef="handled"/>
    </subProcess></process><error id="joinFailed" errorCode="JOIN_FAILED"/>`, 1)
	h.deploySource([]byte(src))
	inst := h.start("p", nil)
	h.advance(10 * time.Minute)
	require.Equal(t, "completed", branchResults(t, h.instanceRound(inst.ID), "")["in1"])
	h.advance(49 * time.Minute)
	require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status, "not an hour yet")
	h.advance(time.Minute)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "handled"))
	require.Equal(t, map[string]string{"in1": "completed", "in2": "timedOut", "in3": "timedOut"}, branchResults(t, snap, "j"))
	require.Len(t, h.tasks(inst.ID, engine.TaskCancelled), 1, "b3's task is cancelled")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
}

// instanceRound returns the instance with the branches its policy join has
// counted so far as the variable "" (the round's own record).
func (h *harness) instanceRound(id string) *engine.Snapshot {
	h.t.Helper()
	snap := h.instance(id)
	for _, ts := range snap.TokenStates() {
		if ts.Status == engine.TokenRound {
			return &engine.Snapshot{Variables: map[string]any{"": ts.Local["branches"]}}
		}
	}
	h.t.Fatalf("no join round in %s", id)
	return nil
}

// TestJoinPolicySurvivesRestart: the branches a join counted are stored,
// and its branch timeout with them; a restarted engine goes on from there.
func TestJoinPolicySurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New(memstore.WithParking(0)) // stored encoded, as a database gives them back
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	on := func(clock *engine.VirtualClock) *engine.Engine {
		e, err := engine.New(engine.Config{Store: st, Clock: clock, Partitions: 2, NodeWorkers: 2})
		require.NoError(t, err)
		require.NoError(t, e.Run(context.Background()))
		t.Cleanup(e.Close)
		return e
	}
	complete := func(e *engine.Engine, id, element string) {
		t.Helper()
		tasks, _, err := st.Tasks(ctx, engine.TaskFilter{InstanceID: id, Status: engine.TaskOpen})
		require.NoError(t, err)
		for _, task := range tasks {
			if task.ElementID == element {
				_, err := e.CompleteTask(ctx, task.ID, "tester", nil)
				require.NoError(t, err)
				require.NoError(t, e.WaitIdle(ctx))
				return
			}
		}
		t.Fatalf("no open task at %s", element)
	}
	results := func(e *engine.Engine, id string) map[string]string {
		t.Helper()
		snap, err := e.Instance(ctx, id)
		require.NoError(t, err)
		return branchResults(t, snap, "j")
	}

	first := on(engine.NewVirtualClock(epoch))
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: forkJoin(`wf:joinPolicy="n_of_m" wf:joinN="2" wf:branchTimeout="PT1H"`, waits, waits, waits)})
	require.NoError(t, err)
	var ids []string
	for range 2 {
		inst, _, err := first.Start(ctx, engine.StartRequest{Definition: "p"})
		require.NoError(t, err)
		require.NoError(t, first.WaitIdle(ctx))
		complete(first, inst.ID, "b3")
		ids = append(ids, inst.ID)
	}
	first.Close()

	clock := engine.NewVirtualClock(epoch.Add(30 * time.Minute))
	second := on(clock)
	complete(second, ids[0], "b1")
	require.Equal(t, map[string]string{"in1": "completed", "in2": "running", "in3": "completed"}, results(second, ids[0]),
		"b3, counted before the restart, and b1 after it make two")

	require.Eventually(t, func() bool { return clock.Pending() > 0 }, 10*time.Second, 5*time.Millisecond, "the branch timeout is armed again")
	clock.Advance(30 * time.Minute)
	require.NoError(t, second.WaitIdle(ctx))
	require.Equal(t, map[string]string{"in1": "timedOut", "in2": "timedOut", "in3": "completed"}, results(second, ids[1]),
		"an hour after the fork, b1 and b2 time out")
	snap, err := second.Instance(ctx, ids[1])
	require.NoError(t, err)
	require.Equal(t, engine.StatusIncident, snap.Status, "one of two is out of reach: JOIN_FAILED, uncaught")
}

// TestJoinPolicyInclusive: an inclusive join's branches are those its fork
// took; majority of the two taken is both.
func TestJoinPolicyInclusive(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><inclusiveGateway id="fork"/>
    <userTask id="b1"/><userTask id="b2"/><userTask id="b3"/>
    <inclusiveGateway id="j" wf:joinPolicy="majority"/><userTask id="after"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
    <sequenceFlow id="out1" sourceRef="fork" targetRef="b1"><conditionExpression>=true</conditionExpression></sequenceFlow>
    <sequenceFlow id="out2" sourceRef="fork" targetRef="b2"><conditionExpression>=false</conditionExpression></sequenceFlow>
    <sequenceFlow id="out3" sourceRef="fork" targetRef="b3"><conditionExpression>=true</conditionExpression></sequenceFlow>
    <sequenceFlow id="in1" sourceRef="b1" targetRef="j"/><sequenceFlow id="in2" sourceRef="b2" targetRef="j"/><sequenceFlow id="in3" sourceRef="b3" targetRef="j"/>
    <sequenceFlow id="f9" sourceRef="j" targetRef="after"/></process>`))
	inst := h.start("p", nil)
	h.complete(inst.ID, "b3", nil)
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"), "one of the two taken is not more than half")
	h.complete(inst.ID, "b1", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
	require.Equal(t, map[string]string{"in1": "completed", "in3": "completed"}, branchResults(t, h.instance(inst.ID), "j"), "b2 was not taken")
}

// TestJoinPolicyFailureInsideSubProcess: work failing inside a sub-process
// of a branch fails the branch; the sub-process ends with it.
func TestJoinPolicyFailureInsideSubProcess(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	sub := `<subProcess id="%s"><startEvent id="ss"/><userTask id="inner"/><serviceTask id="deep" wf:type="broken"/><parallelGateway id="sf"/>
      <sequenceFlow id="sf0" sourceRef="ss" targetRef="sf"/><sequenceFlow id="sf1" sourceRef="sf" targetRef="inner"/><sequenceFlow id="sf2" sourceRef="sf" targetRef="deep"/></subProcess>`
	h.deploySource(forkJoin(`wf:joinPolicy="any"`, sub, waits))
	inst := h.start("p", nil)
	require.Empty(t, h.openIncidents(inst.ID))
	snap := h.instance(inst.ID)
	require.Equal(t, map[string]string{"in1": "failed", "in2": "running"}, branchResults(t, h.instanceRound(inst.ID), ""))
	require.Equal(t, "deep", h.instanceRound(inst.ID).Variables[""].(map[string]any)["in1"].(map[string]any)["elementId"])
	require.Len(t, h.tasks(inst.ID, engine.TaskOpen), 1, "the sub-process's user task is cancelled with it")
	require.Equal(t, engine.StatusWaiting, snap.Status)
	h.complete(inst.ID, "b2", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
}

// TestJoinPolicyDeployErrors: what cannot run is refused at deploy, naming
// the gateway and what to write.
func TestJoinPolicyDeployErrors(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	for attrs, want := range map[string]string{
		`wf:joinPolicy="n_of_m"`:              `the join policy n_of_m needs N (wf:joinN)`,
		`wf:joinPolicy="n_of_m" wf:joinN="3"`: `the join policy n_of_m asks for 3 branches but "j" joins 2: lower wf:joinN`,
		`wf:joinPolicy="some"`:                `wf:joinPolicy "some" is not a join policy: write all, any, majority or n_of_m`,
		`wf:joinPolicy="any" wf:joinN="1"`:    `N (wf:joinN) 1 is for the join policy n_of_m`,
		`wf:joinN="zero"`:                     `wf:joinN "zero" is not a positive whole number`,
		`wf:branchTimeout="an hour"`:          `wf:branchTimeout`,
		`wf:cancelRemaining="yes please"`:     `wf:cancelRemaining "yes please": write true`,
	} {
		_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: forkJoin(attrs, waits, waits)})
		require.ErrorContains(t, err, want, attrs)
	}
	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: callBPMN(`<process id="q" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><parallelGateway id="split" wf:joinPolicy="any"/><endEvent id="e1"/><endEvent id="e2"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="split"/><sequenceFlow id="f1" sourceRef="split" targetRef="e1"/><sequenceFlow id="f2" sourceRef="split" targetRef="e2"/></process>`)})
	require.ErrorContains(t, err, `the join policy of "split" needs a join: it has 1 incoming sequence flow(s)`)
	_, _, err = h.e.Deploy(h.ctx, engine.DeployRequest{Source: callBPMN(`<process id="q" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><exclusiveGateway id="x" wf:joinPolicy="any"/><endEvent id="e1"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="x"/><sequenceFlow id="f1" sourceRef="x" targetRef="e1"/></process>`)})
	require.ErrorContains(t, err, `exclusiveGateway "x" cannot have a join policy (wf:joinPolicy): only parallel and inclusive gateways`)
}

// TestJoinPolicyNested: a fork-join inside a branch of another; its
// JOIN_FAILED, uncaught, fails the outer join's branch.
func TestJoinPolicyNested(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><parallelGateway id="fork"/><parallelGateway id="innerFork"/>
    <serviceTask id="x1" wf:type="broken"/><serviceTask id="x2" wf:type="broken"/>
    <parallelGateway id="inner" wf:joinPolicy="any"/><userTask id="b2"/>
    <parallelGateway id="outer" wf:joinPolicy="any"/><userTask id="after"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
    <sequenceFlow id="f1" sourceRef="fork" targetRef="innerFork"/><sequenceFlow id="f2" sourceRef="fork" targetRef="b2"/>
    <sequenceFlow id="g1" sourceRef="innerFork" targetRef="x1"/><sequenceFlow id="g2" sourceRef="innerFork" targetRef="x2"/>
    <sequenceFlow id="h1" sourceRef="x1" targetRef="inner"/><sequenceFlow id="h2" sourceRef="x2" targetRef="inner"/>
    <sequenceFlow id="in1" sourceRef="inner" targetRef="outer"/><sequenceFlow id="in2" sourceRef="b2" targetRef="outer"/>
    <sequenceFlow id="f9" sourceRef="outer" targetRef="after"/></process>`))
	inst := h.start("p", nil)
	require.Empty(t, h.openIncidents(inst.ID))
	h.complete(inst.ID, "b2", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
	snap := h.instance(inst.ID)
	require.Equal(t, map[string]string{"h1": "failed", "h2": "failed"}, branchResults(t, snap, "inner"))
	require.Equal(t, map[string]string{"in1": "failed", "in2": "completed"}, branchResults(t, snap, "outer"))
	require.Equal(t, "JOIN_FAILED", snap.Variables["outer"].(map[string]any)["in1"].(map[string]any)["errorCode"])
}

// TestJoinPolicyInALoop: the process loops back to the fork while a late
// branch of the last pass still runs; the next pass is a new round.
func TestJoinPolicyInALoop(t *testing.T) {
	t.Parallel()
	h := setupJoins(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><exclusiveGateway id="again"/><parallelGateway id="fork"/>
    <userTask id="b1"/><userTask id="b2"/><parallelGateway id="j" wf:joinPolicy="any"/>
    <scriptTask id="count" scriptFormat="javascript"><script>return {passes: (typeof passes === 'number' ? passes : 0) + 1}</script></scriptTask>
    <exclusiveGateway id="more" default="done"/><endEvent id="e"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="again"/><sequenceFlow id="f1" sourceRef="again" targetRef="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="b1"/><sequenceFlow id="f3" sourceRef="fork" targetRef="b2"/>
    <sequenceFlow id="in1" sourceRef="b1" targetRef="j"/><sequenceFlow id="in2" sourceRef="b2" targetRef="j"/>
    <sequenceFlow id="f4" sourceRef="j" targetRef="count"/><sequenceFlow id="f5" sourceRef="count" targetRef="more"/>
    <sequenceFlow id="loop" sourceRef="more" targetRef="again"><conditionExpression>passes &lt; 2</conditionExpression></sequenceFlow>
    <sequenceFlow id="done" sourceRef="more" targetRef="e"/></process>`))
	inst := h.start("p", nil)
	h.complete(inst.ID, "b1", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "count"))
	h.complete(inst.ID, "b1", nil) // the second pass's
	require.Equal(t, 2, h.count(inst.ID, engine.EventElementCompleted, "count"), "the second pass fires the join again")
	for _, task := range h.tasks(inst.ID, engine.TaskOpen) {
		require.Equal(t, "b2", task.ElementID)
		_, err := h.e.CompleteTask(h.ctx, task.ID, "tester", nil)
		require.NoError(t, err)
	}
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, snap.Variables["passes"], "late branches never fire the join")
}
