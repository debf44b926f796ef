// The incidents page: retry incidents, replay or delete dead letters.
import { api, flash, busy, confirmDialog } from './common.js';

document.getElementById('main').addEventListener('click', async (ev) => {
  const b = ev.target.closest('button[data-action]');
  if (!b) return;
  const { action, id, instance } = b.dataset;
  const ask = {
    retry: [`Retry incident ${id} of instance ${instance}?`, 'Retry'],
    replay: [`Replay dead letter ${id}? Its job runs again.`, 'Replay'],
    delete: [`Delete dead letter ${id}? This cannot be undone.`, 'Delete'],
  }[action];
  if (!ask || !await confirmDialog(...ask)) return;
  await busy(b, `${ask[1]}…`, async () => {
    try {
      if (action === 'retry') await api('POST', `/ui/instances/${encodeURIComponent(instance)}/incidents/${encodeURIComponent(id)}/retry`, {});
      if (action === 'replay') await api('POST', `/ui/deadletters/${encodeURIComponent(id)}/replay`);
      if (action === 'delete') await api('DELETE', `/ui/deadletters/${encodeURIComponent(id)}`);
      b.closest('tr').remove();
      flash(`${ask[1]} done.`);
    } catch (err) { flash(`${ask[1]} failed: ${err.message}`, 'error'); }
  });
});
