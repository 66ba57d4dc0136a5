/**
 * The voxel engine at scale (issue 19), each run made as a user's run is: enqueued into the
 * services (main/services: queue, worker pool, the generic worker entry with its helper threads
 * and checkpoints every 60 s, artifacts written), in a temporary data folder.
 *
 *   standard  the standard set of bench/voxel.ts (10-unit box at 40 voxels/unit = 400^3, spheres of
 *             diameter 1, filled until full) on 1 and on 2 threads: speed-up and density (target:
 *             >= 1.7x on the 2-core CI machine, the same density within 0.01)
 *   fill      1024^3 voxels, spheres of 20 voxels, filled to the top, on 2 threads, at the settings
 *             of the plain C program of issue 19 (rebound 0.25, rotation step 10 deg, freezing
 *             interval 50, an insertion every 20 steps); its numbers and PackBench's one-thread run
 *             of the issue are printed beside (target: > 100,000 particles in under 15 minutes)
 *   big       a 2048^3 box (a 1 GiB matrix in slabs, the SIMD kernels through their 512 MiB window):
 *             allocation (a run of 50 particles) and a bed about 256 voxels deep of 20-voxel spheres
 *   moves     where the moves and voxel checks of the fill go (counts, not times, so they can be
 *             studied on a loaded machine and a smaller box: 256^3, the fill's settings), the packer
 *             stepped directly on one thread: each particle's moves from its insertion to its first
 *             blocked move (falling from the roof), from there to its last change of position
 *             (settling on the bed), and from there until it is frozen; checks per accepted and per
 *             rejected move; the reduced shell of the 20-voxel sphere (515 voxels in the C program)
 *
 * Every row has the run's wall and packing time, the process's CPU time over the run (all
 * threads: the run's worker and its helpers), its peak resident memory (sampled every 100 ms;
 * the worker threads live in this process) and the packing matrix's bytes.
 *
 * `npm run bench -- voxel-scale [--quick] [--only standard|fill|big|moves] [--threads N] [--rebound-rule component|move]`. --quick
 * shrinks every part (200^3 standard set, a 256 x 256 x 128 fill, a 1024^3 allocation and a
 * 512^3 bed: no window there, a 128^3 moves study) so that it runs in a few minutes; --threads
 * sets the fill's and the big parts' thread count (default 2), --rebound-rule their reboundRule
 * (default 'component'; 'move' is the reading of seed §2.2 whose counts match the C program's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../main/services/services';
import type { RunRecord } from '../main/api';
import { tableRecorder, writeResults, type Row } from './_harness';
import { bedMetrics, finalise, Packer, voxelParamsSchema, voxeliseShapeVoxels } from '../core/voxel/index';
import { drawMove, type Move } from '../core/voxel/mover';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const option = (name: string): string | null => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] ?? null : null;
};
const only = option('--only');
const parts = ['standard', 'fill', 'big', 'moves'];
if (only !== null && !parts.includes(only)) throw new RangeError(`--only must be one of ${parts.join(', ')}, got ${only}`);
const wanted = (part: string) => only === null || only === part;
const threads = Number(option('--threads') ?? 2);
if (!Number.isInteger(threads) || threads < 1 || threads > 64) throw new RangeError(`--threads must be an integer in [1, 64], got ${option('--threads')}`);
const reboundRule = option('--rebound-rule') ?? 'component';
if (reboundRule !== 'component' && reboundRule !== 'move') throw new RangeError(`--rebound-rule must be component or move, got ${reboundRule}`);
const seed = 1;
const MiB = 2 ** 20;

interface Measured {
  run: RunRecord;
  cpuS: number;
  peakRssMiB: number;
}

/** Runs one spec through the services on `threadsPerRun` threads; CPU time and peak RSS over the run. */
async function measure(name: string, params: Record<string, unknown>, threadsPerRun: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'packbench-bench-voxel-scale-'));
  const s = openServices({ dataDir: dir, concurrency: 1, threadsPerRun });
  try {
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 100);
    const cpu0 = process.cpuUsage();
    const { runIds } = await s.queue.enqueue({ engine: 'voxel', name, seed, params });
    s.queue.start();
    await s.queue.waitFor(runIds);
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    const run = s.store.getRun(runIds[0])!;
    if (run.status !== 'done') throw new Error(`${name}: the run ended ${run.status}: ${run.error ?? ''}\n${run.log.join('\n')}`);
    return { run, cpuS: (cpu.user + cpu.system) / 1e6, peakRssMiB: peak / MiB };
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const num = (v: unknown) => (typeof v === 'number' ? v : NaN);
/** A metric the engine may leave out (bulkSolidFraction of a shallow bed): null, an empty cell. */
const optional = (v: unknown) => (typeof v === 'number' ? v : null);

