// The designer's "Workflow++" properties group: the wf: attributes the engine
// reads (engine/bpmn/wf.go, elements.go) as fields, so no one writes them by
// hand in XML. Each field says what it does and in what form.
import {
  TextFieldEntry, isTextFieldEntryEdited, SelectEntry, isSelectEntryEdited, useService, h,
} from '/static/vendor/bpmn-modeler.js';

const jobTasks = ['bpmn:ServiceTask', 'bpmn:ScriptTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'];

// The fields, by the element types they belong to.
export const wfFields = [
  { name: 'readers', types: ['bpmn:Process'], label: 'Readers',
    description: 'Users and groups, comma-separated, who may read this process\'s instances besides those who work on their tasks' },
  { name: 'retries', types: jobTasks, label: 'Retries', description: 'Attempts after the first when the job fails; 0 for none' },
  { name: 'backoff', types: jobTasks, label: 'Backoff', options: ['', 'fixed', 'linear', 'exponential'] },
  { name: 'retryDelay', types: jobTasks, label: 'Retry delay', description: 'ISO 8601 duration before the first retry, e.g. PT5S' },
  { name: 'maxDelay', types: jobTasks, label: 'Longest delay', description: 'ISO 8601 duration the backoff never exceeds, e.g. PT5M' },
  { name: 'jitter', types: jobTasks, label: 'Jitter', description: 'Share of each delay to randomise, between 0 and 1, e.g. 0.1' },
  { name: 'retryOn', types: jobTasks, label: 'Retry on', description: 'Error codes that are retried, comma-separated; empty: every failure' },
  { name: 'timeout', types: jobTasks, label: 'Timeout', description: 'ISO 8601 duration one attempt may take, e.g. PT30S' },
  { name: 'concurrency', types: jobTasks, label: 'Concurrency', description: 'How many of these jobs may run at once' },
  { name: 'rateLimit', types: jobTasks, label: 'Rate limit', description: 'How many of these jobs may start per second' },
  { name: 'inboxVariables', types: ['bpmn:UserTask'], label: 'Inbox variables', description: 'Up to 3 variables, comma-separated, shown on the task\'s inbox card' },
];

// target is the moddle element the fields of element edit: the process of a
// participant, the element's own business object otherwise.
function target(element) {
  const bo = element.businessObject;
  return bo && bo.$type === 'bpmn:Participant' ? bo.processRef : bo;
}

function Field(props) {
  const { element, id, field, bo } = props;
  const modeling = useService('modeling');
  const debounce = useService('debounceInput');
  const attr = `wf:${field.name}`;
  const getValue = () => bo.get(attr) || '';
  const setValue = (value) => modeling.updateModdleProperties(element, bo, { [attr]: value || undefined });
  if (field.options) {
    return h(SelectEntry, {
      element, id, label: field.label, getValue, setValue,
      getOptions: () => field.options.map((o) => ({ value: o, label: o || '(engine default)' })),
    });
  }
  return h(TextFieldEntry, { element, id, label: field.label, description: field.description, getValue, setValue, debounce });
}

// Standard loop (standardLoopCharacteristics, BPMN itself): the loop marker
// is set from the element's wrench menu; these fields say how it loops.
const loopFields = [
  { name: 'loopCondition', label: 'Loop condition',
    description: 'Runs again while this holds (JavaScript, or =FEEL); loopCounter is the runs done so far' },
  { name: 'testBefore', label: 'Test before', options: ['false', 'true'],
    description: 'true: checked before every run, the first too; false: the first run always happens' },
  { name: 'loopMaximum', label: 'Loop maximum', description: 'At most this many runs; empty: no limit' },
];

