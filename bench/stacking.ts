/**
 * Benchmark of the geometric stacking engine (seed 004, Meng & Zhang 2019):
 *   table3     the seed's Table 3 cases at its particle counts, beside its numbers (the seed's order,
 *              contactsFirst, and in 2D the front order)
 *   transposed its 2D cases with the two groups' densities swapped (what its Figs. 4 and 6 support)
 *   densest    the highest density per gradation at which every class still gets its share
 *              (bisection on the void ratio asked), in the same regions
 *   scaling    10^4 ... 10^6 spheres of the 3D first group at density 0.667, fitted exponent
 *   front      the front order's time against disks: the 2D first group at e = 0.2674 in squares of
 *              side 13 ... 115 (13,000 ... 1,000,000 disks), fitted exponent
 *   voidratio  five void ratios asked against achieved (3D first group, the Table 3 box)
 *   grid       the overlap test of the hot loop on core/spatial's SpatialTree against the
 *              stacker's own LevelGrid, on a finished packing
 *   bound      plan()'s bound on the balls (what a run allocates and the queue's estimate go by)
 *              against the balls placed, for sieve curves (segments of a few hundred balls to 10^5)
 *              and the seed's groups: the memory it holds and the CPU time of the run
 *
 * The gradations: the seed's groups as five classes of evenly spaced radii (0.029 ... 0.2 and
 * 0.1 ... 0.2, its a_f table has five rows) with equal volume fractions (an evenly graded curve);
 * rang, gid, a_f and reshape as in its Tables 1 and 2. The region (box or square, with walls) is
 * sized so that the seed's count at the seed's density fills it: the seed's 2D second group then
 * comes out at its 50 x 50 region exactly. Times are wall and CPU seconds of this process
 * (the machine is shared: the load average is printed with each table).
 *
 * `npm run bench -- stacking [--only table3,transposed,densest,...] [--quick]` (--quick: smaller counts, no 10^6).
 */
import { cpus, loadavg } from 'node:os';
import { onlyParts, tableRecorder, writeResults, type Row } from './_harness';
import { stackingEngine, stackingParamsSchema, stack, resolveGradation, type StackingParams } from '../core/stacking/index';
import { estimateMemoryBytes, meanBallVolume, plan } from '../core/stacking/params';
import { WORKER_BYTES } from '../core/common/engine';
import { arrayBufferPeak } from '../test/core/common/array-buffer-peak';
import type { ColumnTable, EngineContext, EngineResult } from '../core/common/engine';
import { Random } from '../core/common/random';
import { SpatialTree } from '../core/spatial/index';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const wanted = onlyParts(args, ['table3', 'transposed', 'densest', 'scaling', 'front', 'voidratio', 'grid', 'bound']);
const seed = 1;

const ctx = (s = seed): EngineContext => ({ seed: s, threads: 1, progress() {}, cancelled: () => false, log() {} });

interface Group {
  name: string;
  dim: 2 | 3;
  radii: [number, number];
  rang: number;
  gid: number;
  /** The seed's Table 3: particles, density, seconds. */
  seed: { particles: number; density: number; seconds: number };
  /** The seed's own figures for the group (its text of Sections 3.1-3.2 and Figs. 4-11): density (particles). */
  figures: string;
}

const groups: Group[] = [
  { name: '3D first group (0.029-0.2)', dim: 3, radii: [0.029, 0.2], rang: 0.05, gid: 4, seed: { particles: 38034, density: 0.667, seconds: 262 }, figures: '0.667-0.703 (38,000-40,000)' },
  { name: '3D second group (0.1-0.2)', dim: 3, radii: [0.1, 0.2], rang: 0.05, gid: 4, seed: { particles: 29416, density: 0.553, seconds: 210 }, figures: '0.553-0.597 (27,400-29,500)' },
  { name: '2D first group (0.029-0.2)', dim: 2, radii: [0.029, 0.2], rang: 0.1, gid: 5, seed: { particles: 24901, density: 0.789, seconds: 290 }, figures: '0.826 (24,901)-0.860 (29,011)' },
  { name: '2D second group (0.1-0.2)', dim: 2, radii: [0.1, 0.2], rang: 0.1, gid: 5, seed: { particles: 35003, density: 0.826, seconds: 51.9 }, figures: '0.787 (33,883)-0.814 (35,237)' },
];

