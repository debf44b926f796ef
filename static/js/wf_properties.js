// The designer's "Workflow++" properties group: the wf: attributes the engine
// reads (engine/bpmn/wf.go, elements.go) as fields, so no one writes them by
// hand in XML. Each field says what it does and in what form.
import {
  TextFieldEntry, isTextFieldEntryEdited, SelectEntry, isSelectEntryEdited, useService, h,
} from '/static/vendor/bpmn-modeler.js';
import { api } from './common.js';

const jobTasks = ['bpmn:ServiceTask', 'bpmn:ScriptTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'];
const serviceTasks = ['bpmn:ServiceTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'];
// The circuit breaker's settings show once it is on.
const breakerOn = (bo) => !!bo.get('wf:circuitBreaker') && bo.get('wf:circuitBreaker') !== 'false';
const joins = ['bpmn:ParallelGateway', 'bpmn:InclusiveGateway'];
// A validation step's settings show on a task of its job type.
// (wf:type, or the Camunda 8 task definition a saved DAG or graph carries).
const jobType = (bo) => bo.get('wf:type') || (bo.extensionElements?.values || []).find((v) => v.$type === 'zeebe:TaskDefinition')?.type;
const validationStep = (bo) => serviceTasks.some((t) => bo.$instanceOf(t)) && jobType(bo) === 'core.validate';
// A webhook wait (engine/bpmn/webhook.go): a receive task, or a catch or
// boundary event with a message definition; its settings show once it is on.
const hookable = ['bpmn:ReceiveTask', 'bpmn:IntermediateCatchEvent', 'bpmn:BoundaryEvent'];
const waitsForMessage = (bo) => bo.$instanceOf('bpmn:ReceiveTask') ||
  (bo.eventDefinitions || []).some((d) => d.$instanceOf('bpmn:MessageEventDefinition'));
const hookOn = (bo) => waitsForMessage(bo) && bo.get('wf:webhook') === 'true';
// The result cache's settings show once it has a key.
const cacheOn = (bo) => !!bo.get('wf:cacheKey');

