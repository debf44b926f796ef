// The form of a user task, designed with the form-js editor and embedded in
// the diagram the way Camunda 8 does it: a zeebe:UserTaskForm on the process
// holding the schema, and a zeebe:FormDefinition on the task pointing at it
// with formKey "camunda-forms:bpmn:<id>". The engine reads exactly that.
import { flash } from './common.js';

const editorCSS = ['form-js/form-js.css', 'form-js-editor/form-js-editor.css', 'form-js-editor/properties-panel.css'];

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

const formIdOf = (task) => `UserTaskForm_${task.id}`;

function processOf(bo) {
  let p = bo.$parent;
  while (p && p.$type !== 'bpmn:Process') p = p.$parent;
  return p;
}

function extensions(modeler, element, bo) {
  if (bo.extensionElements) return bo.extensionElements;
  const ext = modeler.get('moddle').create('bpmn:ExtensionElements', { values: [] });
  ext.$parent = bo;
  modeler.get('modeling').updateModdleProperties(element, bo, { extensionElements: ext });
  return ext;
}

/** currentSchema returns the task's embedded form schema, or a new one. */
export function currentSchema(task) {
  const fd = (task.extensionElements?.values || []).find((v) => v.$type === 'zeebe:FormDefinition');
  const id = fd?.formKey?.startsWith('camunda-forms:bpmn:') ? fd.formKey.slice('camunda-forms:bpmn:'.length) : formIdOf(task);
  const proc = processOf(task);
  const form = (proc?.extensionElements?.values || []).find((v) => v.$type === 'zeebe:UserTaskForm' && v.id === id);
  if (form?.body) {
    try { return JSON.parse(form.body); } catch { /* a broken schema starts over */ }
  }
  return { type: 'default', id: `Form_${task.id}`, components: [] };
}

/** applySchema embeds schema in the diagram as the form of the task element. */
export function applySchema(modeler, element, schema) {
  const modeling = modeler.get('modeling');
  const moddle = modeler.get('moddle');
  const task = element.businessObject;
  const proc = processOf(task);
  const procEl = modeler.get('elementRegistry').filter((e) => e.businessObject === proc || e.businessObject.processRef === proc)[0];
  if (!proc || !procEl) throw new Error('the task is in no process');
  const id = formIdOf(task);
  const body = JSON.stringify(schema);
  // The task first: the Camunda behaviors tidy user task forms when a form
  // definition changes, so the form itself is written after.
  const text = extensions(modeler, element, task);
  const formKey = `camunda-forms:bpmn:${id}`;
  const fd = text.values.find((v) => v.$type === 'zeebe:FormDefinition');
  if (!fd) {
    const d = moddle.create('zeebe:FormDefinition', { formKey });
    d.$parent = text;
    modeling.updateModdleProperties(element, text, { values: [...text.values, d] });
  } else if (fd.formKey !== formKey || fd.formId || fd.externalReference) {
    modeling.updateModdleProperties(element, fd, { formKey, formId: undefined, externalReference: undefined });
  }
  const pext = extensions(modeler, procEl, proc);
  const form = pext.values.find((v) => v.$type === 'zeebe:UserTaskForm' && v.id === id);
  if (form) {
    modeling.updateModdleProperties(procEl, form, { body });
  } else {
    const f = moddle.create('zeebe:UserTaskForm', { id, body });
    f.$parent = pext;
    modeling.updateModdleProperties(procEl, pext, { values: [...pext.values, f] });
  }
}

/** setupFormDesign wires the "Edit form" button and its dialog. */
export function setupFormDesign(modeler) {
  const button = document.getElementById('btn-form');
  const dialog = document.getElementById('form-dialog');
  const box = document.getElementById('form-editor');
  let editor;
  let element;
  const selected = () => {
    const sel = modeler.get('selection').get();
    return sel.length === 1 && sel[0].type === 'bpmn:UserTask' ? sel[0] : null;
  };
  modeler.on('selection.changed', () => { button.disabled = !selected(); });
  button.addEventListener('click', async () => {
    element = selected();
    if (!element) return;
    document.getElementById('form-dialog-title').textContent = `Form of ${element.businessObject.name || element.id}`;
    box.replaceChildren();
    box.textContent = 'Loading the form editor…';
    box.className = 'form-editor progress';
    dialog.showModal();
    try {
      loadCSS();
      const { createFormEditor } = await import('/static/vendor/form-editor.js');
      box.textContent = '';
      box.className = 'form-editor';
      if (editor) editor.destroy();
      editor = await createFormEditor({ container: box, schema: currentSchema(element.businessObject) });
      dialog.dataset.ready = 'true';
    } catch (err) {
      box.textContent = `The form editor could not start: ${err.message}`;
    }
  });
  document.getElementById('form-save').addEventListener('click', () => {
    if (!editor || !element) return;
    try {
      applySchema(modeler, element, editor.saveSchema());
      flash('Form applied to the task. Deploy to use it.');
      dialog.close();
    } catch (err) { flash(`The form was not applied: ${err.message}`, 'error'); }
  });
  document.getElementById('form-close').addEventListener('click', () => dialog.close());
}