/** The seed's gradation: five classes, evenly spaced radii, equal volume fractions, a_f of its tables. */
function gradation(g: Group, af?: [number, number]) {
  const [lo, hi] = g.radii;
  return {
    kind: 'classes' as const,
    rang: g.rang,
    classes: [0, 1, 2, 3, 4].map((k) => ({
      radius: hi - ((hi - lo) * k) / 4,
      fraction: 1,
      af: af ?? ((k < 2 ? [0.5, 1] : [0, 0.3]) as [number, number]),
    })),
  };
}

/** Edge of the box (square) that `particles` balls of the gradation fill at solid fraction `density`. */
function edgeFor(g: Group, particles: number, density: number): number {
  const classes = resolveGradation(gradation(g));
  let perVolume = 0;
  for (const c of classes) perVolume += c.fraction / meanBallVolume(c, g.dim);
  return ((particles / perVolume) / density) ** (1 / g.dim);
}

/** Candidate order and, when given, one a_f for every class instead of the seed's. */
interface Variant { order: 'seed' | 'contactsFirst' | 'front'; af?: [number, number] }
const seedOrder: Variant = { order: 'seed' };

function params(g: Group, edge: number, e: number, reshape = 4, v: Variant = seedOrder): StackingParams {
  return stackingParamsSchema.parse({
    dim: g.dim,
    region: g.dim === 3 ? { shape: 'box', size: [edge, edge, edge] } : { shape: 'rectangle', size: [edge, edge] },
    gradation: gradation(g, v.af),
    target: { kind: 'voidRatio', e },
    gid: g.gid,
    order: v.order,
    reshape,
  });
}
const afLabel = (v: Variant) => (v.af ? `[${v.af.join(', ')}] all` : 'seed');

interface Timed { result: EngineResult; wall: number; cpu: number }
function runTimed(p: StackingParams, s = seed): Timed {
  const c0 = process.cpuUsage(), t0 = performance.now();
  const result = stackingEngine.run(p, ctx(s)) as EngineResult;
  const cu = process.cpuUsage(c0);
  return { result, wall: (performance.now() - t0) / 1000, cpu: (cu.user + cu.system) / 1e6 };
}

const num = (v: unknown) => Number(v);
const load = () => loadavg().map((v) => v.toFixed(1)).join(' ');
const recorder = tableRecorder();
const tables = recorder.tables;
/** Every title says the load it was measured under (the machine is shared). */
const table = (title: string, rows: Row[]): void => recorder.table(`${title} [load ${load()} on ${cpus().length} cores]`, rows);

/**
 * How mixed the classes are: the share of touching pairs (surface gap <= 0.05 of the smallest
 * radius) whose two balls are of one class, over the share that partners drawn at random from the
 * same pair ends would give (sum of squared class shares of the ends). 1: mixed; 1 / sum of squares
 * (about 4.5 for five classes): each class by itself. Walls only (the Table 3 regions); a uniform
 * grid over the particle table, nothing shared with the engine.
 */
function segregation(t: Timed): number {
  const table = t.result.artifacts[0] as { columns: Record<string, Float64Array | Uint8Array> };
  const { x, y, z, r, class: cls } = table.columns;
  const n = x.length;
  let rMax = 0, rMin = Infinity, lx = 0, ly = 0, lz = 0;
  for (let i = 0; i < n; i++) {
    rMax = Math.max(rMax, r[i]); rMin = Math.min(rMin, r[i]);
    lx = Math.max(lx, x[i]); ly = Math.max(ly, y[i]); lz = Math.max(lz, z[i]);
  }
  const reach = 0.05 * rMin, h = 2 * rMax + reach;
  const nx = Math.floor(lx / h) + 1, ny = Math.floor(ly / h) + 1, nz = Math.floor(lz / h) + 1;
  const head = new Int32Array(nx * ny * nz).fill(-1), next = new Int32Array(n);
  const cellOf = (i: number) => Math.floor(x[i] / h) + nx * (Math.floor(y[i] / h) + ny * Math.floor(z[i] / h));
  for (let i = 0; i < n; i++) { const c = cellOf(i); next[i] = head[c]; head[c] = i; }
  const ends = new Float64Array(256);
  let pairs = 0, same = 0;
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(x[i] / h), cy = Math.floor(y[i] / h), cz = Math.floor(z[i] / h);
    for (let c = Math.max(0, cz - 1); c <= Math.min(nz - 1, cz + 1); c++) {
      for (let b = Math.max(0, cy - 1); b <= Math.min(ny - 1, cy + 1); b++) {
        for (let a = Math.max(0, cx - 1); a <= Math.min(nx - 1, cx + 1); a++) {
          for (let j = head[a + nx * (b + ny * c)]; j >= 0; j = next[j]) {
            if (j <= i || Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j]) - r[i] - r[j] > reach) continue;
            pairs++;
            if (cls[i] === cls[j]) same++;
            ends[cls[i]]++; ends[cls[j]]++;
          }
        }
      }
    }
  }
  let random = 0;
  for (const e of ends) random += (e / (2 * pairs)) ** 2;
  return pairs > 0 ? same / pairs / random : NaN;
}