// The fields, by the element types they belong to.
export const wfFields = [
  // A validation step's mode and target (its schema and rules: JSONElementField, RulesField).
  { name: 'validationMode', types: serviceTasks, when: validationStep, label: 'Validation mode', options: ['', 'strict', 'warn'],
    description: 'strict (the default): a violation throws the BPMN error VALIDATION_FAILED listing them all (in validationErrors); warn: it goes on and the history records them' },
  { name: 'validationTarget', types: serviceTasks, when: validationStep, label: 'Validation target',
    description: 'An expression giving the data to check, e.g. order; empty: all the variables' },
  { name: 'readers', types: ['bpmn:Process'], label: 'Readers',
    description: 'Users and groups, comma-separated, who may read this process\'s instances besides those who work on their tasks' },
  { name: 'timeout', types: ['bpmn:Process'], label: 'Instance timeout',
    description: 'ISO 8601 duration an instance may run, e.g. PT1H: longer, it ends failed and its work is cancelled' },
  { name: 'maxConcurrentInstances', types: ['bpmn:Process'], label: 'Max running instances',
    description: 'How many instances of this definition may run at once; empty: no limit' },
  { name: 'overLimit', types: ['bpmn:Process'], label: 'Over the limit', options: ['', 'queue', 'refuse'],
    description: 'A start over the limit: queue (the default) waits for a running one to end; refuse answers 429' },
  { name: 'retryBudget', types: ['bpmn:Process'], label: 'Retry budget',
    description: 'Retries all of an instance\'s jobs get together; once spent, a failure is final. Empty: no budget' },
  { name: 'onFailure', types: ['bpmn:Process'], label: 'Unhandled failure', options: ['', 'incident', 'fail'],
    description: 'incident (BPMN\'s default): the token waits for an operator; fail: the instance ends failed' },
  { name: 'retries', types: jobTasks, label: 'Retries', description: 'Attempts after the first when the job fails; 0 for none' },
  { name: 'backoff', types: jobTasks, label: 'Backoff', options: ['', 'fixed', 'linear', 'exponential', 'immediate'] },
  { name: 'backoffFactor', types: jobTasks, label: 'Backoff factor', description: 'How much each exponential delay grows, 1 or more; default 2' },
  { name: 'retryDelay', types: jobTasks, label: 'Retry delay', description: 'ISO 8601 duration before the first retry, e.g. PT5S' },
  { name: 'maxDelay', types: jobTasks, label: 'Longest delay', description: 'ISO 8601 duration the backoff never exceeds, e.g. PT5M' },
  { name: 'jitter', types: jobTasks, label: 'Jitter', description: 'Share of each delay to randomise, between 0 and 1, e.g. 0.1' },
  { name: 'retryOn', types: jobTasks, label: 'Retry on', description: 'Error codes that are retried, comma-separated; empty: every failure' },
  { name: 'doNotRetryOn', types: jobTasks, label: 'Never retry on', description: 'Error codes that are never retried, comma-separated: the first such failure is an incident' },
  { name: 'retryOnStatus', types: jobTasks, label: 'Retry on HTTP status',
    description: 'HTTP status codes an http task retries, comma-separated, e.g. 429, 503; empty: 429 and 500-504' },
  { name: 'timeout', types: jobTasks, label: 'Timeout', description: 'ISO 8601 duration one attempt may take, e.g. PT30S' },
  { name: 'concurrency', types: jobTasks, label: 'Concurrency', description: 'How many of these jobs may run at once' },
  { name: 'rateLimit', types: jobTasks, label: 'Rate limit', description: 'How many of these jobs may start per second' },
  { name: 'priority', types: jobTasks, label: 'Job priority', description: '0 to 100 (default 50), or an expression such as =vip ? 90 : 50: higher runs and is fetched first' },
  { name: 'circuitBreaker', types: serviceTasks, label: 'Circuit breaker',
    description: 'true: jobs go through a breaker keyed by the job type (the host for http), or a key tasks sharing one breaker name. Open, it fails jobs at once with the error CIRCUIT_OPEN, for an error boundary or a fallback flow' },
  { name: 'circuitFailureThreshold', types: serviceTasks, when: breakerOn, label: 'Breaker: failures in a row', description: 'Failures in a row that open it (default 5)' },
  { name: 'circuitFailureRate', types: serviceTasks, when: breakerOn, label: 'Breaker: failure rate', description: 'Share of failed calls in the window that opens it, e.g. 0.5 (the default)' },
  { name: 'circuitMinCalls', types: serviceTasks, when: breakerOn, label: 'Breaker: minimum calls', description: 'Calls in the window before the failure rate counts (default 10)' },
  { name: 'circuitWindow', types: serviceTasks, when: breakerOn, label: 'Breaker: window', description: 'ISO 8601 duration the failure rate is measured over, e.g. PT2M (the default)' },
  { name: 'circuitOpenTimeout', types: serviceTasks, when: breakerOn, label: 'Breaker: open for', description: 'ISO 8601 duration it stays open before it lets probes through, e.g. PT1M (the default)' },
  { name: 'circuitHalfOpenCalls', types: serviceTasks, when: breakerOn, label: 'Breaker: probes', description: 'Probes let through after it was open; that many successes close it (default 3)' },
  { name: 'cacheKey', types: jobTasks, label: 'Cache key',
    description: 'Reuse a stored result instead of running the job: a template over the variables, e.g. quote-${sku}. Jobs with the same key (and job type, in the scope below) share it; only successful results are stored' },
  { name: 'cacheTtl', types: jobTasks, when: cacheOn, label: 'Cache: keep for', description: 'ISO 8601 duration a stored result is reused, e.g. PT10M (required)' },
  { name: 'cacheCondition', types: jobTasks, when: cacheOn, label: 'Cache: when', description: 'An expression over the variables; the cache is read and filled only while it holds, e.g. !fresh. Empty: always' },
  { name: 'cacheScope', types: jobTasks, when: cacheOn, label: 'Cache: shared by', options: ['', 'global', 'definition', 'instance'], none: '(default: definition)',
    description: 'global: every definition; definition (the default): instances of this definition; instance: only this instance' },
  { name: 'fallback', types: ['bpmn:SequenceFlow'], when: (bo) => !!bo.sourceRef && bo.sourceRef.$instanceOf('bpmn:Activity'),
    label: 'Fallback flow', options: ['', 'true'], none: 'no',
    description: 'true: taken only when the task\'s circuit breaker is open and no error boundary catches CIRCUIT_OPEN; never when the task completes' },
  { name: 'webhook', types: hookable, when: waitsForMessage, label: 'Webhook', options: ['', 'true'], none: 'no',
    description: 'true: waits for a POST to a URL of its own (shown in the monitor while it waits) instead of a message; remove the message reference' },
  { name: 'webhookFilter', types: hookable, when: hookOn, label: 'Webhook filter',
    description: 'Expression the POSTed JSON must pass, over its fields and payload, e.g. status == "paid"; others get 422 and change nothing' },
  { name: 'webhookMultiUse', types: hookable, when: hookOn, label: 'Webhook multi-use', options: ['', 'true'], none: 'no',
    description: 'true: the URL stays open after a delivery while the element waits (a non-interrupting boundary fires per POST); no: it closes' },
  { name: 'inboxVariables', types: ['bpmn:UserTask'], label: 'Inbox variables', description: 'Up to 3 variables, comma-separated, shown on the task\'s inbox card' },
  // A join policy, on a gateway where branches join (engine/join_policy.go).
  { name: 'joinPolicy', types: joins, label: 'Join policy', options: ['', 'all', 'any', 'majority', 'n_of_m'],
    description: 'Goes on once enough branches completed: all, any (one), majority (more than half), n_of_m (N below). A branch whose work fails for good counts as failed; when the policy is out of reach the join throws the BPMN error JOIN_FAILED' },
  { name: 'joinN', types: joins, label: 'N branches', description: 'With n_of_m: how many branches must complete, e.g. 2' },
  { name: 'branchTimeout', types: joins, label: 'Branch timeout', description: 'ISO 8601 duration from the fork after which a branch that has not arrived is cancelled and counts as failed, e.g. PT10M' },
  { name: 'cancelRemaining', types: joins, label: 'Cancel remaining', options: ['', 'true', 'false'],
    description: 'true: the branches still running are cancelled when the join goes on; false (default): they finish and end at the join' },
  { name: 'joinResultsVariable', types: joins, label: 'Results variable', description: 'Gets each branch\'s {status, error, variables it set} by incoming flow id; default the gateway\'s id' },
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
      element, id, label: field.label, description: field.description, getValue, setValue,
      getOptions: () => field.options.map((o) => ({ value: o, label: o || field.none || '(engine default)' })),
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

// The script of a JavaScript script task, in a code box that marks syntax
// errors as you type. The server compiles it as the engine will run it (a
// function body: `return {…}` at the top level is fine); the pages' content
// security policy allows the browser no eval to check it itself. Answers
// are kept per source.
const syntax = new Map();
function syntaxError(src) {
  if (!src.trim()) return Promise.resolve('');
  if (syntax.has(src)) return Promise.resolve(syntax.get(src));
  return api('POST', '/api/v1/scripts/check', { source: src })
    .then((r) => (r.ok ? '' : (r.line ? `line ${r.line}, column ${r.column}: ${r.error}` : r.error)))
    .catch(() => '') // no answer: the deploy's validation still checks it
    .then((msg) => { syntax.set(src, msg); return msg; });
}

// showSyntax marks the entry holding textarea with src's syntax error, or
// clears the mark, once the server has answered for the text still there.
let syntaxTimer;
function showSyntax(textarea, src) {
  clearTimeout(syntaxTimer);
  syntaxTimer = setTimeout(() => syntaxError(src).then((error) => {
    if (textarea.value !== src) return; // typed on since
    const entry = textarea.closest('.bio-properties-panel-entry');
    if (!entry) return;
    entry.classList.toggle('has-error', !!error);
    entry.dataset.checked = src === '' ? 'empty' : 'true';
    const note = entry.querySelector('.wf-syntax-error');
    note.textContent = error ? `Syntax error: ${error}` : '';
    note.hidden = !error;
  }), 200);
}

function ScriptField(props) {
  const { element, id, bo } = props;
  const modeling = useService('modeling');
  const value = bo.get('script') || '';
  const error = syntax.get(value) || '';
  // Saved when the box loses focus (one undo step per edit); checked as one
  // types. (The bundle's Preact maps onChange to the input event, hence blur.)
  const save = (v) => { if (v !== (bo.get('script') || '')) modeling.updateModdleProperties(element, bo, { script: v, scriptFormat: 'javascript' }); };
  return h('div', { class: `bio-properties-panel-entry${error ? ' has-error' : ''}`, 'data-entry-id': id }, [
    h('label', { class: 'bio-properties-panel-label', for: `wf-${id}` }, 'Script (JavaScript)'),
    h('textarea', {
      id: `wf-${id}`, class: 'bio-properties-panel-input wf-code', rows: 8, spellcheck: false, value,
      ref: (ta) => { if (ta && !syntax.has(value)) showSyntax(ta, value); },
      onInput: (ev) => showSyntax(ev.target, ev.target.value),
      onBlur: (ev) => save(ev.target.value),
    }),
    h('div', { class: 'bio-properties-panel-error wf-syntax-error', hidden: !error }, error ? `Syntax error: ${error}` : ''),
    h('div', { class: 'bio-properties-panel-description' },
      'Reads variables by name; return an object to set variables, e.g. return {total: price * qty}'),
  ]);
}

// A JSON object in an extension element's text, edited in a box that marks
// text that is not one: the parameters a service task's job gets
// (wf:parameters, whose values may hold ${...} templates), as a JSON DAG
// node or a graph Task gives them (a DAG or graph saved as BPMN carries
// them so), and a validation step's JSON Schema (wf:schema). Saved on blur
// when the text is a JSON object; an empty box removes the element.
function objectProblem(text) {
  if (!text.trim()) return '';
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? '' : 'write a JSON object, {"name": value, ...}';
  } catch (err) {
    return err.message;
  }
}

