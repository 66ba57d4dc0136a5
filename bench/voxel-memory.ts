/**
 * The voxel engine's memory estimate (core/voxel/params.ts estimateMemoryBytes) against what runs
 * allocate. Each case runs in a fresh process of its own, twice:
 * - 'engine': voxelEngine.run in that process, the largest allocation seen (ArrayBuffers and
 *   SharedArrayBuffers: process.memoryUsage().arrayBuffers) at every progress report and log line,
 *   and after encoding the particle table as the worker runtime does; the growth of the peak
 *   resident set (VmHWM, reset just before the run) beside it. The WebAssembly.Memory of the SIMD
 *   kernels (the bit matrix and their heap) is not in arrayBuffers, and it grows by doubling into
 *   pages never written: the resident set counts what of it is used;
 * - 'worker': the same spec through `packbench run` (services, worker thread, artifacts written):
 *   the growth of the process's peak resident set.
 * A run's memory is that of its worker: 'actual' is the larger of the worker's peak resident set
 * and the worker's own (that of a one-particle run, measured first) plus what the run allocates
 * (its ArrayBuffers, and the bit matrix where it lives in the kernels' memory: allocated, though
 * the resident set counts only the pages written). The estimate must not be below it.
 *
 *   npm run bench -- voxel-memory [--quick]   (--quick: 4 of the 19 specs)
 */
import { inProcessProbe, MiB, runProbe as probeProcess, workerProbe } from './_memory';
import { fileURLToPath } from 'node:url';
import { tableRecorder, writeResults, type Row } from './_harness';

async function probe(mode: string, specJson: string): Promise<void> {
  const spec = JSON.parse(specJson);
  const { voxelEngine } = await import('../core/voxel/index');
  const { WASM_WINDOW_BYTES } = await import('../core/voxel/wasm-kernels');
  const params = voxelEngine.paramsSchema.parse(spec.params);
  const estimate = voxelEngine.estimateMemoryBytes(params);
  global.gc?.();
  if (mode === 'worker') {
    process.stdout.write(JSON.stringify({ ...(await workerProbe(spec)), estimate }));
    return;
  }
  const { result, allocated, peakRss } = await inProcessProbe((ctx) => voxelEngine.run(params, ctx), spec.seed ?? 1);
  // A bit matrix of the SIMD kernels (or its window) lives in their WebAssembly.Memory.
  const matrixBytes = Number(result.metrics.matrixBytes);
  const wasmMatrix = params.matrix === 'bit' && params.optimisations.simdKernels ? Math.min(matrixBytes, WASM_WINDOW_BYTES) : 0;
  process.stdout.write(JSON.stringify({ estimate, allocated, wasmMatrix, peakRss, particles: result.metrics.particles }));
}

