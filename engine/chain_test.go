package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// chainBPMN is a definition of processes, with the wf namespace.
func chainBPMN(processes ...string) []byte {
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">`
	for _, p := range processes {
		src += p
	}
	return []byte(src + `</definitions>`)
}

// orderProcess is process "order": a script sets approved and total from
// the start variables, then it ends; triggers go in its extensionElements.
func orderProcess(triggers string) string {
	return `<process id="order" isExecutable="true"><extensionElements>` + triggers + `</extensionElements>
    <startEvent id="s"/><scriptTask id="work" scriptFormat="javascript"><script>if (fail) throw new Error("boom"); return {approved: amount > 10, total: amount * 2}</script></scriptTask><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`
}

const invoiceProcess = `<process id="invoice" isExecutable="true">
    <startEvent id="s"/><userTask id="review"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="review"/><sequenceFlow id="f2" sourceRef="review" targetRef="e"/></process>`

// triggered returns the instances the triggers of id started.
func (h *harness) triggered(id string) []*engine.Snapshot {
	h.t.Helper()
	page, _, err := h.e.Queries().Instances(h.ctx, engine.InstanceFilter{TriggeredBy: id})
	require.NoError(h.t, err)
	out := make([]*engine.Snapshot, len(page))
	for i, s := range page {
		out[i] = h.instance(s.ID)
	}
	return out
}

func TestChainStartsTargetWithMappedVariables(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(chainBPMN(invoiceProcess))
	h.deploySource(chainBPMN(orderProcess(`<wf:trigger on="completed" target="invoice" condition="approved">
      <wf:input source="=orderId" target="orderId"/><wf:input source="=total" target="invoice.amount"/></wf:trigger>`)))

	order := h.start("order", map[string]any{"orderId": "o-1", "amount": 21, "fail": false, "secret": "x"})
	h.requireStatus(order.ID, engine.StatusCompleted)
	h.idle()
	started := h.triggered(order.ID)
	require.Len(t, started, 1)
	inv := started[0]
	require.Equal(t, "invoice", inv.DefinitionKey)
	require.Equal(t, engine.StatusWaiting, inv.Status)
	require.Equal(t, "o-1", inv.Variables["orderId"])
	require.EqualValues(t, 42, asInt64(inv.Variables["invoice"].(map[string]any)["amount"]))
	require.NotContains(t, inv.Variables, "secret", "only the mapped variables, without allVariables")
	require.Equal(t, &engine.ChainRef{InstanceID: order.ID, Definition: "order", Trigger: 0, Depth: 1}, inv.TriggeredBy)
	ev := h.eventsOf(order.ID, engine.EventChainStarted, "")
	require.Len(t, ev, 1)
	require.Equal(t, inv.ID, ev[0].Detail["instance"])

	small := h.start("order", map[string]any{"orderId": "o-2", "amount": 3, "fail": false})
	h.requireStatus(small.ID, engine.StatusCompleted)
	h.idle()
	require.Empty(t, h.triggered(small.ID), "approved is false: the condition does not hold")
	require.Zero(t, h.count(small.ID, engine.EventChainStarted, ""))
}

func TestChainOnFailedPassesAllVariables(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.e.RegisterHandler("broken", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, errors.New("boom")
	}))
	h.deploySource(chainBPMN(invoiceProcess))
	h.deploySource(chainBPMN(`<process id="order" isExecutable="true" wf:onFailure="fail"><extensionElements>
      <wf:trigger on="completed" target="invoice"/><wf:trigger on="failed" target="invoice" allVariables="true"/></extensionElements>
    <startEvent id="s"/><serviceTask id="work" wf:type="broken" wf:retries="0"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`))

	order := h.start("order", map[string]any{"orderId": "o-3"})
	h.requireStatus(order.ID, engine.StatusFailed)
	h.idle()
	started := h.triggered(order.ID)
	require.Len(t, started, 1, "only the trigger on failed fires")
	require.Equal(t, 1, started[0].TriggeredBy.Trigger)
	require.Equal(t, "o-3", started[0].Variables["orderId"], "allVariables passes every variable")
}