const jsonBoxes = {
  'wf-parameters': { type: 'wf:Parameters', label: 'Parameters (JSON)', rows: 6,
    description: 'What the job\'s handler gets, e.g. {"channel": "#ops", "text": "Order ${orderId} shipped"}; values may hold ${...} templates' },
  'wf-schema': { type: 'wf:Schema', label: 'Validation schema (JSON Schema)', rows: 10,
    description: 'What the data must look like, e.g. {"type": "object", "required": ["id"]}. Draft 2020-12, or the draft its "$schema" names (draft-07…)' },
};

function JSONElementField(props) {
  const { element, id, bo } = props;
  const box = jsonBoxes[id];
  const modeling = useService('modeling');
  const bpmnFactory = useService('bpmnFactory');
  const current = (bo.extensionElements?.values || []).find((v) => v.$instanceOf(box.type));
  const value = current?.body || '';
  const show = (textarea, text) => {
    const problem = objectProblem(text);
    const entry = textarea.closest('.bio-properties-panel-entry');
    entry.classList.toggle('has-error', !!problem);
    const note = entry.querySelector(`.${id}-error`);
    note.textContent = problem ? `Not saved: ${problem}` : '';
    note.hidden = !problem;
  };
  const save = (text) => {
    if (text === value || objectProblem(text)) return;
    const ext = extensionElements(element, bo, modeling, bpmnFactory);
    const values = (ext.values || []).filter((v) => !v.$instanceOf(box.type));
    if (text.trim()) {
      const el = bpmnFactory.create(box.type, { body: text });
      el.$parent = ext;
      values.push(el);
    }
    modeling.updateModdleProperties(element, ext, { values });
  };
  return h('div', { class: 'bio-properties-panel-entry', 'data-entry-id': id }, [
    h('label', { class: 'bio-properties-panel-label', for: `wf-${id}` }, box.label),
    h('textarea', {
      id: `wf-${id}`, class: 'bio-properties-panel-input wf-code', rows: box.rows, spellcheck: false, value,
      onInput: (ev) => show(ev.target, ev.target.value),
      onBlur: (ev) => save(ev.target.value),
    }),
    h('div', { class: `bio-properties-panel-error ${id}-error`, hidden: true }, ''),
    h('div', { class: 'bio-properties-panel-description' }, box.description),
  ]);
}

