// The dead letters page: replay, discard or delete one letter; replay,
// discard or purge every letter the filter selects, after a dry run that
// says how many it would change.
import { api, flash, busy, confirmDialog } from './common.js';

const form = document.getElementById('deadletter-filters');

// selection is the filter form as the bulk endpoints' body.
function selection() {
  const v = (name) => form.elements[name]?.value.trim() || '';
  // datetime-local has no zone: the server reads it as UTC, like the list does
  const time = (s) => (s ? `${s.length === 16 ? `${s}:00` : s}Z` : undefined);
  const body = {
    instance: v('instance') || undefined,
    definition: v('definition') || undefined,
    elementId: v('element') || undefined,
    jobType: v('jobType') || undefined,
    error: v('error') || undefined,
    createdFrom: time(v('createdFrom')),
    createdTo: time(v('createdTo')),
    status: v('status') || undefined,
  };
  return JSON.parse(JSON.stringify(body)); // without the undefined fields
}

const bulk = {
  replay: { verb: 'Replay', what: 'pending dead letter(s): their jobs run again' },
  discard: { verb: 'Discard', what: 'pending dead letter(s): their incidents stay open' },
  purge: { verb: 'Purge', what: 'settled dead letter(s) for good' },
};

async function runBulk(button, action) {
  const { verb, what } = bulk[action];
  const body = selection();
  if (action === 'purge') body.olderThan = document.getElementById('purge-age').value.trim();
  const url = `/ui/deadletters/${action}`;
  await busy(button, `${verb}…`, async () => {
    try {
      const dry = await api('POST', url, { ...body, dryRun: true });
      if (dry.matched === 0) {
        flash(`No dead letters to ${action}: none match.`);
        return;
      }
      const first = dry.ids?.length ? ` First: ${dry.ids.slice(0, 5).join(', ')}${dry.matched > 5 ? ', …' : ''}.` : '';
      if (!await confirmDialog(`${verb} ${dry.matched} ${what}?${first}`, verb)) return;
      const res = await api('POST', url, body);
      const failed = res.failed?.length ? `, ${res.failed.length} failed: ${res.failed[0].error}` : '';
      flash(`${verb}: ${res.done ?? res.matched} of ${res.matched} done${failed}.`, res.failed?.length ? 'error' : 'info');
      setTimeout(() => window.location.reload(), 600);
    } catch (err) { flash(`${verb} failed: ${err.message}`, 'error'); }
  });
}

const one = {
  replay: (id) => [`Replay dead letter ${id}? Its job runs again.`, 'Replay', () => api('POST', `/ui/deadletters/${encodeURIComponent(id)}/replay`, {})],
  discard: (id) => [`Discard dead letter ${id}? Its incident stays open.`, 'Discard', () => api('POST', `/ui/deadletters/${encodeURIComponent(id)}/discard`, {})],
  delete: (id) => [`Delete dead letter ${id}? This cannot be undone.`, 'Delete', () => api('DELETE', `/ui/deadletters/${encodeURIComponent(id)}`)],
};

document.getElementById('main').addEventListener('click', async (ev) => {
  const bb = ev.target.closest('button[data-bulk]');
  if (bb) {
    await runBulk(bb, bb.dataset.bulk);
    return;
  }
  const b = ev.target.closest('button[data-action]');
  if (!b || !one[b.dataset.action]) return;
  const [question, verb, act] = one[b.dataset.action](b.dataset.id);
  if (!await confirmDialog(question, verb)) return;
  await busy(b, `${verb}…`, async () => {
    try {
      await act();
      flash(`${verb} done.`);
      setTimeout(() => window.location.reload(), 600);
    } catch (err) { flash(`${verb} failed: ${err.message}`, 'error'); }
  });
});
