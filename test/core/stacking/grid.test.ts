import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { LevelGrid } from '../../../core/stacking/grid';
import { Region } from '../../../core/stacking/region';
import type { RegionParams } from '../../../core/stacking/params';

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
    const grid = new LevelGrid(pos, n, region, rMax, rMin, name.includes('two cells') ? 5 : 2, 0);
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
});
