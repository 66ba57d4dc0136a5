import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runnableEntry } from '../../../main/services/pool';
import { Random } from '../../../core/common/random';
import type { ColumnTable, EngineContext, EngineResult } from '../../../core/common/engine';
import { implicitFunction, implicitSurfaceSchema, type ImplicitSurface } from '../../../core/surface/implicit';
import { estimateArea, solidBounds } from '../../../core/surface/solid';
import { PARALLEL_FROM, SurfaceSampler, sigmaForSpacing, type NeighbourSearch } from '../../../core/surface/sampler';
import { surfaceEngine, surfaceParamsSchema } from '../../../core/surface/index';
import { cutBands } from '../../../core/surface/rows';

/** Helper threads as the worker runtime starts them: the real worker entry, told it is a helper. */
const entry = await runnableEntry(fileURLToPath(new URL('../../../main/workers/engine.ts', import.meta.url)));
/** Workers with the promise of their exit code, listened for from the start. */
type Helper = { worker: Worker; exit: Promise<number> };
function startWorkers(data: unknown[]): Helper[] {
  return data.map((d) => {
    const worker = new Worker(entry, { workerData: { helper: true, engineId: 'surface', data: d } });
    return { worker, exit: new Promise<number>((resolve) => worker.once('exit', resolve)) };
  });
}
/** Resolves with the helpers' exit codes once all have ended; rejects if one is still running after `ms`. */
function exited(helpers: Helper[], ms = 10_000): Promise<number[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    Promise.all(helpers.map((h) => h.exit)).finally(() => clearTimeout(timer)),
    new Promise<number[]>((_, reject) => { timer = setTimeout(() => reject(new Error(`a helper thread still runs after ${ms} ms`)), ms); }),
  ]);
}

/** Samplers share their work from 4096 particles here (PARALLEL_FROM is larger), to keep the O(n²) checks small. */
function sampler(s: ImplicitSurface, spacing: number, search: NeighbourSearch, threads = 1, capacity = 20_000): SurfaceSampler {
  const fn = implicitFunction(s);
  return new SurfaceSampler({ fn, bounds: solidBounds(s, fn), spacing, capacity, neighbourSearch: search, seed: 1, timeStep: 0.25, feedback: 2, threads, parallelFrom: 4096 });
}

const sphere = implicitSurfaceSchema.parse({ kind: 'sphere', radius: 1 });
const blobby = implicitSurfaceSchema.parse({
  kind: 'blobby', threshold: 0.5, blobs: [
    { from: [-1, 0, 0], to: [1, 0, 0], radius: 0.45 },
    { from: [0, -1, 0.3], to: [0, 1, 0.3], radius: 0.4 },
    { falloff: 'polynomial', from: [0.6, 0.2, -0.8], to: [0.6, 0.2, 1], radius: 0.6, strength: 1.5 },
  ],
});

/** n seeded random points near a surface (projected by a few Newton steps) with σ varied ±25 %. */
function randomPoints(s: ImplicitSurface, n: number, spacing: number, seed: number) {
  const fn = implicitFunction(s), b = solidBounds(s, fn), rnd = new Random(seed), g = new Float64Array(3);
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), sigma = new Float64Array(n);
  for (let i = 0; i < n;) {
    let px = b[0] + rnd.next() * (b[3] - b[0]), py = b[1] + rnd.next() * (b[4] - b[1]), pz = b[2] + rnd.next() * (b[5] - b[2]);
    for (let k = 0; k < 30; k++) {
      const F = fn.valueAndGradient(px, py, pz, g), g2 = g[0] ** 2 + g[1] ** 2 + g[2] ** 2;
      px -= (F * g[0]) / g2; py -= (F * g[1]) / g2; pz -= (F * g[2]) / g2;
    }
    // Newton from far out may leave the box: drawn again.
    if (!(px >= b[0] && px <= b[3] && py >= b[1] && py <= b[4] && pz >= b[2] && pz <= b[5])) continue;
    x[i] = px; y[i] = py; z[i] = pz;
    sigma[i++] = sigmaForSpacing(spacing) * (0.75 + 0.5 * rnd.next());
  }
  return { x, y, z, sigma };
}

