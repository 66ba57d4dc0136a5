/**
 * The worker of import tasks (main/services/imports.ts): parses, checks and analyses or voxelises a
 * file the user brought, or voxelises a shape for the editor's preview, off the thread that serves
 * the app, and posts the outcome. It serves one task per message, so the pool can keep it for the
 * next one.
 */
import { parentPort } from 'node:worker_threads';
import type { ImportProgress } from '../api';
import { runImportTask, type ImportResult, type ImportTask } from '../services/imports';

/** Progress goes out a few times a second ({ progress }), each phase's first and last report (at 1) at once. */
const PROGRESS_MS = 200;

function buffersOf(r: ImportResult): ArrayBuffer[] {
  if (r.kind === 'shape') return [];
  const arrays = r.kind === 'preview'
    ? [r.preview.solid, r.preview.shell, r.preview.reducedShell]
    : [...Object.values(r.spheres.table.columns), ...r.spheres.series.flatMap((s) => [s.x, s.y])];
  return [...new Set(arrays.map((a) => a.buffer).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer))];
}

parentPort!.on('message', (task: ImportTask) => {
  let phase = '', last = 0;
  const progress = (p: ImportProgress) => {
    const now = performance.now();
    if (p.phase === phase && p.fraction < 1 && now - last < PROGRESS_MS) return;
    phase = p.phase;
    last = now;
    parentPort!.postMessage({ progress: p });
  };
  try {
    const value = runImportTask(task, progress);
    parentPort!.postMessage({ ok: true, value }, buffersOf(value));
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
  }
});
