import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { LevelGrid } from '../../../core/stacking/grid';
import { Region } from '../../../core/stacking/region';
import { MAX_CELLS_PER_LEVEL, type RegionParams } from '../../../core/stacking/params';

/** Nearest-image difference along a periodic axis of length l (l = 0: open). */
const near = (d: number, l: number) => (l > 0 ? d - l * Math.round(d / l) : d);

describe('stacking overlap grid against brute force', () => {
  it.each([
    ['3D box', 3, { shape: 'box', size: [4, 3, 2], periodic: [false, false] }],
    ['3D box, periodic x and y', 3, { shape: 'box', size: [4, 3, 2], periodic: [true, true] }],
    ['3D box, periodic x and y, two cells a side on the coarsest level', 3, { shape: 'box', size: [2.2, 2.1, 1], periodic: [true, true] }],
    ['3D cylinder', 3, { shape: 'cylinder', radius: 1.5, height: 2 }],
    ['2D rectangle, periodic x', 2, { shape: 'rectangle', size: [4, 3], periodic: [true, false] }],
    ['2D circle', 2, { shape: 'circle', radius: 2 }],
  ] as const)('%s: anyOverlap and gather find exactly the balls brute force finds, also after removals', (name, dim, regionParams) => {
    const rMax = 0.2, rMin = 0.012, n = dim === 3 ? 3000 : 600;
    const region = new Region(regionParams as RegionParams, dim, 1e-12);
    const pos = new Float64Array(4 * n);
    const rng = new Random(7);
    for (let i = 0; i < n; i++) {
      pos[4 * i] = rng.uniform(0, region.lx);
      pos[4 * i + 1] = rng.uniform(0, region.ly);
      pos[4 * i + 2] = dim === 3 ? rng.uniform(0, region.lz) : 0;
      pos[4 * i + 3] = rMin * (rMax / rMin) ** rng.next(); // log-uniform: every level populated
    }
    const grid = new LevelGrid(pos, n, region, rMax, rMin, name.includes('two cells') ? 5 : 2, 0, new Float64Array(8).fill(MAX_CELLS_PER_LEVEL));
    for (let i = 0; i < n; i++) grid.insert(i);
    const removed = new Set<number>();
    for (let i = 0; i < n; i += 7) { grid.remove(i); removed.add(i); }
    const lx = region.periodicX ? region.lx : 0, ly = region.periodicY ? region.ly : 0;
    const ids = new Int32Array(n), out = new Float64Array(4 * n);
    let overlapsSeen = 0, gathered = 0;
    for (let q = 0; q < 250; q++) {
      const x = rng.uniform(0, region.lx), y = rng.uniform(0, region.ly), z = dim === 3 ? rng.uniform(0, region.lz) : 0;
      const r = rng.uniform(rMin, rMax), gap = rng.uniform(0, 2 * rMax);
      const exclude = rng.int(n);
      const hits: number[] = [];
      const within: number[] = [];
      for (let j = 0; j < n; j++) {
        if (removed.has(j) || j === exclude) continue;
        const d = Math.hypot(near(pos[4 * j] - x, lx), near(pos[4 * j + 1] - y, ly), pos[4 * j + 2] - z);
        if (d < r + pos[4 * j + 3]) hits.push(j);
        if (d < r + gap + pos[4 * j + 3]) within.push(j);
      }
      expect(grid.anyOverlap(x, y, z, r, exclude)).toBe(hits.length > 0);
      const k = grid.gather(x, y, z, r, gap, exclude, ids, out, n);
      expect(Array.from(ids.subarray(0, k)).sort((a, b) => a - b)).toEqual(within);
      let wrong = 0;
      for (let m = 0; m < k; m++) {
        const j = ids[m];
        if (Math.abs(out[4 * m] - near(pos[4 * j] - x, lx)) > 1e-12) wrong++;
        if (Math.abs(out[4 * m + 1] - near(pos[4 * j + 1] - y, ly)) > 1e-12) wrong++;
        if (Math.abs(out[4 * m + 2] - (pos[4 * j + 2] - z)) > 1e-12 || out[4 * m + 3] !== pos[4 * j + 3]) wrong++;
      }
      expect(wrong).toBe(0);
      overlapsSeen += hits.length > 0 ? 1 : 0;
      gathered += k;
    }
    // The queries exercised both outcomes.
    expect(overlapsSeen).toBeGreaterThan(10);
    expect(overlapsSeen).toBeLessThan(250);
    expect(gathered).toBeGreaterThan(250);
  });

  it.each([
    ['a few balls in millions of cells (sorted by cell)', 40, 0.2, 0.006],
    ['many balls in a few cells (every head scanned)', 1000, 0.2, 0.11],
  ] as const)('orders the balls by cell and renumbers them stably, reading the cells of the balls only: %s', (_, n, rMax, rMin) => {
    // Renumbering read every head of the grid at every class: 64 classes at 1:250 in radius, 640
    // balls in a box of side 2 over 5·10⁷ heads, took 5 s of CPU.
    const region = new Region({ shape: 'box', size: [2, 1.5, 1], periodic: [false, false] }, 3, 1e-12);
    const pos = new Float64Array(4 * n), spare = new Float64Array(4 * n);
    const rng = new Random(3);
    for (let i = 0; i < n; i++) {
      pos.set([rng.uniform(0, 2), rng.uniform(0, 1.5), rng.uniform(0, 1), rMin * (rMax / rMin) ** rng.next()], 4 * i);
    }
    const gid = 2, grid = new LevelGrid(pos, n, region, rMax, rMin, gid, 0, new Float64Array(8).fill(MAX_CELLS_PER_LEVEL));
    for (let i = 0; i < n; i++) grid.insert(i);
    // The cell of a ball as the grid's doc says: level by radius, cells of gid times the level's
    // largest radius (no level here reaches MAX_CELLS_PER_LEVEL), x fastest.
    const key = (i: number) => {
      const l = Math.min(grid.levels - 1, Math.floor(Math.log2(rMax / pos[4 * i + 3])));
      const s = (gid * rMax) / 2 ** l, cell = (a: number) => Math.floor(pos[4 * i + a] / s);
      return ((l * 1000 + cell(2)) * 1000 + cell(1)) * 1000 + cell(0); // under 1000 cells an axis
    };
    const order = new Int32Array(n), scratch = new Int32Array(n);
    grid.cellsVisited = 0;
    grid.cellOrder(order, n, scratch);
    expect(new Set(order).size).toBe(n);
    let unordered = 0;
    for (let k = 1; k < n; k++) if (key(order[k - 1]) > key(order[k])) unordered++;
    expect(unordered).toBe(0);
    // Renumbered (as the stacker does) and rebuilt, the balls are in cell order: the order is 0, 1, ...
    for (let k = 0; k < n; k++) spare.set(pos.subarray(4 * order[k], 4 * order[k] + 4), 4 * k);
    pos.set(spare);
    grid.rebuild(n);
    grid.cellOrder(order, n, scratch);
    expect(Array.from(order)).toEqual(Array.from({ length: n }, (_, k) => k));
    // Few balls: their cells (at most n each time), not the grid's 1.7·10⁶ heads.
    if (n < 100) expect(grid.cellsVisited).toBeLessThanOrEqual(4 * n);
  });
});
