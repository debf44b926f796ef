// Monitor / heatmap bundle: read-only viewer with zoom and scroll.
export { default as NavigatedViewer } from 'bpmn-js/lib/NavigatedViewer';

// Pass as moddleExtensions: { zeebe: zeebeModdle } to read zeebe:* attributes
// as typed properties instead of generic extension elements.
export { default as zeebeModdle } from 'zeebe-bpmn-moddle/resources/zeebe.json';
