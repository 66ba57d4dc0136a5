import { describe, expect, it } from 'vitest';
import type { ColumnTable, LabelVolume } from '../../../core/common/engine';
import { Random } from '../../../core/common/random';
import { analyseParticleTable, analyseVoxelPacking } from '../../../core/analysis/index';
import { coordinationFromPairs, voxelContacts } from '../../../core/analysis/contacts';
import { heightStats } from '../../../core/analysis/porosity';
import { particleMoments } from '../../../core/analysis/orientation';
import { voxelEngine } from '../../../core/voxel/index';

function volume(dims: [number, number, number], fill: (x: number, y: number, z: number) => number, voxelSize = 1): LabelVolume {
  const [nx, ny, nz] = dims;
  const labels = new Uint32Array(nx * ny * nz);
  for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) labels[x + nx * (y + ny * z)] = fill(x, y, z);
  return { kind: 'volume', name: 'labels', dims, voxelSize, labels };
}

function table(n: number, extra: ColumnTable['columns'] = {}): ColumnTable {
  return { kind: 'table', name: 'particles', columns: { id: Uint32Array.from({ length: n }, (_, i) => i), ...extra } };
}

describe('analyseVoxelPacking', () => {
  it('measures porosity, its profile and contacts of a table-shaped arrangement', () => {
    // z=0: a full plate (1); z=1: legs at x=0 (2); z=2: a full top (3); z=3: empty.
    const vol = volume([4, 4, 4], (x, _y, z) => (z === 0 ? 1 : z === 1 ? (x === 0 ? 2 : 0) : z === 2 ? 3 : 0), 0.5);
    const res = analyseVoxelPacking(vol, table(3), { floorLayer: 0.5, topPercentile: 0 });
    // Bed under the surface: 16 columns of height 3 = 48 voxels, 36 solid.
    expect(res.metrics.bedPorosity).toBeCloseTo(12 / 48, 12);
    const profile = res.series.find((s) => s.name === 'porosity profile')!;
    expect(Array.from(profile.y)).toEqual([0, 0.75, 0, 1]);
    expect(Array.from(profile.x)).toEqual([0.25, 0.75, 1.25, 1.75]);
    // Bulk: from the floor layer (1 voxel) to the valley (height 3): slices 1 and 2.
    expect(res.metrics.bulkPorosity).toBeCloseTo(4 / 32 * 3, 12);
    expect(res.metrics.rmsRoughness).toBe(0);
    expect(res.metrics.meanHeight).toBe(1.5);
    expect(res.metrics.contacts).toBe(2);
    expect(res.metrics.coordinationMean).toBeCloseTo(4 / 3, 12);
    const hm = res.artifacts[0] as LabelVolume;
    expect(hm.name).toBe('heightmap');
    expect(hm.dims).toEqual([4, 4, 1]);
    expect(Array.from(hm.labels)).toEqual(new Array(16).fill(3));
    expect([res.metrics.bulkFrom, res.metrics.bulkTo]).toEqual([0.5, 1.5]);
  });

  it('reports no bulk region for a bed no deeper than its floor layer', () => {
    // One 2-voxel cube on the floor: the floor layer (its diameter) reaches the valley.
    const vol = volume([4, 4, 4], (x, y, z) => (x < 2 && y < 2 && z < 2 ? 1 : 0));
    const res = analyseVoxelPacking(vol, table(1), { topPercentile: 0 });
    expect(res.metrics.bedPorosity).toBeDefined();
    for (const k of ['bulkPorosity', 'bulkFrom', 'bulkTo']) expect(res.metrics).not.toHaveProperty(k);
  });

  it('finds 6 face contacts per cube in a periodic simple cubic arrangement of cubes', () => {
    const s = 4, k = 4; // k x k x k cubes of s^3 voxels
    const vol = volume([s * k, s * k, s * k], (x, y, z) => 1 + Math.floor(x / s) + k * (Math.floor(y / s) + k * Math.floor(z / s)));
    const res = analyseVoxelPacking(vol, table(k ** 3), { periodic: [true, true, true] });
    expect(res.metrics.coordinationMean).toBe(6);
    expect(res.metrics.contacts).toBe(3 * k ** 3);
    const hist = res.series.find((x) => x.name === 'coordination number')!;
    expect(hist.y[hist.x.indexOf(6)]).toBe(1);
    // Per particle, for the inspector's colouring.
    expect(Array.from(res.particleColumns.coordination)).toEqual(new Array(k ** 3).fill(6));
    expect(res.particleColumns.equivalentDiameter[0]).toBeCloseTo(Math.cbrt((6 * 64) / Math.PI), 12);
    // Without periodic z the top and bottom layers lose one contact each.
    const open = analyseVoxelPacking(vol, table(k ** 3), { periodic: [true, true, false] });
    expect(open.metrics.contacts).toBe(3 * k ** 3 - k * k);
    expect(open.metrics.bedPorosity).toBe(0);
  });

  it('agrees with a brute-force contact count on random labels', () => {
    const rand = new Random(7);
    for (const periodic of [[true, true, false], [false, false, false], [true, false, true]] as [boolean, boolean, boolean][]) {
      const dims: [number, number, number] = [7, 5, 6];
      const vol = volume(dims, () => (rand.next() < 0.3 ? 0 : 1 + Math.floor(rand.next() * 12)));
      const expected = new Set<string>();
      const [nx, ny, nz] = dims;
      const at = (x: number, y: number, z: number) => vol.labels[x + nx * (y + ny * z)];
      for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
        for (const [dx, dy, dz] of [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]) {
          let qx = x + dx, qy = y + dy, qz = z + dz;
          if (periodic[0]) qx = (qx + nx) % nx; if (periodic[1]) qy = (qy + ny) % ny; if (periodic[2]) qz = (qz + nz) % nz;
          if (qx < 0 || qy < 0 || qz < 0 || qx >= nx || qy >= ny || qz >= nz) continue;
          const a = at(x, y, z), b = at(qx, qy, qz);
          if (a && b && a !== b) expected.add(`${Math.min(a, b)}-${Math.max(a, b)}`);
        }
      }
      const pairs = voxelContacts(vol.labels, dims, periodic);
      const got = new Set<string>();
      pairs.forEach((a, b) => got.add(`${a}-${b}`));
      expect(got).toEqual(expected);
      const degree = coordinationFromPairs(pairs, 12);
      expect(degree.reduce((s, d) => s + d, 0)).toBe(2 * expected.size);
    }
  });

  it('gives the RMS roughness of a synthetic height map', () => {
    // Checkerboard columns of heights 2 and 6: mean 4, RMS deviation 2.
    const vol = volume([8, 8, 8], (x, y, z) => (z < ((x + y) % 2 ? 6 : 2) ? 1 + x + 8 * y : 0), 0.1);
    const res = analyseVoxelPacking(vol, table(64));
    expect(res.metrics.rmsRoughness).toBeCloseTo(0.2, 12);
    expect(res.metrics.meanHeight).toBeCloseTo(0.4, 12);
    // A known map directly: heights 1..4 once each: mean 2.5, variance 1.25.
    const hs = heightStats(Uint32Array.of(1, 2, 3, 4), 0);
    expect(hs.rms).toBeCloseTo(Math.sqrt(1.25), 12);
    expect(hs.valley).toBe(1);
  });

  it('histograms the tilt of a known set of rotations and of voxel rods', () => {
    // rx = 5, 35, 65, 90 degrees tilt the z body axis by the same angles; rz never tilts it.
    const rx = Int16Array.of(5, 35, 65, 90, 0), ry = Int16Array.of(0, 0, 0, 0, -90), rz = Int16Array.of(45, 0, 0, 0, 270);
    // Two rods of 9x3x3 voxels: one along x (label 1), one along z (label 2).
    const vol = volume([20, 20, 12], (x, y, z) => (z < 3 && y < 3 && x < 9 ? 1 : x >= 10 && x < 13 && y >= 10 && y < 13 && z < 9 ? 2 : 0));
    const particles = table(5, { rx, ry, rz });
    const res = analyseVoxelPacking(vol, particles, { angleBins: 6 });
    const body = res.series.find((s) => s.name === 'tilt of body axis')!;
    // Bins of 15°: tilts 5, 35, 65, 90, 90 fall into bins 0, 2, 4, 5, 5.
    expect(Array.from(body.y)).toEqual([0.2, 0, 0.2, 0, 0.2, 0.4]);
    const p2 = (deg: number) => 1.5 * Math.cos((deg * Math.PI) / 180) ** 2 - 0.5;
    const expectedS = (p2(5) + p2(35) + p2(65) + p2(90) + p2(90)) / 5;
    expect(res.metrics.bodyAxisOrder).toBeCloseTo(expectedS, 12);
    const principal = res.series.find((s) => s.name === 'tilt of principal axis')!;
    // The x rod lies flat (90°), the z rod stands (0°); particles 3..5 have no voxels.
    expect(Array.from(principal.y)).toEqual([0.5, 0, 0, 0, 0, 0.5]);
    expect(res.metrics.principalAxisOrder).toBeCloseTo(0.25, 12);
    expect(Array.from(res.particleColumns.principalTilt.subarray(0, 2))).toEqual([90, 0]);
    expect(res.particleColumns.bodyTilt[3]).toBeCloseTo(90, 4);
    // A plate lying flat: its principal axis is its normal (0°), not its longest side (90°), and the
    // inspector's label for the column says so (it said 'longest principal axis').
    const plate = analyseVoxelPacking(volume([12, 12, 4], (x, y, z) => (x < 9 && y < 9 && z < 2 ? 1 : 0)), table(1), { angleBins: 6 });
    expect(plate.particleColumns.principalTilt[0]).toBe(0);
    const label = voxelEngine.particleTable!.quantities.find((q) => q.column === 'principalTilt')!.label;
    expect(label).toMatch(/plate's normal/);
    expect(label).not.toMatch(/longest/);
    const rzHist = res.series.find((s) => s.name === 'rotation angle rz')!;
    expect(rzHist.y[4]).toBeCloseTo(0.2); // 45° in the 40–50° bin
    expect(rzHist.y[27]).toBeCloseTo(0.2); // 270°
  });

  it('finds no principal axis in voxelised balls (their digitisation aside), and finds it in spheroids of aspect 1.1 and more', () => {
    // A ball of radius R voxels at a random sub-voxel centre is anisotropic by up to about 3/R² from
    // its voxels alone (0.036 at R = 8, measured over 200 centres): that is no axis.
    const rand = new Random(21);
    const shape = (a: number, b: number, tilt: number) => {
      const n = Math.ceil(2 * Math.max(a, b)) + 4, c = [n / 2 + rand.uniform(0, 1), n / 2 + rand.uniform(0, 1), n / 2 + rand.uniform(0, 1)];
      const ct = Math.cos((tilt * Math.PI) / 180), st = Math.sin((tilt * Math.PI) / 180);
      // Semi-axis a along (sin t, 0, cos t), b across it.
      return volume([n, n, n], (x, y, z) => {
        const dx = x - c[0], dy = y - c[1], dz = z - c[2];
        const u = dx * st + dz * ct, v = dx * ct - dz * st;
        return (u * u) / (a * a) + (v * v + dy * dy) / (b * b) <= 1 ? 1 : 0;
      });
    };
    for (const R of [3, 4.5, 6, 8, 12]) for (let t = 0; t < 8; t++) {
      const res = analyseVoxelPacking(shape(R, R, 0), table(1), { periodic: [false, false, false] });
      expect(res.particleColumns.principalTilt[0], `ball R ${R}`).toBeNaN();
    }
    for (const [a, b, tilt] of [[8.8, 8, 40], [10, 7, 40], [12, 8, 75], [6, 4, 20]]) {
      const res = analyseVoxelPacking(shape(a, b, tilt), table(1), { periodic: [false, false, false] });
      expect(Math.abs(res.particleColumns.principalTilt[0] - tilt), `spheroid ${a}/${b} at ${tilt}°`).toBeLessThan(3);
    }
  });

  it('measures a particle across the periodic boundary whole', () => {
    // A rod along x from x=18 through x=3 wrapping around a 20-wide box.
    const vol = volume([20, 4, 4], (x, y, z) => ((x >= 18 || x < 5) && y < 2 && z < 2 ? 1 : 0));
    const res = analyseVoxelPacking(vol, table(1), { periodic: [true, true, false] });
    expect(res.metrics.principalAxisOrder).toBeCloseTo(-0.5, 12);
    expect(res.metrics.particles).toBe(1);
    expect(res.metrics).not.toHaveProperty('particleCount'); // one name for one quantity: every engine says particles
    expect(res.metrics.d50).toBeCloseTo(Math.cbrt((6 * 28) / Math.PI), 12);
  });

  it('stops part-way at a cancel, in every pass including the pores, and returns null', () => {
    // Cubes of 8 voxels with a spherical pore each, 7 layers in 64 slices: three passes of 4
    // progress strides, and the pores below the flat top.
    const vol = volume([24, 24, 64], (x, y, z) => {
      const i = Math.floor(x / 8), j = Math.floor(y / 8), k = Math.floor(z / 8);
      return (x % 8 - 3.5) ** 2 + (y % 8 - 3.5) ** 2 + (z % 8 - 3.5) ** 2 >= 9 && k < 7 ? 1 + i + 3 * j + 9 * k : 0;
    });
    const n = 3 * 3 * 7;
    let looks = 0, phase = '', poreLooks = 0;
    const pores: number[] = [];
    const full = analyseVoxelPacking(vol, table(n), {}, (d, t, p) => { phase = p; if (p === 'pores') pores.push(d / t); }, () => { looks++; if (phase === 'pores') poreLooks++; return false; });
    expect(full).not.toBeNull();
    // The pores (57 slices under the top at 56) look once a slice in each pass of the distance
    // transform and of the local thickness, and say how far they are: the last quarter of the
    // analysis, which stood at 75 % (the contacts' end) until they ended.
    expect(poreLooks).toBeGreaterThanOrEqual(4 * 57);
    expect(pores.length).toBe(poreLooks);
    expect(pores[0]).toBe(0.75);
    pores.forEach((f, k) => expect(f).toBeGreaterThanOrEqual(pores[k - 1] ?? 0.75));
    expect(pores.at(-1)!).toBeGreaterThan(0.98);
    expect(pores.at(-1)!).toBeLessThan(1);
    for (const at of [0, 2, 5, 9, looks - 50, looks - 1]) {
      let seen = 0;
      const r = analyseVoxelPacking(vol, table(n), {}, () => {}, () => ++seen > at);
      expect(r, `cancel at look ${at}`).toBeNull();
      // It stopped at the first look that said so.
      expect(seen).toBe(at + 1);
    }
  });

  it('reports progress and rejects bad input before allocating', () => {
    const vol = volume([4, 4, 4], (_x, _y, z) => (z < 2 ? 1 : 0));
    const phases = new Set<string>();
    let last = 0;
    analyseVoxelPacking(vol, table(1), {}, (done, total, phase) => { phases.add(phase); last = done / total; });
    expect(last).toBe(1);
    expect(phases.has('done')).toBe(true);
    expect(() => analyseVoxelPacking({ ...vol, labels: new Uint32Array(5) }, table(1))).toThrow(/labels has 5 voxels, but dims 4x4x4 need 64/);
    expect(() => analyseVoxelPacking(vol, table(1), { topPercentile: 80 })).toThrow(/topPercentile/);
    expect(() => analyseVoxelPacking(vol, table(1), { bodyAxis: [0, 0, 0] })).toThrow(/bodyAxis must not be the zero vector/);
  });
});

