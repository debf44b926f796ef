// The inbox: filters, the task list kept current over /ws, and the open
// task with its form (form-js, or one generated from the task's variables).
import { api, flash, busy, el, fmtTime, Live, debounce } from './common.js';

const listEl = document.getElementById('task-list');
const detail = document.getElementById('task-detail');
const filters = document.getElementById('inbox-filters');
const me = document.body.dataset.user;
let openId = '';
let form; // form-js instance of the open task

function query() {
  const q = new URLSearchParams(new FormData(filters));
  for (const [k, v] of [...q]) if (!v) q.delete(k);
  return q;
}

async function refreshList() {
  const html = await api('GET', `/ui/inbox?${query()}`, undefined, { text: true });
  // The fragment is server-rendered by templ: every text in it is escaped.
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  listEl.replaceChildren(tpl.content);
  markOpen();
  listEl.dataset.refreshed = String(Date.now());
}
const refreshSoon = debounce(refreshList, 100);

function markOpen() {
  for (const li of listEl.querySelectorAll('li.task')) li.classList.toggle('open', li.dataset.task === openId);
}

filters.addEventListener('change', () => {
  for (const l of filters.querySelectorAll('.tab')) l.classList.toggle('active', l.querySelector('input').checked);
  history.replaceState(null, '', `/inbox?${query()}`);
  refreshList().catch((err) => flash(err.message, 'error'));
});

listEl.addEventListener('click', (ev) => {
  const b = ev.target.closest('button.task-open');
  if (b) openTask(b.dataset.task);
});

async function openTask(id) {
  openId = id;
  markOpen();
  detail.replaceChildren(el('p', { class: 'progress', text: 'Loading the task…' }));
  let task;
  try {
    task = await api('GET', `/ui/tasks/${encodeURIComponent(id)}`);
  } catch (err) {
    detail.replaceChildren(el('p', { class: 'error', text: `The task could not be loaded: ${err.message}` }));
    return;
  }
  if (task.status !== 'open') {
    detail.replaceChildren(el('p', { class: 'muted', text: `This task is ${task.status}.` }));
    return;
  }
  renderTask(task);
}

function renderTask(task) {
  const actions = el('div', { class: 'actions' });
  if (!task.assignee) {
    actions.append(action('Claim', 'claim', task));
  } else if (task.assignee === me) {
    actions.append(action('Release', 'release', task));
  }
  const formBox = el('div', { class: 'task-form', id: 'task-form' });
  const complete = el('button', { type: 'button', class: 'primary', id: 'btn-complete', text: 'Complete' });
  const err = el('p', { class: 'form-error', role: 'alert', hidden: true });
  detail.replaceChildren(
    el('h2', { text: task.name || task.elementId }),
    el('p', { class: 'muted' },
      el('span', { text: `${task.definition} · ` }),
      el('a', { href: `/instances/${encodeURIComponent(task.instanceId)}`, text: `instance ${task.instanceId}` }),
      el('span', { text: ` · priority ${task.priority}` }),
      task.dueDate ? el('span', { text: ` · due ${fmtTime(task.dueDate)}` }) : null,
      el('span', { text: task.assignee ? ` · assigned to ${task.assignee}` : ' · unassigned' })),
    actions, formBox, err, complete);
  detail.dataset.task = task.id;
  renderForm(task, formBox).catch((e) => { formBox.textContent = `The form could not be shown: ${e.message}`; });
  complete.addEventListener('click', () => busy(complete, 'Completing…', async () => {
    err.hidden = true;
    const vars = collect(err);
    if (!vars) return;
    try {
      await api('POST', `/ui/tasks/${encodeURIComponent(task.id)}/complete`, { variables: vars });
    } catch (e) {
      err.textContent = `Not completed: ${e.message}`;
      err.hidden = false;
      return;
    }
    flash(`Completed "${task.name || task.elementId}".`);
    openId = '';
    await refreshList();
    const next = listEl.querySelector('button.task-open');
    detail.replaceChildren(el('p', { class: 'done', text: 'Task completed.' }),
      next ? el('button', { type: 'button', class: 'primary', id: 'btn-next', text: 'Open the next task', onclick: () => openTask(next.dataset.task) })
        : el('p', { class: 'muted', text: 'No more tasks here.' }));
  }));
}

