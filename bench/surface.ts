/**
 * Benchmark of the surface sampling engine, after the seed's sections 1 and 5 (Heckbert 1997):
 *   scaling  time per repulsion iteration for 10^3 … 10^6 particles on a sphere, through the periodic
 *            2^k grid by linked cells over the grid's sorted rows (the default; the renumbering in
 *            row order each pass is part of the time) on one thread and on two (a helper thread
 *            started here through the engines' worker entry, as a run's would be), and by the
 *            seed's spherical range queries, and through the O(n²) loop up to where that is
 *            practical; the fitted exponent of each
 *   runs     whole engine runs to uniform on one thread and on two (the repulsion pass and the move
 *            shared; birth, death and the renumbering on the run's thread): a sphere of about
 *            100,000 particles, a superquadric (whose move costs as much as its pass) and the seed's
 *            blobby cylinders; ms per iteration, wall and CPU of the whole run
 *   seed     the seed's Figure 1: three blobby cylinders sampled from scratch to uniform at about
 *            10,000 particles: iterations, time per iteration, and the O(n²) pass on the final state
 *            (the seed: ~0.5 s an iteration on a 100 MHz SGI Crimson, 160x faster than O(n²))
 *
 * A "repulsion iteration" is the seed's timed part: every particle's energy, ∂E/∂σ and desired
 * velocity from its neighbours within 3σ_i (SurfaceSampler.repel), each pass after an untimed
 * constrained move (advance) so that the particles have moved as in a run. `step` times both. The particles of `scaling` sit on a Fibonacci spiral of the unit sphere
 * (nearly uniform, like a converged sampling) with the lattice σ̂ of their spacing, after 5 steps
 * without birth and death so that σ_i and the grid have adapted.
 *
 * Times are the median of several passes, wall clock and this process's CPU time (the machine is
 * shared: CPU time is the steadier of the two; with two threads it counts both, the helper's
 * waits for work included), with the load average printed. The passes on one and on two threads
 * alternate, so that both see the same machine.
 *
 * `npm run bench -- surface [--only scaling,runs,seed] [--quick]`. --quick stops at 10^5 particles.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runnableEntry } from '../main/services/pool';
import { onlyParts, tableRecorder, writeResults, type Row } from './_harness';
import { implicitFunction, implicitSurfaceSchema } from '../core/surface/implicit';
import { solidBounds } from '../core/surface/solid';
import { SurfaceSampler, sigmaForSpacing, type NeighbourSearch } from '../core/surface/sampler';
import { surfaceEngine, surfaceParamsSchema } from '../core/surface/index';
import type { EngineResult } from '../core/common/engine';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const wanted = onlyParts(args, ['scaling', 'runs', 'seed']);

/** O(n²) passes are run up to this many particles (3·10^4: about 10^9 pair tests, seconds a pass). */
const DIRECT_MAX = 30_000;

const { tables, table } = tableRecorder();

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Median wall and CPU milliseconds of each of `fns` over `passes` rounds, the functions taking
 * turns within a round (each after an untimed call of its `before`).
 */
function timeSideBySide(passes: number, fns: (() => void)[], before: (() => void)[]): { wall: number; cpu: number }[] {
  const wall = fns.map((): number[] => []), cpu = fns.map((): number[] => []);
  for (let k = 0; k < passes; k++) {
    fns.forEach((fn, f) => {
      before[f]();
      const t0 = performance.now(), c0 = cpuMs();
      fn();
      wall[f].push(performance.now() - t0);
      cpu[f].push(cpuMs() - c0);
    });
  }
  const median = (a: number[]) => a.sort((p, q) => p - q)[Math.floor(a.length / 2)];
  return fns.map((_, f) => ({ wall: median(wall[f]), cpu: median(cpu[f]) }));
}

/** Median wall and CPU milliseconds of `passes` calls, each after an untimed call of `before`. */
function time(passes: number, fn: () => void, before: () => void = () => {}): { wall: number; cpu: number } {
  return timeSideBySide(passes, [fn], [before])[0];
}

/** The engines' worker entry (bundled), whose helper threads run an engine's `helper`. */
const workerEntry = await runnableEntry(fileURLToPath(new URL('../main/workers/engine.ts', import.meta.url)));

/** Starts the helper threads of a sampler's repulsion pass, as a run's context would. */
function startHelpers(s: SurfaceSampler): Worker[] {
  return s.helperData().map((data) => new Worker(workerEntry, { workerData: { helper: true, engineId: 'surface', data } }));
}

