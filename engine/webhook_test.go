package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// hookProcess is a receive task waiting at a filtered single-use webhook,
// with a one-hour boundary timer as its timeout, then a catch event with a
// multi-use webhook on a user task's non-interrupting boundary.
const hookProcess = `<process id="hook" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>
    <receiveTask id="paid" wf:webhook="true" wf:webhookFilter="status == &quot;paid&quot; &amp;&amp; payload.amount &gt; 0"/>
    <boundaryEvent id="late" attachedToRef="paid"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
    <userTask id="ship"/>
    <boundaryEvent id="track" attachedToRef="ship" cancelActivity="false" wf:webhook="true" wf:webhookMultiUse="true"><messageEventDefinition/></boundaryEvent>
    <endEvent id="tracked"/><endEvent id="timedOut"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="paid"/><sequenceFlow id="f2" sourceRef="paid" targetRef="ship"/>
    <sequenceFlow id="f3" sourceRef="ship" targetRef="e"/><sequenceFlow id="f4" sourceRef="late" targetRef="timedOut"/>
    <sequenceFlow id="f5" sourceRef="track" targetRef="tracked"/></process>`

// hookToken is the token of the webhook waiting at element in snap.
func hookToken(t *testing.T, snap *engine.Snapshot, element string) string {
	t.Helper()
	for _, s := range snap.Subscriptions {
		if s.ElementID == element && s.Webhook != nil {
			return s.Webhook.Token
		}
	}
	require.Failf(t, "no webhook", "nothing waits at a webhook of %q", element)
	return ""
}

// TestWebhookDelivers: a POST that passes the filter delivers its fields as
// variables and closes the single-use URL; one that fails it changes
// nothing; a multi-use boundary fires once per POST while its task waits,
// and its URL closes with the task.
func TestWebhookDelivers(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(hookProcess))
	inst := h.start("hook", nil)
	token := hookToken(t, inst, "paid")
	require.GreaterOrEqual(t, len(token), 22, "at least 128 bits, base64url")

	_, err := h.e.DeliverWebhook(h.ctx, token, map[string]any{"status": "pending", "amount": 5})
	var rejected *engine.WebhookRejectedError
	require.ErrorAs(t, err, &rejected)
	require.Equal(t, "paid", rejected.ElementID)
	h.idle()
	after := h.instance(inst.ID)
	require.Equal(t, inst.Seq, after.Seq, "a refused POST changes nothing")
	require.NotContains(t, after.Variables, "status")

	_, err = h.e.DeliverWebhook(h.ctx, token, map[string]any{"status": "paid", "amount": 5})
	require.NoError(t, err)
	h.idle()
	snap := h.instance(inst.ID)
	require.Equal(t, "paid", snap.Variables["status"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "paid"))
	require.Zero(t, h.clock.Pending(), "the timeout timer went with the receive task")
	_, err = h.e.DeliverWebhook(h.ctx, token, map[string]any{"status": "paid", "amount": 5})
	require.ErrorIs(t, err, engine.ErrNotFound, "a single-use URL closes")

	track := hookToken(t, snap, "track")
	for i := range 2 {
		_, err = h.e.DeliverWebhook(h.ctx, track, map[string]any{"where": i})
		require.NoError(t, err)
		h.idle()
	}
	require.Equal(t, 2, h.count(inst.ID, engine.EventElementCompleted, "tracked"), "each POST fires the boundary")
	h.complete(inst.ID, "ship", nil)
	done := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, done.Variables["where"])
	_, err = h.e.DeliverWebhook(h.ctx, track, nil)
	require.ErrorIs(t, err, engine.ErrNotFound, "the URL closes with its task")
}

// TestWebhookTimeout: the boundary timer on a webhook receive task ends the
// wait, and with it the URL.
func TestWebhookTimeout(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(hookProcess))
	inst := h.start("hook", nil)
	token := hookToken(t, inst, "paid")
	h.advance(time.Hour)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "timedOut"))
	_, err := h.e.DeliverWebhook(h.ctx, token, map[string]any{"status": "paid", "amount": 5})
	require.ErrorIs(t, err, engine.ErrNotFound)
}

// TestWebhookSurvivesRestart: the token is stored with its subscription, so
// another engine on the same store takes a POST to the same URL.
func TestWebhookSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := engineOn(t, st)
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: callBPMN(hookProcess)})
	require.NoError(t, err)
	inst, _, err := first.Start(ctx, engine.StartRequest{Definition: "hook"})
	require.NoError(t, err)
	require.NoError(t, first.WaitIdle(ctx))
	stored, err := first.Instance(ctx, inst.ID)
	require.NoError(t, err)
	token := hookToken(t, stored, "paid")
	first.Close()

	second := engineOn(t, st)
	require.Eventually(t, func() bool {
		_, err := second.DeliverWebhook(ctx, token, map[string]any{"status": "paid", "amount": 1})
		return err == nil
	}, 10*time.Second, 5*time.Millisecond, "the restarted engine knows the URL once it has loaded the instance")
	require.NoError(t, second.WaitIdle(ctx))
	snap, err := second.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, "paid", snap.Variables["status"])
}

// TestWebhookDeployChecks: wf:webhook goes on waiting elements that name
// no message, and its tuning attributes need it.
func TestWebhookDeployChecks(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for name, body := range map[string]string{
		"with a messageRef": `<receiveTask id="r" messageRef="m" wf:webhook="true"/>`,
		"on a user task":    `<userTask id="r" wf:webhook="true"/>`,
		"filter alone":      `<receiveTask id="r" wf:webhookFilter="x"/>`,
		"bad filter":        `<receiveTask id="r" wf:webhook="true" wf:webhookFilter="status ==== )"/>`,
	} {
		_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: callBPMN(`<message id="m" name="m"/><process id="bad" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>` + body + `<sequenceFlow id="f1" sourceRef="s" targetRef="r"/></process>`)})
		require.ErrorContains(t, err, "wf:webhook", name)
	}
}

// TestWebhookSingleUseBoundary: a single-use webhook on a non-interrupting
// boundary fires once; its URL closes though the task still waits.
func TestWebhookSingleUseBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="once" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><userTask id="work"/>
    <boundaryEvent id="nudge" attachedToRef="work" cancelActivity="false" wf:webhook="true"><messageEventDefinition/></boundaryEvent>
    <endEvent id="nudged"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="nudge" targetRef="nudged"/></process>`))
	inst := h.start("once", nil)
	token := hookToken(t, inst, "nudge")
	_, err := h.e.DeliverWebhook(h.ctx, token, map[string]any{"n": 1})
	require.NoError(t, err)
	h.idle()
	_, err = h.e.DeliverWebhook(h.ctx, token, map[string]any{"n": 2})
	require.ErrorIs(t, err, engine.ErrNotFound)
	snap := h.instance(inst.ID)
	require.Equal(t, engine.StatusWaiting, snap.Status, "the task still waits")
	require.EqualValues(t, 1, snap.Variables["n"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "nudged"))
}
