/**
 * `npm run bench -- spatial [--quick] [--only tables|fig5|scaling]`
 *
 * tables  Seed 003 Tables 2 and 4 in 3D and 2D: 100, 10,000 and 1,000,000 balls, monosized and
 *         polysized (radius ratio 10), solid fraction 5/33/50/70 %: per step of random motion the time
 *         (move + update + all-pairs pass), collision checks (CC = exact tests) and topological events
 *         (TE = remaps; endpoint swaps for sweep and prune) of every structure.
 * fig5    Seed 001 Fig. 5: detection time (remapping + contact detection) of the cell space without
 *         refinement against the number of extents that fit in a cell, relative to the best.
 * scaling Heckbert's O(n): time per all-neighbours pass of uniform random balls, n = 1e3 ... 1e6.
 *
 * Packings for 50 % and 70 % come from core/spatial/random-packing (relaxed random packing; the
 * fraction actually reached is printed). A 1,000,000-ball case tiles the 10,000-ball packing 100 times
 * (10 x 10 in 2D, 5 x 5 x 4 in 3D). Brute force runs only up to 10,000 balls; sweep and prune is
 * skipped where the overlaps of segments on its axis would exceed 3e8 per pass. Balls are numbered
 * in spatial order (see spatialOrder). Timings depend on the machine's load; counters do not.
 */
import { Random } from '../core/common/random';
import {
  BruteForce, CellSpace, HashedGrid, SpatialTree, SweepAndPrune, type SpatialIndex,
} from '../core/spatial';
import { randomPacking, type RandomPacking } from '../core/spatial/random-packing';
import { printTable, writeResults, type Row } from './_harness';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
if (only !== undefined && !['tables', 'fig5', 'scaling'].includes(only)) {
  console.error(`--only must be one of tables, fig5, scaling; got ${only}`);
  process.exit(2);
}
const run = (part: string) => only === undefined || only === part;

interface Balls { dim: 2 | 3; n: number; x: Float64Array; y: Float64Array; z: Float64Array; r: Float64Array; size: number[]; solidFraction: number }

/** 'regular subdivision' is the seed 003 method: the cell space without refinement, cells as large as
 *  the largest ball. */
const STRUCTURES = ['brute force', 'regular subdivision', 'hashed grid', 'cell space', 'sweep and prune', 'spatial tree'] as const;
type StructureName = (typeof STRUCTURES)[number];

function build(name: StructureName, b: Balls): SpatialIndex {
  const o = { dim: b.dim, capacity: b.n };
  let rMin = Infinity, rMax = 0;
  for (let i = 0; i < b.n; i++) { rMin = Math.min(rMin, b.r[i]); rMax = Math.max(rMax, b.r[i]); }
  switch (name) {
    case 'brute force': return new BruteForce(o);
    case 'hashed grid': return new HashedGrid(o);
    case 'cell space': return new CellSpace({ ...o, domainMin: Array(b.dim).fill(0), domainSize: b.size.slice(0, b.dim) });
    case 'regular subdivision': {
      const volume = b.size.slice(0, b.dim).reduce((p, v) => p * v, 1);
      const parentCells = Math.max(1, Math.min(2 ** 25, Math.floor(volume / (2.2 * rMax) ** b.dim)));
      return new CellSpace({ ...o, domainMin: Array(b.dim).fill(0), domainSize: b.size.slice(0, b.dim), parentCells, refine: false });
    }
    case 'sweep and prune': return new SweepAndPrune(o);
    case 'spatial tree': {
      // Finest cells so that the largest ball exactly fills a cell of some level.
      return new SpatialTree({ ...o, cellSize: (2 * rMax) / 2 ** Math.floor(Math.log2(rMax / rMin)) });
    }
  }
}

/** Segment overlaps per pass on the sweep axis, roughly n^2 * mean diameter / domain length. */
function sweepOverlaps(b: Balls): number {
  let sum = 0;
  for (let i = 0; i < b.n; i++) sum += b.r[i];
  return (b.n * b.n * (2 * sum / b.n)) / b.size[0];
}