/** Least-squares slope of log y against log x. */
function exponent(xs: number[], ys: number[]): number {
  const lx = xs.map(Math.log), ly = ys.map(Math.log), n = xs.length;
  const mx = lx.reduce((a, b) => a + b, 0) / n, my = ly.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0;
  for (let i = 0; i < n; i++) { sxy += (lx[i] - mx) * (ly[i] - my); sxx += (lx[i] - mx) ** 2; }
  return sxy / sxx;
}

const sphere = implicitSurfaceSchema.parse({ kind: 'sphere', radius: 1 });
/** The seed's Figure 1: three blobby cylinders. */
const blobbyCylinders = {
  kind: 'blobby', threshold: 0.5, blobs: [
    { from: [-1.2, 0, 0], to: [1.2, 0, 0], radius: 0.45 },
    { from: [0, -1.2, 0], to: [0, 1.2, 0], radius: 0.45 },
    { from: [0, 0, -1.2], to: [0, 0, 1.2], radius: 0.45 },
  ],
};

/** n particles on a Fibonacci spiral of the unit sphere, in a sampler using `search`. */
function fibonacciSampler(n: number, search: NeighbourSearch, threads = 1): SurfaceSampler {
  const fn = implicitFunction(sphere);
  // Spacing of a hexagonal sampling with n particles on area 4π.
  const spacing = Math.sqrt((4 * Math.PI) / n / (Math.sqrt(3) / 2));
  const s = new SurfaceSampler({ fn, bounds: solidBounds(sphere, fn), spacing, capacity: n, neighbourSearch: search, seed: 1, timeStep: 0.25, feedback: 2, threads });
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), sigma = new Float64Array(n).fill(sigmaForSpacing(spacing));
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < n; i++) {
    const h = 1 - (2 * i + 1) / n, r = Math.sqrt(1 - h * h);
    x[i] = r * Math.cos(golden * i); y[i] = r * Math.sin(golden * i); z[i] = h;
  }
  s.place(x, y, z, sigma, n);
  return s;
}