function LoopField(props) {
  const { element, id, field, lc } = props;
  const modeling = useService('modeling');
  const bpmnFactory = useService('bpmnFactory');
  const debounce = useService('debounceInput');
  const getValue = () => {
    const v = lc.get(field.name);
    if (field.name === 'loopCondition') return v ? v.body || '' : '';
    return v === undefined || v === null ? (field.options ? 'false' : '') : String(v);
  };
  const setValue = (value) => {
    let v;
    switch (field.name) {
      case 'loopCondition':
        v = value ? bpmnFactory.create('bpmn:FormalExpression', { body: value }) : undefined;
        break;
      case 'testBefore':
        v = value === 'true';
        break;
      default:
        v = value === '' ? undefined : Number.parseInt(value, 10);
        if (Number.isNaN(v)) v = undefined;
    }
    modeling.updateModdleProperties(element, lc, { [field.name]: v });
  };
  if (field.options) {
    return h(SelectEntry, {
      element, id, label: field.label, description: field.description, getValue, setValue,
      getOptions: () => field.options.map((o) => ({ value: o, label: o })),
    });
  }
  return h(TextFieldEntry, { element, id, label: field.label, description: field.description, getValue, setValue, debounce });
}

// BPMN attributes of elements the Zeebe panel has no field for: the
// complex gateway's activation condition and an ad-hoc sub-process's
// ordering (its activeElementsCollection, completion condition and
// cancelRemainingInstances are in the panel's own "Ad-hoc" group).
const bpmnFields = [
  { name: 'activationCondition', types: ['bpmn:ComplexGateway'], label: 'Activation condition', expression: true,
    description: 'Joins when this holds (JavaScript, or =FEEL); activationCount is the incoming flows with a token, e.g. activationCount >= 2. Outgoing conditions may read waitingForStart.' },
  { name: 'ordering', types: ['bpmn:AdHocSubProcess'], label: 'Ordering', options: ['Parallel', 'Sequential'],
    description: 'Sequential: the activities started run one after another' },
];

function BpmnField(props) {
  const { element, id, field, bo } = props;
  const modeling = useService('modeling');
  const bpmnFactory = useService('bpmnFactory');
  const debounce = useService('debounceInput');
  const getValue = () => {
    const v = bo.get(field.name);
    if (field.expression) return v ? v.body || '' : '';
    return v || (field.options ? field.options[0] : '');
  };
  const setValue = (value) => {
    const v = field.expression
      ? (value ? bpmnFactory.create('bpmn:FormalExpression', { body: value }) : undefined)
      : value || undefined;
    modeling.updateModdleProperties(element, bo, { [field.name]: v });
  };
  if (field.options) {
    return h(SelectEntry, {
      element, id, label: field.label, description: field.description, getValue, setValue,
      getOptions: () => field.options.map((o) => ({ value: o, label: o })),
    });
  }
  return h(TextFieldEntry, { element, id, label: field.label, description: field.description, getValue, setValue, debounce });
}

class WfPropertiesProvider {
  constructor(propertiesPanel) {
    propertiesPanel.registerProvider(400, this);
  }

  getGroups(element) {
    return (groups) => {
      const bo = target(element);
      if (!bo) return groups;
      const entries = wfFields.filter((f) => f.types.some((t) => bo.$instanceOf(t))).map((field) => ({
        id: `wf-${field.name}`, component: Field, field, bo,
        isEdited: field.options ? isSelectEntryEdited : isTextFieldEntryEdited,
      }));
      entries.push(...bpmnFields.filter((f) => f.types.some((t) => bo.$instanceOf(t))).map((field) => ({
        id: `wf-${field.name}`, component: BpmnField, field, bo,
        isEdited: field.options ? isSelectEntryEdited : isTextFieldEntryEdited,
      })));
      const lc = bo.get && bo.get('loopCharacteristics');
      if (lc && lc.$type === 'bpmn:StandardLoopCharacteristics') {
        entries.push(...loopFields.map((field) => ({
          id: `wf-${field.name}`, component: LoopField, field, lc,
          isEdited: field.options ? isSelectEntryEdited : isTextFieldEntryEdited,
        })));
      }
      if (entries.length) groups.push({ id: 'workflowpp', label: 'Workflow++', entries });
      return groups;
    };
  }
}
WfPropertiesProvider.$inject = ['propertiesPanel'];

export const WfPropertiesProviderModule = {
  __init__: ['wfPropertiesProvider'],
  wfPropertiesProvider: ['type', WfPropertiesProvider],
};
