import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { HashedGrid } from '../../../core/spatial/hashed-grid';

/** The ids a cellsInSphere query yields, within the sphere (what a caller keeps). */
function viaCells(g: HashedGrid, n: number, x: Float64Array, y: Float64Array, z: Float64Array, r: Float64Array, px: number, py: number, pz: number, q: number): number[] {
  const m = g.cellsInSphere(px, py, pz, q);
  const seen: number[] = [];
  if (m < 0) {
    for (let j = 0; j < n; j++) seen.push(j);
  } else {
    for (let k = 0; k < m; k++) for (let j = g.cellHeads[k]; j >= 0; j = g.nextInCell[j]) seen.push(j);
  }
  expect(new Set(seen).size).toBe(seen.length); // each candidate once
  return seen.filter((j) => Math.hypot(x[j] - px, y[j] - py, z[j] - pz) <= q + r[j]).sort((a, b) => a - b);
}

describe('hashed grid: cells of a sphere for callers that test candidates themselves', () => {
  it.each([
    ['small cells, open', { bits: 4, cellSize: 0.5 }],
    ['large cells, open', { bits: 2, cellSize: 4 }],
    ['wrapping queries', { bits: 1, cellSize: 0.6 }],
    ['periodic', { period: [9, 9, 9] }],
  ] as const)('%s: same ids as brute force on random spheres', (_name, o) => {
    const rnd = new Random(11), n = 800;
    const g = new HashedGrid({ dim: 3, capacity: n, autoRegrid: false, ...o });
    const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x[i] = rnd.uniform(0, 9); y[i] = rnd.uniform(0, 9); z[i] = rnd.uniform(0, 9); r[i] = rnd.uniform(0, 0.3);
      g.insertSphere(i, x[i], y[i], z[i], r[i]);
    }
    const periodic = 'period' in o;
    let wrapped = 0;
    for (let k = 0; k < 300; k++) {
      const px = rnd.uniform(0, 9), py = rnd.uniform(0, 9), pz = rnd.uniform(0, 9), q = rnd.uniform(0, periodic ? 1.9 : 2.5);
      if (periodic) {
        // Through querySphere (nearest image) for the periodic box; cellsInSphere gives its superset.
        const want: number[] = [];
        g.querySphere(px, py, pz, q, (j) => want.push(j));
        const m = g.cellsInSphere(px, py, pz, q);
        const cand = new Set<number>();
        if (m < 0) for (let j = 0; j < n; j++) cand.add(j);
        else for (let c = 0; c < m; c++) for (let j = g.cellHeads[c]; j >= 0; j = g.nextInCell[j]) cand.add(j);
        for (const j of want) expect(cand.has(j)).toBe(true);
        continue;
      }
      if (g.cellsInSphere(px, py, pz, q) < 0) wrapped++;
      const brute: number[] = [];
      for (let j = 0; j < n; j++) if (Math.hypot(x[j] - px, y[j] - py, z[j] - pz) <= q + r[j]) brute.push(j);
      expect(viaCells(g, n, x, y, z, r, px, py, pz, q)).toEqual(brute);
    }
    if (_name === 'wrapping queries') expect(wrapped).toBeGreaterThan(0);
  });

  it.each([
    ['3D, grid larger than the cloud', { dim: 3, bits: 5, cellSize: 1 }, 10],
    ['3D, grid wrapping (4 cells a side over a cloud 2.5 grids wide)', { dim: 3, bits: 2, cellSize: 1 }, 10],
    ['2D', { dim: 2, bits: 4, cellSize: 1 }, 10],
    ['periodic, cells not cubes', { dim: 3, period: [9, 7, 5] }, 9],
  ] as const)('sortRows: %s: every live id once, by row, then by step along x', (_name, o, extent) => {
    const rnd = new Random(21), n = 700, sub = 3;
    const g = new HashedGrid({ capacity: n, autoRegrid: false, ...o });
    for (let i = 0; i < n; i++) g.insertSphere(i, rnd.uniform(-extent / 2, extent / 2), rnd.uniform(-extent / 2, extent / 2), o.dim === 3 ? rnd.uniform(-extent / 2, extent / 2) : 0, 0);
    for (let i = 0; i < n; i += 5) g.remove(i);
    const order = new Int32Array(n), fine = new Int32Array(n);
    expect(g.sortRows(sub, order, fine)).toBe(g.count);
    const m = g.count, ids = Array.from(order.subarray(0, m));
    expect(new Set(ids).size).toBe(m);
    expect(ids.every((i) => i % 5 !== 0)).toBe(true);
    // Independently: row = (z cell, y cell), step = floor(x / (cell / 8)) modulo the period in steps.
    const b = g.bits, s = g.cellSize, rows = 1 << (b[1] + b[2]), steps = 1 << (b[0] + sub);
    const cellOn = (v: number, a: number) => Math.floor(v / s[a]) & ((1 << b[a]) - 1);
    const rowOf = (i: number) => (cellOn(g.z[i], 2) << b[1]) | cellOn(g.y[i], 1);
    const starts = g.rowStarts;
    expect(starts[0]).toBe(0);
    expect(starts[rows]).toBe(m);
    for (let r = 0; r < rows; r++) {
      for (let k = starts[r]; k < starts[r + 1]; k++) {
        const i = order[k];
        expect(rowOf(i)).toBe(r);
        expect(fine[k]).toBe(Math.floor(g.x[i] / (s[0] / 8)) & (steps - 1));
        if (k > starts[r]) expect(fine[k]).toBeGreaterThanOrEqual(fine[k - 1]);
      }
    }
    // The same points inserted in this order (ids renumbered, as core/surface does) are already
    // sorted: the insertion path gives the same sequence (the random first order above took the
    // counting-sort path where rows are long: 2D and the wrapping grid).
    const h = new HashedGrid({ capacity: n, autoRegrid: false, ...o });
    ids.forEach((i, k) => h.insertSphere(k, g.x[i], g.y[i], g.z[i], 0));
    const order2 = new Int32Array(n), fine2 = new Int32Array(n);
    h.sortRows(sub, order2, fine2);
    expect(Array.from(order2.subarray(0, m))).toEqual(ids.map((_, k) => k));
    expect(Array.from(fine2.subarray(0, m))).toEqual(Array.from(fine.subarray(0, m)));
  });

  it('sortRows refuses a bad step count or short outputs', () => {
    const g = new HashedGrid({ dim: 3, capacity: 4, bits: 2, cellSize: 1, autoRegrid: false });
    for (let i = 0; i < 3; i++) g.insertSphere(i, i, 0, 0, 0);
    expect(() => g.sortRows(9, new Int32Array(4), new Int32Array(4))).toThrow('subBits must be an integer in [0, 9), got 9');
    expect(() => g.sortRows(3, new Int32Array(2), new Int32Array(4))).toThrow('order and fine must hold count = 3 entries, got lengths 2 and 4');
  });
});

