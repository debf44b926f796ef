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
