// The incidents page: retry incidents.
import { api, flash, busy, confirmDialog } from './common.js';

document.getElementById('main').addEventListener('click', async (ev) => {
  const b = ev.target.closest('button[data-action="retry"]');
  if (!b) return;
  const { id, instance } = b.dataset;
  if (!await confirmDialog(`Retry incident ${id} of instance ${instance}?`, 'Retry')) return;
  await busy(b, 'Retry…', async () => {
    try {
      await api('POST', `/ui/instances/${encodeURIComponent(instance)}/incidents/${encodeURIComponent(id)}/retry`, {});
      b.closest('tr').remove();
      flash('Retry done.');
    } catch (err) { flash(`Retry failed: ${err.message}`, 'error'); }
  });
});