describe('analyseParticleTable (runs without a label volume)', () => {
  it('gives sizes from voxel counts and orientation from rotations', () => {
    const particles: ColumnTable = {
      kind: 'table',
      name: 'particles',
      columns: { voxels: Uint32Array.of(1000, 8000), rx: Int16Array.of(0, 90), ry: Int16Array.of(0, 0), rz: Int16Array.of(0, 0) },
      meta: { resolution: 10 },
    };
    const res = analyseParticleTable(particles);
    // 1000 voxels at 10 per unit is a volume of 1: d = (6 / π)^(1/3).
    expect(res.metrics.d10).toBeCloseTo(Math.cbrt(6 / Math.PI), 12);
    // Volumes 1 and 8 (1/9 and 8/9): 90 % lies (90 - 100/9) / (800/9) = 710/800 of the way from d to 2d.
    expect(res.metrics.d90).toBeCloseTo((1 + 710 / 800) * Math.cbrt(6 / Math.PI), 12);
    expect(res.metrics.bodyAxisOrder).toBeCloseTo(0.25, 12);
    expect(() => analyseParticleTable({ ...particles, meta: {} })).toThrow(/meta.resolution must be a positive number/);
  });
});

describe('particleMoments', () => {
  it('sums runs in closed form exactly as a voxel-by-voxel sum does', () => {
    const rand = new Random(5);
    const dims: [number, number, number] = [16, 12, 10];
    const [nx, ny, nz] = dims;
    const labels = new Uint32Array(nx * ny * nz);
    // Random boxes up to 5 voxels a side, wrapping in x and y.
    for (let p = 1; p <= 12; p++) {
      const [x0, y0, z0] = [rand.int(nx), rand.int(ny), rand.int(nz - 5)];
      const [sx, sy, sz] = [1 + rand.int(5), 1 + rand.int(5), 1 + rand.int(5)];
      for (let z = z0; z < z0 + sz; z++) for (let y = y0; y < y0 + sy; y++) for (let x = x0; x < x0 + sx; x++) labels[(x % nx) + nx * ((y % ny) + ny * z)] = p;
    }
    const periodic: [boolean, boolean, boolean] = [true, true, false];
    const got = particleMoments(labels, dims, periodic, 12);
    const count = new Uint32Array(12), sums = new Float64Array(12 * 9), ref: number[][] = [];
    for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      const l = labels[x + nx * (y + ny * z)];
      if (!l) continue;
      const p = l - 1;
      ref[p] ??= [x, y, z];
      count[p]++;
      const wrap = (d: number, n: number) => (d > n / 2 ? d - n : d < -n / 2 ? d + n : d);
      const d = [wrap(x - ref[p][0], nx), wrap(y - ref[p][1], ny), z - ref[p][2]];
      const terms = [d[0], d[1], d[2], d[0] * d[0], d[1] * d[1], d[2] * d[2], d[0] * d[1], d[0] * d[2], d[1] * d[2]];
      terms.forEach((t, k) => { sums[9 * p + k] += t; });
    }
    expect(Array.from(got.count)).toEqual(Array.from(count));
    expect(Array.from(got.sums)).toEqual(Array.from(sums));
  });
});
