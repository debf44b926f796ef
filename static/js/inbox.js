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

function applyFilters() {
  for (const l of filters.querySelectorAll('.tab')) l.classList.toggle('active', l.querySelector('input').checked);
  history.replaceState(null, '', `/inbox?${query()}`);
  listEl.dataset.loading = 'true';
  refreshList().catch((err) => flash(err.message, 'error')).finally(() => { delete listEl.dataset.loading; });
}
filters.addEventListener('change', applyFilters);
// Search as one types, a moment after the last key.
document.getElementById('inbox-search').addEventListener('input', debounce(applyFilters, 250));
filters.addEventListener('submit', (ev) => { ev.preventDefault(); applyFilters(); });

// Saved filters: the current query kept on the server under a name.
const saveButton = document.getElementById('btn-save-filter');
saveButton.addEventListener('click', () => {
  if (document.getElementById('save-filter-name')) return;
  const name = el('input', { type: 'text', id: 'save-filter-name', placeholder: 'name of this filter', 'aria-label': 'Filter name' });
  const ok = el('button', { type: 'button', id: 'btn-save-filter-ok', text: 'Save' });
  ok.addEventListener('click', () => busy(ok, 'Saving…', async () => {
    try {
      await api('POST', '/ui/filters', { name: name.value, query: query().toString() });
      flash(`Filter "${name.value}" saved.`);
      const q = query().toString();
      saveButton.before(el('a', { class: 'saved', href: `/inbox?${q}`, 'data-name': name.value.trim(), text: name.value.trim() }));
      name.remove();
      ok.remove();
    } catch (err) { flash(`Not saved: ${err.message}`, 'error'); }
  }));
  saveButton.after(name, ok);
  name.focus();
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
  const allowed = new Set(task.allowedActions || []);
  const actions = el('div', { class: 'actions' });
  if (allowed.has('claim')) actions.append(action('Assign to me', 'claim', task));
  if (allowed.has('release')) actions.append(action('Release', 'release', task));
  if (allowed.has('delegate')) actions.append(delegateControl(task));
  const formBox = el('div', { class: 'task-form', id: 'task-form' });
  const extra = el('div', { class: 'extra-vars', id: 'extra-vars' });
  const complete = el('button', { type: 'button', class: 'primary', id: 'btn-complete', text: 'Complete' });
  const err = el('div', { class: 'form-error', role: 'alert', hidden: true });
  const holder = task.assignee
    ? (task.assignee === me ? ' · assigned to you' : ` · held by ${task.assignee}`)
    : ` · unassigned (for ${[...(task.candidateUsers || []), ...(task.candidateGroups || [])].join(', ') || 'an operator to assign'})`;
  detail.replaceChildren(...[
    el('h2', { text: task.name || task.elementId }),
    el('p', { class: 'muted' },
      el('span', { text: `${task.definition} · ` }),
      el('a', { href: `/instances/${encodeURIComponent(task.instanceId)}`, text: `instance ${task.instanceId}` }),
      el('span', { text: ` · priority ${task.priority}` }),
      task.dueDate ? el('span', { text: ` · due ${fmtTime(task.dueDate)}` }) : null,
      el('span', { class: 'holder', text: holder })),
    task.instancePaused ? el('p', { class: 'notice', text: 'The instance is paused: the task can be worked on once an operator resumes it.' }) : null,
    task.pending ? el('p', { class: 'notice', id: 'task-pending', text: `Waiting for the task's listeners (${task.pending}); this view updates by itself.` }) : null,
    actions, formBox, extra, err, allowed.has('complete') ? complete : null,
    commentsSection(task), historySection(task)].filter(Boolean));
  detail.dataset.task = task.id;
  renderForm(task, formBox, extra).catch((e) => { formBox.textContent = `The form could not be shown: ${e.message}`; });
  complete.addEventListener('click', () => busy(complete, 'Completing…', async () => {
    err.hidden = true;
    const vars = collect(err);
    if (!vars) return;
    let res;
    try {
      res = await api('POST', `/ui/tasks/${encodeURIComponent(task.id)}/complete`, { variables: vars });
    } catch (e) {
      err.replaceChildren(el('p', { text: `Not completed: ${e.message}` }),
        ...((e.details || []).map((d) => el('p', { class: 'field-error', text: `${d.label || d.key}: ${d.message}` }))));
      err.hidden = false;
      return;
    }
    if (res && res.pending) { // its listener jobs decide: show it waiting
      flash(`"${task.name || task.elementId}" waits for its listeners.`);
      await openTask(task.id);
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

function action(label, op, task, body) {
  const b = el('button', { type: 'button', id: `btn-${op}`, text: label });
  b.addEventListener('click', () => busy(b, `${label}…`, async () => {
    try {
      await api('POST', `/ui/tasks/${encodeURIComponent(task.id)}/${op}`, typeof body === 'function' ? body() : body);
      await Promise.all([refreshList(), openTask(task.id)]);
    } catch (err) { flash(`${label} failed: ${err.message}`, 'error'); }
  }));
  return b;
}

// delegateControl hands the task to a named user.
function delegateControl(task) {
  const input = el('input', { type: 'text', id: 'delegate-to', placeholder: 'user name', 'aria-label': 'Delegate to' });
  return el('span', { class: 'delegate' }, input, action('Delegate', 'delegate', task, () => ({ assignee: input.value.trim() })));
}

function commentsSection(task) {
  const list = el('ul', { class: 'comments', id: 'task-comments' },
    ...(task.comments || []).map((c) => el('li', {},
      el('strong', { text: c.user }), el('span', { class: 'muted', text: ` · ${fmtTime(c.time)}` }), el('p', { text: c.text }))));
  const box = el('section', { class: 'task-comments' }, el('h3', { text: `Comments (${(task.comments || []).length})` }), list);
  if ((task.allowedActions || []).includes('comment')) {
    const text = el('textarea', { id: 'comment-text', rows: 2, 'aria-label': 'Comment' });
    box.append(text, action('Add comment', 'comments', task, () => ({ text: text.value })));
  }
  return box;
}

function historySection(task) {
  const items = (task.history || []).map((h) => el('li', {
    text: `${fmtTime(h.time)} · ${h.type}${h.by ? ` by ${h.by}` : ''}${h.assignee && h.type !== 'claimed' ? ` → ${h.assignee}` : ''}${h.text ? `: ${h.text}` : ''}`,
  }));
  return el('details', { class: 'task-history' }, el('summary', { text: `History (${items.length})` }), el('ul', {}, ...items));
}

// renderForm shows the task's form as the server resolves it (embedded,
// linked or generated: GET /ui/tasks/{id}/form), with the instance's
// variables filled in. A generated form also lets the user add variables.
async function renderForm(task, box, extra) {
  form = null;
  const { schema, data, source } = await api('GET', `/ui/tasks/${encodeURIComponent(task.id)}/form`);
  const { createForm } = await import('/static/vendor/form-viewer.js');
  // No debounce: what was typed is in the form's data the moment Complete
  // is pressed (form-js otherwise holds input back for 300 ms).
  form = await createForm({ schema, data: data || {}, container: box, debounce: false });
  box.dataset.source = source;
  if (source === 'generated') extra.append(addVariable());
}

// addVariable lets the user set a variable the generated form does not list.
function addVariable() {
  const rows = el('div', { class: 'added-vars' });
  const add = el('button', { type: 'button', id: 'btn-add-var', text: 'Add a variable' });
  add.addEventListener('click', () => {
    const n = rows.children.length;
    rows.append(el('div', { class: 'added-var' },
      el('input', { type: 'text', 'data-added': 'name', placeholder: 'name', 'aria-label': `Variable ${n + 1} name` }),
      el('input', { type: 'text', 'data-added': 'value', placeholder: 'value (JSON or text)', 'aria-label': `Variable ${n + 1} value` })));
  });
  return el('div', {}, rows, add);
}

// collect returns the variables to complete with, or null after showing
// what is wrong.
function collect(errEl) {
  const fail = (msg) => { errEl.replaceChildren(el('p', { text: msg })); errEl.hidden = false; return null; };
  let vars = {};
  if (form) {
    const { data, errors } = form.submit();
    if (errors && Object.keys(errors).length) return fail('Some fields are not valid: see the messages in the form.');
    vars = data;
  }
  for (const row of detail.querySelectorAll('.added-var')) {
    const name = row.querySelector('[data-added=name]').value.trim();
    const raw = row.querySelector('[data-added=value]').value;
    if (!name) continue;
    try { vars[name] = JSON.parse(raw); } catch { vars[name] = raw; }
  }
  return vars;
}

new Live({
  statusEl: document.getElementById('live-status'),
  subscribe: () => ({ inbox: true }),
  onMessage: (msg) => {
    if (msg.type !== 'task') return;
    refreshSoon();
    if (!msg.task || msg.task.id !== openId) return;
    if (['completed', 'cancelled'].includes(msg.change)) {
      detail.replaceChildren(el('p', { class: 'muted', text: `This task was ${msg.change} meanwhile.` }));
      openId = '';
    } else if (msg.change === 'denied' || document.getElementById('task-pending')) {
      // Its listeners decided: show the task as it is now (no typing is lost:
      // a pending task has no form to fill).
      openTask(openId);
    }
  },
  poll: () => refreshList().catch((err) => flash(err.message, 'error')),
});