if (wanted('scaling')) {
  const sizes = quick ? [1e3, 3e3, 1e4, 3e4, 1e5] : [1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6];
  const rows: Row[] = [];
  const fit: Record<NeighbourSearch | 'cells2', { n: number[]; ms: number[] }> = { cells: { n: [], ms: [] }, cells2: { n: [], ms: [] }, queries: { n: [], ms: [] }, direct: { n: [], ms: [] } };
  // Warm-up: without it the first size's passes include V8 compiling the loops on its background
  // threads (process CPU twice the wall time at 10^3), which bends the fitted exponent down.
  for (const search of ['cells', 'queries', 'direct'] as const) {
    const w = fibonacciSampler(2000, search);
    for (let k = 0; k < 30; k++) w.repel();
  }
  for (const n of sizes) {
    const c = fibonacciSampler(n, 'cells');
    for (let k = 0; k < 5; k++) c.step(false);
    const passes = n <= 1e5 ? 11 : 3;
    /** The same particles in a sampler of another search, its grid advised and its particles in cell order. */
    const copy = (search: NeighbourSearch, threads = 1): SurfaceSampler => {
      const o = fibonacciSampler(n, search, threads);
      o.place(c.x, c.y, c.z, c.sigma, n);
      if (search !== 'direct') {
        o.repel();
        o.sortByCell();
      }
      return o;
    };
    c.repel();
    // The same particles on two threads: passes until the helper has started and run the tasks
    // of about three passes (a new thread runs its first tasks before V8 has optimised them).
    // Below PARALLEL_FROM the sampler does not share (one band) and no helper is started: one
    // starting would load the worker bundle during the timed passes and count in this process's CPU.
    const c2 = copy('cells', 2), helpers = c2.bands > 1 ? startHelpers(c2) : [];
    for (const t0 = Date.now(); c2.helperTasks < 6 * c2.bands && c2.bands > 1 && Date.now() - t0 < 20_000;) { c2.advance(); c2.repel(); }
    const tasks0 = c2.helperTasks;
    // Each timed pass follows a constrained move (untimed), as in a run: the particles have moved,
    // so the pass renumbers those that changed places in the sorted rows (a pass repeated on
    // unmoved particles would find them all in order).
    const [cells, cells2] = timeSideBySide(passes, [() => c.repel(), () => c2.repel()], [() => c.advance(), () => c2.advance()]);
    const helperShare = (c2.helperTasks - tasks0) / passes / (2 * c2.bands);
    let neighbours = 0;
    for (let i = 0; i < n; i++) neighbours += c.shareCount[i] - 1;
    const [step, step2] = timeSideBySide(passes, [() => { c.repel(); c.advance(); }, () => { c2.repel(); c2.advance(); }], [() => {}, () => {}]);
    c2.quitHelpers();
    await Promise.all(helpers.map((w) => new Promise((resolve) => w.once('exit', resolve))));
    const q = copy('queries');
    q.grid!.resetCounters();
    const queries = time(passes, () => q.repel(), () => q.advance());
    const cellsPerQuery = q.grid!.counters.cellsVisited / passes / n;
    const d = n <= DIRECT_MAX ? copy('direct') : null;
    const direct = d ? time(n <= 3e3 ? 5 : 1, () => d.repel()) : null;
    for (const [k, t] of [['cells', cells], ['queries', queries], ['direct', direct]] as const) {
      if (t) { fit[k].n.push(n); fit[k].ms.push(t.cpu); }
    }
    // The two-thread exponent over the sizes that do share (below, the column is one thread's).
    if (c2.bands > 1) { fit.cells2.n.push(n); fit.cells2.ms.push(cells2.wall); }
    rows.push({
      particles: n,
      cellsCpuMs: cells.cpu,
      cellsWallMs: cells.wall,
      cells2WallMs: cells2.wall,
      cells2CpuMs: cells2.cpu,
      cells2Bands: c2.bands,
      cells2HelperShare: helperShare,
      cellsStepCpuMs: step.cpu,
      cellsStepWallMs: step.wall,
      cells2StepWallMs: step2.wall,
      cells2StepCpuMs: step2.cpu,
      cellsNsPerParticle: (cells.cpu * 1e6) / n,
      queriesCpuMs: queries.cpu,
      queriesWallMs: queries.wall,
      cellsPerQuery,
      directCpuMs: direct ? direct.cpu : null,
      directWallMs: direct ? direct.wall : null,
      speedupOverDirect: direct ? direct.cpu / cells.cpu : null,
      neighbours: neighbours / n,
      gridBits: c.grid!.bits[0],
    });
    process.stdout.write(`  ${n}: cells ${cells.cpu.toFixed(1)} ms CPU (${cells.wall.toFixed(1)} wall), on 2 threads ${cells2.wall.toFixed(1)} ms wall (${cells2.cpu.toFixed(1)} CPU), queries ${queries.cpu.toFixed(1)} ms${direct ? `, O(n²) ${direct.cpu.toFixed(0)} ms` : ''} (CPU)\n`);
  }
  const empty = Object.fromEntries(Object.keys(rows[0]).map((k) => [k, null])) as Row;
  const slope = (k: keyof typeof fit) => exponent(fit[k].n, fit[k].ms);
  rows.push({ ...empty, particles: 'exponent', cellsCpuMs: slope('cells'), cells2WallMs: slope('cells2'), queriesCpuMs: slope('queries'), directCpuMs: slope('direct') });
  table(`scaling: ms per repulsion iteration, particles on a sphere (median; CPU time of this process and wall time; cells2: on 2 threads, of which helperShare of the tasks on the helper; exponents of CPU time on 1 thread, of wall time on 2 over the sizes that share the work (cells2Bands > 1); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`, rows);
  const at = rows.find((r) => r.particles === 1e5);
  if (at) {
    process.stdout.write(`target: 100,000 particles < 50 ms an iteration, exponent ≤ 1.1: linked cells on 2 threads ${Number(at.cells2WallMs).toFixed(1)} ms wall (${Number(at.cells2CpuMs).toFixed(1)} ms CPU of both threads), exponent ${slope('cells2').toFixed(3)} (wall, ${fit.cells2.n[0]}..${fit.cells2.n[fit.cells2.n.length - 1]}); `
      + `on 1 thread ${Number(at.cellsWallMs).toFixed(1)} ms wall (${Number(at.cellsCpuMs).toFixed(1)} ms CPU), exponent ${slope('cells').toFixed(3)} (CPU)\n`);
  }
}

