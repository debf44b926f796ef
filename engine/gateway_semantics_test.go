package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func TestExclusiveGatewayFirstTrueWins(t *testing.T) {
	t.Parallel()
	cases := []struct {
		x          float64
		want       string
		conditions []bool // what the decision saw, z_high then a_low
		isDefault  bool
	}{
		{x: 5, want: "high", conditions: []bool{true}},         // both hold: z_high comes first in the document
		{x: 0.5, want: "low", conditions: []bool{false, true}}, // only a_low holds
		{x: -1, want: "other", conditions: []bool{false, false}, isDefault: true},
	}
	for _, dialect := range []string{"js", "feel", "juel"} {
		for _, tc := range cases {
			t.Run(dialect+"/"+tc.want, func(t *testing.T) {
				t.Parallel()
				h := setup(t)
				inst := h.run("exclusive_"+dialect, map[string]any{"x": tc.x})

				h.requireStatus(inst.ID, engine.StatusCompleted)
				require.Equal(t, []string{"start", "decide", tc.want, "end"}, h.activated(inst.ID))
				decided := h.eventsOf(inst.ID, engine.EventGatewayDecided, "decide")
				require.Len(t, decided, 1)
				d := decided[0].Detail
				require.Equal(t, tc.isDefault, d["default"])
				results, ok := d["conditions"].([]any)
				require.True(t, ok)
				got := make([]bool, len(results))
				for i, r := range results {
					got[i] = r.(map[string]any)["value"].(bool)
				}
				require.Equal(t, tc.conditions, got)
				chosen := map[string]string{"high": "z_high", "low": "a_low", "other": "f_default"}[tc.want]
				require.Equal(t, []string{chosen}, detailStrings(t, d, "chosen"))
			})
		}
	}
}

func TestExclusiveGatewayNoFlowIsIncident(t *testing.T) {
	t.Parallel()
	for _, fix := range []string{"approve", "reject"} {
		t.Run(fix, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			inst := h.run("exclusive_no_default", map[string]any{"decision": "maybe"})

			snap := h.requireStatus(inst.ID, engine.StatusIncident)
			require.Equal(t, []string{"start", "route"}, h.activated(inst.ID))
			incs := h.openIncidents(inst.ID)
			require.Len(t, incs, 1)
			require.Equal(t, "route", incs[0].ElementID)
			require.Equal(t, "condition", incs[0].Kind)
			require.Contains(t, incs[0].Message, `"route"`, "the message names the gateway")
			require.Len(t, snap.Tokens, 1)
			require.Equal(t, engine.TokenIncident, snap.Tokens[0].Status)
			require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "route"), "the gateway must not complete")

			_, err := h.e.ResolveIncident(h.ctx, inst.ID, incs[0].ID, map[string]any{"decision": fix})
			require.NoError(t, err)
			h.idle()

			snap = h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, fix, snap.Variables["decision"])
			require.Equal(t, []string{"start", "route", fix, "end"}, h.activated(inst.ID))
			require.Empty(t, h.openIncidents(inst.ID))
			require.Equal(t, 1, h.count(inst.ID, engine.EventIncidentResolved, ""))
		})
	}
}

func TestParallelForkJoin(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("parallel_fork_join", nil)

	h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Equal(t, []string{"start", "fork", "review", "a", "b", "join", "join"}, h.activated(inst.ID),
		"a and b arrive at the join, which waits for the review")
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "join"))

	h.complete(inst.ID, "review", nil)

	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "join"), "the join fires once")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
	require.Greater(t, h.firstIndex(inst.ID, engine.EventElementCompleted, "join"),
		h.firstIndex(inst.ID, engine.EventTaskDone, "review"))
}

// TestParallelLoop loops n times through a parallel split and join: the join
// fires exactly once per round.
func TestParallelLoop(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3, 5} {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("work", noop)
			inst := h.run("parallel_loop", map[string]any{"count": 0, "n": n})

			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.EqualValues(t, n, snap.Variables["count"])
			require.Equal(t, n, h.count(inst.ID, engine.EventElementCompleted, "join"), "join firings")
			require.Equal(t, n, h.count(inst.ID, engine.EventElementCompleted, "fork"), "fork firings")
			require.Equal(t, n, h.count(inst.ID, engine.EventElementCompleted, "a"))
			require.Equal(t, n, h.count(inst.ID, engine.EventElementCompleted, "b"))
			require.Equal(t, n, h.count(inst.ID, engine.EventElementCompleted, "count"))
			require.Equal(t, 2*n, h.count(inst.ID, engine.EventElementActivated, "join"))
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "end"))
		})
	}
}

func TestInclusiveFork(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		x    int
		want []string
	}{
		{"none holds: default", 0, []string{"none"}},
		{"one", 1, []string{"one"}},
		{"two", 2, []string{"one", "two"}},
		{"all three", 5, []string{"one", "two", "three"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			inst := h.run("inclusive_fork", map[string]any{"x": tc.x})

			h.requireStatus(inst.ID, engine.StatusCompleted)
			want := append([]string{"start", "fork"}, tc.want...)
			for range tc.want {
				want = append(want, "join")
			}
			want = append(want, "end")
			require.Equal(t, want, h.activated(inst.ID))
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "join"), "the OR-join fires once")
			decided := h.eventsOf(inst.ID, engine.EventGatewayDecided, "fork")
			require.Len(t, decided, 1)
			require.Equal(t, tc.x == 0, decided[0].Detail["default"])
		})
	}
}

