// The instance list: refreshed live while it is the first page.
import { api, flash, Live, debounce } from './common.js';

const listEl = document.getElementById('instance-list');
const params = new URLSearchParams(location.search);

async function refresh() {
  if (params.get('cursor')) return; // later pages stay put
  const html = await api('GET', `/ui/instances?${params}`, undefined, { text: true });
  // Server-rendered by templ: every text in it is escaped.
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  listEl.replaceChildren(tpl.content);
}
const refreshSoon = debounce(refresh, 500);

const defs = params.get('definition') ? [params.get('definition')]
  : [...document.querySelectorAll('select[name=definition] option')].map((o) => o.value).filter(Boolean);

new Live({
  statusEl: document.getElementById('live-status'),
  subscribe: () => defs.map((d) => ({ definition: d })),
  onMessage: (msg) => { if (msg.type === 'event') refreshSoon(); },
  poll: () => refresh().catch((err) => flash(err.message, 'error')),
  pollMs: 5000,
});
