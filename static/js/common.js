// Helpers every page module uses: fetch with the API's error envelope,
// messages in words, confirmation, and the live connection.

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || '';

/** ApiError carries the message of the API's error envelope. */
export class ApiError extends Error {
  constructor(status, message, details) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

/**
 * api sends a request and returns the parsed JSON (or text) body; a failure
 * throws ApiError with the server's message.
 */
export async function api(method, url, body, { type = 'application/json', text = false } = {}) {
  const headers = { 'X-CSRF-Token': csrf(), Accept: 'application/json' };
  let payload;
  if (body !== undefined) {
    headers['Content-Type'] = type;
    payload = type === 'application/json' ? JSON.stringify(body) : body;
  }
  let resp;
  try {
    resp = await fetch(url, { method, headers, body: payload, credentials: 'same-origin' });
  } catch (err) {
    throw new ApiError(0, `The server did not answer (${err.message}). Check that it runs and try again.`);
  }
  if (!resp.ok) {
    let msg = `${resp.status} ${resp.statusText}`;
    let details;
    try {
      const env = await resp.json();
      if (env && env.error) {
        msg = env.error.message || msg;
        details = env.error.details;
      }
    } catch { /* not JSON: keep the status line */ }
    throw new ApiError(resp.status, msg, details);
  }
  if (resp.status === 204) return null;
  if (text) return resp.text();
  const ct = resp.headers.get('Content-Type') || '';
  return ct.includes('json') ? resp.json() : resp.text();
}

let flashTimer;
/** flash shows a message at the top of the page; kind is info or error. */
export function flash(message, kind = 'info') {
  const el = document.getElementById('flash');
  if (!el) return;
  el.textContent = message;
  el.className = `flash ${kind}`;
  el.hidden = false;
  clearTimeout(flashTimer);
  if (kind !== 'error') flashTimer = setTimeout(() => { el.hidden = true; }, 4000);
}

/** busy disables a button and shows progress while fn runs. */
export async function busy(button, label, fn) {
  const old = button ? button.textContent : '';
  if (button) {
    button.disabled = true;
    button.textContent = label;
    button.setAttribute('aria-busy', 'true');
  }
  try {
    return await fn();
  } finally {
    if (button) {
      button.disabled = false;
      button.textContent = old;
      button.removeAttribute('aria-busy');
    }
  }
}

/** el makes an element with text content (never HTML) and attributes. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** fmtTime formats an ISO time for people. */
export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return isNaN(d) ? String(iso) : d.toLocaleString();
}

/**
 * Live keeps a subscription on /ws and calls onMessage for each message.
 * When the socket cannot connect it polls (poll is called every pollMs)
 * until the socket is back, so the page never stalls. subscribe returns
 * the subscribe message to send on each (re)connect, so an instance
 * subscription can carry the last seen sequence as "since".
 */
export class Live {
  constructor({ subscribe, onMessage, poll, pollMs = 2000, statusEl, catchUp = true }) {
    this.catchUp = catchUp; // poll once on (re)connect; false when "since" catches up
    this.subscribe = subscribe;
    this.onMessage = onMessage;
    this.poll = poll;
    this.pollMs = pollMs;
    this.statusEl = statusEl;
    this.backoff = 500;
    this.closed = false;
    this.connect();
  }

  status(text, kind) {
    if (!this.statusEl) return;
    this.statusEl.textContent = text;
    this.statusEl.dataset.state = kind;
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/ws`);
    } catch {
      this.fallback();
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.addEventListener('open', () => {
      opened = true;
      this.backoff = 500;
      const wasPolling = !!this.pollTimer;
      this.stopPolling();
      const subs = [].concat(this.subscribe());
      for (const s of subs) ws.send(JSON.stringify({ type: 'subscribe', ...s }));
      this.status('live', 'live');
      // Catch up with what happened before the subscription took hold.
      if (this.poll && (this.catchUp || wasPolling)) this.poll();
    });
    ws.addEventListener('message', (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.onMessage(msg);
    });
    ws.addEventListener('close', () => {
      if (this.closed) return;
      this.fallback();
      this.status(opened ? 'reconnecting…' : 'polling', 'poll');
      setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 15000);
    });
    ws.addEventListener('error', () => { /* close follows */ });
  }

  fallback() {
    if (!this.poll || this.pollTimer) return;
    this.pollTimer = setInterval(() => this.poll(), this.pollMs);
  }

  stopPolling() {
    clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  close() {
    this.closed = true;
    this.stopPolling();
    if (this.ws) this.ws.close();
  }
}

/** debounce runs fn at most once per ms, after the last call. */
export function debounce(fn, ms) {
  let t;
  let running = false;
  let again = false;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    try { await fn(); } catch (err) { flash(err.message, 'error'); }
    running = false;
    if (again) { again = false; t = setTimeout(run, ms); }
  };
  return () => { clearTimeout(t); t = setTimeout(run, ms); };
}

/**
 * confirmDialog asks a yes/no question in a page dialog (not window.confirm)
 * and resolves to true when confirmed.
 */
export function confirmDialog(message, confirmLabel = 'Confirm') {
  return new Promise((resolve) => {
    const yes = el('button', { type: 'button', class: 'danger', 'data-confirm': 'yes', text: confirmLabel });
    const no = el('button', { type: 'button', 'data-confirm': 'no', text: 'Keep' });
    const dlg = el('dialog', { class: 'confirm' }, el('p', { text: message }), el('div', { class: 'actions' }, no, yes));
    const done = (v) => { dlg.close(); dlg.remove(); resolve(v); };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dlg.addEventListener('cancel', () => done(false));
    document.body.append(dlg);
    dlg.showModal();
    no.focus();
  });
}

// The navigation's count of the user's open tasks, kept live over /ws on
// every page.
const navCount = document.getElementById('nav-inbox-count');
if (navCount) {
  const refresh = debounce(async () => {
    try {
      const { mine } = await api('GET', '/ui/inbox/count');
      navCount.textContent = String(mine);
      navCount.hidden = mine === 0;
      navCount.dataset.count = String(mine);
    } catch { /* the next event tries again */ }
  }, 200);
  new Live({
    subscribe: () => ({ inbox: true }),
    onMessage: (msg) => { if (msg.type === 'task') refresh(); },
    poll: refresh,
    pollMs: 10000,
  });
}