/** Top of the packing: the highest ball's top over the region's height (y in 2D, z in 3D); the front order fills from the floor up. */
function top(t: Timed): number {
  const table = t.result.artifacts[0] as ColumnTable;
  const { y, z, r } = table.columns as Record<string, Float64Array>;
  const dim = table.meta?.dim as number, box = table.meta?.box as number[], h = dim === 2 ? y : z;
  let high = 0;
  for (let i = 0; i < r.length; i++) high = Math.max(high, h[i] + r[i]);
  return high / box[dim - 1];
}

/** Least-squares slope of log y against log x: the exponent of time against size. */
function logSlope(x: number[], y: number[]): number {
  const lx = x.map(Math.log), ly = y.map(Math.log);
  const mx = lx.reduce((a, b) => a + b) / lx.length, my = ly.reduce((a, b) => a + b) / ly.length;
  let sxy = 0, sxx = 0;
  for (let k = 0; k < lx.length; k++) { sxy += (lx[k] - mx) * (ly[k] - my); sxx += (lx[k] - mx) ** 2; }
  return sxy / sxx;
}

function describe(t: Timed): Row {
  const m = t.result.metrics;
  return {
    particles: num(m.particles),
    density: num(m.solidFraction),
    voidRatio: num(m.voidRatio),
    gradationHeld: m.stopReason === 'target',
    segregation: segregation(t),
    top: top(t),
    reshapePasses: num(m.reshapePasses),
    stackingS: num(m.stackingSeconds),
    checkS: num(m.checkSeconds),
    wallS: t.wall,
    cpuS: t.cpu,
    maxOverlapRel: num(m.maxOverlapRelative),
  };
}

// --- Table 3 ---------------------------------------------------------------------------------
if (wanted('table3')) {
  const rows: Row[] = [];
  for (const g of groups) {
    const edge = edgeFor(g, g.seed.particles, g.seed.density);
    const e = 1 / g.seed.density - 1;
    const runs: [number, Variant][] = g.name.startsWith('3D second') ? [[4, seedOrder], [8, seedOrder]] : [[4, seedOrder]];
    // The narrow 2D group: more reshape passes, within the seed's own time for it (51.9 s).
    if (g.name.startsWith('2D second')) runs.push([30, seedOrder], [100, seedOrder]);
    runs.push([4, { order: 'contactsFirst' }]);
    if (g.name.startsWith('2D second')) runs.push([4, { order: 'contactsFirst', af: [0, 1] }]);
    if (g.dim === 2) runs.push([4, { order: 'front' }]);
    for (const [reshape, v] of runs) {
      const t = runTimed(params(g, edge, e, reshape, v));
      const d = describe(t);
      rows.push({
        case: g.name, edge, order: v.order, af: afLabel(v), reshape,
        seedParticles: g.seed.particles, seedDensity: g.seed.density, seedS: g.seed.seconds, seedFigures: g.figures,
        ...d,
        matched: (d.density as number) >= g.seed.density - 5e-4 && d.gradationHeld === true,
      });
    }
  }
  table("Table 3: the seed's cases at its counts (region sized for the seed's count at its density; matched = density >= the seed's, to its three digits, every class at its share; segregation: same-class share of touching pairs over random partners', 1 = mixed; top: the highest ball's top over the region's height, below 1 where the front order reached the density before filling the region)", rows);
}

