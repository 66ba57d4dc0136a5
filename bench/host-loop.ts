/**
 * How long the host's thread is held (its longest single turn of the event loop) while it serves
 * the calls that used to hold it: while it is held, every client of the app, the web host and the
 * CLI waits (progress, cancel, other calls). Each case runs through Services.dispatch as the
 * surfaces do; beside its longest turn, its wall time and the process's CPU time (worker threads
 * included).
 * - `bundle`: the first call of a process that needs a worker (runs.validate of the example spec):
 *   from sources, the worker entry is bundled then. Run it first (it is, without --only).
 * - `sweep`: runs.enqueue of a 100 × 100 voxel sweep (10,000 points), the queue not started.
 * - `exports`: runs.export of a 200,000-sphere run (a stacking-like table made up here) as CSV,
 *   LAMMPS dump and JSON, of 200,000 rows of ball mill trajectories as a LAMMPS trajectory, and of
 *   10,000 of the spheres as STL, with the bytes' SHA-256 (an export must not change for being cut
 *   in turns).
 * - `checks`: a burst of 8 runs.validate of a 2,000-point sweep, 20 ms apart, as a form sent them
 *   while its user typed (one a pause; the batch form now sends one at a time): how long the last
 *   answers after the burst.
 * - `history`: runs.list of a page of 100,000 runs sorted by a metric (History's metric sort), at
 *   the top, in the middle and at the end; and the 10,000 newest, which History fetched to sort
 *   them itself before (and refused above 10,000).
 * - `large`: a ball mill of 2,000,000 balls as it is stored (its particle table and its series, the
 *   collision frequency per ball a number per ball): runs.particles as the inspector asks (200,000)
 *   and whole, runs.series, runs.export json and csv, each 3 times; the loop delay is perf_hooks'
 *   monitorEventLoopDelay's max, the best and worst of the 3 (the machine may be shared).
 * `npm run bench -- host-loop [--only bundle,sweep,exports,checks,history,large]`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ColumnTable } from '../core/common/engine';
import { Random } from '../core/common/random';
import { encodeTable } from '../core/io/container';
import { openServices, type Services } from '../main/services/services';
import { onlyParts, tableRecorder, writeResults, type Row } from './_harness';

const only = onlyParts(process.argv.slice(2), ['bundle', 'sweep', 'exports', 'checks', 'history', 'large']);
const { tables, table } = tableRecorder();

/** The longest gap between two ticks of a 1 ms timer chain while `fn` runs: the longest turn the loop took. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; longestMs: number; delayMaxMs: number; wallS: number; cpuS: number }> {
  // And perf_hooks' event-loop delay histogram: its max is the longest the loop was late for a tick.
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await new Promise((r) => setTimeout(r, 20)); // its timer's first tick: a block before it is not counted
  let longest = 0, last = performance.now(), on = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (on) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  const cpu0 = process.cpuUsage(), t0 = performance.now();
  const value = await fn();
  const wallS = (performance.now() - t0) / 1000, cpu = process.cpuUsage(cpu0);
  on = false;
  longest = Math.max(longest, performance.now() - last);
  await new Promise((r) => setTimeout(r, 5));
  delay.disable();
  return { value, longestMs: longest, delayMaxMs: delay.max / 1e6, wallS, cpuS: (cpu.user + cpu.system) / 1e6 };
}

/** Services over a data folder of their own; runs are queued, never started. */
function services(dir: string): Services {
  return openServices({ dataDir: dir, concurrency: 1 });
}

const example = { engine: 'voxel', name: 'spheres', seed: 1, params: { box: { size: [6, 6, 6], resolution: 16, top: 'ceiling' }, mixture: { basis: 'number', types: [{ name: 'spheres', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 }, fraction: 1, maxRotation: [180, 180, 180] }] }, reboundProbability: 0.25, freezingInterval: 100 } };
/** The example with two swept fields: a × b points. */
function sweep(a: number, b: number) {
  return { ...example, name: `sweep ${a}x${b}`, params: { ...example.params, reboundProbability: { $sweep: { from: 0.05, to: 0.95, steps: a } }, freezingInterval: { $sweep: { from: 10, to: 1000, steps: b } } } };
}