const SUMS = ['energy', 'dEnergy', 'nearest2', 'shareSum', 'shareCount', 'dx', 'dy', 'dz'] as const;

describe('cutBands', () => {
  it('cuts the layers into bands of at least 2 layers and about n / bands particles, also when the particles crowd a few layers', () => {
    const rnd = new Random(3), bitsY = 2;
    for (let trial = 0; trial < 200; trial++) {
      const layers = 4 << (trial % 4), bands = 1 + (trial % (layers / 2));
      // Particles per layer: random, some layers empty, at times all in one or two layers.
      const perLayer = Array.from({ length: layers }, () => (rnd.next() < 0.3 ? 0 : Math.floor(rnd.next() * 100)));
      if (trial % 5 === 0) { perLayer.fill(0); perLayer[Math.floor(rnd.next() * layers)] = 500; }
      const starts = new Int32Array((layers << bitsY) + 1);
      for (let k = 0; k < layers; k++) for (let r = 0; r < 1 << bitsY; r++) {
        const row = (k << bitsY) + r;
        starts[row + 1] = starts[row] + (r === 0 ? perLayer[k] : 0);
      }
      const first = new Int32Array(bands + 1);
      cutBands(starts, bitsY, layers, bands, first);
      expect(first[0]).toBe(0);
      expect(first[bands]).toBe(layers);
      const n = starts[layers << bitsY], most = Math.max(...perLayer);
      for (let b = 0; b < bands; b++) {
        expect(first[b + 1] - first[b]).toBeGreaterThanOrEqual(2);
        // Each boundary is the first one with b/bands of the particles before it (or as far as
        // the 2-layer minimum allows): a band holds at most n / bands plus one layer, or 2 layers.
        const count = starts[first[b + 1] << bitsY] - starts[first[b] << bitsY];
        if (first[b + 1] - first[b] > 2 && b < bands - 1) expect(count).toBeLessThanOrEqual(n / bands + most);
      }
    }
  });
});

describe('the repulsion pass on two threads', () => {
  // Blobby cylinders, not symmetric about z = 0: the layers at the bands' boundaries hold particles.
  it.each([
    [5000, 1],
    [6000, 2],
    [8000, 3],
  ])('%i random points near blobby cylinders (seed %i): eight bands (two threads) give the sums of one within round-off, and of the O(n²) pass', (n, seed) => {
    const s = blobby, fn = implicitFunction(s);
    const spacing = Math.sqrt(estimateArea(fn, solidBounds(s, fn)).area / n / (Math.sqrt(3) / 2));
    const p = randomPoints(s, n, spacing, seed);
    const [one, two, direct] = [sampler(s, spacing, 'cells', 1), sampler(s, spacing, 'cells', 2), sampler(s, spacing, 'direct')];
    for (const sm of [one, two, direct]) { sm.place(p.x, p.y, p.z, p.sigma, n); sm.repel(); }
    expect(one.bands).toBe(1);
    expect(two.bands).toBe(8);
    // The cells passes renumber their particles alike; the O(n²) pass keeps the placed order.
    for (let i = 0; i < n; i++) expect(two.x[i]).toBe(one.x[i]);
    let differ = 0;
    for (const k of SUMS) {
      const a = one[k], b = two[k];
      for (let i = 0; i < n; i++) {
        if (a[i] !== b[i]) differ++;
        if (Math.abs(a[i] - b[i]) > 1e-12 * Math.max(1, Math.abs(a[i]))) throw new Error(`${k}[${i}]: ${a[i]} on one band, ${b[i]} on two`);
      }
    }
    // Some sums take their terms in another order (the bands' first layers): not a copy of one band.
    expect(differ).toBeGreaterThan(0);
    const byPosition = new Map<number, number>();
    for (let i = 0; i < n; i++) byPosition.set(direct.x[i], i);
    for (let i = 0; i < n; i++) {
      const j = byPosition.get(two.x[i])!;
      for (const k of SUMS) {
        const a = direct[k][j], b = two[k][i];
        if (Math.abs(a - b) > 1e-10 * Math.max(1, Math.abs(a))) throw new Error(`${k} of particle at x = ${two.x[i]}: ${a} by O(n²), ${b} on eight bands`);
      }
    }
  });

  it('a helper thread gives the same passes, bit for bit, as this thread running every band alone; it returns when told to quit', async () => {
    const spacing = 0.045;
    const alone = sampler(sphere, spacing, 'cells', 2), shared = sampler(sphere, spacing, 'cells', 2);
    const workers = startWorkers(shared.helperData());
    try {
      // Until the helper has taken tasks (it needs a moment to start), then a few steps more.
      const t0 = Date.now();
      let steps = 0;
      while ((shared.helperTasks === 0 || steps < 20) && Date.now() - t0 < 20_000) { shared.step(); alone.step(); steps++; }
      expect(shared.helperTasks).toBeGreaterThan(0);
      expect(shared.n).toBeGreaterThan(4096);
      expect(shared.bands).toBe(8);
      expect(shared.n).toBe(alone.n);
      for (const k of ['x', 'y', 'z', 'sigma', ...SUMS] as const) expect(Array.from(shared[k].subarray(0, shared.n))).toEqual(Array.from(alone[k].subarray(0, alone.n)));
    } finally {
      shared.quitHelpers();
    }
    expect(await exited(workers)).toEqual([0]);
  });

  it('a helper that fails ends the pass with an error instead of a wait', async () => {
    const n = 6000, s = sampler(sphere, 0.045, 'cells', 2), p = randomPoints(sphere, n, 0.045, 5);
    s.place(p.x, p.y, p.z, p.sigma, n);
    // A helper without the steps along x fails in its first task.
    const [data] = s.helperData();
    const workers = startWorkers([{ ...data, rows: { ...data.rows, fine: null } }]);
    const errors: Error[] = [];
    workers[0].worker.on('error', (e) => errors.push(e));
    const t0 = Date.now();
    expect(() => { while (Date.now() - t0 < 20_000) s.repel(); }).toThrow(/a helper thread failed/);
    expect(s.bands).toBe(8);
    s.quitHelpers();
    expect(await exited(workers)).toEqual([1]);
    expect(errors[0].message).toMatch(/null/);
  });
});

