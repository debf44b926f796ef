// Laying out BPMN that has no diagram interchange: files written by hand
// or generated, and definitions deployed in another format (the server
// exports those as BPMN without a drawing). bpmn-auto-layout does the
// layout; it lives in the modeler bundle, which viewers load only when a
// diagram needs it.

/** hasDiagram reports whether xml carries diagram interchange. */
export function hasDiagram(xml) {
  return /<([\w-]+:)?BPMNDiagram[\s>]/.test(xml);
}

// withFlowRefs fills in the flow nodes' incoming and outgoing lists from
// the sequence flows. BPMN makes them optional and hand-written or
// generated files often leave them out, but bpmn-auto-layout follows only
// them: without, it stacks the nodes in a column and draws no flows.
export async function withFlowRefs(moddle, xml) {
  const { rootElement: definitions } = await moddle.fromXML(xml);
  let added = 0;
  const link = (list, flow) => {
    if (!list.includes(flow)) { list.push(flow); added++; }
  };
  const visit = (container) => {
    for (const e of container.flowElements || []) {
      if (e.$instanceOf('bpmn:SequenceFlow')) {
        if (e.sourceRef?.$instanceOf('bpmn:FlowNode')) link(e.sourceRef.get('outgoing'), e);
        if (e.targetRef?.$instanceOf('bpmn:FlowNode')) link(e.targetRef.get('incoming'), e);
      }
      visit(e);
    }
  };
  for (const root of definitions.rootElements || []) visit(root);
  return added ? (await moddle.toXML(definitions)).xml : xml;
}

/** laidOut returns xml with a diagram: as it is, or laid out. */
export async function laidOut(moddle, xml) {
  if (hasDiagram(xml)) return xml;
  const { layoutProcess } = await import('/static/vendor/bpmn-modeler.js');
  return layoutProcess(await withFlowRefs(moddle, xml));
}