const root = mkdtempSync(join(tmpdir(), 'packbench-bench-loop-'));
try {
  if (only('bundle')) {
    // A process bundles each worker entry once, at its first use (main/services/pool.ts runnableEntry).
    const s = services(join(root, 'bundle'));
    const r = await measured(() => s.dispatch('runs.validate', { spec: example }));
    await s.close();
    table('First runs.validate of a process, worker bundle made from sources', [{ case: 'runs.validate (bundles the engine worker)', 'longest turn ms': r.longestMs, 'wall s': r.wallS, 'cpu s': r.cpuS }]);
  }

  if (only('sweep')) {
    const s = services(join(root, 'sweep'));
    await s.dispatch('runs.validate', { spec: example }); // the worker bundle and the check worker, before
    const rows: Row[] = [];
    for (const method of ['runs.validate', 'runs.enqueue'] as const) {
      const r = await measured(() => s.dispatch(method, { spec: sweep(100, 100) }));
      rows.push({ case: `${method} of a 100 x 100 sweep`, 'longest turn ms': r.longestMs, 'wall s': r.wallS, 'cpu s': r.cpuS });
    }
    await s.close();
    table('A 10,000-point voxel sweep (queue not started)', rows);
  }

  if (only('exports')) {
    const N = 200_000;
    const rng = new Random(7);
    const u = (scale: number) => Float64Array.from({ length: N }, () => rng.next() * scale);
    const spheres: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { x: u(100), y: u(100), z: u(100), r: Float64Array.from({ length: N }, () => 0.5 + rng.next()), type: Uint16Array.from({ length: N }, (_, i) => i % 4), coordination: Uint16Array.from({ length: N }, (_, i) => i % 13) },
      meta: { box: [100, 100, 100], periodic: [true, true, false] },
    };
    const dir = join(root, 'exports');
    const s = services(dir);
    // A ball mill's trajectories of as many rows: 200 frames of 1000 balls (bench/exports.ts makes them so too).
    const balls = 1000, frames = N / balls, times = Array.from({ length: frames }, (_, f) => f * 1e-3);
    const f32 = (scale: number) => Float32Array.from({ length: N }, () => rng.next() * scale);
    const trajectories: ColumnTable = {
      kind: 'table', name: 'trajectories',
      columns: { id: Uint32Array.from({ length: N }, (_, i) => i % balls), x: f32(60), y: f32(60), z: f32(80), r: new Float32Array(N).fill(3), speed: f32(800), impacts: Uint32Array.from({ length: N }, (_, i) => Math.floor(i / balls / 10)) },
      meta: { frames, frameRows: balls, frameTimes: times, frameOffsets: times.map((t) => 5 * Math.sin(90 * t)), container: { shape: 'box', min: [0, 0, 0], max: [60, 60, 80], moves: 'z' } },
    };
    const run = (engine: string, t: ColumnTable): string => {
      const path = join(dir, `${t.name}.pbt`), bytes = encodeTable(t);
      writeFileSync(path, bytes);
      const id = s.store.insertRuns([{ name: `${N} rows`, engine, spec: { engine, name: `${N} rows`, seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }])[0];
      s.store.finishRun(id, { status: 'done', metrics: { rows: N }, series: [], artifacts: [{ kind: 'table', name: t.name, path, bytes: bytes.byteLength, checksum: createHash('sha256').update(bytes).digest('hex'), meta: t.meta ?? {} }], wallSeconds: 1 });
      return id;
    };
    // stl-particles of 10,000 of them: 200,000 spheres of 80 triangles are 4 GB, which runs.export does not carry.
    const few: ColumnTable = { ...spheres, name: 'spheres', columns: Object.fromEntries(Object.entries(spheres.columns).map(([k, v]) => [k, v.subarray(0, 10_000)])) };
    const sphereRun = run('stacking', spheres), millRun = run('ballmill', trajectories), fewRun = run('stacking', few);
    const rows: Row[] = [];
    for (const [id, format] of [[sphereRun, 'csv'], [sphereRun, 'lammps'], [sphereRun, 'json'], [millRun, 'lammps-trajectory'], [fewRun, 'stl-particles']]) {
      const r = await measured(() => s.dispatch('runs.export', { id, format }));
      rows.push({ format, rows: id === fewRun ? 10_000 : N, MiB: r.value.bytes.byteLength / 2 ** 20, 'longest turn ms': r.longestMs, 'wall s': r.wallS, 'cpu s': r.cpuS, sha256: createHash('sha256').update(r.value.bytes).digest('hex').slice(0, 16) });
    }
    await s.close();
    table(`runs.export of a ${N}-sphere run, of ${N} rows of trajectories, and of 10,000 spheres as STL (sha256: of the bytes; json holds the run's id)`, rows);
  }

  if (only('checks')) {
    const s = services(join(root, 'checks'));
    await s.dispatch('runs.validate', { spec: example });
    const BURST = 8;
    const r = await measured(async () => {
      const calls = [];
      // A form's edits 20 ms apart: each a check of the spec as it stands.
      for (let i = 0; i < BURST; i++) {
        const spec = { ...example, name: `edit ${i}`, params: { ...example.params, reboundProbability: { $sweep: { from: 0.05, to: 0.95, steps: 100 + i } }, freezingInterval: { $sweep: Array.from({ length: 20 }, (_, k) => 10 + 10 * k) } } };
        calls.push(s.dispatch('runs.validate', { spec }));
        await new Promise((t) => setTimeout(t, 20));
      }
      const t0 = performance.now();
      await calls[BURST - 1];
      const last = (performance.now() - t0) / 1000;
      await Promise.all(calls); // a refusal throws: every check must be of a whole sweep
      return last;
    });
    await s.close();
    table(`A burst of ${BURST} runs.validate of a ~100 x 20 sweep, 20 ms apart (each call's answer read: none refused)`, [{ case: 'the last check answers after the burst', 'last answer s': r.value, 'longest turn ms': r.longestMs, 'wall s': r.wallS, 'cpu s': r.cpuS }]);
  }

  if (only('history')) {
    const N = 100_000;
    const s = services(join(root, 'history'));
    // As the e2e History test puts them: on hold, every 10th finished with a metric.
    const spec = { engine: 'voxel', name: 'bulk', seed: 1, params: {} };
    const ids = s.store.insertRuns(Array.from({ length: N }, (_, i) => ({ name: `bulk ${i}`, engine: 'voxel', spec, params: {}, seed: i, priority: 0, batchId: null, status: 'paused' as const })));
    s.store.transaction(() => {
      for (let i = 0; i < N; i += 10) s.store.finishRun(ids[i], { status: 'done', metrics: { solidFraction: (i % 1000) / 1000 }, wallSeconds: 1 });
    });
    const rows: Row[] = [];
    const cases: [string, { offset: number; limit: number; sort?: { metric: string; dir: 'asc' | 'desc' } }][] = [
      ['sorted by a metric, first page of 200', { offset: 0, limit: 200, sort: { metric: 'solidFraction', dir: 'desc' } }],
      ['sorted by a metric, page at 50,000', { offset: 50_000, limit: 200, sort: { metric: 'solidFraction', dir: 'desc' } }],
      ['sorted by a metric, last page', { offset: N - 200, limit: 200, sort: { metric: 'solidFraction', dir: 'desc' } }],
      ['the 10,000 newest (History sorted them itself before)', { offset: 0, limit: 10_000 }],
    ];
    for (const [label, params] of cases) {
      const r = await measured(() => s.dispatch('runs.list', params));
      rows.push({ case: label, rows: r.value.rows.length, 'longest turn ms': r.longestMs, 'wall s': r.wallS, 'cpu s': r.cpuS });
    }
    await s.close();
    table(`runs.list over ${N} runs (History)`, rows);
  }

  if (only('large')) {
    // A ball mill of 2,000,000 balls as it stores them: its particle table (44 MB of columns) and
    // the series of its results, the collision frequency per ball among them (2,000,000 points).
    const N = 2_000_000;
    const rng = new Random(11);
    const f64 = (scale: number) => { const a = new Float64Array(N); for (let i = 0; i < N; i++) a[i] = rng.next() * scale; return a; };
    const balls: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { x: f64(600), y: f64(600), z: f64(800), r: new Float64Array(N).fill(1.5), speed: f64(800), impacts: Uint32Array.from({ length: N }, (_, i) => i % 97) },
      meta: { container: { shape: 'box', min: [0, 0, 0], max: [600, 600, 800], moves: 'z' } },
    };
    const dir = join(root, 'large');
    const s = services(dir);
    const path = join(dir, 'particles.pbt'), bytes = encodeTable(balls);
    writeFileSync(path, bytes);
    const ids = Float64Array.from({ length: N }, (_, i) => i), freq = f64(50);
    const energyT = Float64Array.from({ length: 1000 }, (_, i) => i * 1e-3), energy = Float64Array.from({ length: 1000 }, (_, i) => 1 / (1 + i));
    const [id] = s.store.insertRuns([{ name: `${N} balls`, engine: 'ballmill', spec: { engine: 'ballmill', name: `${N} balls`, seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
    s.store.finishRun(id, {
      status: 'done', metrics: { balls: N }, wallSeconds: 1,
      series: [{ name: 'collision frequency per ball', xLabel: 'ball', yLabel: 'impacts per simulated second', x: ids, y: freq, kind: 'bar' }, { name: 'energy', xLabel: 'time (s)', yLabel: 'energy (J)', x: energyT, y: energy, kind: 'line' }],
      artifacts: [{ kind: 'table', name: 'particles', path, bytes: bytes.byteLength, checksum: createHash('sha256').update(bytes).digest('hex'), meta: balls.meta ?? {} }],
    });
    const rows: Row[] = [];
    const cases: [string, () => Promise<Uint8Array | null>][] = [
      ['runs.particles, 200,000 of them (the inspector)', async () => (await s.dispatch('runs.particles', { id, limit: 200_000 }), null)],
      ['runs.particles, all of them', async () => (await s.dispatch('runs.particles', { id, limit: N }), null)],
      ["runs.series (the inspector's plots)", async () => (await s.dispatch('runs.series', { id }), null)],
      ['runs.export json (the series)', async () => (await s.dispatch('runs.export', { id, format: 'json' })).bytes],
      ['runs.export csv', async () => (await s.dispatch('runs.export', { id, format: 'csv' })).bytes],
    ];
    for (const [label, fn] of cases) {
      const tries = [await measured(fn), await measured(fn), await measured(fn)].sort((a, b) => a.delayMaxMs - b.delayMaxMs);
      const r = tries[0];
      rows.push({ case: label, MiB: r.value ? r.value.byteLength / 2 ** 20 : null, 'loop delay max ms, best of 3': r.delayMaxMs, 'worst of 3': tries[2].delayMaxMs, 'wall s': r.wallS, 'cpu s': r.cpuS, sha256: r.value ? createHash('sha256').update(r.value).digest('hex').slice(0, 16) : '' });
    }
    await s.close();
    table(`A ball mill of ${N} balls: its particles and its exports (sha256: of the bytes; json holds the run's id)`, rows);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
console.log(`results: ${writeResults('host-loop', tables)}`);