// Table 3's 2D densities read transposed: its first-group count 24,901 is the one of Fig. 4(a), at
// e = 0.2111 (density 0.826), and its column of reference [23] lists 0.801 and 0.826 where the text
// says [23] reached 0.82636 (first group) and 0.8005 (second). So: first group 0.826, second 0.789.
if (wanted('transposed')) {
  const rows: Row[] = [];
  const transposed: [Group, number, number[]][] = [[groups[2], 0.826, [4]], [groups[3], 0.789, [4, 100]]];
  for (const [g, density, reshapes] of transposed) {
    const edge = edgeFor(g, g.seed.particles, density);
    for (const reshape of reshapes) {
      const d = describe(runTimed(params(g, edge, 1 / density - 1, reshape)));
      rows.push({
        case: g.name, edge, order: 'seed', reshape, seedParticles: g.seed.particles, density_asked: density, seedFigures: g.figures,
        ...d, matched: (d.density as number) >= density - 5e-4 && d.gradationHeld === true,
      });
    }
  }
  table("Table 3's 2D densities transposed (first group 0.826, second 0.789: Fig. 4(a) has the first group's 24,901 disks at e = 0.2111), seed's order, the seed's counts", rows);
}

// --- Highest density per gradation -------------------------------------------------------------
if (wanted('densest')) {
  const rows: Row[] = [];
  for (const g of groups) for (const v of [seedOrder, { order: 'contactsFirst' }, ...(g.dim === 2 ? [{ order: 'front' }] : [])] as Variant[]) {
    const edge = edgeFor(g, g.seed.particles, g.seed.density);
    // Bisection on e between a reachable void ratio (the seed's) and an unreachable one.
    let held = runTimed(params(g, edge, 1 / g.seed.density - 1, 4, v));
    let hi = held.result.metrics.stopReason === 'target' ? num(held.result.metrics.voidRatioAsked) : 1 / g.seed.density - 1 + 0.2;
    if (held.result.metrics.stopReason !== 'target') held = runTimed(params(g, edge, hi, 4, v));
    let lo = g.dim === 3 ? 0.3 : 0.1;
    const steps = quick ? 4 : 6;
    for (let k = 0; k < steps; k++) {
      const mid = (lo + hi) / 2;
      const t = runTimed(params(g, edge, mid, 4, v));
      if (t.result.metrics.stopReason === 'target') { held = t; hi = mid; } else lo = mid;
    }
    // The densest run of all: below the lowest e the classes end short.
    const open = runTimed(params(g, edge, lo, 4, v));
    rows.push({
      case: g.name, edge, order: v.order,
      ...describe(held),
      densestShortRun: num(open.result.metrics.solidFraction),
      shortClasses: String(open.result.metrics.shortClasses),
      seedFigures: g.figures,
    });
  }
  table(`Highest density with every class at its share (bisection on e, ${quick ? 4 : 6} steps; densestShortRun: the run below it, where the smallest classes end short; seedFigures: the seed's text and Figs. 4-11)`, rows);
}

// --- Scaling ---------------------------------------------------------------------------------
if (wanted('scaling')) {
  const g = groups[0];
  const counts = quick ? [1e4, 3e4, 1e5] : [1e4, 3e4, 1e5, 3e5, 1e6];
  const rows: Row[] = [];
  const xs: number[] = [], ys: number[] = [], yc: number[] = [];
  for (const n of counts) {
    const edge = edgeFor(g, n, 0.667);
    const t = runTimed(params(g, edge, 1 / 0.667 - 1));
    const d = describe(t);
    rows.push({ asked: n, edge, ...d, usPerBall: (1e6 * (d.stackingS as number)) / (d.particles as number) });
    xs.push(d.particles as number);
    ys.push(d.stackingS as number);
    yc.push(t.cpu);
  }
  rows.push({ asked: 'exponent', edge: '', stackingS: logSlope(xs, ys), cpuS: logSlope(xs, yc) });
  table('Scaling: the 3D first group at density 0.667 (e = 0.4993), walls; exponent = least-squares slope of log time against log particles', rows);
}

