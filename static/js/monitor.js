// The instance monitor: tokens on the diagram, history, variables and
// incidents, kept current over /ws (with "since" on reconnect) without reload.
import { api, flash, busy, el, fmtTime, Live, debounce, confirmDialog } from './common.js';
import { openViewer } from './diagram.js';

const root = document.getElementById('monitor');
const id = root.dataset.instance;
const statusEl = document.getElementById('instance-status');
const progressEl = document.getElementById('instance-progress');
const timeline = document.getElementById('timeline');
const TIMELINE_MAX = 1000;

let painter;
let snap;
let history = [];
let lastSeq = 0;
const activated = new Map(); // token:element → time, for durations
// Progress is transient (never in the history): the instance's estimate
// and what running jobs reported, from the snapshot and the live
// element.progress / instance.progress events.
let progress = null; // {percent, eta, basis, sampled}
let reported = new Map(); // element id → {percent, message}

async function fetchSnapshot(withHistory) {
  const path = `/api/v1/instances/${encodeURIComponent(id)}${withHistory ? '?include=history' : ''}`;
  return api('GET', path);
}

// Full refresh: snapshot and the whole history.
async function refresh() {
  const s = await fetchSnapshot(true);
  history = [];
  lastSeq = 0;
  activated.clear();
  timeline.replaceChildren();
  for (const e of s.history || []) addEvent(e);
  setSnapshot(s);
  render();
}

// Snapshot only: tokens, variables, incidents, status, progress.
const refreshSnapshot = debounce(async () => {
  setSnapshot(await fetchSnapshot(false));
  render();
}, 150);

// setSnapshot keeps s, and its progress when it has one (a GET has; the
// answers of pause, resume and cancel have not).
function setSnapshot(s) {
  snap = s;
  if (!s.progress) return;
  const { elements, ...estimate } = s.progress;
  progress = estimate;
  reported = new Map(Object.entries(elements || {}));
}

// onProgress takes a live progress event.
function onProgress(e) {
  const d = e.detail || {};
  if (e.type === 'element.progress') {
    reported.set(e.elementId, { percent: d.percent, message: d.message });
    if (painter) renderProgressBadges();
  } else {
    progress = { ...progress, percent: d.percent, eta: d.eta, basis: d.basis };
    renderProgress();
  }
}

function addEvent(e) {
  if (e.seq <= lastSeq) return;
  if (e.seq !== lastSeq + 1 && lastSeq !== 0) {
    // A gap: the full picture again (rare: the hub replays from since).
    refresh().catch((err) => flash(err.message, 'error'));
    return;
  }
  lastSeq = e.seq;
  history.push(e);
  timeline.prepend(eventItem(e));
  while (timeline.childElementCount > TIMELINE_MAX) timeline.lastElementChild.remove();
  root.dataset.seq = String(lastSeq);
}

function eventItem(e) {
  const k = `${e.tokenId}:${e.elementId}`;
  let took = '';
  if (e.type === 'element.activated') activated.set(k, e.time);
  if (e.type === 'element.completed' && activated.has(k)) {
    const ms = new Date(e.time) - new Date(activated.get(k));
    if (!isNaN(ms)) took = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  }
  const li = el('li', { class: `ev ${e.type.replace('.', '-')}`, 'data-seq': e.seq, 'data-type': e.type },
    el('span', { class: 'seq', text: `#${e.seq}` }), ' ',
    el('span', { class: 'type', text: e.type }), ' ',
    e.elementId ? el('code', { text: e.elementId }) : null,
    e.flowId ? el('span', { class: 'flow', text: ` → ${e.flowId}` }) : null,
    took ? el('span', { class: 'took', text: ` took ${took}` }) : null,
    el('time', { datetime: e.time, text: fmtTime(e.time) }));
  if (e.type === 'chain.started' && e.detail?.instance) {
    li.append(' ', el('a', { class: 'chain-link', href: `/instances/${encodeURIComponent(e.detail.instance)}`, text: `→ ${e.detail.target}` }));
  }
  if (e.detail && Object.keys(e.detail).length) {
    li.append(el('pre', { class: 'detail', text: detailText(e.detail) }));
  }
  return li;
}

