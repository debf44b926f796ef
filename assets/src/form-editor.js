// Designer bundle for editing form-js schemas.
export { FormEditor, createFormEditor } from '@bpmn-io/form-js-editor';
export { schemaVersion } from '@bpmn-io/form-js-viewer';
