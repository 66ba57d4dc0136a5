import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { BruteForce } from '../../../core/spatial/brute-force';
import { CellSpace } from '../../../core/spatial/cell-space';
import { HashedGrid } from '../../../core/spatial/hashed-grid';
import { SpatialTree } from '../../../core/spatial/spatial-tree';
import { SweepAndPrune } from '../../../core/spatial/sweep-and-prune';

const noop = () => {};

describe('hashed grid regridding (seed 002 rules)', () => {
  it('brings query radius / cube size into [0.7, 1] and cloud diameter / grid size into [0.5, 1.2]', () => {
    const rnd = new Random(3);
    const g = new HashedGrid({ dim: 3, capacity: 5000, bits: 1, cellSize: 50 });
    for (let i = 0; i < 5000; i++) g.insertSphere(i, rnd.uniform(0, 100), rnd.uniform(0, 100), rnd.uniform(0, 100), 1);
    g.pairs(noop);
    const cube = g.cellSize[0];
    const ravg = 2; // bounding radius + largest radius
    expect(ravg / cube).toBeGreaterThanOrEqual(0.7);
    expect(ravg / cube).toBeLessThanOrEqual(1);
    const gridSize = cube * 2 ** g.bits[0];
    const diam = Math.hypot(100, 100, 100);
    expect(diam / gridSize).toBeGreaterThanOrEqual(0.5 * 0.95);
    expect(diam / gridSize).toBeLessThanOrEqual(1.2);
    expect(g.regrids).toBe(1);
    // In range now: further passes leave the grid alone.
    g.pairs(noop);
    expect(g.regrids).toBe(1);
  });

  it('regrids at most once per interval', () => {
    const g = new HashedGrid({ dim: 2, capacity: 10, bits: 2, cellSize: 1, regridInterval: 3 });
    g.insertSphere(0, 0, 0, 0, 1);
    g.insertSphere(1, 50, 0, 0, 1);
    g.queryAdvisory(50, 2); // too small cubes: regrid
    expect(g.regrids).toBe(1);
    g.queryAdvisory(50, 20); // out of range again, but within the interval
    g.queryAdvisory(50, 20);
    expect(g.regrids).toBe(1);
    g.queryAdvisory(50, 20);
    expect(g.regrids).toBe(2);
  });

  it('keeps the grid period equal to a periodic domain', () => {
    const g = new HashedGrid({ dim: 2, capacity: 100, period: [40, 80] });
    const rnd = new Random(1);
    for (let i = 0; i < 100; i++) g.insertSphere(i, rnd.uniform(0, 40), rnd.uniform(0, 80), 0, 1);
    g.pairs(noop);
    expect(g.cellSize[0] * 2 ** g.bits[0]).toBe(40);
    expect(g.cellSize[1] * 2 ** g.bits[1]).toBe(80);
  });
});

describe('cell space (seed 001)', () => {
  const make = (extra = {}) => new CellSpace({ dim: 3, capacity: 2000, domainMin: [0, 0, 0], domainSize: [100, 100, 100], parentCells: 64, ...extra });

  it('remaps only objects that moved more than the tolerance', () => {
    const cs = make({ toleranceExtent: 0.25 });
    cs.insertSphere(0, 50, 50, 50, 2); // eps = 0.25 * 4 = 1
    cs.pairs(noop);
    cs.resetCounters();
    cs.move(0, 50.9, 50, 50);
    cs.pairs(noop);
    expect(cs.counters.remaps).toBe(0);
    cs.move(0, 51.1, 50, 50);
    cs.pairs(noop);
    expect(cs.counters.remaps).toBe(1);
  });

  it('includes the velocity term of the tolerance', () => {
    const cs = make({ toleranceExtent: 0, toleranceVelocity: 1, timestep: 0.5 });
    cs.insertSphere(0, 50, 50, 50, 1);
    cs.setSpeed(0, 4); // eps = 1 * 4 * 0.5 = 2, applied when mapped
    cs.pairs(noop);
    cs.resetCounters();
    cs.move(0, 51.9, 50, 50);
    cs.pairs(noop);
    expect(cs.counters.remaps).toBe(0);
  });

  it('refines a parent crowded with small extents and merges it back when they leave', () => {
    const cs = make();
    const rnd = new Random(9);
    // 200 small balls in one parent cell (edge 25).
    for (let i = 0; i < 200; i++) cs.insertSphere(i, rnd.uniform(1, 24), rnd.uniform(1, 24), rnd.uniform(1, 24), 0.3);
    cs.pairs(noop);
    expect(cs.refinedCells).toBe(1);
    expect(cs.refinements).toBe(1);
    for (let i = 0; i < 199; i++) cs.remove(i);
    cs.pairs(noop);
    expect(cs.refinedCells).toBe(0);
    expect(cs.merges).toBe(1);
  });

  it('does not refine a cell crowded by large extents', () => {
    const cs = make();
    const rnd = new Random(10);
    for (let i = 0; i < 20; i++) cs.insertSphere(i, rnd.uniform(5, 20), rnd.uniform(5, 20), rnd.uniform(5, 20), 6);
    cs.pairs(noop);
    expect(cs.refinedCells).toBe(0);
  });
});

