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
    ['3D, grid larger than the cloud', 3, 5, 10],
    ['3D, grid wrapping (4 cells a side over a cloud 2.5 grids wide)', 3, 2, 10],
    ['2D', 2, 4, 10],
  ] as const)('halfShellHeads: %s: every pair within a cell size met exactly once', (_name, dim, bits, extent) => {
    const rnd = new Random(21), n = 700, cube = 1;
    const g = new HashedGrid({ dim, capacity: n, bits, cellSize: cube, autoRegrid: false });
    const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x[i] = rnd.uniform(-extent / 2, extent / 2); y[i] = rnd.uniform(-extent / 2, extent / 2); z[i] = dim === 3 ? rnd.uniform(-extent / 2, extent / 2) : 0;
      g.insertSphere(i, x[i], y[i], z[i], 0);
    }
    const seen = new Map<string, number>();
    const shell = new Int32Array(13);
    for (let i = 0; i < n; i++) {
      const m = g.halfShellHeads(g.cellOfObject(i), shell);
      expect(m).toBe(dim === 3 ? 13 : 4);
      for (let k = -1; k < m; k++) {
        for (let j = k < 0 ? g.nextInCell[i] : shell[k]; j >= 0; j = g.nextInCell[j]) {
          if (Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j]) > cube) continue;
          const key = `${Math.min(i, j)},${Math.max(i, j)}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      }
    }
    let pairs = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
      if (Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j]) > cube) continue;
      pairs++;
      expect(seen.get(`${i},${j}`), `pair ${i},${j}`).toBe(1);
    }
    expect(seen.size).toBe(pairs);
    expect(pairs).toBeGreaterThan(100);
  });

  it('halfShellHeads refuses a grid with fewer than 4 cells on an axis', () => {
    const g = new HashedGrid({ dim: 3, capacity: 2, bits: 1, cellSize: 1, autoRegrid: false });
    expect(() => g.halfShellHeads(0, new Int32Array(13))).toThrow('halfShellHeads needs at least 4 cells per axis (bits >= 2), the grid has bits 1, 1, 1');
  });

  it('idsInCellOrder lists every id once, cell by cell', () => {
    const rnd = new Random(4), n = 500;
    const g = new HashedGrid({ dim: 3, capacity: n, bits: 3, cellSize: 1, autoRegrid: false });
    for (let i = 0; i < n; i++) g.insertSphere(i, rnd.uniform(-4, 4), rnd.uniform(-4, 4), rnd.uniform(-4, 4), 0);
    for (let i = 0; i < n; i += 3) g.remove(i);
    const out = new Int32Array(n);
    const m = g.idsInCellOrder(out);
    expect(m).toBe(g.count);
    const ids = Array.from(out.subarray(0, m));
    expect(new Set(ids).size).toBe(m);
    expect(ids.every((i) => i % 3 !== 0)).toBe(true);
    // Cell index (x fastest, 8 cells a side, space tiled periodically) never decreases along the list.
    const cell = (i: number) => {
      const c = (v: number) => Math.floor(v) & 7;
      return c(g.x[i]) + 8 * (c(g.y[i]) + 8 * c(g.z[i]));
    };
    for (let k = 1; k < m; k++) expect(cell(ids[k])).toBeGreaterThanOrEqual(cell(ids[k - 1]));
    expect(() => g.idsInCellOrder(new Int32Array(3))).toThrow(`out must hold count = ${m} ids, got length 3`);
  });
});
