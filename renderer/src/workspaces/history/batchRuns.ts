/**
 * Every run of a batch, loaded once and again a second after any of its runs changes (runs that
 * finish are added): what the sweep plot and the replicates' summary are made of.
 */
import { onBeforeUnmount, ref, watch, type Ref } from 'vue';
import { api, errorMessage, onRunUpdated, type RunSummary } from '../../api';
import { MAX_LIST_PAGE } from '../../../../main/api';

export function useBatchRuns(batchId: () => string): { runs: Ref<RunSummary[]>; error: Ref<string | null>; loading: Ref<boolean> } {
  const runs = ref<RunSummary[]>([]);
  const error = ref<string | null>(null);
  const loading = ref(false);
  let generation = 0;

  async function load(): Promise<void> {
    const gen = ++generation;
    loading.value = true;
    try {
      // A page at a time: re-runs that joined the batch (JobQueue.rerun) take it past its sweep's
      // points, and a sweep makes up to MAX_SWEEP_POINTS, a page's most. Oldest first, so that runs
      // added meanwhile come on the last page; each page after the last one's end (its next), not at
      // an offset, which a run deleted meanwhile shifted past a run.
      const rows: RunSummary[] = [];
      let after: string | undefined;
      for (;;) {
        const res = await api.call('runs.list', { ...(after === undefined ? {} : { after }), limit: MAX_LIST_PAGE, sort: { field: 'createdAt', dir: 'asc' }, filter: { batchId: batchId() } });
        if (gen !== generation) return;
        for (const r of res.rows) rows.push(r);
        if (res.rows.length < MAX_LIST_PAGE || res.next === null || rows.length >= res.total) break;
        after = res.next;
      }
      runs.value = rows;
      error.value = null;
    } catch (e) {
      if (gen === generation) error.value = errorMessage(e);
    } finally {
      if (gen === generation) loading.value = false;
    }
  }
  watch(batchId, load, { immediate: true });

  let timer: ReturnType<typeof setTimeout> | null = null;
  const off = onRunUpdated((r) => {
    if (r.batchId !== batchId() || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void load();
    }, 1000);
  });
  onBeforeUnmount(() => {
    off();
    if (timer) clearTimeout(timer);
  });
  return { runs, error, loading };
}