describe('sweep and prune axis', () => {
  const pairSet = (s: { pairs: (v: (a: number, b: number) => void) => void }) => {
    const out: string[] = [];
    s.pairs((a, b) => out.push(`${Math.min(a, b)}-${Math.max(a, b)}`));
    return out.sort();
  };

  it('sweeps the axis of greatest spread, switches when the cloud turns, and stays exact', () => {
    const rnd = new Random(9);
    const n = 400;
    const sap = new SweepAndPrune({ dim: 3, capacity: n });
    const ref = new BruteForce({ dim: 3, capacity: n });
    // A slab long in y: y must be chosen over the default x.
    const pos = Array.from({ length: n }, () => [rnd.uniform(0, 10), rnd.uniform(0, 200), rnd.uniform(0, 10)]);
    pos.forEach(([x, y, z], i) => { sap.insertSphere(i, x, y, z, 1); ref.insertSphere(i, x, y, z, 1); });
    expect(pairSet(sap)).toEqual(pairSet(ref));
    expect(sap.axis).toBe(1);
    expect(sap.axisChanges).toBe(1);
    // Rotate the slab to lie along z: the next pass re-sorts on z.
    pos.forEach(([x, y, z], i) => { sap.move(i, x, z, y); ref.move(i, x, z, y); });
    expect(pairSet(sap)).toEqual(pairSet(ref));
    expect(sap.axis).toBe(2);
    expect(sap.axisChanges).toBe(2);
    // Small moves of a cube-like cloud do not make it flip.
    const cube = new SweepAndPrune({ dim: 3, capacity: n });
    for (let i = 0; i < n; i++) cube.insertSphere(i, rnd.uniform(0, 50), rnd.uniform(0, 50), rnd.uniform(0, 50), 1);
    for (let pass = 0; pass < 5; pass++) {
      for (let i = 0; i < n; i++) cube.move(i, cube.x[i] + rnd.uniform(-0.5, 0.5), cube.y[i] + rnd.uniform(-0.5, 0.5), cube.z[i] + rnd.uniform(-0.5, 0.5));
      cube.pairs(noop);
    }
    expect(cube.axisChanges).toBe(0);
  });

  it('tests a bounded number of candidates per object with columns, a growing one with one list', () => {
    // Uniform balls at a fixed density in a cube: n^(2-1/dim) candidates with one list, O(n) with columns.
    const perObject = (n: number, columns: boolean) => {
      const rnd = new Random(4);
      const edge = 10 * Math.cbrt(n);
      const s = new SweepAndPrune({ dim: 3, capacity: n, columns });
      for (let i = 0; i < n; i++) s.insertSphere(i, rnd.uniform(0, edge), rnd.uniform(0, edge), rnd.uniform(0, edge), 1);
      s.pairs(noop);
      s.resetCounters();
      s.pairs(noop);
      return s.counters.candidatesTested / n;
    };
    const small = 1000, large = 16_000;
    expect(perObject(large, true) / perObject(small, true)).toBeLessThan(1.3);
    // One list: candidates per object grow as n^(2/3), 16^(2/3) = 6.3 here.
    expect(perObject(large, false) / perObject(small, false)).toBeGreaterThan(4);
  });

  it('keeps a fixed axis when given one', () => {
    const s = new SweepAndPrune({ dim: 2, capacity: 10, axis: 0 });
    for (let i = 0; i < 10; i++) s.insertSphere(i, 0, i * 10, 0, 1);
    s.pairs(noop);
    expect(s.axis).toBe(0);
    expect(s.axisChanges).toBe(0);
  });
});