// extensionElements returns bo's extension elements, made when it has none.
function extensionElements(element, bo, modeling, bpmnFactory) {
  let ext = bo.extensionElements;
  if (!ext) {
    ext = bpmnFactory.create('bpmn:ExtensionElements', { values: [] });
    ext.$parent = bo;
    modeling.updateModdleProperties(element, bo, { extensionElements: ext });
  }
  return ext;
}

// A validation step's rules (wf:rule elements): expressions over the
// variables that must hold, each with the message a violation shows. A rule
// is saved when its box loses focus; one left without an expression is a
// problem the deploy names.
function RulesField(props) {
  const { element, id, bo } = props;
  const modeling = useService('modeling');
  const bpmnFactory = useService('bpmnFactory');
  const rules = (bo.extensionElements?.values || []).filter((v) => v.$instanceOf('wf:Rule'));
  const set = (rule, attr, v) => { if (v !== (rule.get(attr) || '')) modeling.updateModdleProperties(element, rule, { [attr]: v || undefined }); };
  const add = () => {
    const ext = extensionElements(element, bo, modeling, bpmnFactory);
    const rule = bpmnFactory.create('wf:Rule', {});
    rule.$parent = ext;
    modeling.updateModdleProperties(element, ext, { values: [...(ext.values || []), rule] });
  };
  const remove = (rule) => {
    const ext = bo.extensionElements;
    modeling.updateModdleProperties(element, ext, { values: ext.values.filter((v) => v !== rule) });
  };
  return h('div', { class: 'bio-properties-panel-entry', 'data-entry-id': id }, [
    h('label', { class: 'bio-properties-panel-label' }, 'Validation rules'),
    ...rules.map((rule, i) => h('div', { class: 'wf-rule', 'data-rule': i }, [
      h('input', { class: 'bio-properties-panel-input wf-rule-expression', placeholder: 'expression, e.g. order.total > 0',
        value: rule.get('expression') || '', onBlur: (ev) => set(rule, 'expression', ev.target.value) }),
      h('input', { class: 'bio-properties-panel-input wf-rule-message', placeholder: 'message when it does not hold',
        value: rule.get('message') || '', onBlur: (ev) => set(rule, 'message', ev.target.value) }),
      h('button', { type: 'button', class: 'wf-rule-remove', title: 'Remove this rule', onClick: () => remove(rule) }, '×'),
    ])),
    h('button', { type: 'button', class: 'wf-rule-add', onClick: add }, 'Add rule'),
    h('div', { class: 'bio-properties-panel-description' },
      'Expressions over the variables (JavaScript, or =FEEL) that must hold; each one that does not is a violation with its message'),
  ]);
}

