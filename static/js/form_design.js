// The form of a user task or start event, designed with the form-js editor
// and kept in the diagram as our own <wf:form> extension element (its text
// is the form-js schema). Camunda's modeling behaviors strip an embedded
// zeebe form key from any task with <zeebe:userTask/> — which every task the
// designer turns into a user task has — so a Camunda-style embedded form
// would silently vanish after Apply; wf:form is left alone and the engine
// reads it. A deployed form can be linked instead (zeebe:formDefinition formId).
import { api, flash, el } from './common.js';

const editorCSS = ['form-js/form-js.css', 'form-js-editor/form-js-editor.css', 'form-js-editor/properties-panel.css'];
const embeddedPrefix = 'camunda-forms:bpmn:';

function loadCSS() {
  for (const href of editorCSS) {
    const url = `/static/vendor/css/${href}`;
    if (document.querySelector(`link[href="${url}"]`)) continue;
    const l = document.createElement('link');
    l.rel = 'stylesheet';
    l.href = url;
    document.head.append(l);
  }
}

/** hasForm says whether an element can carry a form: user tasks and start events. */
export const hasForm = (element) => element && (element.type === 'bpmn:UserTask' || element.type === 'bpmn:StartEvent');

const values = (bo) => bo.extensionElements?.values || [];

function processOf(bo) {
  let p = bo.$parent;
  while (p && p.$type !== 'bpmn:Process') p = p.$parent;
  return p;
}

/** legacySchema reads a Camunda 8 embedded form (zeebe:userTaskForm) if the element has one. */
function legacySchema(bo) {
  const fd = values(bo).find((v) => v.$type === 'zeebe:FormDefinition');
  if (!fd?.formKey?.startsWith(embeddedPrefix)) return null;
  const id = fd.formKey.slice(embeddedPrefix.length);
  const form = values(processOf(bo) || {}).find((v) => v.$type === 'zeebe:UserTaskForm' && v.id === id);
  return form?.body || null;
}

/** currentSchema returns the element's form schema as stored, or a new one. */
export function currentSchema(bo) {
  const body = values(bo).find((v) => v.$type === 'wf:Form')?.body || legacySchema(bo);
  if (body) {
    try { return JSON.parse(body); } catch { /* a broken schema starts over */ }
  }
  return { type: 'default', id: `Form_${bo.id}`, components: [] };
}

/** linkedFormId returns the id of the deployed form the element links, if any. */
export function linkedFormId(bo) {
  return values(bo).find((v) => v.$type === 'zeebe:FormDefinition')?.formId || '';
}

function extensions(modeler, element) {
  const bo = element.businessObject;
  if (bo.extensionElements) return bo.extensionElements;
  const ext = modeler.get('moddle').create('bpmn:ExtensionElements', { values: [] });
  ext.$parent = bo;
  modeler.get('modeling').updateModdleProperties(element, bo, { extensionElements: ext });
  return ext;
}

// withoutForms drops every form reference of the element (wf:form and
// zeebe:formDefinition) and the embedded zeebe:userTaskForm it pointed at.
function withoutForms(modeler, element, ext) {
  const bo = element.businessObject;
  const fd = values(bo).find((v) => v.$type === 'zeebe:FormDefinition');
  if (fd?.formKey?.startsWith(embeddedPrefix)) {
    const proc = processOf(bo);
    const procEl = proc && modeler.get('elementRegistry').filter((e) => e.businessObject === proc || e.businessObject.processRef === proc)[0];
    const pext = proc?.extensionElements;
    const id = fd.formKey.slice(embeddedPrefix.length);
    if (procEl && pext) {
      modeler.get('modeling').updateModdleProperties(procEl, pext,
        { values: pext.values.filter((v) => !(v.$type === 'zeebe:UserTaskForm' && v.id === id)) });
    }
  }
  return ext.values.filter((v) => v.$type !== 'wf:Form' && v.$type !== 'zeebe:FormDefinition');
}