/** The columns every row has: time, CPU, memory. */
function costs(m: Measured): Row {
  const r = m.run.metrics;
  return {
    wallS: num(r.wallSeconds),
    packingS: num(r.packingSeconds),
    finaliseS: num(r.finaliseSeconds),
    cpuS: m.cpuS,
    peakRssMiB: m.peakRssMiB,
    matrixMiB: num(r.matrixBytes) / MiB,
  };
}

const { tables, table } = tableRecorder();

const sphere = (d: number) => ({ shape: { kind: 'sphere' }, size: { law: 'fixed', value: d } });

if (wanted('standard')) {
  const L = quick ? 5 : 10;
  const params = { box: { size: [L, L, L], resolution: 40 }, mixture: { types: [sphere(1)] } };
  const rows: Row[] = [];
  const one = await measure('standard set, 1 thread', params, 1);
  const two = await measure('standard set, 2 threads', params, 2);
  for (const m of [one, two]) {
    const r = m.run.metrics;
    rows.push({
      threads: num(r.threads),
      particles: num(r.particles),
      bedPhi: num(r.bedSolidFraction),
      bulkPhi: optional(r.bulkSolidFraction),
      speedUp: num(one.run.metrics.packingSeconds) / num(r.packingSeconds),
      nsPerCheck: num(r.nsPerVoxelCheck),
      ...costs(m),
      kernel: String(r.kernel),
    });
  }
  table(`Standard set: ${L}-unit box at 40 voxels/unit (${40 * L}^3), spheres d = 1, filled until full, 1 and 2 threads (speedUp = packing time of 1 thread / this; target >= 1.7, bulkPhi within 0.01)`, rows);
}

/** The plain C implementation of issue 19 and PackBench's one-thread run there (1024^3, D = 20, the C settings). */
const C_ROWS: Row[] = [
  { run: 'plain C program (issue 19, 1 thread)', particles: 135717, bulkPhi: 0.543, movesM: 173, checksPerMove: 333, nsPerCheck: 9.5, wallS: 550 },
  { run: 'PackBench before (issue 19, 1 thread)', particles: 138614, bulkPhi: 0.564, movesM: 281, checksPerMove: 407, nsPerCheck: 8.6, wallS: 990 },
];

if (wanted('fill')) {
  const n = quick ? [256, 256, 128] : [1024, 1024, 1024];
  const res = 20; // a sphere of diameter 1 is 20 voxels
  const params = {
    box: { size: n.map((v) => v / res), resolution: res },
    mixture: { types: [{ ...sphere(1), rotationStep: 10 }] },
    reboundProbability: 0.25,
    reboundRule,
    freezingInterval: 50,
    insertionInterval: 20,
  };
  const m = await measure(`${n.join('x')} fill`, params, threads);
  const r = m.run.metrics;
  const moves = num(r.moveAttempts), checks = num(r.voxelChecks);
  const rows: Row[] = [{
    run: `PackBench, ${threads} thread(s), reboundRule ${reboundRule}`,
    particles: num(r.particles),
    bulkPhi: optional(r.bulkSolidFraction),
    movesM: moves / 1e6,
    checksPerMove: checks / moves,
    nsPerCheck: num(r.nsPerVoxelCheck),
    // CPU time of the process over the run per check: comparable with a one-thread figure.
    cpuNsPerCheck: (m.cpuS * 1e9) / checks,
    ...costs(m),
    bedPhi: num(r.bedSolidFraction),
    overlapPct: 100 * num(r.overlapFraction),
    // The final settling pass (finalSettling, part of wallS) and the deepest interpenetration after it.
    settlingS: optional(r.settlingSeconds),
    deepestVoxels: optional(r.interpenetrationVoxels),
    kernel: String(r.kernel),
    target: quick ? 'n/a (quick)' : num(r.particles) > 100_000 && num(r.wallSeconds) < 900 ? 'met' : 'not met',
  }];
  if (!quick) rows.push(...C_ROWS.map((c) => ({ ...Object.fromEntries(Object.keys(rows[0]).map((k) => [k, null])), ...c })));
  table(`Fill: ${n.join(' x ')} voxels, spheres of 20 voxels, filled to the top (rebound 0.25, rotation step 10 deg, freezing interval 50, insertion every 20 steps; target > 100,000 particles in under 900 s)`, rows);
  process.stdout.write('nsPerCheck = packing wall time / voxel checks; cpuNsPerCheck = CPU seconds of all threads / voxel checks. The C rows are copied from issue 19 (same settings, one thread).\n');
}