// A process's chain triggers (wf:trigger, engine/chain.go): each starts
// another definition when an instance ends. One small form per trigger;
// each box is saved when it loses focus. Input mappings are written one a
// line as "variable: expression", e.g. "orderId: =orderId".
function triggersOf(bo) {
  return (bo.extensionElements?.values || []).filter((v) => v.$instanceOf('wf:Trigger'));
}

function inputsText(tr) {
  return (tr.inputs || []).map((m) => `${m.target}: ${m.source}`).join('\n');
}

function TriggersField(props) {
  const { element, id, bo } = props;
  const modeling = useService('modeling');
  const bpmnFactory = useService('bpmnFactory');
  const triggers = triggersOf(bo);
  const extension = () => {
    let ext = bo.extensionElements;
    if (!ext) {
      ext = bpmnFactory.create('bpmn:ExtensionElements', { values: [] });
      ext.$parent = bo;
      modeling.updateModdleProperties(element, bo, { extensionElements: ext });
    }
    return ext;
  };
  const add = () => {
    const ext = extension();
    const tr = bpmnFactory.create('wf:Trigger', { on: 'completed', target: '' });
    tr.$parent = ext;
    modeling.updateModdleProperties(element, ext, { values: [...(ext.values || []), tr] });
  };
  const remove = (tr) => {
    const ext = bo.extensionElements;
    modeling.updateModdleProperties(element, ext, { values: ext.values.filter((v) => v !== tr) });
  };
  const set = (tr, attr, value) => {
    if ((tr.get(attr) || '') !== value) modeling.updateModdleProperties(element, tr, { [attr]: value || undefined });
  };
  const setInputs = (tr, text) => {
    if (text === inputsText(tr)) return;
    const inputs = text.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
      const at = line.indexOf(':');
      const m = bpmnFactory.create('wf:Input', at < 0
        ? { target: line, source: `=${line}` } // a bare name passes the variable of that name
        : { target: line.slice(0, at).trim(), source: line.slice(at + 1).trim() });
      m.$parent = tr;
      return m;
    });
    modeling.updateModdleProperties(element, tr, { inputs });
  };
  const box = (tr, i, attr, label, hint) => h('label', { class: 'wf-trigger-field' }, [
    h('span', {}, label),
    h('input', { class: 'bio-properties-panel-input', 'data-attr': attr, value: tr.get(attr) || '', placeholder: hint,
      onBlur: (ev) => set(tr, attr, ev.target.value.trim()) }),
  ]);
  return h('div', { class: 'bio-properties-panel-entry wf-triggers', 'data-entry-id': id }, [
    h('label', { class: 'bio-properties-panel-label' }, 'Triggers (chaining)'),
    ...triggers.map((tr, i) => h('fieldset', { class: 'wf-trigger', 'data-index': i }, [
      h('label', { class: 'wf-trigger-field' }, [
        h('span', {}, 'When an instance'),
        h('select', { class: 'bio-properties-panel-input', 'data-attr': 'on', value: tr.get('on') || 'completed',
          onInput: (ev) => set(tr, 'on', ev.target.value) },
        ['completed', 'failed', 'cancelled'].map((o) => h('option', { value: o }, o))),
      ]),
      box(tr, i, 'target', 'start definition', 'key, e.g. invoice'),
      box(tr, i, 'version', 'version', 'latest, or a number'),
      box(tr, i, 'condition', 'if', 'e.g. approved (empty: always)'),
      h('label', { class: 'wf-trigger-field' }, [
        h('span', {}, 'with variables'),
        h('textarea', { class: 'bio-properties-panel-input wf-code', 'data-attr': 'inputs', rows: 2, spellcheck: false,
          value: inputsText(tr), placeholder: 'orderId: =orderId', onBlur: (ev) => setInputs(tr, ev.target.value) }),
      ]),
      h('label', { class: 'wf-trigger-check' }, [
        h('input', { type: 'checkbox', 'data-attr': 'allVariables', checked: tr.get('allVariables') === 'true',
          onInput: (ev) => set(tr, 'allVariables', ev.target.checked ? 'true' : '') }),
        ' and all its variables',
      ]),
      h('button', { type: 'button', class: 'small danger wf-trigger-remove', onClick: () => remove(tr) }, 'Remove trigger'),
    ])),
    h('button', { type: 'button', class: 'small wf-trigger-add', onClick: add }, 'Add trigger'),
    h('div', { class: 'bio-properties-panel-description' },
      'When an instance ends so and the condition holds, start the definition with the variables mapped, one a line as variable: expression. '
      + 'The started instance links back to this one; chains stop after 10 (MaxChainDepth).'),
  ]);
}

