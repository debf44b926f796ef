// The designer page: bpmn-js Modeler with the properties panel, import,
// download, drafts in localStorage, server-side validation shown on the
// diagram, and deploy. The panel edits the extension attributes the engine
// reads in the file's own flavour: zeebe: (Camunda 8, the default) or
// camunda: (Camunda 7); a file without a diagram is laid out on import.
import {
  Modeler, BpmnPropertiesPanelModule, BpmnPropertiesProviderModule,
  ZeebePropertiesProviderModule, ZeebeBehaviorsModule, zeebeModdle,
  CamundaPlatformPropertiesProviderModule, CamundaPlatformBehaviorsModule, camundaModdle,
  layoutProcess,
} from '/static/vendor/bpmn-modeler.js';
import { api, flash, busy, el, confirmDialog } from './common.js';
import { setupFormDesign } from './form_design.js';
import { wfModdle } from './wf_moddle.js';
import { WfPropertiesProviderModule } from './wf_properties.js';
import { withFlowRefs } from './layout.js';

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

const zeebeNS = 'http://camunda.org/schema/zeebe/1.0';
const camunda7NS = 'http://camunda.org/schema/1.0/bpmn';
const bpmndiNS = 'http://www.omg.org/spec/BPMN/20100524/DI';

// The zeebe: types beside camunda: ones in one moddle: both declare
// modelerTemplate on the same BPMN types, which moddle refuses (the file
// then imports as an empty diagram), so zeebe's TemplateSupported stays out.
// The form dialog needs zeebe:formDefinition when it links a deployed form.
const zeebeBesideCamunda = { ...zeebeModdle, types: zeebeModdle.types.filter((t) => t.name !== 'TemplateSupported') };

// The modeler's properties provider and modeling behaviors, by flavour. The
// wf: moddle is in both: a Camunda 7 file may carry wf: attributes too.
const flavours = {
  zeebe: {
    modules: [ZeebePropertiesProviderModule, ZeebeBehaviorsModule],
    moddle: { zeebe: zeebeModdle },
  },
  camunda7: {
    label: 'Camunda 7 properties',
    modules: [CamundaPlatformPropertiesProviderModule, CamundaPlatformBehaviorsModule],
    moddle: { camunda: camundaModdle, zeebe: zeebeBesideCamunda },
  },
};

// inspect reads what open needs to know before importing: the flavour of
// the file (Camunda 7 when it declares the camunda: namespace and nothing
// in it is in the zeebe: one) and whether it has a diagram. XML that does
// not parse is left to importXML, which says what is wrong with it.
function inspect(xml) {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length) return { flavour: 'zeebe', hasDiagram: true };
  let declaresCamunda7 = false;
  let usesZeebe = false;
  for (const e of doc.getElementsByTagName('*')) {
    if (e.namespaceURI === zeebeNS) usesZeebe = true;
    for (const a of e.attributes) {
      if (a.namespaceURI === zeebeNS) usesZeebe = true;
      if (a.value === camunda7NS && (a.prefix === 'xmlns' || a.name === 'xmlns')) declaresCamunda7 = true;
    }
  }
  return {
    flavour: declaresCamunda7 && !usesZeebe ? 'camunda7' : 'zeebe',
    hasDiagram: doc.getElementsByTagNameNS(bpmndiNS, 'BPMNDiagram').length > 0,
  };
}

// modeler is replaced when a file of the other flavour opens (a modeler's
// providers and moddle are fixed when it is created). Everything here reads
// the variable, never a copy; setupFormDesign holds current, which forwards
// to the modeler of the moment and keeps the listeners registered through
// it on every new one.
let modeler;
let flavour;
const listeners = [];
const current = new Proxy({}, {
  get(_, name) {
    if (name === 'on') return (...args) => { listeners.push(args); modeler.on(...args); };
    const v = modeler[name];
    return typeof v === 'function' ? v.bind(modeler) : v;
  },
});

function createModeler(name) {
  modeler?.destroy();
  document.getElementById('canvas').replaceChildren();
  document.getElementById('properties').replaceChildren();
  const f = flavours[name];
  modeler = new Modeler({
    container: '#canvas',
    propertiesPanel: { parent: '#properties' },
    additionalModules: [BpmnPropertiesPanelModule, BpmnPropertiesProviderModule, ...f.modules, WfPropertiesProviderModule],
    moddleExtensions: { ...f.moddle, wf: wfModdle },
  });
  for (const args of listeners) modeler.on(...args);
  flavour = name;
  root.dataset.flavour = name;
  window.wfpp.modeler = modeler;
}

// Automation hooks (README): the modeler, openFormEditor(elementId), formEditor.
window.wfpp = { modeler: null, formEditor: null };
createModeler('zeebe');
setupFormDesign(current);

let dirty = false;
const setStatus = (text) => { statusEl.textContent = text; };
const markDirty = (d) => {
  dirty = d;
  root.dataset.dirty = d ? 'true' : 'false';
  setStatus(d ? 'Unsaved changes' : '');
};

current.on('commandStack.changed', () => { markDirty(true); });
window.addEventListener('beforeunload', (ev) => {
  if (!dirty) return;
  ev.preventDefault();
  ev.returnValue = '';
});