function practical(name: StructureName, b: Balls): boolean {
  if (name === 'brute force') return b.n <= 10_000;
  if (name === 'sweep and prune') return sweepOverlaps(b) <= 3e8;
  return true;
}

function seconds(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

interface StepStats { msPerStep: number; cc: number; te: number; pairs: number; buildMs: number }

/** Inserts the balls, runs one pass (mapping, regridding), then `steps` steps of random motion. */
function measure(name: StructureName, b: Balls, steps: number, seed: number): StepStats {
  const t0 = process.hrtime.bigint();
  const s = build(name, b);
  const x = b.x.slice(), y = b.y.slice(), z = b.z.slice();
  for (let i = 0; i < b.n; i++) s.insertSphere(i, x[i], y[i], z[i], b.r[i]);
  let pairs = 0;
  const count = () => { pairs++; };
  s.pairs(count);
  const buildMs = seconds(t0) * 1e3;
  const rnd = new Random(seed);
  s.resetCounters();
  pairs = 0;
  const t1 = process.hrtime.bigint();
  for (let k = 0; k < steps; k++) {
    for (let i = 0; i < b.n; i++) {
      const a = 0.02 * b.r[i];
      x[i] += rnd.uniform(-a, a); y[i] += rnd.uniform(-a, a);
      if (b.dim === 3) z[i] += rnd.uniform(-a, a);
      s.move(i, x[i], y[i], z[i]);
    }
    s.pairs(count);
  }
  const t = seconds(t1);
  return { msPerStep: (t * 1e3) / steps, cc: s.counters.candidatesTested / steps, te: s.counters.remaps / steps, pairs: pairs / steps, buildMs };
}

const packings = new Map<string, RandomPacking>();
function packing(dim: 2 | 3, n: number, ratio: number, fraction: number): RandomPacking {
  const key = `${dim}/${n}/${ratio}/${fraction}`;
  let p = packings.get(key);
  if (!p) {
    p = randomPacking({ dim, n, solidFraction: fraction, radiusRatio: ratio, seed: 2026, iterations: n > 1000 ? 120 : 300 });
    packings.set(key, p);
  }
  return p;
}

/** The packing as a set of balls, tiled `tiles` times per axis. */
function tiled(p: RandomPacking, tiles: readonly number[]): Balls {
  const copies = tiles[0] * tiles[1] * (p.dim === 3 ? tiles[2] : 1);
  const m = p.r.length, n = m * copies;
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n);
  let k = 0;
  for (let tz = 0; tz < (p.dim === 3 ? tiles[2] : 1); tz++) {
    for (let ty = 0; ty < tiles[1]; ty++) {
      for (let tx = 0; tx < tiles[0]; tx++) {
        for (let i = 0; i < m; i++, k++) {
          x[k] = p.x[i] + tx * p.box; y[k] = p.y[i] + ty * p.box; z[k] = p.dim === 3 ? p.z[i] + tz * p.box : 0; r[k] = p.r[i];
        }
      }
    }
  }
  const size = [tiles[0] * p.box, tiles[1] * p.box, p.dim === 3 ? tiles[2] * p.box : 0];
  return spatialOrder({ dim: p.dim, n, x, y, z, r, size, solidFraction: p.solidFraction });
}

/**
 * Renumbers the balls cell by cell (a counting sort on a grid of about one ball per cell), as DEM
 * and MD codes keep their particles (Yao et al. 2004, cited by seed 001): neighbours then have
 * nearby ids and every structure's arrays are read with locality instead of at random.
 */