describe('hashed grid: cells entered by a moved box', () => {
  // tall: the boxes' half edges on the last axis exceed the others by this (core/ballmill's tall boxes).
  it.each([[2, 0], [3, 0], [2, 0.3], [3, 0.3]] as const)('%iD, taller by %f on the last axis: every box overlapping the new box but not the old lies in them, in fewer cells than a full query', (dim, tall) => {
    const rnd = new Random(17), n = 1500, hMin = 0.2, hMax = 0.35;
    const g = new HashedGrid({ dim, capacity: n, autoRegrid: false, bits: 5, cellSize: 2 * hMax });
    const c = [new Float64Array(n), new Float64Array(n), new Float64Array(n)], h = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < dim; a++) c[a][i] = rnd.uniform(0, 12);
      h[i] = rnd.uniform(hMin, hMax);
      g.insertBox(i, c[0][i], c[1][i], c[2][i], h[i], dim === 2 ? h[i] + tall : h[i], dim === 3 ? h[i] + tall : 0);
    }
    // On the last axis both boxes are taller by `tall`.
    const extra = (a: number) => (a === dim - 1 ? 2 * tall : 0);
    const overlaps = (j: number, p: number[], q: number) => p.every((v, a) => Math.abs(c[a][j] - v) <= h[j] + q + extra(a));
    let shell = 0, full = 0, found = 0;
    for (let k = 0; k < 400; k++) {
      const q = rnd.uniform(hMin, hMax), p0 = [0, 0, 0].slice(0, dim).map(() => rnd.uniform(1, 11));
      // A move of at most 0.1 per axis, along one axis only every third time.
      const p1 = p0.map((v, a) => (k % 3 === 0 && a > 0 ? v : v + rnd.uniform(-0.1, 0.1)));
      const inner = [0, 1, 2].map((a) => q + hMin + extra(a)), outer = [0, 1, 2].map((a) => q + hMax + extra(a));
      const m = g.cellsEntered(Float64Array.of(p0[0], p0[1], p0[2] ?? 0, p1[0], p1[1], p1[2] ?? 0, ...inner, ...outer));
      expect(m).toBeGreaterThanOrEqual(0);
      const seen: number[] = [];
      for (let s = 0; s < m; s++) for (let j = g.cellHeads[s]; j >= 0; j = g.nextInCell[j]) seen.push(j);
      expect(new Set(seen).size).toBe(seen.length);
      const cand = new Set(seen);
      for (let j = 0; j < n; j++) {
        if (overlaps(j, p1, q) && !overlaps(j, p0, q)) { found++; expect(cand.has(j)).toBe(true); }
      }
      shell += seen.length;
      let all = 0;
      const half = (a: number) => q + (a === dim - 1 ? tall : 0);
      g.queryBox(...[0, 1, 2].map((a) => (a < dim ? p1[a] - half(a) : 0)) as [number, number, number], ...[0, 1, 2].map((a) => (a < dim ? p1[a] + half(a) : 0)) as [number, number, number], () => all++);
      full += g.counters.candidatesTested;
      g.resetCounters();
    }
    expect(found).toBeGreaterThan(20);
    expect(shell).toBeLessThan(0.8 * full);
  });
});