if (wanted('runs')) {
  const cases = [
    { name: 'sphere', surface: { kind: 'sphere', radius: 1 }, spacing: 0.0105, maxParticles: 200_000 },
    { name: 'superquadric', surface: { kind: 'superquadric', semiAxes: [1, 0.8, 0.6], e1: 0.3, e2: 0.3 }, spacing: 0.011, maxParticles: 200_000 },
    { name: 'blobby cylinders (seed)', surface: blobbyCylinders, spacing: 0.0386, maxParticles: 200_000 },
  ];
  const rows: Row[] = [];
  for (const c of cases) {
    const params = surfaceParamsSchema.parse({ surface: c.surface, spacing: c.spacing, maxParticles: c.maxParticles, voxelsAcross: 0 });
    const row: Row = { surface: c.name };
    for (const threads of [1, 2]) {
      const workers: Worker[] = [];
      const ctx = {
        seed: 1, threads, progress() {}, cancelled: () => false, log() {},
        startHelpers(data: unknown[]) {
          workers.push(...data.map((d) => new Worker(workerEntry, { workerData: { helper: true, engineId: 'surface', data: d } })));
          return { stop() { for (const w of workers) void w.terminate(); } };
        },
      };
      const c0 = cpuMs(), t0 = performance.now();
      const m = (surfaceEngine.run(params, ctx) as EngineResult).metrics;
      const wall = performance.now() - t0, cpu = cpuMs() - c0;
      row.particles = Number(m.particles);
      row[`iterations${threads}`] = Number(m.iterations);
      row[`msPerIteration${threads}`] = Number(m.msPerIteration);
      row[`wallS${threads}`] = wall / 1000;
      row[`cpuS${threads}`] = cpu / 1000;
      row[`cv${threads}`] = Number(m.nearestNeighbourCV);
      process.stdout.write(`  ${c.name}, ${threads} thread(s): ${m.particles} particles, ${m.iterations} iterations, ${Number(m.msPerIteration).toFixed(1)} ms an iteration, ${(wall / 1000).toFixed(1)} s wall (${(cpu / 1000).toFixed(1)} s CPU), ${m.stopReason}\n`);
    }
    rows.push(row);
  }
  table(`runs: whole runs to uniform on 1 and 2 threads (the suffix; ms an iteration = sampling time / iterations, wall; wallS and cpuS of the whole run with the thread start; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`, rows);
}

if (wanted('seed')) {
  // The seed's Figure 1: three blobby cylinders with 10,000 particles.
  const surface = blobbyCylinders;
  const spacing = 0.0386; // about 10,000 particles
  const params = surfaceParamsSchema.parse({ surface, spacing, voxelsAcross: 0 });
  const c0 = cpuMs();
  const r = surfaceEngine.run(params, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
  const runCpu = cpuMs() - c0;
  const m = r.metrics;
  // The final state again, for the repulsion pass alone and the O(n²) pass.
  const s = implicitSurfaceSchema.parse(surface), fn = implicitFunction(s);
  const cols = (r.artifacts[0] as { columns: Record<string, Float64Array> }).columns;
  const n = cols.x.length;
  const mk = (search: NeighbourSearch) => {
    const sm = new SurfaceSampler({ fn, bounds: solidBounds(s, fn), spacing, capacity: n, neighbourSearch: search, seed: 1, timeStep: 0.25, feedback: 2 });
    sm.place(cols.x, cols.y, cols.z, cols.sigma, n);
    return sm;
  };
  const g = mk('cells');
  g.repel();
  const grid = time(11, () => g.repel());
  const d = mk('direct');
  const direct = n <= DIRECT_MAX ? time(1, () => d.repel()) : null;
  const row: Row = {
    spacing,
    particles: n,
    iterations: Number(m.iterations),
    stop: String(m.stopReason),
    msPerIteration: Number(m.msPerIteration),
    runCpuS: runCpu / 1000,
    nearestNeighbourCV: Number(m.nearestNeighbourCV),
    spacingError: Number(m.spacingError),
    maxSurfaceResidual: Number(m.maxSurfaceResidual),
    cellsRepelCpuMs: grid.cpu,
    directRepelCpuMs: direct ? direct.cpu : null,
    speedup: direct ? direct.cpu / grid.cpu : null,
  };
  table(`seed: three blobby cylinders sampled to uniform (Figure 1; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`, [row]);
}

const file = writeResults('surface', tables, { quick, loadAverage: loadavg() });
process.stdout.write(`\nwrote ${file}\n`);