function action(label, op, task) {
  const b = el('button', { type: 'button', id: `btn-${op}`, text: label });
  b.addEventListener('click', () => busy(b, `${label}…`, async () => {
    try {
      await api('POST', `/ui/tasks/${encodeURIComponent(task.id)}/${op}`);
      await Promise.all([refreshList(), openTask(task.id)]);
    } catch (err) { flash(`${label} failed: ${err.message}`, 'error'); }
  }));
  return b;
}

async function renderForm(task, box) {
  form = null;
  let schema;
  if (task.form) {
    try { schema = JSON.parse(task.form); } catch { schema = null; }
  }
  if (schema) {
    const { createForm } = await import('/static/vendor/form-viewer.js');
    form = await createForm({ schema, data: task.variables || {}, container: box });
    return;
  }
  box.append(generatedForm(task.variables || {}));
}

// generatedForm has one field per variable of the task, typed by its value.
function generatedForm(vars) {
  const f = el('form', { class: 'generated', id: 'generated-form', novalidate: true });
  f.addEventListener('submit', (ev) => ev.preventDefault());
  const names = Object.keys(vars).sort();
  if (!names.length) f.append(el('p', { class: 'muted', text: 'This task has no form and no variables: complete it when the work is done.' }));
  for (const name of names) {
    const v = vars[name];
    const fid = `var-${name}`;
    let input;
    if (typeof v === 'boolean') {
      input = el('input', { type: 'checkbox', id: fid, 'data-var': name, 'data-kind': 'boolean' });
      input.checked = v;
      f.append(el('label', { class: 'check', for: fid }, input, ` ${name}`));
      continue;
    }
    if (typeof v === 'number') {
      input = el('input', { type: 'number', step: 'any', id: fid, 'data-var': name, 'data-kind': 'number', required: true });
      input.value = String(v);
    } else if (typeof v === 'string') {
      input = el('input', { type: 'text', id: fid, 'data-var': name, 'data-kind': 'string' });
      input.value = v;
    } else {
      input = el('textarea', { id: fid, rows: 3, 'data-var': name, 'data-kind': 'json', spellcheck: 'false' });
      input.value = JSON.stringify(v, null, 2);
    }
    f.append(el('label', { for: fid, text: name }), input);
  }
  return f;
}

// collect returns the variables to complete with, or null after showing
// what is wrong.
function collect(errEl) {
  const fail = (msg) => { errEl.textContent = msg; errEl.hidden = false; return null; };
  if (form) {
    const { data, errors } = form.submit();
    if (errors && Object.keys(errors).length) return fail('Some fields are not valid: see the messages in the form.');
    return data;
  }
  const vars = {};
  for (const input of detail.querySelectorAll('[data-var]')) {
    const name = input.dataset.var;
    switch (input.dataset.kind) {
      case 'boolean': vars[name] = input.checked; break;
      case 'number':
        if (input.value === '' || isNaN(Number(input.value))) return fail(`${name} must be a number.`);
        vars[name] = Number(input.value);
        break;
      case 'json':
        try { vars[name] = JSON.parse(input.value); } catch (e) { return fail(`${name} is not valid JSON: ${e.message}`); }
        break;
      default: vars[name] = input.value;
    }
  }
  return vars;
}

new Live({
  statusEl: document.getElementById('live-status'),
  subscribe: () => ({ inbox: true }),
  onMessage: (msg) => {
    if (msg.type !== 'task') return;
    refreshSoon();
    if (msg.task && msg.task.id === openId && ['completed', 'cancelled'].includes(msg.change)) {
      detail.replaceChildren(el('p', { class: 'muted', text: `This task was ${msg.change} meanwhile.` }));
      openId = '';
    }
  },
  poll: () => refreshList().catch((err) => flash(err.message, 'error')),
});
