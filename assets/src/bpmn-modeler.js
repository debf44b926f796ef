// Designer bundle: bpmn-js Modeler with the properties panel and the Zeebe
// (Camunda 8) provider, so zeebe:* attributes the engine reads can be edited.
export { default as Modeler } from 'bpmn-js/lib/Modeler';
export {
  BpmnPropertiesPanelModule,
  BpmnPropertiesProviderModule,
  ZeebePropertiesProviderModule
} from 'bpmn-js-properties-panel';

// Keeps zeebe:* extension elements consistent while modeling (e.g. drops a
// timer expression when the event type changes). Recommended with the Zeebe provider.
export { default as ZeebeBehaviorsModule } from 'camunda-bpmn-js-behaviors/lib/camunda-cloud';
export { default as zeebeModdle } from 'zeebe-bpmn-moddle/resources/zeebe.json';

// For the designer's own properties group (static/js/wf_properties.js): the
// panel's entry components, its service hook, and preact's h from the same
// copy the panel renders with.
export { TextFieldEntry, isTextFieldEntryEdited, SelectEntry, isSelectEntryEdited } from '@bpmn-io/properties-panel';
export { useService } from 'bpmn-js-properties-panel';
export { h } from '@bpmn-io/properties-panel/preact';