function detailText(d) {
  return Object.entries(d).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n');
}

function render() {
  if (!snap) return;
  statusEl.textContent = snap.status;
  statusEl.className = `status ${snap.status}`;
  root.dataset.status = snap.status;
  const ended = ['completed', 'cancelled', 'failed'].includes(snap.status);
  document.getElementById('btn-pause').disabled = ended || snap.status === 'paused';
  document.getElementById('btn-resume').disabled = snap.status !== 'paused';
  document.getElementById('btn-cancel').disabled = ended;
  renderVariables();
  renderIncidents();
  renderWebhooks();
  renderTriggered();
  renderProgress();
  renderStates();
  if (painter) {
    renderTokens();
    renderProgressBadges();
    renderStateBadge();
    painter.badges('wf-webhook', (snap.webhooks || []).map((w) => ({
      id: w.elementId, text: 'webhook', class: 'webhook', title: `Waits for a POST to ${location.origin}${w.url}`, position: { top: -24, right: 0 },
    })));
  }
}

// renderWebhooks lists the URLs the instance's webhook catches wait at
// (wf:webhook), each with a button that copies it: the token in the URL is
// its only credential, so it is shown only to those who may read the instance.
function renderWebhooks() {
  let card = document.getElementById('webhooks-card');
  const hooks = snap.webhooks || [];
  if (!card) {
    if (hooks.length === 0) return;
    card = el('section', { class: 'card', id: 'webhooks-card' }, el('h2', { text: 'Webhooks' }), el('ul', { id: 'webhooks', class: 'incidents' }));
    document.getElementById('incidents').closest('section').before(card);
  }
  card.hidden = hooks.length === 0;
  card.querySelector('ul').replaceChildren(...hooks.map((w) => {
    const url = `${location.origin}${w.url}`;
    const copy = el('button', { type: 'button', class: 'small', text: 'Copy' });
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(url);
        flash('Webhook URL copied');
      } catch (err) { flash(`Could not copy: ${err.message}`, 'error'); }
    });
    return el('li', { 'data-element': w.elementId },
      el('code', { text: w.elementId }), w.multiUse ? ' (multi-use) ' : ' ',
      el('input', { type: 'text', readonly: true, class: 'webhook-url', value: url, 'aria-label': `Webhook URL of ${w.elementId}` }), ' ', copy);
  }));
}

// renderStates shows where a state machine is and has been (its GET has
// currentState and stateHistory; other instances have neither). The card
// is made here so that other instances' pages stay as they are.
function renderStates() {
  if (!snap.currentState) return;
  let card = document.getElementById('states');
  if (!card) {
    card = el('section', { class: 'card', id: 'states' });
    document.querySelector('.monitor-side').prepend(card);
  }
  const visits = (snap.stateHistory || []).map((v) => el('li', { 'data-state': v.state },
    el('code', { text: v.state }), ' ',
    el('time', { datetime: v.entered, text: fmtTime(v.entered) }),
    v.transition ? el('span', { class: 'muted', text: ` → ${v.target || '?'} (${v.transition})` }) : null));
  card.replaceChildren(
    el('h2', { text: 'State' }),
    el('p', { id: 'current-state', 'data-state': snap.currentState },
      'Current state: ', el('strong', { text: snap.currentState })),
    el('ol', { id: 'state-history', class: 'timeline' }, ...visits));
}

// renderStateBadge marks a state machine's current state on its diagram
// (the token may wait on a catch event after it).
function renderStateBadge() {
  if (!snap.currentState) return;
  painter.badges('wf-state', [{ id: snap.currentState, text: 'current state', class: 'state', title: `The machine is in ${snap.currentState}`, position: { top: -22, left: 0 } }]);
}

function renderProgress() {
  if (!progress) return;
  const pct = `${Math.round(progress.percent)} % done`;
  progressEl.hidden = false;
  progressEl.dataset.percent = String(progress.percent);
  progressEl.dataset.eta = progress.eta || '';
  progressEl.textContent = progress.eta ? `${pct} · ETA ${fmtTime(progress.eta)}` : pct;
  progressEl.title = progress.basis === 'durations'
    ? `Estimated from ${progress.sampled || 'the'} completed instance(s) of this version`
    : progress.basis === 'counts' ? 'Counted from the elements done: no instance of this version has completed yet, so no ETA' : 'Ended';
}