/** applySchema keeps schema in the diagram as the element's form (wf:form). */
export function applySchema(modeler, element, schema) {
  const ext = extensions(modeler, element);
  const form = modeler.get('moddle').create('wf:Form', { body: JSON.stringify(schema) });
  form.$parent = ext;
  modeler.get('modeling').updateModdleProperties(element, ext, { values: [...withoutForms(modeler, element, ext), form] });
}

/** linkForm makes the element use the deployed form id (latest version). */
export function linkForm(modeler, element, formId) {
  const ext = extensions(modeler, element);
  const fd = modeler.get('moddle').create('zeebe:FormDefinition', { formId });
  fd.$parent = ext;
  modeler.get('modeling').updateModdleProperties(element, ext, { values: [...withoutForms(modeler, element, ext), fd] });
}

/** setupFormDesign wires the "Edit form" button, its dialog and window.wfpp's form hooks. */
export function setupFormDesign(modeler) {
  const button = document.getElementById('btn-form');
  const dialog = document.getElementById('form-dialog');
  const box = document.getElementById('form-editor');
  const picker = document.getElementById('form-linked');
  let editor;
  let element;
  const selected = () => {
    const sel = modeler.get('selection').get();
    return sel.length === 1 && hasForm(sel[0]) ? sel[0] : null;
  };
  modeler.on('selection.changed', () => { button.disabled = !selected(); });

  async function open(target) {
    element = target;
    document.getElementById('form-dialog-title').textContent = `Form of ${element.businessObject.name || element.id}`;
    dialog.dataset.ready = 'false';
    box.replaceChildren();
    box.textContent = 'Loading the form editor…';
    box.className = 'form-editor progress';
    if (!dialog.open) dialog.showModal();
    fillPicker(element).catch(() => {});
    try {
      loadCSS();
      const { createFormEditor } = await import('/static/vendor/form-editor.js');
      box.textContent = '';
      box.className = 'form-editor';
      if (editor) editor.destroy();
      editor = await createFormEditor({ container: box, schema: currentSchema(element.businessObject) });
      window.wfpp.formEditor = editor;
      dialog.dataset.ready = 'true';
    } catch (err) {
      box.textContent = `The form editor could not start: ${err.message}`;
    }
    return editor;
  }

  // fillPicker lists the deployed forms, for linking one instead of embedding.
  async function fillPicker(target) {
    picker.replaceChildren(el('option', { value: '', text: 'Loading deployed forms…' }));
    let items = [];
    try {
      items = (await api('GET', '/api/v1/forms')).items || [];
    } catch { /* no forms endpoint or none deployed */ }
    const current = linkedFormId(target.businessObject);
    picker.replaceChildren(el('option', { value: '', text: items.length ? 'Use a deployed form…' : 'No deployed forms' }),
      ...items.map((f) => el('option', { value: f.id, text: `${f.name || f.id} (v${f.version})`, selected: f.id === current })));
    picker.disabled = items.length === 0;
  }

  window.wfpp.openFormEditor = (id) => {
    const target = modeler.get('elementRegistry').get(id);
    if (!hasForm(target)) throw new Error(`${id} is not a user task or start event`);
    return open(target);
  };
  button.addEventListener('click', () => { const s = selected(); if (s) open(s); });
  document.getElementById('form-save').addEventListener('click', () => {
    if (!editor || !element) return;
    try {
      applySchema(modeler, element, editor.saveSchema());
      flash('Form applied. Save or deploy to keep it.');
      dialog.close();
    } catch (err) { flash(`The form was not applied: ${err.message}`, 'error'); }
  });
  document.getElementById('form-link').addEventListener('click', () => {
    if (!element || !picker.value) return;
    linkForm(modeler, element, picker.value);
    flash(`The deployed form ${picker.value} is linked (its latest version).`);
    dialog.close();
  });
  document.getElementById('form-close').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => { window.wfpp.formEditor = null; });
}