if (wanted('big')) {
  const side = quick ? 1024 : 2048, bedSide = quick ? 512 : 2048, bedDepth = quick ? 64 : 256, res = 20;
  const rows: Row[] = [];
  // Allocation: the whole matrix, a few particles, finalisation (in proportion to them).
  const alloc = await measure(`${side}^3 allocation`, {
    box: { size: [side / res, side / res, side / res], resolution: res },
    mixture: { types: [sphere(1)] },
    stop: { particles: 50, settle: false },
  }, threads);
  // The bed: stop at the solid fraction of a bed bedDepth deep at a bed solid fraction of about 0.58.
  const bedBox = quick ? [bedSide, bedSide, bedSide] : [side, side, side];
  const bed = await measure(`${bedSide}^2 x ${bedDepth} bed`, {
    box: { size: bedBox.map((v) => v / res), resolution: res },
    mixture: { types: [{ ...sphere(1), rotationStep: 10 }] },
    reboundProbability: 0.25,
    reboundRule,
    freezingInterval: 50,
    insertionInterval: 20,
    stop: { solidFraction: (0.58 * bedDepth) / bedBox[2] },
  }, threads);
  for (const [what, m] of [[`${side}^3 box, 50 particles (allocation)`, alloc], [`${bedBox.join(' x ')} box, bed ~${bedDepth} deep`, bed]] as const) {
    const r = m.run.metrics;
    rows.push({
      what,
      particles: num(r.particles),
      meanHeightVoxels: num(r.meanHeight) * res,
      bedPhi: num(r.bedSolidFraction),
      kernel: String(r.kernel),
      kernelParticles: num(r.kernelParticles),
      movedToJavaScript: num(r.movedToJavaScript),
      slabs: num(r.matrixSlabs),
      nsPerCheck: num(r.nsPerVoxelCheck),
      ...costs(m),
    });
  }
  table(`Big matrices on ${threads} thread(s): ${side}^3 allocation and a ${bedSide} x ${bedSide} x ${bedDepth} bed of 20-voxel spheres (C settings)`, rows);
  process.stdout.write('kernel = simd: the WebAssembly SIMD kernels moved the particles (above 512 MiB through their window of planes); movedToJavaScript: particles that left the window.\n');
}