// renderProgressBadges shows what running jobs reported on their elements.
function renderProgressBadges() {
  const badges = [];
  for (const [elId, r] of reported) {
    const msg = r.message || '';
    const text = `${Math.round(r.percent)} %${msg ? ` · ${msg.length > 40 ? `${msg.slice(0, 39)}…` : msg}` : ''}`;
    badges.push({ id: elId, text, class: 'reported', title: msg ? `${r.percent} %: ${msg}` : `${r.percent} %`, position: { top: -24, left: 0 } });
  }
  painter.badges('wf-progress', badges);
}

function renderTokens() {
  const passed = new Map();
  const flows = new Set();
  for (const e of history) {
    if (e.type === 'element.activated') passed.set(e.elementId, (passed.get(e.elementId) || 0) + 1);
    if (e.type === 'flow.taken' && e.flowId) flows.add(e.flowId);
  }
  const marks = new Map();
  const mark = (elId, c) => {
    if (!marks.has(elId)) marks.set(elId, new Set());
    marks.get(elId).add(c);
  };
  for (const elId of passed.keys()) mark(elId, 'wf-completed');
  for (const f of flows) mark(f, 'wf-flow-taken');
  const active = new Map();
  for (const t of snap.tokens || []) active.set(t.elementId, (active.get(t.elementId) || 0) + 1);
  for (const elId of active.keys()) {
    marks.get(elId)?.delete('wf-completed');
    mark(elId, 'wf-active');
  }
  for (const inc of snap.incidents || []) {
    if (!inc.resolvedAt) mark(inc.elementId, 'wf-incident');
  }
  painter.paint(marks);
  const badges = [];
  for (const [elId, n] of active) {
    badges.push({ id: elId, text: String(n), class: 'active', title: `${n} token(s) here`, position: { bottom: 10, left: -10 } });
  }
  for (const [elId, n] of passed) {
    if (n > 1) badges.push({ id: elId, text: `×${n}`, class: 'count', title: `passed ${n} times` });
  }
  painter.badges('wf-token', badges);
  root.dataset.active = [...active.keys()].join(',');
}

// Operators (and admins) may edit variables and retry incidents; the page
// shows neither to others, and the server checks the role too.
const roles = (document.body.dataset.roles || '').split(',');
const mayEdit = roles.includes('admin') || roles.includes('operator');
let editing = ''; // the variable being edited: renders leave its row alone

function renderVariables() {
  if (editing) return;
  const body = document.querySelector('#variables tbody');
  const entries = Object.entries(snap.variables || {}).sort(([a], [b]) => a.localeCompare(b));
  body.replaceChildren(...entries.map(([k, v]) => {
    const cell = el('td', {}, el('code', { text: JSON.stringify(v) }));
    const row = el('tr', { 'data-var': k }, el('th', { text: k }), cell);
    if (mayEdit) {
      const edit = el('button', { type: 'button', class: 'small', text: 'Edit' });
      edit.addEventListener('click', () => editVariable(k, v, cell));
      row.append(el('td', {}, edit));
    }
    return row;
  }));
  if (!entries.length) body.append(el('tr', {}, el('td', { class: 'muted', text: 'No variables.' })));
}

function editVariable(name, value, cell) {
  editing = name;
  const input = el('textarea', { rows: 2, spellcheck: 'false', 'aria-label': `value of ${name}` });
  input.value = JSON.stringify(value, null, 1);
  const err = el('p', { class: 'form-error', hidden: true });
  const save = el('button', { type: 'button', class: 'small primary', text: 'Save' });
  const cancel = el('button', { type: 'button', class: 'small', text: 'Cancel' });
  const done = () => { editing = ''; renderVariables(); };
  cancel.addEventListener('click', done);
  save.addEventListener('click', () => busy(save, 'Saving…', async () => {
    let v;
    try { v = JSON.parse(input.value); } catch (e) {
      err.textContent = `Not JSON: ${e.message}`;
      err.hidden = false;
      return;
    }
    try {
      setSnapshot(await api('POST', `/api/v1/instances/${encodeURIComponent(id)}/variables`, { variables: { [name]: v } }));
      flash(`${name} saved.`);
      done();
      render();
    } catch (e) {
      err.textContent = `Not saved: ${e.message}`;
      err.hidden = false;
    }
  }));
  cell.replaceChildren(input, err, el('div', { class: 'actions' }, save, cancel));
  input.focus();
}

