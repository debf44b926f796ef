// The schedules page: list schedules with their next fire times; create,
// edit, enable and disable them through /api/v1/schedules.
import { api, flash, busy, el, fmtTime } from './common.js';

const section = document.getElementById('schedules-section');
const canEdit = section.hasAttribute('data-can-edit');
const tbody = document.querySelector('#schedule-list tbody');
const form = document.getElementById('schedule-form');
const byID = new Map();

async function load() {
  let items;
  try {
    items = (await api('GET', '/api/v1/schedules')).items || [];
  } catch (err) {
    flash(`Schedules could not be loaded: ${err.message}`, 'error');
    return;
  }
  byID.clear();
  tbody.replaceChildren(...items.map(row));
  document.getElementById('schedule-empty').hidden = items.length > 0;
}

function row(s) {
  byID.set(s.id, s);
  const when = timing(s);
  const next = (s.nextFireTimes || []).slice(0, 3);
  const last = (s.lastRuns || [])[0];
  const lastText = last ? `${fmtTime(last.scheduledTime)}: ${last.status}` : '—';
  const actions = el('td');
  if (canEdit) {
    actions.append(el('button', { class: 'small', 'data-action': s.enabled ? 'disable' : 'enable', 'data-id': s.id, text: s.enabled ? 'Disable' : 'Enable' }));
  }
  if (canEdit && s.source === 'api') { // a timer start event's timing is changed in its BPMN
    actions.append(' ', el('button', { class: 'small secondary', 'data-action': 'edit', 'data-id': s.id, text: 'Edit' }));
  }
  const def = el('td', {}, el('a', { href: `/definitions/${encodeURIComponent(s.definitionKey)}`, text: s.definitionKey }),
    s.version ? ` v${s.version}` : '');
  return el('tr', { 'data-schedule': s.id, 'data-enabled': String(s.enabled) },
    def, el('td', {}, el('code', { text: when })), el('td', { text: s.timeZone || 'UTC' }),
    el('td', { class: 'next', 'data-count': next.length, text: next.map(fmtTime).join(' · ') || '—' }), el('td', { text: lastText }),
    el('td', { class: 'source', text: s.source === 'bpmn' ? `from the definition: timer start ${s.elementId}` : 'schedule' }),
    el('td', { class: 'state', text: s.enabled ? 'enabled' : 'disabled' }), actions);
}

// timing says when a schedule fires: a cron, an interval, or for a timer
// start event also an ISO-8601 repetition or one date.
function timing(s) {
  if (s.cron) return `cron ${s.cron}`;
  if (s.source !== 'bpmn') return `every ${s.interval}`;
  return s.interval ? `cycle ${s.interval}` : `once at ${fmtTime(s.startDate)}`;
}

tbody.addEventListener('click', async (ev) => {
  const b = ev.target.closest('button[data-action]');
  if (!b) return;
  const s = byID.get(b.dataset.id);
  if (!s) return;
  if (b.dataset.action === 'edit') {
    edit(s);
    return;
  }
  const enabled = b.dataset.action === 'enable';
  await busy(b, enabled ? 'Enabling…' : 'Disabling…', async () => {
    try {
      await api('PATCH', `/api/v1/schedules/${encodeURIComponent(s.id)}`, { enabled, rev: s.rev });
      flash(enabled ? 'Schedule enabled.' : 'Schedule disabled.');
    } catch (err) { flash(`Not changed: ${err.message}`, 'error'); }
  });
  await load();
});

// localInput turns an ISO time into a datetime-local value, in local time.
function localInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

function edit(s) {
  const f = form.elements;
  f.id.value = s.id;
  f.rev.value = s.rev;
  f.definitionKey.value = s.definitionKey;
  f.version.value = s.version || 0;
  f.cron.value = s.cron || '';
  f.interval.value = s.interval || '';
  f.timeZone.value = s.timeZone || '';
  f.startDate.value = localInput(s.startDate);
  f.endDate.value = localInput(s.endDate);
  f.maxConcurrentRuns.value = s.maxConcurrentRuns || 0;
  f.overlap.value = s.overlap || 'skip';
  f.catchUp.value = s.catchUp || 'none';
  f.catchUpLimit.value = s.catchUpLimit || 0;
  f.retries.value = s.onFailure ? s.onFailure.attempts - 1 : 0;
  f.retryDelay.value = s.onFailure ? s.onFailure.delay : '';
  f.variables.value = s.variables ? JSON.stringify(s.variables, null, 2) : '';
  f.enabled.checked = s.enabled;
  document.getElementById('schedule-form-title').textContent = `Edit schedule of ${s.definitionKey}`;
  document.getElementById('schedule-save').textContent = 'Save';
  document.getElementById('schedule-cancel').hidden = false;
  form.scrollIntoView({ behavior: 'smooth' });
}

function reset() {
  form.reset();
  form.elements.id.value = '';
  form.elements.rev.value = '';
  document.getElementById('schedule-form-title').textContent = 'New schedule';
  document.getElementById('schedule-save').textContent = 'Create';
  document.getElementById('schedule-cancel').hidden = true;
}

// body reads the form; a field left empty is sent empty (a PATCH then
// clears it), so the server names what is wrong.
function body() {
  const f = form.elements;
  const b = {
    definitionKey: f.definitionKey.value,
    version: Number(f.version.value || 0),
    cron: f.cron.value.trim(),
    interval: f.interval.value.trim(),
    timeZone: f.timeZone.value.trim(),
    startDate: f.startDate.value ? new Date(f.startDate.value).toISOString() : null,
    endDate: f.endDate.value ? new Date(f.endDate.value).toISOString() : null,
    maxConcurrentRuns: Number(f.maxConcurrentRuns.value || 0),
    overlap: f.overlap.value,
    catchUp: f.catchUp.value,
    catchUpLimit: Number(f.catchUpLimit.value || 0),
    enabled: f.enabled.checked,
    onFailure: Number(f.retries.value) > 0
      ? { action: 'retry', attempts: Number(f.retries.value) + 1, delay: f.retryDelay.value.trim() || '30s', factor: 2 }
      : { action: 'none' },
  };
  const vars = f.variables.value.trim();
  if (vars) {
    try { b.variables = JSON.parse(vars); } catch (err) { throw new Error(`variables: not JSON (${err.message})`); }
  } else {
    b.variables = null;
  }
  if (f.rev.value) b.rev = Number(f.rev.value);
  return b;
}

if (form) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const id = form.elements.id.value;
    await busy(document.getElementById('schedule-save'), 'Saving…', async () => {
      try {
        const b = body();
        if (id) await api('PATCH', `/api/v1/schedules/${encodeURIComponent(id)}`, b);
        else await api('POST', '/api/v1/schedules', b);
        flash(id ? 'Schedule saved.' : 'Schedule created.');
        reset();
        await load();
      } catch (err) { flash(`Not saved: ${err.message}`, 'error'); }
    });
  });
  document.getElementById('schedule-cancel').addEventListener('click', reset);
}

load();
