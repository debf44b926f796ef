// The moddle descriptor of the Workflow++ BPMN extensions
// (xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0"), so the designer can
// read and write them as elements, not only as unknown attributes.
// wf:form holds a form-js schema as its text; the engine reads it on user
// tasks and start events (engine/bpmn/wf.go).
export const wfModdle = {
  name: 'Workflow++',
  prefix: 'wf',
  uri: 'https://workflowpp.dev/schema/bpmn/1.0',
  xml: { tagAlias: 'lowerCase' },
  associations: [],
  types: [
    {
      name: 'Form',
      superClass: ['Element'],
      meta: { allowedIn: ['bpmn:UserTask', 'bpmn:StartEvent'] },
      properties: [{ name: 'body', isBody: true, type: 'String' }],
    },
  ],
};