// renderTriggered lists the instances this one's end started (chain
// triggers), so they appear as soon as it ends; the page shows the
// instance that started this one.
function renderTriggered() {
  const started = snap.triggered || [];
  document.getElementById('triggered-card').hidden = !started.length;
  document.getElementById('triggered').replaceChildren(...started.map((k) => el('li', { 'data-instance': k.id },
    el('a', { href: `/instances/${encodeURIComponent(k.id)}`, text: k.definition }), ' ',
    el('code', { text: k.id }), ' ', el('span', { class: `status ${k.status}`, text: k.status }))));
}

function renderIncidents() {
  const list = document.getElementById('incidents');
  const open = (snap.incidents || []).filter((i) => !i.resolvedAt);
  if (!open.length) {
    list.replaceChildren(el('li', { class: 'muted', text: 'None.' }));
    return;
  }
  list.replaceChildren(...open.map((inc) => {
    const item = el('li', { class: 'incident' }, el('code', { text: inc.elementId }), ' ',
      el('span', { class: 'kind', text: inc.kind }), el('p', { class: 'message', text: inc.message }));
    if (!mayEdit) return item; // retrying is an operator's
    const retry = el('button', { type: 'button', class: 'small', text: 'Retry' });
    retry.addEventListener('click', () => busy(retry, 'Retrying…', async () => {
      try {
        await api('POST', `/ui/instances/${encodeURIComponent(id)}/incidents/${encodeURIComponent(inc.id)}/retry`, {});
        flash('Retried: the element runs again.');
        refreshSnapshot();
      } catch (err) { flash(`Retry failed: ${err.message}`, 'error'); }
    }));
    item.append(retry);
    return item;
  }));
}

for (const b of document.querySelectorAll('[data-op]')) {
  b.addEventListener('click', async () => {
    const op = b.dataset.op;
    if (!await confirmDialog(`${op[0].toUpperCase()}${op.slice(1)} instance ${id}?`, op[0].toUpperCase() + op.slice(1))) return;
    await busy(b, `${op}…`, async () => {
      try {
        setSnapshot(await api('POST', `/api/v1/instances/${encodeURIComponent(id)}/${op}`));
        render();
        flash(`Instance ${op === 'cancel' ? 'cancelled' : op === 'pause' ? 'paused' : 'resumed'}.`);
      } catch (err) { flash(`${op} failed: ${err.message}`, 'error'); }
    });
  });
}

async function main() {
  try {
    await refresh();
  } catch (err) {
    flash(`Could not load the instance: ${err.message}`, 'error');
    return;
  }
  try {
    painter = await openViewer(document.getElementById('canvas'), root.dataset.definition, root.dataset.version);
    render();
  } catch (err) {
    document.getElementById('canvas').textContent = `The diagram could not be shown: ${err.message}`;
  }
  root.dataset.ready = 'true';
  new Live({
    statusEl: document.getElementById('live-status'),
    subscribe: () => ({ instance: id, since: lastSeq }),
    catchUp: false, // the hub replays what came after "since"
    onMessage: (msg) => {
      if (msg.type === 'subscribed' && msg.instance === id) root.dataset.subscribed = 'true';
      if (msg.type !== 'event' || !msg.event || msg.event.instanceId !== id) return;
      if (msg.event.type === 'element.progress' || msg.event.type === 'instance.progress') {
        onProgress(msg.event);
        return;
      }
      addEvent(msg.event);
      refreshSnapshot();
    },
    poll: () => refresh().catch((err) => flash(err.message, 'error')),
  });
}

main();