// The job types this server runs itself (GET /api/v1/job-types), offered
// as suggestions; any other type waits for an external worker.
let jobTypes;
function loadJobTypes() {
  if (jobTypes) return;
  jobTypes = [];
  fetch('/api/v1/job-types', { credentials: 'same-origin' })
    .then((r) => (r.ok ? r.json() : { handlers: [] }))
    .then((body) => {
      jobTypes = body.handlers || [];
      const list = document.getElementById('wf-job-types');
      if (list) list.replaceChildren(...jobTypes.map((t) => Object.assign(document.createElement('option'), { value: t })));
    })
    .catch(() => {});
}

function JobTypeField(props) {
  const { element, id, bo } = props;
  const modeling = useService('modeling');
  loadJobTypes();
  const save = (v) => { if (v !== (bo.get('wf:type') || '')) modeling.updateModdleProperties(element, bo, { 'wf:type': v || undefined }); };
  return h('div', { class: 'bio-properties-panel-entry', 'data-entry-id': id }, [
    h('label', { class: 'bio-properties-panel-label', for: `wf-${id}` }, 'Job type'),
    h('input', {
      id: `wf-${id}`, class: 'bio-properties-panel-input', list: 'wf-job-types', value: bo.get('wf:type') || '',
      onBlur: (ev) => save(ev.target.value), // saved on leaving the box: one undo step
    }),
    h('datalist', { id: 'wf-job-types' }, jobTypes.map((t) => h('option', { value: t }))),
    h('div', { class: 'bio-properties-panel-description' },
      'A handler this server runs (suggested as you type), or any other name: an external worker fetches it. Wins over the task definition type.'),
  ]);
}