// --- The front order's scaling ------------------------------------------------------------------
// Users of the front order pack the 2D first group to e = 0.2674 (solid fraction 0.789) and want
// 10^5-10^6 disks. Its open balls were a heap by height, and every placement popped and pushed back
// those below the front that take only the smallest disks: the time grew as n^1.2 to n^1.5.
if (wanted('front')) {
  const g = groups[2];
  const sides = quick ? [13, 26, 39] : [13, 26, 39, 52, 115];
  const rows: Row[] = [];
  const xs: number[] = [], ys: number[] = [], yc: number[] = [];
  for (const side of sides) {
    const t = runTimed(params(g, side, 0.2674, 4, { order: 'front' }));
    const d = describe(t), m = t.result.metrics, n = d.particles as number;
    rows.push({
      side, disks: n, stackingS: d.stackingS, cpuS: t.cpu, cpuUsPerDisk: (1e6 * t.cpu) / n,
      solidFraction: d.density, gradationHeld: d.gradationHeld, coordinationMean: num(m.coordinationMean),
      candidatesPerDisk: num(m.candidateTests) / n, maxOverlapRel: d.maxOverlapRel,
    });
    xs.push(n);
    ys.push(d.stackingS as number);
    yc.push(t.cpu);
  }
  rows.push({ side: 'exponent', disks: '', stackingS: logSlope(xs, ys), cpuS: logSlope(xs, yc) });
  table("Front order's scaling: the 2D first group (five classes, radii 0.029-0.2) at e = 0.2674, order 'front', seed 1, 4 reshapes, in squares of the side given; cpuS is the whole run's (the contact check included); exponent = least-squares slope of log time against log disks", rows);
}

// --- Void-ratio control ------------------------------------------------------------------------
if (wanted('voidratio')) {
  const g = groups[0];
  const edge = edgeFor(g, g.seed.particles, g.seed.density);
  const rows: Row[] = [];
  for (const e of [0.45, 0.5, 0.6, 0.8, 1.0]) {
    const t = runTimed(params(g, edge, e));
    const d = describe(t);
    rows.push({ asked: e, achieved: d.voidRatio, difference: (d.voidRatio as number) - e, particles: d.particles, gradationHeld: d.gradationHeld, wallS: d.wallS, cpuS: d.cpuS });
  }
  table(`Void-ratio control: the 3D first group in the Table 3 box (edge ${edge.toFixed(3)})`, rows);
}

// --- The overlap test: core/spatial's SpatialTree against the stacker's LevelGrid ----------------
if (wanted('grid')) {
  const g = groups[0];
  const rows: Row[] = [];
  for (const n of quick ? [38034] : [38034, 300000]) {
    const p = params(g, edgeFor(g, n, 0.667), 1 / 0.667 - 1);
    const { stacker: s } = stack(p, ctx());
    const count = s.count, pos = s.pos, reg = s.region;
    let rMin = Infinity, rMax = 0;
    for (let i = 0; i < count; i++) { rMin = Math.min(rMin, pos[4 * i + 3]); rMax = Math.max(rMax, pos[4 * i + 3]); }
    // The hot loop's queries: balls of the smallest class at random places (most of them hit).
    const queries = 200000;
    const q = new Float64Array(4 * queries);
    const rng = new Random(9);
    for (let k = 0; k < queries; k++) {
      q[4 * k] = rng.uniform(0, reg.lx); q[4 * k + 1] = rng.uniform(0, reg.ly); q[4 * k + 2] = rng.uniform(0, reg.lz);
      q[4 * k + 3] = rng.uniform(0.0276, 0.0305);
    }
    const tree = new SpatialTree({ dim: 3, capacity: count, cellSize: (2 * rMax) / 2 ** Math.floor(Math.log2(rMax / rMin)) });
    // The tree's overlap is closed (touching counts): radii shrunk by the stacker's tolerance.
    for (let i = 0; i < count; i++) tree.insertSphere(i, pos[4 * i], pos[4 * i + 1], pos[4 * i + 2], pos[4 * i + 3] - s.tol);
    const time = (fn: () => number) => {
      let best = Infinity, hits = 0;
      for (let rep = 0; rep < 3; rep++) {
        const c0 = process.cpuUsage();
        hits = fn();
        const cu = process.cpuUsage(c0);
        best = Math.min(best, (cu.user + cu.system) / 1e3);
      }
      return { ms: best, hits };
    };
    const grid = time(() => {
      let hits = 0;
      for (let k = 0; k < queries; k++) if (s.grid.anyOverlap(q[4 * k], q[4 * k + 1], q[4 * k + 2], q[4 * k + 3], -1)) hits++;
      return hits;
    });
    const spatial = time(() => {
      let hits = 0, hit = false;
      const visit = () => { hit = true; };
      for (let k = 0; k < queries; k++) {
        hit = false;
        tree.querySphere(q[4 * k], q[4 * k + 1], q[4 * k + 2], q[4 * k + 3], visit);
        if (hit) hits++;
      }
      return hits;
    });
    rows.push({
      balls: count, queries, hitShare: grid.hits / queries, sameAnswers: grid.hits === spatial.hits,
      levelGridNs: (1e6 * grid.ms) / queries, spatialTreeNs: (1e6 * spatial.ms) / queries, ratio: spatial.ms / grid.ms,
    });
  }
  table('Overlap test of a new ball (the hot loop): LevelGrid.anyOverlap (first hit ends it) against SpatialTree.querySphere (visits every hit), CPU ns per query, best of three', rows);
}