/** The cases: realistic specs over shapes, particle sizes, analysis, labels, matrix kind and box size. */
function cases(quick: boolean): { name: string; params: Record<string, unknown> }[] {
  const sphere = { kind: 'sphere' };
  const type = (shape: object, size: object) => ({ types: [{ shape, size }] });
  const all = [
    { name: 'spheres 16 vx, 96³ (example)', params: { box: { size: [6, 6, 6], resolution: 16 } } },
    { name: 'spheres 10 vx, 64³', params: { box: { size: [6.4, 6.4, 6.4], resolution: 10 }, mixture: type(sphere, { law: 'fixed', value: 1 }) } },
    { name: 'spheres 8 vx, 96³', params: { box: { size: [12, 12, 12], resolution: 8 }, mixture: type(sphere, { law: 'fixed', value: 1 }) } },
    { name: 'spheres 8 vx, 96³, analysis off', params: { box: { size: [12, 12, 12], resolution: 8 }, mixture: type(sphere, { law: 'fixed', value: 1 }), analysis: { enabled: false } } },
    { name: 'spheres 8 vx, 96³, labels off', params: { box: { size: [12, 12, 12], resolution: 8 }, mixture: type(sphere, { law: 'fixed', value: 1 }), labelVolume: 'off' } },
    { name: 'spheres 8 vx, 96³, id matrix', params: { box: { size: [12, 12, 12], resolution: 8 }, mixture: type(sphere, { law: 'fixed', value: 1 }), matrix: 'id' } },
    { name: 'spheres 8-16 vx uniform, 96³', params: { box: { size: [12, 12, 12], resolution: 8 }, mixture: type(sphere, { law: 'uniform', min: 1, max: 2 }) } },
    { name: 'spheres 32 vx, 128³', params: { box: { size: [4, 4, 4], resolution: 32 } } },
    { name: 'plates 16 vx, 96³', params: { box: { size: [6, 6, 6], resolution: 16 }, mixture: type({ kind: 'hexagonalPlate', thickness: 0.3 }, { law: 'fixed', value: 1 }) } },
    { name: 'ellipsoids 16 vx, 96³', params: { box: { size: [6, 6, 6], resolution: 16 }, mixture: type({ kind: 'ellipsoid', b: 0.6, c: 0.6 }, { law: 'fixed', value: 1 }) } },
    { name: 'cylinders 10 vx, 96³, open top', params: { box: { size: [9.6, 9.6, 9.6], resolution: 10, top: 'open' }, mixture: type({ kind: 'cylinder', length: 2 }, { law: 'fixed', value: 1 }) } },
    { name: 'spheres 20 vx, 256² × 64, half full', params: { box: { size: [12.8, 12.8, 3.2], resolution: 20 }, stop: { solidFraction: 0.25 } } },
    { name: 'spheres 8 vx, 192² × 96, labels and analysis off', params: { box: { size: [24, 24, 12], resolution: 8 }, labelVolume: 'off', analysis: { enabled: false } } },
    { name: 'spheres 10 vx, 256² × 128', params: { box: { size: [25.6, 25.6, 12.8], resolution: 10 } } },
    { name: 'spheres 12 vx, 192³, 3000 particles', params: { box: { size: [16, 16, 16], resolution: 12 }, stop: { particles: 3000 } } },
    { name: 'spheres 20 vx, 400² × 200, 200 particles', params: { box: { size: [20, 20, 10], resolution: 20 }, stop: { particles: 200 } } },
    { name: 'spheres 20 vx, 600³, labels off, 100 particles', params: { box: { size: [30, 30, 30], resolution: 20 }, labelVolume: 'off', stop: { particles: 100 } } },
    { name: 'spheres 20 vx, 600³, labels on, 100 particles', params: { box: { size: [30, 30, 30], resolution: 20 }, labelVolume: 'on', stop: { particles: 100 } } },
    { name: 'spheres 20 vx, 1024² × 1280, 50 particles', params: { box: { size: [51.2, 51.2, 64], resolution: 20 }, stop: { particles: 50 } } },
  ];
  return quick ? all.filter((_, i) => i === 0 || i === 2 || i === 5 || i === 16) : all;
}

function runProbe(mode: string, spec: object): Record<string, number> {
  return probeProcess(fileURLToPath(import.meta.url), mode, JSON.stringify(spec));
}

const args = process.argv.slice(2);
if (args[0] === '--probe') {
  await probe(args[1], args[2]);
} else {
  const { tables, table } = tableRecorder();
  const rows: Row[] = [];
  const one = { box: { size: [2, 2, 2], resolution: 10 }, stop: { particles: 1 }, labelVolume: 'off', analysis: { enabled: false }, finalSettling: false };
  const workerBase = runProbe('worker', { engine: 'voxel', name: 'one particle', seed: 1, params: one }).peakRss;
  for (const c of cases(args.includes('--quick'))) {
    const spec = { engine: 'voxel', name: c.name, seed: 1, params: c.params };
    const e = runProbe('engine', spec), w = runProbe('worker', spec);
    const actual = Math.max(w.peakRss, workerBase + e.allocated + e.wasmMatrix);
    rows.push({
      spec: c.name,
      particles: e.particles,
      'allocated MiB': (e.allocated + e.wasmMatrix) / MiB,
      'peak RSS MiB': e.peakRss / MiB,
      'worker peak RSS MiB': w.peakRss / MiB,
      'actual MiB': actual / MiB,
      'estimate MiB': e.estimate / MiB,
      'estimate / actual': e.estimate / actual,
    });
    process.stderr.write(`${c.name}: ${JSON.stringify(rows.at(-1))}\n`);
  }
  table(`Voxel memory estimate against the run (fresh process per case, seed 1, 1 thread; the worker of a one-particle run: ${(workerBase / MiB).toFixed(1)} MiB)`, rows);
  writeResults(args.includes('--quick') ? 'voxel-memory-quick' : 'voxel-memory', tables);
}
