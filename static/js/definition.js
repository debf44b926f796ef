// The definition page: the selected version's diagram with its heatmap,
// the start form, and per version its lifecycle (activate, deprecate,
// archive, make default) and enable/disable.
import { api, flash, busy, el } from './common.js';
import { openViewer } from './diagram.js';

const root = document.getElementById('definition');
const key = root.dataset.key;
const version = root.dataset.version;
const toggle = document.getElementById('heatmap-toggle');
const summary = document.getElementById('heatmap-summary');
let painter;

async function heatmap() {
  if (!painter) return;
  if (!toggle.checked) {
    painter.paint(new Map());
    painter.badges('wf-heat', []);
    summary.textContent = '';
    return;
  }
  summary.textContent = 'Counting…';
  const h = await api('GET', `/ui/definitions/${encodeURIComponent(key)}/${version}/heatmap`);
  const max = Math.max(1, ...Object.values(h.passed));
  const marks = new Map();
  const badges = [];
  for (const [id, n] of Object.entries(h.passed)) {
    const level = Math.min(4, Math.ceil((n / max) * 4));
    marks.set(id, new Set([`wf-heat-${level}`]));
    badges.push({ id, text: String(n), class: 'count', title: `${n} instance(s) passed here` });
  }
  for (const [id, n] of Object.entries(h.waiting)) {
    badges.push({ id, text: `${n} waiting`, class: 'active', title: `${n} token(s) wait here now`, position: { bottom: 10, left: -10 } });
  }
  for (const [id, n] of Object.entries(h.incidents)) {
    if (!marks.has(id)) marks.set(id, new Set());
    marks.get(id).add('wf-incident');
    badges.push({ id, text: `${n} incident(s)`, class: 'incident', position: { top: -24, left: 0 } });
  }
  painter.paint(marks);
  painter.badges('wf-heat', badges);
  summary.textContent = h.instances === 0 ? 'No instances of this version yet: start one.'
    : `${h.instances} instance(s)${h.sampled < h.instances ? `, history of the newest ${h.sampled}` : ''}`;
}

// Visual diff: elements added or changed since another version, on the
// diagram; removed ones and the XML diff below it.
const diffFrom = document.getElementById('diff-from');
const diffPanel = document.getElementById('diff-panel');
async function diff() {
  if (!painter || !diffFrom) return;
  const from = diffFrom.value;
  if (!from) {
    diffPanel.hidden = true;
    return heatmap();
  }
  toggle.checked = false;
  painter.badges('wf-heat', []);
  summary.textContent = '';
  const d = await api('GET', `/api/v1/definitions/${encodeURIComponent(key)}/diff?from=${from}&to=${version}`);
  const marks = new Map();
  const list = document.getElementById('diff-list');
  list.replaceChildren();
  const item = (kind, e, text) => list.append(el('li', { class: `diff-${kind}` },
    el('strong', { text: kind }), ' ', el('code', { text: e.id }), e.name ? ` ${e.name}` : '', text ? el('span', { class: 'muted', text: ` ${text}` }) : null));
  for (const e of d.added || []) { marks.set(e.id, new Set(['wf-diff-added'])); item('added', e); }
  for (const e of d.changed || []) {
    marks.set(e.id, new Set(['wf-diff-changed']));
    item('changed', e, (e.changes || []).map((c) => `${c.property}: ${c.from || '∅'} → ${c.to || '∅'}`).join('; '));
  }
  for (const e of d.removed || []) item('removed', e);
  if (!list.childElementCount) list.append(el('li', { class: 'muted', text: 'No element differs.' }));
  painter.paint(marks);
  document.getElementById('diff-title').textContent = `v${d.from} → v${d.to}`;
  document.getElementById('diff-xml').textContent = d.unifiedDiff || '(the sources are equal)';
  diffPanel.hidden = false;
}
if (diffFrom) diffFrom.addEventListener('change', () => diff().catch((err) => flash(`Diff failed: ${err.message}`, 'error')));

toggle.addEventListener('change', () => heatmap().catch((err) => flash(err.message, 'error')));

// The start form: the definition's designed start form (form-js) when it
// has one, with the JSON variables below for anything else.
let startForm = null;
async function renderStartForm() {
  if (root.dataset.startForm !== 'true') return;
  const box = document.getElementById('start-form-fields');
  let f;
  try {
    f = await api('GET', `/api/v1/definitions/${encodeURIComponent(key)}/start-form?version=${encodeURIComponent(version)}`);
  } catch (err) {
    box.textContent = `The start form could not be loaded: ${err.message}`;
    return;
  }
  const { createForm } = await import('/static/vendor/form-viewer.js');
  startForm = await createForm({ schema: f.schema, data: f.data || {}, container: box, debounce: false });
  box.dataset.source = f.source;
  document.getElementById('start-vars-label').textContent = 'More variables (JSON object, optional)';
}
renderStartForm().catch((err) => flash(err.message, 'error'));

document.getElementById('start-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const errEl = document.getElementById('start-error');
  errEl.hidden = true;
  const button = document.getElementById('start-button');
  let variables;
  try {
    variables = JSON.parse(document.getElementById('start-vars').value || '{}');
    if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) throw new Error('write a JSON object, like {"amount": 10}');
  } catch (err) {
    errEl.textContent = `Variables are not a JSON object: ${err.message}`;
    errEl.hidden = false;
    return;
  }
  if (startForm) {
    const { data, errors } = startForm.submit();
    if (errors && Object.keys(errors).length) {
      errEl.textContent = 'Some fields of the start form are not valid: see the messages in the form.';
      errEl.hidden = false;
      return;
    }
    variables = { ...variables, ...data };
  }
  busy(button, 'Starting…', async () => {
    try {
      const inst = await api('POST', '/api/v1/instances', {
        definition: key, version: Number(version), variables,
        businessKey: document.getElementById('start-bkey').value || undefined,
        requestId: crypto.randomUUID ? crypto.randomUUID() : String(Date.now()),
      });
      location.assign(`/instances/${encodeURIComponent(inst.id)}`);
    } catch (err) {
      errEl.textContent = `Not started: ${err.message}`;
      errEl.hidden = false;
    }
  });
});

document.getElementById('versions').addEventListener('click', (ev) => {
  const b = ev.target.closest('button[data-action]');
  if (!b) return;
  const base = `/api/v1/definitions/${encodeURIComponent(key)}`;
  const act = {
    status: () => api('PATCH', `${base}/versions/${b.dataset.version}`, { status: b.dataset.status }),
    rollback: () => api('POST', `${base}/rollback`, { version: Number(b.dataset.version) }),
  }[b.dataset.action] || (() => api('POST', `/ui/definitions/${encodeURIComponent(b.dataset.id)}/${b.dataset.action}`));
  busy(b, '…', async () => {
    try {
      await act();
      location.reload();
    } catch (err) { flash(`Could not ${b.textContent.trim().toLowerCase() || b.dataset.action}: ${err.message}`, 'error'); }
  });
});

(async () => {
  try {
    painter = await openViewer(document.getElementById('canvas'), key, version);
    await heatmap();
  } catch (err) {
    document.getElementById('canvas').textContent = `The diagram could not be shown: ${err.message}`;
  }
})();