// When a timer fires: asked of the server (GET /api/v1/timers/preview) for
// what the definition says now; answers are kept per definition.
const previews = new Map();
function timerOf(def) {
  for (const kind of ['timeCycle', 'timeDate', 'timeDuration']) {
    const v = def.get(kind);
    if (v && v.body) return { kind, expression: v.body };
  }
  return null;
}

function TimerPreview(props) {
  const { id, def } = props;
  const t = timerOf(def);
  let text = 'Set a duration, date or cycle to see when it fires.';
  if (t) {
    const tz = def.get('wf:timeZone') || '';
    const key = `${t.kind}|${t.expression}|${tz}`;
    if (!previews.has(key)) {
      previews.set(key, 'Working out when it fires…');
      const q = new URLSearchParams({ kind: t.kind, expression: t.expression, timeZone: tz, count: '5' });
      fetch(`/api/v1/timers/preview?${q}`, { credentials: 'same-origin' })
        .then(async (r) => {
          const body = await r.json();
          if (!r.ok) return `Cannot fire: ${body.message || body.error || r.statusText}`;
          if (!body.next.length) return 'Never fires from now on.';
          return `From now: ${body.next.map((d) => new Date(d).toLocaleString()).join(' · ')}`;
        })
        .catch((err) => `No preview: ${err.message}`)
        .then((msg) => {
          previews.set(key, msg);
          for (const node of document.querySelectorAll('.wf-timer-preview')) {
            if (node.dataset.key === key) node.textContent = msg;
          }
        });
    }
    text = previews.get(key);
    return h('div', { class: 'bio-properties-panel-entry', 'data-entry-id': id }, [
      h('label', { class: 'bio-properties-panel-label' }, 'Next fire times'),
      h('div', { class: 'wf-timer-preview', 'data-key': key }, text),
    ]);
  }
  return h('div', { class: 'bio-properties-panel-entry', 'data-entry-id': id }, [
    h('label', { class: 'bio-properties-panel-label' }, 'Next fire times'),
    h('div', { class: 'wf-timer-preview' }, text),
  ]);
}

function TimeZoneField(props) {
  const { element, id, def } = props;
  const modeling = useService('modeling');
  const debounce = useService('debounceInput');
  return h(TextFieldEntry, {
    element, id, label: 'Time zone', debounce,
    description: 'IANA zone a cron cycle runs in, e.g. Europe/Berlin; empty: UTC',
    getValue: () => def.get('wf:timeZone') || '',
    setValue: (v) => modeling.updateModdleProperties(element, def, { 'wf:timeZone': v || undefined }),
  });
}

function timerDefinition(bo) {
  return (bo.get('eventDefinitions') || []).find((d) => d.$type === 'bpmn:TimerEventDefinition');
}