describe('the surface engine on two threads', () => {
  // ~25,000 particles at the end: enough to share the work (PARALLEL_FROM).
  const params = surfaceParamsSchema.parse({ surface: { kind: 'sphere', radius: 1 }, spacing: 0.021, voxelsAcross: 0 });

  /** A context whose helpers are not terminated by stop(): the test waits for them to return. */
  function threaded(threads: number, cancelAfter = Infinity): { ctx: EngineContext; workers: Helper[] } {
    const workers: Helper[] = [];
    let calls = 0;
    const ctx: EngineContext = {
      seed: 4, threads, progress() {}, cancelled: () => ++calls > cancelAfter, log() {},
      startHelpers(data) {
        workers.push(...startWorkers(data));
        return { stop() {} };
      },
    };
    return { ctx, workers };
  }

  it('ends uniform like a one-thread run, the same for the same seed, and leaves no thread running', async () => {
    const one = surfaceEngine.run(params, threaded(1).ctx) as EngineResult;
    const runs = [threaded(2), threaded(2)];
    const [a, b] = runs.map((r) => surfaceEngine.run(params, r.ctx) as EngineResult);
    for (const r of runs) expect(await exited(r.workers)).toEqual([0]);
    expect(one.metrics.threads).toBe(1);
    expect(a.metrics.threads).toBe(2);
    for (const r of [one, a]) {
      expect(r.metrics.stopReason).toBe('uniform');
      expect(Number(r.metrics.nearestNeighbourCV)).toBeLessThanOrEqual(0.1);
    }
    expect(Math.abs(Number(a.metrics.particles) / Number(one.metrics.particles) - 1)).toBeLessThan(0.03);
    expect(Number(a.metrics.particles)).toBeGreaterThan(PARALLEL_FROM);
    expect((a.artifacts[0] as ColumnTable).columns.x).toEqual((b.artifacts[0] as ColumnTable).columns.x);
  });

  it('a cancelled run tells its helper to return', async () => {
    const r = threaded(2, 8);
    const c = surfaceEngine.run(params, r.ctx) as EngineResult;
    expect(c.cancelled).toBe(true);
    expect(r.workers.length).toBe(1);
    expect(await exited(r.workers)).toEqual([0]);
  });
});