func TestChainDepthLimitStopsSelfChain(t *testing.T) {
	t.Parallel()
	h := setup(t, withConfig(func(c *engine.Config) { c.MaxChainDepth = 3 }))
	h.deploySource(chainBPMN(`<process id="again" isExecutable="true"><extensionElements>
      <wf:trigger on="completed" target="again"><wf:input source="=n + 1" target="n"/></wf:trigger></extensionElements>
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process>`))

	first := h.start("again", map[string]any{"n": 0})
	h.idle()
	id, n := first.ID, 0
	for {
		h.requireStatus(id, engine.StatusCompleted)
		next := h.triggered(id)
		if len(next) == 0 {
			break
		}
		require.Len(t, next, 1)
		id = next[0].ID
		n++
		require.EqualValues(t, n, asInt64(next[0].Variables["n"]))
		require.Equal(t, n, next[0].TriggeredBy.Depth)
	}
	require.Equal(t, 3, n, "the first instance and three in the chain")
	refused := h.eventsOf(id, engine.EventChainRefused, "")
	require.Len(t, refused, 1, "the last one says why it started nothing")
	require.Contains(t, refused[0].Detail["reason"], "MaxChainDepth")
	require.Empty(t, h.openIncidents(id))
}

func TestChainToMissingTargetRecordsFailure(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(chainBPMN(orderProcess(`<wf:trigger on="completed" target="nowhere"/>`)))
	order := h.start("order", map[string]any{"amount": 1, "fail": false})
	h.requireStatus(order.ID, engine.StatusCompleted)
	failed := h.eventsOf(order.ID, engine.EventChainFailed, "")
	require.Len(t, failed, 1)
	require.Equal(t, "nowhere", failed[0].Detail["target"])
	require.Contains(t, failed[0].Detail["reason"], "not found")
}

func TestChainTriggerChecksAtDeploy(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: chainBPMN(orderProcess(`<wf:trigger on="finished" target="x"/><wf:trigger on="completed"/>`))})
	require.ErrorContains(t, err, `trigger 1 of process "order" fires on "finished": use completed, failed or cancelled`)
	require.ErrorContains(t, err, `trigger 2 of process "order" has no target`)
}

// commitRefuser fails every commit with a change refuse selects, as a
// store that went away at that moment would.
type commitRefuser struct {
	engine.Store
	refuse func(*engine.Snapshot) bool
}

func (s *commitRefuser) Commit(ctx context.Context, b *engine.Batch) error {
	for _, c := range b.Changes {
		if s.refuse(c.Snapshot) {
			return engine.ErrUnavailable
		}
	}
	return s.Store.Commit(ctx, b)
}

// TestChainSurvivesRestart: the end of the order is stored but the
// invoice it triggers never ran when the engine stops; the next engine on
// the store runs it, once.
func TestChainSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The engine goes down with the invoice stored (its request id claimed)
	// but never run.
	first := engineOn(t, &commitRefuser{Store: st, refuse: func(s *engine.Snapshot) bool { return s.TriggeredBy != nil }})
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: chainBPMN(invoiceProcess)})
	require.NoError(t, err)
	_, _, err = first.Deploy(ctx, engine.DeployRequest{Source: chainBPMN(orderProcess(
		`<wf:trigger on="completed" target="invoice"><wf:input source="=total" target="total"/></wf:trigger>`))})
	require.NoError(t, err)
	order, _, err := first.Start(ctx, engine.StartRequest{Definition: "order", Variables: map[string]any{"amount": 5, "fail": false}})
	require.NoError(t, err)
	var page []*engine.Snapshot
	require.Eventually(t, func() bool {
		snap, err := first.Instance(ctx, order.ID)
		if err != nil || snap.Status != engine.StatusCompleted {
			return false
		}
		page, _, err = st.Instances(ctx, engine.InstanceFilter{TriggeredBy: order.ID})
		return err == nil && len(page) == 1
	}, 10*time.Second, 5*time.Millisecond, "the order ends, the invoice stored before its end")
	require.Zero(t, page[0].Seq, "and never ran")
	first.Close()

	second := engineOn(t, st)
	require.Eventually(t, func() bool {
		snap, err := second.Instance(ctx, page[0].ID)
		return err == nil && snap.Status == engine.StatusWaiting
	}, 10*time.Second, 5*time.Millisecond, "recovery runs the stored invoice")
	page, _, err = st.Instances(ctx, engine.InstanceFilter{TriggeredBy: order.ID})
	require.NoError(t, err)
	require.Len(t, page, 1, "exactly one invoice")
	inv, err := second.Instance(ctx, page[0].ID)
	require.NoError(t, err)
	require.EqualValues(t, 10, asInt64(inv.Variables["total"]))
	require.Equal(t, order.ID, inv.TriggeredBy.InstanceID)
}