// wf: attributes of a multi-instance marker, edited like wfFields (Field).
const miFields = [
  { name: 'errorPolicy', label: 'When an instance fails', options: ['', 'continue', 'collect'],
    description: 'empty: an incident (stop); continue: skip its item; collect: skip it and add its error to the errors variable' },
  { name: 'errorsVariable', label: 'Errors variable', description: 'With collect: the list of {loopCounter, item, error}; default errors' },
];

// wf:maxParallelism on a parallel multi-instance marker.
function MaxParallelField(props) {
  const { element, id, lc } = props;
  const modeling = useService('modeling');
  const debounce = useService('debounceInput');
  return h(TextFieldEntry, {
    element, id, label: 'Max parallelism', debounce,
    description: 'At most this many instances run at once; the next starts as one completes. Empty: all at once',
    getValue: () => lc.get('wf:maxParallelism') || '',
    setValue: (v) => modeling.updateModdleProperties(element, lc, { 'wf:maxParallelism': v || undefined }),
  });
}

class WfPropertiesProvider {
  constructor(propertiesPanel) {
    propertiesPanel.registerProvider(400, this);
  }

  getGroups(element) {
    return (groups) => {
      const bo = target(element);
      if (!bo) return groups;
      const entries = wfFields.filter((f) => f.types.some((t) => bo.$instanceOf(t)) && (!f.when || f.when(bo))).map((field) => ({
        id: `wf-${field.name}`, component: Field, field, bo,
        isEdited: field.options ? isSelectEntryEdited : isTextFieldEntryEdited,
      }));
      if (bo.$instanceOf('bpmn:ScriptTask') && (!bo.scriptFormat || /^(javascript|js|ecmascript)$/i.test(bo.scriptFormat))) {
        entries.unshift({ id: 'wf-script', component: ScriptField, bo, isEdited: () => !!bo.get('script') });
      }
      if (bo.$instanceOf('bpmn:Process')) {
        entries.push({ id: 'wf-triggers', component: TriggersField, bo, isEdited: () => triggersOf(bo).length > 0 });
      }
      if (['bpmn:ServiceTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'].some((t) => bo.$instanceOf(t))) {
        entries.unshift({ id: 'wf-type', component: JobTypeField, bo, isEdited: () => !!bo.get('wf:type') },
          { id: 'wf-parameters', component: JSONElementField, bo,
            isEdited: () => (bo.extensionElements?.values || []).some((v) => v.$instanceOf('wf:Parameters')) },
          ...(validationStep(bo) ? [
            { id: 'wf-schema', component: JSONElementField, bo,
              isEdited: () => (bo.extensionElements?.values || []).some((v) => v.$instanceOf('wf:Schema')) },
            { id: 'wf-rules', component: RulesField, bo,
              isEdited: () => (bo.extensionElements?.values || []).some((v) => v.$instanceOf('wf:Rule')) },
          ] : []));
      }
      const timer = bo.get && bo.$instanceOf('bpmn:Event') && timerDefinition(bo);
      if (timer) {
        entries.push({ id: 'wf-timeZone', component: TimeZoneField, def: timer, isEdited: isTextFieldEntryEdited },
          { id: 'wf-timerPreview', component: TimerPreview, def: timer, isEdited: () => false });
      }
      entries.push(...bpmnFields.filter((f) => f.types.some((t) => bo.$instanceOf(t))).map((field) => ({
        id: `wf-${field.name}`, component: BpmnField, field, bo,
        isEdited: field.options ? isSelectEntryEdited : isTextFieldEntryEdited,
      })));
      const lc = bo.get && bo.get('loopCharacteristics');
      if (lc && lc.$type === 'bpmn:MultiInstanceLoopCharacteristics' && !lc.isSequential) {
        entries.push({ id: 'wf-maxParallelism', component: MaxParallelField, lc, isEdited: isTextFieldEntryEdited });
      }
      if (lc && lc.$type === 'bpmn:MultiInstanceLoopCharacteristics') {
        entries.push(...miFields.map((field) => ({
          id: `wf-${field.name}`, component: Field, field, bo: lc,
          isEdited: field.options ? isSelectEntryEdited : isTextFieldEntryEdited,
        })));
      }
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