// TestInclusiveJoinWaitsForLongBranch: branch A has one service task, branch B
// three in a row; the OR-join waits for every branch taken and fires once.
func TestInclusiveJoinWaitsForLongBranch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		takeA, takeB bool
		ran          []string
	}{
		{"both branches", true, true, []string{"a", "b1", "b2", "b3"}},
		{"only the short one", true, false, []string{"a"}},
		{"only the long one", false, true, []string{"b1", "b2", "b3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.e.RegisterHandler("step", noop)
			inst := h.run("inclusive_long_branch", map[string]any{"takeA": tc.takeA, "takeB": tc.takeB})

			h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "join"), "the OR-join fires once")
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after"))
			var arrivals int
			if tc.takeA {
				arrivals++
			}
			if tc.takeB {
				arrivals++
			}
			require.Equal(t, arrivals, h.count(inst.ID, engine.EventElementActivated, "join"))
			fired := h.firstIndex(inst.ID, engine.EventElementCompleted, "join")
			for _, task := range []string{"a", "b1", "b2", "b3"} {
				done := h.firstIndex(inst.ID, engine.EventElementCompleted, task)
				if !slices.Contains(tc.ran, task) {
					require.Equal(t, -1, h.firstIndex(inst.ID, engine.EventElementActivated, task), "%s must not run", task)
					continue
				}
				require.GreaterOrEqual(t, done, 0, "%s completed", task)
				require.Greater(t, fired, done, "the join fired before %s completed", task)
			}
		})
	}
}

func TestEventGateway(t *testing.T) {
	t.Parallel()
	t.Run("message wins", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("event_gateway", map[string]any{"orderId": "o-1"})
		h.requireStatus(inst.ID, engine.StatusWaiting)
		require.Equal(t, 1, h.clock.Pending(), "the timer is armed")

		n, err := h.e.Correlate(h.ctx, engine.Message{Name: "paid", CorrelationKey: "o-1", Variables: map[string]any{"amount": 12}})
		require.NoError(t, err)
		require.Equal(t, 1, n)
		h.idle()

		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.EqualValues(t, 12, snap.Variables["amount"])
		require.Equal(t, []string{"start", "race", "paid", "ship", "end"}, h.activated(inst.ID))
		require.Zero(t, h.clock.Pending(), "the timer is disarmed")
		h.advance(20 * time.Minute)
		require.Zero(t, h.count(inst.ID, engine.EventTimerFired, ""))
	})
	t.Run("timer wins", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("event_gateway", map[string]any{"orderId": "o-2"})
		h.advance(10 * time.Minute)

		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, []string{"start", "race", "timeout", "remind", "end"}, h.activated(inst.ID))
		_, err := h.e.Correlate(h.ctx, engine.Message{Name: "paid", CorrelationKey: "o-2"})
		require.ErrorIs(t, err, engine.ErrNotFound, "the message subscription is closed")
		require.Zero(t, h.count(inst.ID, engine.EventMessageCorrelated, ""))
	})
}

// TestXPathDataObjectConditions: the XPath conditions on data objects that
// BPMN's own examples use read a data object as the variable of its name.
func TestXPathDataObjectConditions(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/><exclusiveGateway id="g"/><endEvent id="yes"/><endEvent id="no"/><endEvent id="maybe"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="g"/>
    <sequenceFlow id="fy" sourceRef="g" targetRef="yes"><conditionExpression>bpmn:getDataObject('approved') and bpmn:getDataObject("clarified") = 'yes'</conditionExpression></sequenceFlow>
    <sequenceFlow id="fn" sourceRef="g" targetRef="no"><conditionExpression>not(bpmn:getDataObject('approved'))</conditionExpression></sequenceFlow>
    <sequenceFlow id="fm" sourceRef="g" targetRef="maybe"><conditionExpression>bpmn:getDataObject('clarified') = 'no'</conditionExpression></sequenceFlow></process>`))
	for vars, end := range map[[2]any]string{{true, "yes"}: "yes", {false, "yes"}: "no", {true, "no"}: "maybe"} {
		inst := h.start("p", map[string]any{"approved": vars[0], "clarified": vars[1]})
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, end), "%v", vars)
	}
	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: callBPMN(`<process id="q" isExecutable="true">
    <startEvent id="s"/><exclusiveGateway id="g" default="fd"/><endEvent id="a"/><endEvent id="b"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="g"/><sequenceFlow id="fd" sourceRef="g" targetRef="b"/>
    <sequenceFlow id="fa" sourceRef="g" targetRef="a"><conditionExpression>bpmn:getActivityProperty('t', 'x')</conditionExpression></sequenceFlow></process>`)})
	require.ErrorContains(t, err, "only bpmn:getDataObject('name') is read")
}