// open imports xml into a modeler of its flavour, laying it out first when
// it has no diagram. An imported file stays dirty: it is not saved anywhere
// yet. A file that cannot be opened leaves the diagram that was open, as a
// failed import into the same modeler does.
async function open(xml, label, { imported = false } = {}) {
  clearProblems();
  const file = inspect(xml);
  let previous = null;
  if (file.flavour !== flavour) {
    previous = { flavour, dirty, xml: await modeler.saveXML().then((r) => r.xml, () => null) };
    createModeler(file.flavour);
  }
  try {
    const notes = [];
    if (!file.hasDiagram) {
      xml = await layoutProcess(await withFlowRefs(modeler.get('moddle'), xml));
      notes.push('laid out automatically: the file had no diagram');
    }
    if (flavours[flavour].label) notes.push(flavours[flavour].label);
    const { warnings } = await modeler.importXML(xml);
    if (warnings.length) notes.push(`${warnings.length} import warning(s)`);
    modeler.get('canvas').zoom('fit-viewport', 'auto');
    markDirty(imported);
    setStatus(label + (notes.length ? ` (${notes.join('; ')})` : '') + (imported ? ', not saved yet' : ''));
    root.dataset.layout = file.hasDiagram ? 'file' : 'auto';
    root.dataset.loaded = 'true';
  } catch (err) {
    flash(`The diagram could not be opened: ${err.message}`, 'error');
    if (previous?.xml) {
      createModeler(previous.flavour);
      await modeler.importXML(previous.xml).catch(() => {});
      markDirty(previous.dirty);
    }
  }
}

async function load() {
  const draft = localStorage.getItem(draftKey);
  if (key) {
    setStatus(`Loading ${key}…`);
    try {
      // A JSON DAG or graph comes exported as BPMN: shown read only here;
      // the export keeps what runs (engine/bpmn/export.go), so the BPMN
      // saved and deployed as a new key runs like the original.
      const resp = await fetch(`/ui/definitions/${encodeURIComponent(key)}/0/diagram`, { credentials: 'same-origin' });
      if (!resp.ok) throw new Error(`${resp.status} ${resp.statusText}`);
      const format = resp.headers.get('X-Definition-Format') || 'bpmn';
      await open(await resp.text(), `Opened the latest version of ${key}`);
      if (format !== 'bpmn') {
        root.dataset.readonly = 'true';
        for (const id of ['btn-deploy', 'btn-deploy-options']) {
          const b = document.getElementById(id);
          if (b) b.disabled = true;
        }
        flash(`${key} is written as a ${{ dag: 'JSON DAG', steps: 'steps workflow', state_machine: 'state machine' }[format] || format}: it shows here as BPMN, read only. Download XML saves it as BPMN; deploy the BPMN as a new key to work on it here.`);
        return;
      }
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

// deploy deploys the diagram: as it is (the Deploy button: an active
// version that becomes the default), or with the options of the deploy
// dialog (a change summary, as a draft, keeping the default). It reports
// whether the diagram was deployed.
async function deploy(options) {
  try {
    const rec = options
      ? await api('POST', '/api/v1/definitions', { source: await xml(), format: 'bpmn', ...options })
      : await api('POST', '/api/v1/definitions', await xml(), { type: 'application/xml' });
    clearProblems();
    markDirty(false);
    localStorage.removeItem(draftKey);
    root.dataset.deployed = rec.id;
    flash(`Deployed ${rec.key} version ${rec.version}${rec.status === 'draft' ? ' as a draft: activate it on the definition page' : ''}.`);
    const link = el('a', { href: `/definitions/${encodeURIComponent(rec.key)}?version=${rec.version}`, id: 'deployed-link', text: `Open ${rec.key} v${rec.version}` });
    setStatus('');
    statusEl.replaceChildren(link);
    return true;
  } catch (err) {
    if (Array.isArray(err.details) && err.details.length) showProblems(err.details);
    flash(`Not deployed: ${err.message}`, 'error');
    return false;
  }
}

document.getElementById('btn-deploy')?.addEventListener('click', (ev) => busy(ev.currentTarget, 'Deploying…', () => deploy()));

const deployDialog = document.getElementById('deploy-dialog');
document.getElementById('btn-deploy-options')?.addEventListener('click', () => deployDialog.showModal());
document.getElementById('deploy-cancel')?.addEventListener('click', () => deployDialog.close());
document.getElementById('deploy-options')?.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const options = { changeSummary: document.getElementById('deploy-summary').value.trim() };
  if (document.getElementById('deploy-draft').checked) options.status = 'draft';
  if (document.getElementById('deploy-keep-default').checked) options.makeDefault = false;
  busy(document.getElementById('deploy-confirm'), 'Deploying…', async () => {
    if (!await deploy(options)) return; // the dialog stays open with what was written
    document.getElementById('deploy-options').reset();
    deployDialog.close();
  });
});

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
    await open(await file.text(), `Imported ${file.name}`, { imported: true });
  } catch (err) { flash(`Import failed: ${err.message}`, 'error'); }
});

load();