describe('argument checks name the value and the range', () => {
  it('rejects bad options before allocating', () => {
    expect(() => new BruteForce({ dim: 3, capacity: -3 })).toThrow('capacity must be an integer in [1, 2^31), got -3');
    expect(() => new BruteForce({ dim: 4 as 3, capacity: 3 })).toThrow('dim must be 2 or 3, got 4');
    expect(() => new BruteForce({ dim: 2, capacity: 3, period: [1] })).toThrow('period must have dim = 2 entries, got 1');
    expect(() => new HashedGrid({ dim: 3, capacity: 3, bits: 9 })).toThrow('bits must be an integer in [0, 8]');
    expect(() => new SpatialTree({ dim: 3, capacity: 3, cellSize: 0 })).toThrow('cellSize must be a finite number > 0, got 0');
    expect(() => new SweepAndPrune({ dim: 2, capacity: 3, axis: 2 })).toThrow("axis must be 'auto' or an integer in [0, 2), got 2");
    // Cell space and sweep and prune are open-domain structures: a periodic box is refused, not
    // silently treated as open (which would miss the pairs across the boundary).
    expect(() => new SweepAndPrune({ dim: 2, capacity: 3, period: [5, 5] })).toThrow('period is not supported by sweep and prune (the sorted sweep axis has no first endpoint when periodic); use HashedGrid, SpatialTree or BruteForce for a periodic box');
    expect(() => new CellSpace({ dim: 3, capacity: 3, domainMin: [0, 0, 0], domainSize: [5, 5, 5], period: [5, 5, 5] })).toThrow('period is not supported by the cell space (its index formulas clamp to the domain); use HashedGrid, SpatialTree or BruteForce for a periodic box');
    expect(() => new CellSpace({ dim: 3, capacity: 3, domainMin: [0, 0, 0], domainSize: [1, -1, 1] })).toThrow('domainSize[1] must be a finite number > 0, got -1');
  });

  it('rejects bad ids, shapes and queries', () => {
    const s = new BruteForce({ dim: 3, capacity: 4, period: [10, 10, 10] });
    expect(() => s.insertSphere(4, 0, 0, 0, 1)).toThrow('id must be an integer in [0, capacity = 4), got 4');
    expect(() => s.insertSphere(0, 0, NaN, 0, 1)).toThrow('y must be a finite number, got NaN');
    expect(() => s.insertSphere(0, 0, 0, 0, -1)).toThrow('r must be a finite number >= 0, got -1');
    expect(() => s.insertSphere(0, 0, 0, 0, 3)).toThrow('r must be < period[0] / 4 = 2.5 in a periodic domain, got 3');
    s.insertSphere(0, 0, 0, 0, 1);
    expect(() => s.insertSphere(0, 0, 0, 0, 1)).toThrow('id 0 is already present');
    expect(() => s.move(1, 0, 0, 0)).toThrow('id 1 is not present');
    expect(() => s.queryBox(1, 0, 0, 0, 1, 1, noop)).toThrow('box max must be >= min on every axis');
  });
});

describe('storage', () => {
  it('can keep the object arrays in a SharedArrayBuffer', () => {
    const s = new SpatialTree({ dim: 3, capacity: 10, cellSize: 1, shared: true });
    s.insertSphere(3, 1, 2, 3, 0.5);
    expect(s.x.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([s.x[3], s.y[3], s.z[3], s.hx[3]]).toEqual([1, 2, 3, 0.5]);
  });

  it('ignores z in 2D', () => {
    const s = new BruteForce({ dim: 2, capacity: 2 });
    s.insertSphere(0, 0, 0, 5, 1);
    s.insertSphere(1, 1.5, 0, -5, 1);
    const pairs: number[][] = [];
    s.pairs((a, b) => pairs.push([a, b]));
    expect(pairs).toEqual([[0, 1]]);
  });
});

describe('spatial tree levels', () => {
  it('a query covering more cells of a level than the level holds tests that level\'s objects, right through inserts, removals and size changes', () => {
    // Sizes over five levels with a handful of objects each, and queries large enough that most
    // levels are tested object by object (the per-level lists), compared with brute force.
    const rnd = new Random(12);
    const tree = new SpatialTree({ dim: 2, capacity: 60, cellSize: 1 });
    const ref = new BruteForce({ dim: 2, capacity: 60 });
    const size = () => 0.4 * 2 ** rnd.int(5) * rnd.uniform(0.6, 1);
    for (let op = 0; op < 3000; op++) {
      const id = rnd.int(60), u = rnd.next();
      if (!ref.has(id)) {
        const x = rnd.uniform(0, 40), y = rnd.uniform(0, 40), r = size();
        tree.insertSphere(id, x, y, 0, r); ref.insertSphere(id, x, y, 0, r);
      } else if (u < 0.3) {
        tree.remove(id); ref.remove(id);
      } else {
        const x = rnd.uniform(0, 40), y = rnd.uniform(0, 40), r = size();
        tree.updateSphere(id, x, y, 0, r); ref.updateSphere(id, x, y, 0, r);
      }
      const x = rnd.uniform(0, 40), y = rnd.uniform(0, 40), h = rnd.uniform(2, 15);
      const got: number[] = [], want: number[] = [];
      tree.queryBox(x - h, y - h, 0, x + h, y + h, 0, (j) => got.push(j));
      ref.queryBox(x - h, y - h, 0, x + h, y + h, 0, (j) => want.push(j));
      expect(got.sort((a, b) => a - b)).toEqual(want.sort((a, b) => a - b));
    }
  });
});
