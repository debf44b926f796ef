// Designer bundle: bpmn-js Modeler with the properties panel in two flavours:
// the Zeebe (Camunda 8) provider for zeebe:* attributes, and the Camunda
// Platform (Camunda 7) provider for camunda:* attributes; the designer picks
// one per imported file. Both flavours of attributes are read by the engine.
export { default as Modeler } from 'bpmn-js/lib/Modeler';
export {
  BpmnPropertiesPanelModule,
  BpmnPropertiesProviderModule,
  ZeebePropertiesProviderModule,
  CamundaPlatformPropertiesProviderModule
} from 'bpmn-js-properties-panel';

// Keep the extension elements of each flavour consistent while modeling
// (e.g. drop a timer expression when the event type changes). Recommended
// with the matching provider.
export { default as ZeebeBehaviorsModule } from 'camunda-bpmn-js-behaviors/lib/camunda-cloud';
export { default as CamundaPlatformBehaviorsModule } from 'camunda-bpmn-js-behaviors/lib/camunda-platform';
export { default as zeebeModdle } from 'zeebe-bpmn-moddle/resources/zeebe.json';
export { default as camundaModdle } from 'camunda-bpmn-moddle/resources/camunda.json';

// Lays out a file that has no diagram interchange (no bpmndi:BPMNDiagram):
// layoutProcess(xml) resolves to the same XML with DI added.
export { layoutProcess } from 'bpmn-auto-layout';

// For the designer's own properties group (static/js/wf_properties.js): the
// panel's entry components, its service hook, and preact's h from the same
// copy the panel renders with.
export { TextFieldEntry, isTextFieldEntryEdited, SelectEntry, isSelectEntryEdited } from '@bpmn-io/properties-panel';
export { useService } from 'bpmn-js-properties-panel';
export { h } from '@bpmn-io/properties-panel/preact';
