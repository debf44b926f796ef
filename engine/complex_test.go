package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// reviewProcess sends a paper to three reviewers (user tasks) and goes on
// when two have reviewed (a complex gateway, 2 of 3); the outgoing flow
// given decides what the third review does after that.
func reviewProcess(out string) []byte {
	return callBPMN(`<process id="review" isExecutable="true">
    <startEvent id="s"/><parallelGateway id="fork"/>
    <userTask id="r1"/><userTask id="r2"/><userTask id="r3"/>
    <complexGateway id="twoOfThree"><activationCondition>activationCount >= 2</activationCondition></complexGateway>
    <scriptTask id="decide" scriptFormat="javascript"><script>return {decisions: (typeof decisions === 'number' ? decisions : 0) + 1}</script></scriptTask>
    <endEvent id="e"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
    <sequenceFlow id="f1" sourceRef="fork" targetRef="r1"/><sequenceFlow id="f2" sourceRef="fork" targetRef="r2"/><sequenceFlow id="f3" sourceRef="fork" targetRef="r3"/>
    <sequenceFlow id="j1" sourceRef="r1" targetRef="twoOfThree"/><sequenceFlow id="j2" sourceRef="r2" targetRef="twoOfThree"/><sequenceFlow id="j3" sourceRef="r3" targetRef="twoOfThree"/>
    ` + out + `
    <sequenceFlow id="f5" sourceRef="decide" targetRef="e"/></process>`)
}

func TestComplexGatewayJoinsTwoOfThree(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(reviewProcess(`<sequenceFlow id="f4" sourceRef="twoOfThree" targetRef="decide"><conditionExpression>waitingForStart</conditionExpression></sequenceFlow>`))
	inst := h.start("review", nil)
	h.complete(inst.ID, "r1", nil)
	h.idle()
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "decide"), "one review is not enough")
	h.complete(inst.ID, "r3", nil)
	h.idle()
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "decide"), "two reviews activate the gateway")
	require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status, "it waits for the third branch to reset")
	h.complete(inst.ID, "r2", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, snap.Variables["decisions"], "the late review is consumed by the reset: waitingForStart is false then")
	require.Equal(t, 1, h.count(inst.ID, engine.EventGatewayReset, "twoOfThree"))
}

func TestComplexGatewayResetPassesLateTokens(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(reviewProcess(`<sequenceFlow id="f4" sourceRef="twoOfThree" targetRef="decide"/>`))
	inst := h.start("review", nil)
	for _, r := range []string{"r2", "r1", "r3"} {
		h.complete(inst.ID, r, nil)
	}
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, snap.Variables["decisions"], "the reset sends the late token through a flow without a condition, as BPMN says")
}

// TestComplexGatewayResetsWhenTheRestCannotCome: a branch that ends
// elsewhere no longer holds the reset.
func TestComplexGatewayResetsWhenTheRestCannotCome(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/><parallelGateway id="fork"/>
    <userTask id="a"/><userTask id="b"/><userTask id="c"/><exclusiveGateway id="skip" default="toJoin"/>
    <complexGateway id="j"><activationCondition>=activationCount >= 1</activationCondition></complexGateway>
    <endEvent id="e"/><endEvent id="elsewhere"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
    <sequenceFlow id="f1" sourceRef="fork" targetRef="a"/><sequenceFlow id="f2" sourceRef="fork" targetRef="b"/><sequenceFlow id="f3" sourceRef="fork" targetRef="c"/>
    <sequenceFlow id="j1" sourceRef="a" targetRef="j"/><sequenceFlow id="j2" sourceRef="b" targetRef="j"/>
    <sequenceFlow id="fc" sourceRef="c" targetRef="skip"/>
    <sequenceFlow id="toElse" sourceRef="skip" targetRef="elsewhere"><conditionExpression>away</conditionExpression></sequenceFlow>
    <sequenceFlow id="toJoin" sourceRef="skip" targetRef="j"/>
    <sequenceFlow id="out" sourceRef="j" targetRef="e"><conditionExpression>waitingForStart</conditionExpression></sequenceFlow></process>`))
	inst := h.start("p", map[string]any{"away": true})
	h.complete(inst.ID, "a", nil)
	h.complete(inst.ID, "b", nil)
	h.idle()
	require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status, "c can still arrive")
	h.complete(inst.ID, "c", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventGatewayReset, "j"), "c went elsewhere: nothing more can arrive, the gateway reset")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"))
}

func TestComplexGatewaySplitsLikeAnInclusiveOne(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/><complexGateway id="split" default="fd"/>
    <endEvent id="a"/><endEvent id="b"/><endEvent id="d"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="split"/>
    <sequenceFlow id="fa" sourceRef="split" targetRef="a"><conditionExpression>x > 1</conditionExpression></sequenceFlow>
    <sequenceFlow id="fb" sourceRef="split" targetRef="b"><conditionExpression>x > 2</conditionExpression></sequenceFlow>
    <sequenceFlow id="fd" sourceRef="split" targetRef="d"/></process>`))
	inst := h.start("p", map[string]any{"x": 5})
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "a"))
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "b"))
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "d"))
}
