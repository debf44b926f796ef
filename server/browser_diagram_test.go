package server_test

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserEveryFormatHasADiagram: a JSON DAG, a graph and a BPMN file
// without diagram interchange show as laid-out BPMN diagrams in the live
// monitor (tokens on their elements) and on the definition page, where a
// DAG's JSON used to be handed to bpmn-js as "unparsable content".
func TestBrowserEveryFormatHasADiagram(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	b := newBrowser(t)
	dagSrc, err := os.ReadFile("../engine/dag/testdata/order.dag.json")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/json", dagSrc, nil)
	graphSrc, err := os.ReadFile("../engine/graph/testdata/loan.graph.json")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/json", graphSrc, nil)
	nodi, err := os.ReadFile("testdata/browser_nodi.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", nodi, nil)

	for _, c := range []struct{ key, element string }{{"order", "validate"}, {"loan", "score"}, {"browser_nodi", "approve"}} {
		var inst struct{ ID string }
		srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"`+c.key+`","variables":{"orderId":"o-1","total":120}}`), &inst)
		b.run(b.ctx, "the monitor of a "+c.key+" instance shows its diagram",
			chromedp.Navigate(srv.url+"/instances/"+inst.ID),
			chromedp.WaitVisible(`#monitor[data-ready="true"]`),
			chromedp.WaitVisible(`.djs-element[data-element-id="`+c.element+`"]`),
			waitJS(`document.querySelectorAll('.djs-connection').length > 0`),
		)
		b.run(b.ctx, "the definition page of "+c.key+" shows it too",
			chromedp.Navigate(srv.url+"/definitions/"+c.key),
			chromedp.WaitVisible(`.djs-element[data-element-id="`+c.element+`"]`),
		)
	}
	b.run(b.ctx, "the designer opens the DAG as BPMN, read only",
		chromedp.Navigate(srv.url+"/designer/order"),
		chromedp.WaitVisible(`#designer[data-loaded="true"][data-readonly="true"]`),
		chromedp.WaitVisible(`.djs-element[data-element-id="validate"]`),
		waitJS(`document.getElementById('btn-deploy').disabled`),
	)
}
