// Inbox bundle: renders a form-js schema and collects the submitted data.
export { Form, createForm, schemaVersion } from '@bpmn-io/form-js-viewer';