if (wanted('moves')) {
  const n = quick ? 128 : 256, res = 20, rows: Row[] = [];
  for (const rule of ['component', 'move']) {
    const params = voxelParamsSchema.parse({
      box: { size: [n / res, n / res, n / res], resolution: res },
      mixture: { types: [{ ...sphere(1), rotationStep: 10 }] },
      reboundProbability: 0.25,
      freezingInterval: 50,
      insertionInterval: 20,
      reboundRule: rule,
      analysis: { enabled: false },
      labelVolume: 'off',
    });
    const p = new Packer(params, seed), rebound = Math.floor(params.reboundProbability * 2 ** 32), draw: Move = { dx: 0, dy: 0, dz: 0, ax: 0, ay: 0, az: 0 };
    // Time step by time step (a run moves particles in phases of several steps: the same moves in another order).
    p.stepByStep = true;
    // Per particle: the steps of its insertion, first blocked move, last change of position, freezing.
    const inserted: number[] = [], blocked: number[] = [], settled: number[] = [], frozen: number[] = [];
    const lx: number[] = [], ly: number[] = [], lz: number[] = [];
    let active = new Int32Array(0), untested = 0;
    for (let more = true; more;) {
      const before = p.count, step = p.counters.steps;
      more = p.step();
      for (const i of active) {
        // The draw of the packer's move: false for a move the rule left out (not tested).
        const tested = drawMove(seed, i, step, rebound, rule === 'move', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, draw);
        if (!tested) untested++;
        if (p.px[i] !== lx[i] || p.py[i] !== ly[i] || p.pz[i] !== lz[i]) {
          settled[i] = step + 1;
          lx[i] = p.px[i]; ly[i] = p.py[i]; lz[i] = p.pz[i];
        } else if (blocked[i] < 0 && tested) {
          blocked[i] = step;
        }
      }
      for (let i = before; i < p.count; i++) {
        inserted.push(step); blocked.push(-1); settled.push(step); frozen.push(-1);
        lx.push(p.px[i]); ly.push(p.py[i]); lz.push(p.pz[i]);
      }
      const now = p.activeParticles(), still = new Set(now);
      for (const i of active) if (!still.has(i)) frozen[i] = p.counters.steps;
      active = Int32Array.from(now);
    }
    // Each particle moves once a step from the step of its insertion until it is frozen.
    let fall = 0, settle = 0, dead = 0;
    for (let i = 0; i < p.count; i++) {
      const end = frozen[i] >= 0 ? frozen[i] : p.counters.steps, contact = blocked[i] >= 0 ? blocked[i] : end;
      fall += contact - inserted[i];
      settle += Math.max(0, settled[i] - contact);
      dead += end - Math.max(settled[i], contact);
    }
    const c = p.counters, shell = voxeliseShapeVoxels({ kind: 'sphere' }, 20).reducedShell.length / 3;
    const rejected = c.moveAttempts - c.acceptedMoves - untested, count = p.count;
    const m = bedMetrics(p, finalise(p, false));
    rows.push({
      reboundRule: rule,
      particles: count,
      bulkPhi: optional(m.bulkSolidFraction),
      steps: c.steps,
      insertionAttempts: c.insertionAttempts,
      movesPerParticle: c.moveAttempts / count,
      fallingPerParticle: fall / count,
      settlingPerParticle: settle / count,
      untilFrozenPerParticle: dead / count,
      activeMean: c.moveAttempts / c.steps,
      acceptedPct: (100 * c.acceptedMoves) / c.moveAttempts,
      untestedPct: (100 * untested) / c.moveAttempts,
      checksPerMove: c.voxelChecks / c.moveAttempts,
      // An accepted move tests the whole reduced shell; insertions' checks (a few per mille) count as rejected moves'.
      checksPerRejectedTest: (c.voxelChecks - c.acceptedMoves * shell) / rejected,
      reducedShell: shell,
    });
  }
  table(`Moves: where they go, ${n}^3 voxels, spheres of 20 voxels filled to the top at the fill's settings, one thread (moves per particle: falling from the roof to the first blocked move, settling to the last change of position, then until frozen; reboundRule 'move': a move whose upward component is not kept is not made, and counts as a move without checks)`, rows);
  process.stdout.write('The C program of issue 19 moves a reduced shell of 515 voxels for the 20-voxel sphere, at 333 checks and 1275 moves per particle (1024^3).\n');
}

// Runs of other options write their own file, so they never overwrite the default run's results.
const name = ['voxel-scale', ...(quick ? ['quick'] : []), ...(only ? [only] : []), ...(threads !== 2 ? [`${threads}threads`] : []), ...(reboundRule !== 'component' ? ['rule-move'] : [])].join('-');
const file = writeResults(name, tables, { quick, only: only ?? 'all', threads, reboundRule, seed });
process.stdout.write(`\nwrote ${file}\n`);
