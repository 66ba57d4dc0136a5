/**
 * Shared by the memory benchmarks (voxel-memory, surface-memory): each case runs in a fresh process
 * of its own (runProbe), which measures the growth of its resident set; `workerProbe` runs a spec
 * as `packbench run` does (services, worker thread, artifacts written).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const MiB = 2 ** 20;

/** Resident set now and its peak since the last reset (bytes), from /proc/self/status. */
export function residentBytes(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Resets the peak resident set to the resident set now (Linux ≥ 4.0). */
export function resetPeak(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}

/**
 * The spec run through the services on `threads` threads (a worker thread, and its helpers):
 * { status, peakRss, estimate } with peakRss the growth of this process's peak resident set over
 * the run and estimate what the queue holds against its budget for it (JobQueue.memoryBytes: the
 * engine's estimate and a worker for each helper thread).
 * The services are up and the spec checked before the peak is reset: only the run (its worker
 * threads, the engine in them, the artifacts it writes and their records) is measured, not the
 * worker that ran the engine's checks (JobQueue.checkInWorker), which stays up for the next.
 */
export async function workerProbe(spec: { engine: string; params: unknown }, threads = 1): Promise<{ status: string; peakRss: number; estimate: number }> {
  const { openServices } = await import('../main/services/services');
  const { defaultRegistry } = await import('../main/services/engines');
  const data = mkdtempSync(join(tmpdir(), 'packbench-memory-'));
  const s = openServices({ dataDir: data, registry: defaultRegistry(), concurrency: 1, threadsPerRun: threads, autoStart: true });
  const runs = await s.queue.validate(spec as never);
  const estimate = s.queue.memoryBytes(spec.engine, runs[0].params);
  global.gc?.();
  const before = residentBytes().rss;
  resetPeak();
  const { runIds } = await s.queue.add(spec as never, runs);
  await s.queue.waitFor(runIds);
  const status = s.store.getSummary(runIds[0])?.status ?? 'deleted';
  const peakRss = residentBytes().peak - before;
  await s.close();
  rmSync(data, { recursive: true, force: true });
  return { status, peakRss, estimate };
}

/**
 * The engine run in this process, on one thread, and its particle tables encoded as the worker would:
 * { result, allocated, peakRss } with allocated the most ArrayBuffer bytes held above those before
 * the run (sampled at every progress and log call) and peakRss the growth of the peak resident set.
 */
export async function inProcessProbe<R extends { artifacts: { kind: string }[] }>(run: (ctx: { seed: number; threads: 1; progress: () => void; cancelled: () => boolean; log: () => void }) => R | Promise<R>, seed: number): Promise<{ result: R; allocated: number; peakRss: number }> {
  const { encodeTable } = await import('../core/io/container');
  const base = process.memoryUsage().arrayBuffers;
  let allocated = 0;
  const sample = () => {
    allocated = Math.max(allocated, process.memoryUsage().arrayBuffers - base);
  };
  const before = residentBytes().rss;
  resetPeak();
  const result = await run({ seed, threads: 1, progress: sample, cancelled: () => false, log: sample });
  sample();
  for (const a of result.artifacts) if (a.kind === 'table') { encodeTable(a as never); sample(); }
  return { result, allocated, peakRss: residentBytes().peak - before };
}

/** Runs `script --probe ...args` in a fresh Node process (with --expose-gc): the JSON it prints. */
export function runProbe(script: string, ...args: string[]): Record<string, number> {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--probe', ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`probe ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