function spatialOrder(b: Balls): Balls {
  const cellsPerAxis = Math.max(1, Math.floor(b.n ** (1 / b.dim)));
  const nz = b.dim === 3 ? cellsPerAxis : 1;
  const key = new Int32Array(b.n), start = new Int32Array(cellsPerAxis * cellsPerAxis * nz + 1);
  const at = (v: number, a: number) => Math.min(cellsPerAxis - 1, Math.max(0, Math.floor((v / b.size[a]) * cellsPerAxis)));
  for (let i = 0; i < b.n; i++) {
    key[i] = at(b.x[i], 0) + cellsPerAxis * (at(b.y[i], 1) + cellsPerAxis * (b.dim === 3 ? at(b.z[i], 2) : 0));
    start[key[i] + 1]++;
  }
  for (let c = 1; c < start.length; c++) start[c] += start[c - 1];
  const out: Balls = { ...b, x: new Float64Array(b.n), y: new Float64Array(b.n), z: new Float64Array(b.n), r: new Float64Array(b.n) };
  for (let i = 0; i < b.n; i++) {
    const k = start[key[i]]++;
    out.x[k] = b.x[i]; out.y[k] = b.y[i]; out.z[k] = b.z[i]; out.r[k] = b.r[i];
  }
  return out;
}

const tables: Record<string, Row[]> = {};
const started = process.hrtime.bigint();

if (run('tables')) {
  const fractions = [0.05, 0.33, 0.5, 0.7];
  const packRows: Row[] = [];
  for (const dim of [3, 2] as const) {
    for (const n of quick ? [100, 10_000] : [100, 10_000, 1_000_000]) {
      for (const ratio of [1, 10]) {
        const rows: Row[] = STRUCTURES.map((s) => ({ algorithm: s }));
        for (const phi of fractions) {
          const base = packing(dim, Math.min(n, 10_000), ratio, phi);
          const tiles = n === 1_000_000 ? (dim === 3 ? [5, 5, 4] : [10, 10, 1]) : [1, 1, 1];
          const balls = tiled(base, tiles);
          if (n <= 10_000) packRows.push({ dim, n, sizes: ratio === 1 ? 'mono' : 'poly', target: phi, reached: +base.solidFraction.toFixed(3), radiusRatio: +base.radiusRatio.toFixed(2), shrunk: base.shrunk });
          const steps = n <= 100 ? 100 : n <= 10_000 ? 5 : 1;
          const pct = `${Math.round(phi * 100)}%`;
          STRUCTURES.forEach((name, k) => {
            if (!practical(name, balls)) {
              Object.assign(rows[k], { [`${pct} ms`]: null, [`${pct} TE`]: null, [`${pct} CC`]: null });
              return;
            }
            const m = measure(name, balls, steps, 7);
            Object.assign(rows[k], { [`${pct} ms`]: +m.msPerStep.toPrecision(3), [`${pct} TE`]: Math.round(m.te), [`${pct} CC`]: Math.round(m.cc) });
          });
          process.stderr.write(`tables: ${dim}D n=${n} ratio ${ratio} ${pct} done (${seconds(started).toFixed(0)} s)\n`);
        }
        const title = `Seed 003 table ${ratio === 1 ? 2 : 4} (${ratio === 1 ? 'monosized' : 'polysized, radius ratio 10'}), ${dim}D, ${n.toLocaleString('en')} balls: per step ms, TE, CC`;
        printTable(title, rows);
        tables[title] = rows;
      }
    }
  }
  printTable('Packings used (relaxed random packing; reached = overlap-free solid fraction)', packRows);
  tables.packings = packRows;
}