// --- plan()'s bound on the balls ------------------------------------------------------------------
// The balls a void-ratio target may place, bounded before anything is allocated: the stacker's
// arrays, the grid's links and the queue's memory estimate go by it, and past 3·10⁷ balls a spec is
// refused. Its margin counts where classes hold a few hundred balls.
if (wanted('bound')) {
  const geometric = (a: number, b: number, k: number) => Array.from({ length: k + 1 }, (_, i) => Number((a * (b / a) ** (i / k)).toPrecision(6)));
  const fuller = (sizes: number[]) => sizes.map((d, i) => (i === sizes.length - 1 ? 100 : Number((100 * (Math.sqrt(d / sizes.at(-1)!) - Math.sqrt(sizes[0] / sizes.at(-1)!)) / (1 - Math.sqrt(sizes[0] / sizes.at(-1)!))).toFixed(3))));
  const sieve = (sizes: number[]) => ({ kind: 'sieve' as const, sizes, passing: fuller(sizes), af: [[0, 0.3]] as [number, number][] });
  const box = (dim: 2 | 3, side: number) => (dim === 3 ? { shape: 'box' as const, size: [side, side, side] } : { shape: 'rectangle' as const, size: [side, side] });
  const cases: [string, StackingParams][] = [
    ['default spec', stackingParamsSchema.parse({})],
    ['2D Fuller 0.1-10, 8 segments, side 30', stackingParamsSchema.parse({ dim: 2, region: box(2, 30), gradation: sieve(geometric(0.1, 10, 8)), target: { kind: 'voidRatio', e: 0.5 } })],
    ['3D sieve 0.1-0.8, 3 segments of 1:2, side 4', stackingParamsSchema.parse({ region: box(3, 4), gradation: sieve(geometric(0.1, 0.8, 3)), target: { kind: 'voidRatio', e: 1 } })],
    ['3D Fuller 0.1-10, 8 segments, side 20', stackingParamsSchema.parse({ region: box(3, 20), gradation: sieve(geometric(0.1, 10, 8)), target: { kind: 'voidRatio', e: 0.5 } })],
    ...groups.filter((g) => g.dim === 3).map((g): [string, StackingParams] => [`${g.name} at its Table 3 count`, params(g, edgeFor(g, g.seed.particles, g.seed.density), 1 / g.seed.density - 1)]),
  ];
  const rows: Row[] = [];
  for (const [name, p] of cases) {
    const classes = resolveGradation(p.gradation);
    const { maxParticles, expectedParticles } = plan(p, classes);
    // Collected before the run: a previous run's buffers freed during this one were subtracted from it (a 0 once).
    const { sample, peak } = arrayBufferPeak();
    const c0 = process.cpuUsage();
    const result = stackingEngine.run(p, { seed, threads: 1, progress: sample, cancelled: () => false, log: sample }) as EngineResult;
    const cu = process.cpuUsage(c0);
    sample();
    const held = peak();
    rows.push({
      case: name, particles: num(result.metrics.particles), expected: Math.round(expectedParticles), bound: maxParticles,
      boundOverExpected: maxParticles / expectedParticles, boundOverPlaced: maxParticles / num(result.metrics.particles),
      estimateMiB: (estimateMemoryBytes(p) - WORKER_BYTES) / 2 ** 20, heldMiB: held / 2 ** 20, cpuS: (cu.user + cu.system) / 1e6,
    });
  }
  table("plan()'s bound on the balls: expected = the target's mean count, bound = what the run allocates for; estimateMiB = the queue's estimate less the worker; heldMiB = the most ArrayBuffer bytes the run held (sampled at its progress calls, its garbage not yet collected included); cpuS = the run's CPU seconds, the contact check included", rows);
}

const file = writeResults('stacking', tables, { quick, seed });
console.log(`\nwrote ${file}`);
