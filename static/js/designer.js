// The designer page: bpmn-js Modeler with the properties panel (Zeebe
// provider: the zeebe: attributes the engine reads), import, download,
// drafts in localStorage, server-side validation shown on the diagram, and
// deploy.
import {
  Modeler, BpmnPropertiesPanelModule, BpmnPropertiesProviderModule,
  ZeebePropertiesProviderModule, ZeebeBehaviorsModule, zeebeModdle,
} from '/static/vendor/bpmn-modeler.js';
import { api, flash, busy, el, confirmDialog } from './common.js';
import { setupFormDesign } from './form_design.js';
import { wfModdle } from './wf_moddle.js';
import { WfPropertiesProviderModule } from './wf_properties.js';

const root = document.getElementById('designer');
const key = root.dataset.key || '';
const draftKey = `wfpp.draft.${key || 'new'}`;
const statusEl = document.getElementById('designer-status');
const problemsEl = document.getElementById('problems');

const blank = () => {
  const id = `Process_${Math.random().toString(36).slice(2, 9)}`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="Definitions_${id}" targetNamespace="https://workflowpp.dev/bpmn">
  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1" />
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="${id}">
      <bpmndi:BPMNShape id="StartEvent_1_di" bpmnElement="StartEvent_1">
        <dc:Bounds x="180" y="160" width="36" height="36" />
      </bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>`;
};

document.getElementById('canvas').textContent = '';
const modeler = new Modeler({
  container: '#canvas',
  propertiesPanel: { parent: '#properties' },
  additionalModules: [BpmnPropertiesPanelModule, BpmnPropertiesProviderModule,
    ZeebePropertiesProviderModule, ZeebeBehaviorsModule, WfPropertiesProviderModule],
  moddleExtensions: { zeebe: zeebeModdle, wf: wfModdle },
});
// Automation hooks (README): the modeler, openFormEditor(elementId), formEditor.
window.wfpp = { modeler, formEditor: null };
setupFormDesign(modeler);

let dirty = false;
const setStatus = (text) => { statusEl.textContent = text; };
const markDirty = (d) => {
  dirty = d;
  root.dataset.dirty = d ? 'true' : 'false';
  setStatus(d ? 'Unsaved changes' : '');
};

modeler.on('commandStack.changed', () => { markDirty(true); });
window.addEventListener('beforeunload', (ev) => {
  if (!dirty) return;
  ev.preventDefault();
  ev.returnValue = '';
});

async function open(xml, label) {
  clearProblems();
  try {
    const { warnings } = await modeler.importXML(xml);
    modeler.get('canvas').zoom('fit-viewport', 'auto');
    markDirty(false);
    setStatus(label + (warnings.length ? ` (${warnings.length} import warning(s))` : ''));
    root.dataset.loaded = 'true';
  } catch (err) {
    flash(`The diagram could not be opened: ${err.message}`, 'error');
  }
}

async function load() {
  const draft = localStorage.getItem(draftKey);
  if (key) {
    setStatus(`Loading ${key}…`);
    try {
      const xml = await api('GET', `/ui/definitions/${encodeURIComponent(key)}/0/source`, undefined, { text: true });
      await open(xml, `Opened the latest version of ${key}`);
      if (draft) flash(`You have a saved draft of ${key}: press "Restore draft" to open it.`);
      if (draft) showRestore(draft);
      return;
    } catch (err) {
      flash(`Could not load ${key}: ${err.message}`, 'error');
    }
  }
  if (draft && !key) {
    await open(draft, 'Restored your draft');
    return;
  }
  await open(blank(), 'New diagram');
}

function showRestore(draft) {
  const b = el('button', { type: 'button', id: 'btn-restore', text: 'Restore draft' });
  b.addEventListener('click', () => { open(draft, 'Restored your draft'); b.remove(); });
  statusEl.before(b);
}

async function xml() {
  const { xml: out } = await modeler.saveXML({ format: true });
  return out;
}

// Problems: markers on the elements with a message overlay, and a list.
let marked = [];
function clearProblems() {
  const canvas = modeler.get('canvas');
  const overlays = modeler.get('overlays');
  for (const id of marked) {
    canvas.removeMarker(id, 'wf-problem');
  }
  overlays.remove({ type: 'wf-problem' });
  marked = [];
  problemsEl.replaceChildren();
  problemsEl.hidden = true;
}

function showProblems(problems) {
  clearProblems();
  const registry = modeler.get('elementRegistry');
  const canvas = modeler.get('canvas');
  const overlays = modeler.get('overlays');
  for (const p of problems) {
    const target = p.elementId && registry.get(p.elementId);
    const item = el('li', {}, el('code', { text: p.elementId || 'diagram' }), ' ', el('span', { text: p.message }));
    if (target) {
      canvas.addMarker(p.elementId, 'wf-problem');
      marked.push(p.elementId);
      overlays.add(p.elementId, 'wf-problem', {
        position: { bottom: -6, left: 0 },
        html: el('div', { class: 'wf-problem-note', 'data-element': p.elementId, title: p.message, text: p.message }),
      });
      item.classList.add('clickable');
      item.addEventListener('click', () => modeler.get('selection').select(target));
    }
    problemsEl.append(item);
  }
  problemsEl.hidden = problems.length === 0;
}

async function validate() {
  const res = await api('POST', '/api/v1/definitions/validate', await xml(), { type: 'application/xml' });
  showProblems(res.problems || []);
  return res;
}

document.getElementById('btn-validate').addEventListener('click', (ev) => busy(ev.currentTarget, 'Validating…', async () => {
  try {
    const res = await validate();
    if (res.valid) flash('No problems: the diagram can be deployed.');
    else flash(`${res.problems.length} problem(s): see the marked elements.`, 'error');
  } catch (err) { flash(`Validation failed: ${err.message}`, 'error'); }
}));

document.getElementById('btn-deploy')?.addEventListener('click', (ev) => busy(ev.currentTarget, 'Deploying…', async () => {
  try {
    const rec = await api('POST', '/api/v1/definitions', await xml(), { type: 'application/xml' });
    clearProblems();
    markDirty(false);
    localStorage.removeItem(draftKey);
    root.dataset.deployed = rec.id;
    flash(`Deployed ${rec.key} version ${rec.version}.`);
    const link = el('a', { href: `/definitions/${encodeURIComponent(rec.key)}?version=${rec.version}`, id: 'deployed-link', text: `Open ${rec.key} v${rec.version}` });
    setStatus('');
    statusEl.replaceChildren(link);
  } catch (err) {
    if (Array.isArray(err.details) && err.details.length) showProblems(err.details);
    flash(`Not deployed: ${err.message}`, 'error');
  }
}));

document.getElementById('btn-draft').addEventListener('click', async () => {
  try {
    localStorage.setItem(draftKey, await xml());
    markDirty(false);
    setStatus(`Draft saved in this browser at ${new Date().toLocaleTimeString()}`);
  } catch (err) { flash(`Draft not saved: ${err.message}`, 'error'); }
});

document.getElementById('btn-download').addEventListener('click', async () => {
  try {
    const text = await xml();
    const procId = modeler.getDefinitions()?.rootElements?.find((e) => e.$type === 'bpmn:Process')?.id || 'diagram';
    const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'application/xml' })), download: `${procId}.bpmn` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  } catch (err) { flash(`Download failed: ${err.message}`, 'error'); }
});

document.getElementById('btn-new').addEventListener('click', async () => {
  if (dirty && !await confirmDialog('Discard the unsaved changes and start a new diagram?', 'Discard')) return;
  open(blank(), 'New diagram');
});

document.getElementById('file-input').addEventListener('change', async (ev) => {
  const file = ev.target.files[0];
  ev.target.value = '';
  if (!file) return;
  if (dirty && !await confirmDialog('Discard the unsaved changes and import the file?', 'Discard')) return;
  try {
    await open(await file.text(), `Imported ${file.name}`);
    markDirty(true);
  } catch (err) { flash(`Import failed: ${err.message}`, 'error'); }
});

load();
