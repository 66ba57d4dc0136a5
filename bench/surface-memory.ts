/**
 * The surface engine's memory estimate (core/surface/params.ts estimateMemoryBytes) against what
 * runs allocate, as bench/voxel-memory.ts does for the voxel engine. Each case runs in a fresh
 * process of its own, twice:
 * - 'engine': surfaceEngine.run in that process, the largest allocation seen (ArrayBuffers and
 *   SharedArrayBuffers: process.memoryUsage().arrayBuffers) at every progress report and log line,
 *   and after encoding the particle table as the worker runtime does; the growth of the peak
 *   resident set beside it;
 * - 'worker': the same spec through the services (worker thread, artifacts written) on the case's
 *   threads: the growth of the process's peak resident set.
 * 'actual' is the larger of the worker's peak resident set and the workers' own (that of a run of a
 * few particles, measured first, once per thread) plus what the run allocates. The estimate (what the
 * queue holds for the run: the engine's, and a worker per helper thread) must not be below it.
 *
 *   npm run bench -- surface-memory [--quick]   (--quick: 4 of the cases)
 */
import { fileURLToPath } from 'node:url';
import { inProcessProbe, MiB, runProbe, workerProbe } from './_memory';
import { tableRecorder, writeResults, type Row } from './_harness';

async function probe(mode: string, specJson: string, threads: number): Promise<void> {
  const spec = JSON.parse(specJson);
  const { surfaceEngine } = await import('../core/surface/index');
  const params = surfaceEngine.paramsSchema.parse(spec.params);
  global.gc?.();
  if (mode === 'worker') {
    process.stdout.write(JSON.stringify(await workerProbe(spec, threads)));
    return;
  }
  const { result, allocated, peakRss } = await inProcessProbe((ctx) => surfaceEngine.run(params, ctx), spec.seed ?? 1);
  process.stdout.write(JSON.stringify({ allocated, peakRss, particles: result.metrics.particles }));
}

/** The cases: the examples, shapes, spacings from a thousand to half a million particles, search kinds, labels, threads. */
function cases(quick: boolean): { name: string; params: Record<string, unknown>; threads: number }[] {
  const sphere = { kind: 'sphere', radius: 1 };
  const blobby = {
    kind: 'blobby', threshold: 0.5, blobs: [
      { falloff: 'gaussian', from: [-1.2, 0, 0], to: [1.2, 0, 0], radius: 0.45, strength: 1 },
      { falloff: 'gaussian', from: [0, -1.2, 0], to: [0, 1.2, 0], radius: 0.45, strength: 1 },
      { falloff: 'gaussian', from: [0, 0, -1.2], to: [0, 0, 1.2], radius: 0.45, strength: 1 },
    ],
  };
  const all = [
    { name: 'sphere, spacing 0.1 (defaults)', params: { surface: sphere, spacing: 0.1 }, threads: 1 },
    { name: 'sphere, spacing 0.1, maxParticles 2000', params: { surface: sphere, spacing: 0.1, maxParticles: 2000 }, threads: 1 },
    { name: 'torus (example)', params: { surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 }, spacing: 0.04, voxelsAcross: 64 }, threads: 1 },
    { name: 'blobby (example)', params: { surface: blobby, spacing: 0.0386, voxelsAcross: 96 }, threads: 1 },
    { name: 'ellipsoid 4 × 1 × 1, spacing 0.05', params: { surface: { kind: 'ellipsoid', semiAxes: [4, 1, 1] }, spacing: 0.05, voxelsAcross: 0 }, threads: 1 },
    { name: 'superquadric, spacing 0.05, queries', params: { surface: { kind: 'superquadric', semiAxes: [1, 1, 1], e1: 0.5, e2: 0.5 }, spacing: 0.05, neighbourSearch: 'queries', voxelsAcross: 0 }, threads: 1 },
    { name: 'sphere, spacing 0.02, 256 voxels across', params: { surface: sphere, spacing: 0.02, voxelsAcross: 256 }, threads: 1 },
    { name: 'sphere, spacing 0.01, 2 threads', params: { surface: sphere, spacing: 0.01, voxelsAcross: 0, stop: { maxIterations: 300 } }, threads: 2 },
    { name: 'sphere, spacing 0.006, 600k max', params: { surface: sphere, spacing: 0.006, maxParticles: 600_000, voxelsAcross: 0, stop: { maxIterations: 120 } }, threads: 1 },
  ];
  return quick ? all.filter((_, i) => i === 0 || i === 2 || i === 3 || i === 7) : all;
}

const args = process.argv.slice(2);
const self = fileURLToPath(import.meta.url);
if (args[0] === '--probe') {
  await probe(args[1], args[2], Number(args[3]));
} else {
  const { tables, table } = tableRecorder();
  const rows: Row[] = [];
  const few = { surface: { kind: 'sphere', radius: 1 }, spacing: 0.5, maxParticles: 100, voxelsAcross: 0, stop: { maxIterations: 5, window: 5 } };
  const workerBase = runProbe(self, 'worker', JSON.stringify({ engine: 'surface', name: 'few particles', seed: 1, params: few }), '1').peakRss;
  for (const c of cases(args.includes('--quick'))) {
    const spec = JSON.stringify({ engine: 'surface', name: c.name, seed: 1, params: c.params });
    const e = runProbe(self, 'engine', spec, '1'), w = runProbe(self, 'worker', spec, String(c.threads));
    // A helper thread is a worker of its own.
    const actual = Math.max(w.peakRss, c.threads * workerBase + e.allocated);
    rows.push({
      spec: c.name,
      threads: c.threads,
      particles: e.particles,
      'allocated MiB': e.allocated / MiB,
      'peak RSS MiB': e.peakRss / MiB,
      'worker peak RSS MiB': w.peakRss / MiB,
      'actual MiB': actual / MiB,
      'estimate MiB': w.estimate / MiB,
      'estimate / actual': w.estimate / actual,
    });
    process.stderr.write(`${c.name}: ${JSON.stringify(rows.at(-1))}\n`);
  }
  table(`Surface memory estimate against the run (fresh process per case, seed 1; the worker of a run of a few particles: ${(workerBase / MiB).toFixed(1)} MiB)`, rows);
  writeResults(args.includes('--quick') ? 'surface-memory-quick' : 'surface-memory', tables);
}