// TestChainEndNotStored: the commit of the order's end fails after the
// invoice it triggers was stored; the invoice does not run for an end
// that is not stored, not even after a restart. When the order ends again
// on the next engine, that invoice starts, once.
func TestChainEndNotStored(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := engineOn(t, &commitRefuser{Store: st, refuse: func(s *engine.Snapshot) bool {
		return s.DefinitionKey == "approve" && s.Status == engine.StatusCompleted
	}})
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: chainBPMN(invoiceProcess)})
	require.NoError(t, err)
	_, _, err = first.Deploy(ctx, engine.DeployRequest{Source: chainBPMN(`<process id="approve" isExecutable="true"><extensionElements>
      <wf:trigger on="completed" target="invoice"><wf:input source="=total" target="total"/></wf:trigger></extensionElements>
    <startEvent id="s"/><userTask id="ok"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="ok"/><sequenceFlow id="f2" sourceRef="ok" targetRef="e"/></process>`)})
	require.NoError(t, err)
	order, _, err := first.Start(ctx, engine.StartRequest{Definition: "approve"})
	require.NoError(t, err)
	_, err = first.CompleteTask(ctx, order.Tasks[0].ID, "tester", map[string]any{"total": 8})
	require.ErrorIs(t, err, engine.ErrUnavailable, "the end's commit fails")
	invoices, _, err := st.Instances(ctx, engine.InstanceFilter{TriggeredBy: order.ID})
	require.NoError(t, err)
	require.Len(t, invoices, 1, "the invoice was stored before the end's commit")
	first.Close()

	second := engineOn(t, st)
	snap, err := second.Instance(ctx, order.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusWaiting, snap.Status, "the end is not stored")
	inv, err := second.Instance(ctx, invoices[0].ID)
	require.NoError(t, err)
	require.Zero(t, inv.Seq, "recovery does not run the invoice of an end that is not stored")
	_, err = second.CompleteTask(ctx, snap.Tasks[0].ID, "tester", map[string]any{"total": 9})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := second.Instance(ctx, invoices[0].ID)
		return err == nil && snap.Status == engine.StatusWaiting
	}, 10*time.Second, 5*time.Millisecond, "the order ends again and starts the stored invoice")
	invoices, _, err = st.Instances(ctx, engine.InstanceFilter{TriggeredBy: order.ID})
	require.NoError(t, err)
	require.Len(t, invoices, 1, "exactly one invoice")
	inv, err = second.Instance(ctx, invoices[0].ID)
	require.NoError(t, err)
	require.EqualValues(t, 9, asInt64(inv.Variables["total"]), "with the variables of the end that was stored")
}

func TestChainOnCancelled(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(chainBPMN(invoiceProcess))
	h.deploySource(chainBPMN(`<process id="approve" isExecutable="true"><extensionElements>
      <wf:trigger on="cancelled" target="invoice" condition="=reason = &quot;customer&quot;"><wf:input source="=reason" target="why"/></wf:trigger></extensionElements>
    <startEvent id="s"/><userTask id="ok"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="ok"/><sequenceFlow id="f2" sourceRef="ok" targetRef="e"/></process>`))

	byCustomer := h.start("approve", map[string]any{"reason": "customer"})
	_, err := h.e.Cancel(h.ctx, byCustomer.ID)
	require.NoError(t, err)
	h.idle()
	started := h.triggered(byCustomer.ID)
	require.Len(t, started, 1)
	require.Equal(t, "customer", started[0].Variables["why"])

	other := h.start("approve", map[string]any{"reason": "ops"})
	_, err = h.e.Cancel(h.ctx, other.ID)
	require.NoError(t, err)
	h.idle()
	require.Empty(t, h.triggered(other.ID), "the condition does not hold")
}