if (run('fig5')) {
  // PFC: ~11,000 uniform balls, extents enlarged by 25 % of the radius, detection time = remap + pairs.
  const p = packing(3, quick ? 4000 : 11_000, 1, 0.33);
  const balls = tiled(p, [1, 1, 1]);
  const extentSide = 2 * p.r[0] * 1.25;
  const domain = balls.size[0] ** 3;
  const rows: Row[] = [];
  const cycles = quick ? 5 : 20;
  for (const perCell of [0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200]) {
    const parentCells = Math.max(1, Math.round(domain / (perCell * extentSide ** 3)));
    const s = new CellSpace({
      dim: 3, capacity: balls.n, domainMin: [0, 0, 0], domainSize: balls.size, parentCells, refine: false,
      toleranceExtent: 0.125, toleranceVelocity: 0,
    });
    const x = balls.x.slice(), y = balls.y.slice(), z = balls.z.slice();
    for (let i = 0; i < balls.n; i++) s.insertSphere(i, x[i], y[i], z[i], balls.r[i]);
    s.pairs(() => {});
    const rnd = new Random(5);
    const vx = new Float64Array(balls.n).map(() => rnd.uniform(-1, 1) * 0.05 * p.r[0]);
    const vy = new Float64Array(balls.n).map(() => rnd.uniform(-1, 1) * 0.05 * p.r[0]);
    const vz = new Float64Array(balls.n).map(() => rnd.uniform(-1, 1) * 0.05 * p.r[0]);
    s.resetCounters();
    const t0 = process.hrtime.bigint();
    for (let c = 0; c < cycles; c++) {
      for (let i = 0; i < balls.n; i++) { x[i] += vx[i]; y[i] += vy[i]; z[i] += vz[i]; s.move(i, x[i], y[i], z[i]); }
      s.pairs(() => {});
    }
    const ms = (seconds(t0) * 1e3) / cycles;
    rows.push({ extentsPerCell: perCell, parentCells: s.cellsPerAxis[0] * s.cellsPerAxis[1] * s.cellsPerAxis[2], msPerCycle: +ms.toPrecision(3), CC: Math.round(s.counters.candidatesTested / cycles), remaps: Math.round(s.counters.remaps / cycles) });
  }
  const best = Math.min(...rows.map((r) => r.msPerCycle as number));
  for (const r of rows) r.slowdown = +((r.msPerCycle as number) / best).toFixed(2);
  const title = `Seed 001 Fig. 5: cell space without refinement, ${balls.n.toLocaleString('en')} balls at ${(p.solidFraction * 100).toFixed(0)} %, ${cycles} cycles`;
  printTable(title, rows);
  tables[title] = rows;
}

if (run('scaling')) {
  for (const dim of [3, 2] as const) {
    const rows: Row[] = [];
    for (const n of quick ? [1e3, 1e4, 1e5] : [1e3, 1e4, 1e5, 1e6]) {
      // Uniform random balls (overlap allowed) of radius 1 at a nominal 5 % solid fraction.
      const rnd = new Random(11);
      const size = ((n * (dim === 3 ? (4 / 3) * Math.PI : Math.PI)) / 0.05) ** (1 / dim);
      const balls: Balls = spatialOrder({
        dim, n, size: [size, size, dim === 3 ? size : 0], solidFraction: 0.05,
        x: new Float64Array(n).map(() => rnd.uniform(0, size)), y: new Float64Array(n).map(() => rnd.uniform(0, size)),
        z: new Float64Array(n).map(() => (dim === 3 ? rnd.uniform(0, size) : 0)), r: new Float64Array(n).fill(1),
      });
      const row: Row = { n };
      for (const name of STRUCTURES) {
        if (!practical(name, balls)) { row[`${name} ms`] = null; continue; }
        const s = build(name, balls);
        for (let i = 0; i < n; i++) s.insertSphere(i, balls.x[i], balls.y[i], balls.z[i], 1);
        s.pairs(() => {});
        const passes = n <= 1e4 ? 10 : 2;
        const t0 = process.hrtime.bigint();
        for (let k = 0; k < passes; k++) s.pairs(() => {});
        row[`${name} ms`] = +((seconds(t0) * 1e3) / passes).toPrecision(3);
      }
      rows.push(row);
      process.stderr.write(`scaling: ${dim}D n=${n} done (${seconds(started).toFixed(0)} s)\n`);
    }
    const title = `Heckbert O(n): ms per all-neighbours pass, ${dim}D uniform random balls at 5 %`;
    printTable(title, rows);
    tables[title] = rows;
  }
}

const file = writeResults('spatial', tables, { quick, only: only ?? 'all', seconds: seconds(started) });
process.stdout.write(`\nwrote ${file} in ${seconds(started).toFixed(0)} s\n`);
