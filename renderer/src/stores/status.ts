/**
 * App-wide state shown in the status bar and used by several workspaces: app.info, the queue state, the
 * connection. Also turns batch.finished into an in-app toast and, in Electron only, a desktop notification,
 * and says in a toast which runs opening the data folder re-queued after a crash.
 */
import { computed, reactive } from 'vue';
import { api, errorMessage, onBatchFinished, type AppInfo, type QueueState } from '../api';
import { toast } from './toasts';

export const status = reactive({
  info: null as AppInfo | null,
  queue: null as QueueState | null,
  error: null as string | null,
});

/**
 * Why nothing can be written (the data folder is open read-only, app.info readOnlyBecause), as the
 * title of the controls that would write, which are disabled; null when the folder can be written.
 */
export const readOnly = computed(() => (status.info?.readOnlyBecause ? `The data folder is read-only: ${status.info.readOnlyBecause}` : null));

/**
 * Why History cannot delete runs: the folder is read-only (readOnly), but on a full disk (app.info
 * fullDisk) a delete is how the user frees the space PackBench's own runs take (their files go first).
 */
export const deleteBlocked = computed(() => (status.info?.fullDisk ? null : readOnly.value));

let started = false;

export async function refreshQueue(): Promise<void> {
  try {
    status.queue = await api.call('queue.state', {});
  } catch (e) {
    status.error = errorMessage(e);
  }
}

function notifyDesktop(title: string, body: string): void {
  if (!status.info?.electron || typeof Notification === 'undefined') return;
  if (Notification.permission === 'granted') new Notification(title, { body });
  else if (Notification.permission !== 'denied') {
    void Notification.requestPermission().then((p) => {
      if (p === 'granted') new Notification(title, { body });
    });
  }
}

/** Subscribes once for the life of the app. */
export async function startStatus(): Promise<void> {
  if (started) return;
  started = true;
  api.on('queue.updated', (q) => (status.queue = q));
  onBatchFinished((b) => {
    const parts = [`${b.done} done`];
    if (b.failed) parts.push(`${b.failed} failed`);
    if (b.cancelled) parts.push(`${b.cancelled} cancelled`);
    const text = `Batch “${b.name}” finished: ${parts.join(', ')}`;
    toast(b.failed ? 'error' : 'ok', text);
    notifyDesktop('PackBench: batch finished', text);
  });
  try {
    status.info = await api.call('app.info', {});
    status.error = null;
    // Said until dismissed: the user would otherwise never learn that runs were interrupted.
    const n = status.info.recoveredRuns;
    if (n > 0) toast('info', `Re-queued ${n} run${n === 1 ? '' : 's'} interrupted by an earlier crash: each resumes from its last checkpoint, or starts again`, null);
  } catch (e) {
    status.error = errorMessage(e);
  }
  await refreshQueue();
}
