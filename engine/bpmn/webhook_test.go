package bpmn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

// TestWebhookAttributes: wf:webhook and its tuning attributes read into
// model.Webhook on receive tasks and message catches, and Export writes them
// back; a tuning attribute without wf:webhook is a problem.
func TestWebhookAttributes(t *testing.T) {
	t.Parallel()
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <receiveTask id="r" wf:webhook="true" wf:webhookFilter="status == 'paid'"/>
    <intermediateCatchEvent id="c" wf:webhook="true" wf:webhookMultiUse="true"><messageEventDefinition/></intermediateCatchEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="r"/><sequenceFlow id="f2" sourceRef="r" targetRef="c"/>
  </process>
</definitions>`
	def, err := bpmn.Parse([]byte(src), bpmn.Options{})
	require.NoError(t, err)
	want := map[string]model.Webhook{"r": {Filter: "status == 'paid'"}, "c": {MultiUse: true}}
	for _, d := range []*model.Definition{def, parseExported(t, bpmn.Export(def))} {
		for id, w := range want {
			n := d.Process("p").Node(id)
			require.NotNil(t, n.Webhook, id)
			require.Equal(t, w, *n.Webhook, id)
		}
	}

	_, err = bpmn.Parse([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="p" isExecutable="true"><receiveTask id="r" wf:webhookMultiUse="true"/></process></definitions>`), bpmn.Options{})
	require.ErrorContains(t, err, "set wf:webhook=\"true\"")
}

func parseExported(t *testing.T, src []byte) *model.Definition {
	t.Helper()
	def, err := bpmn.Parse(src, bpmn.Options{})
	require.NoError(t, err, "%s", src)
	return def
}
