import { describe, expect, it } from 'vitest';
import type { ColumnTable } from '../../../core/common/engine';
import { Random } from '../../../core/common/random';
import { analyseSpheres, sphereContacts, sphereSliceVolume } from '../../../core/analysis/spheres';
import { forEachClosePair, SphereGrid } from '../../../core/analysis/neighbours';

function spheres(points: number[][], r: number | number[]): ColumnTable {
  const n = points.length;
  const col = (k: number) => Float64Array.from(points, (p) => p[k]);
  return {
    kind: 'table',
    name: 'spheres',
    columns: { x: col(0), y: col(1), z: col(2), r: Float64Array.from({ length: n }, (_, i) => (Array.isArray(r) ? r[i] : r)), type: new Uint16Array(n) },
  };
}

/** Lattice points: k x k x layers cells of side a, the basis in units of a. */
function lattice(k: number, a: number, basis: number[][], layers = k): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let l = 0; l < layers; l++) {
    for (const b of basis) out.push([(i + b[0]) * a, (j + b[1]) * a, (l + b[2]) * a]);
  }
  return out;
}

describe('analyseSpheres', () => {
  it('finds coordination 12 in an FCC lattice and 6 in a simple cubic one', () => {
    const a = 2, k = 4;
    const fcc = lattice(k, a, [[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]]);
    const rf = a / (2 * Math.SQRT2);
    const res = analyseSpheres(spheres(fcc, rf), [k * a, k * a, k * a], { periodic: [true, true, true], gapTolerance: 1e-9, poreGridVoxels: 4096 });
    expect(res.metrics.coordinationMean).toBe(12);
    expect(res.metrics.contacts).toBe(6 * fcc.length);
    expect(res.particleColumns.coordination.every((c) => c === 12)).toBe(true);
    const sc = lattice(k, a, [[0, 0, 0]]);
    const res2 = analyseSpheres(spheres(sc, a / 2), [k * a, k * a, k * a], { periodic: [true, true, true], gapTolerance: 1e-9, poreGridVoxels: 4096 });
    expect(res2.metrics.coordinationMean).toBe(6);
    // The RDF of the simple cubic lattice: its first peak is at the lattice spacing.
    const g = res2.series.find((s) => s.name === 'radial distribution function')!;
    const first = g.y.findIndex((v) => v > 0);
    expect(Math.abs(g.x[first] - a)).toBeLessThan((g.x[1] - g.x[0]));
  });

  it('counts contacts with periodic images in cells shorter than two contact reaches (a lattice unit cell)', () => {
    // Independent count: every periodic image of every sphere tiled explicitly, each bond once.
    const bruteForce = (pts: number[][], r: number[], box: number[], tol: number): number[] => {
      const degree = pts.map(() => 0);
      const m = box.map((l) => Math.ceil((2 * Math.max(...r) + tol) / l));
      for (let i = 0; i < pts.length; i++) for (let j = 0; j < pts.length; j++) {
        for (let a = -m[0]; a <= m[0]; a++) for (let b = -m[1]; b <= m[1]; b++) for (let c = -m[2]; c <= m[2]; c++) {
          if (i === j && a === 0 && b === 0 && c === 0) continue;
          const d = Math.hypot(pts[j][0] + a * box[0] - pts[i][0], pts[j][1] + b * box[1] - pts[i][1], pts[j][2] + c * box[2] - pts[i][2]);
          if (d - r[i] - r[j] <= tol) degree[i]++;
        }
      }
      return degree;
    };
    const h = Math.sqrt(3), c = Math.sqrt(8 / 3);
    // Unit cells (fractions of the cell sides), the sides, the radius for touching spheres, the coordination.
    const cells: [string, number[][], number[], number, number][] = [
      ['simple cubic', [[0, 0, 0]], [1, 1, 1], 0.5, 6],
      ['BCC', [[0, 0, 0], [0.5, 0.5, 0.5]], [1, 1, 1], h / 4, 8],
      ['FCC', [[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]], [1, 1, 1], 1 / (2 * Math.SQRT2), 12],
      ['HCP', [[0, 0, 0], [0.5, 0.5, 0], [0.5, 1 / 6, 0.5], [0, 2 / 3, 0.5]], [1, h, c], 0.5, 12],
    ];
    for (const [name, basis, side, r, coordination] of cells) for (const k of [1, 2, 3]) {
      // Shifted off the origin, so that the box cuts the spheres on every side.
      const pts: number[][] = [];
      for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let l = 0; l < k; l++) {
        for (const b of basis) pts.push([(i + b[0] + 0.1) * side[0], (j + b[1] + 0.2) * side[1], (l + b[2] + 0.3) * side[2]]);
      }
      const box = side.map((s) => k * s) as [number, number, number];
      const tol = 1e-9;
      const col = (a: number) => Float64Array.from(pts, (p) => p[a]);
      const got = sphereContacts(col(0), col(1), col(2), new Float64Array(pts.length).fill(r), box, [true, true, true], tol);
      const expected = bruteForce(pts, pts.map(() => r), box, tol);
      expect(expected.every((d) => d === coordination), `${name} ${k}: brute force`).toBe(true);
      expect(Array.from(got.degree), `${name} ${k}`).toEqual(expected);
      expect(got.contacts, `${name} ${k}`).toBe((coordination * pts.length) / 2);
      expect(got.overlappingPairs, `${name} ${k}`).toBe(0);
      if (k === 1) {
        const res = analyseSpheres(spheres(pts, r), box, { periodic: [true, true, true], gapTolerance: tol, poreGridVoxels: 4096, heightMapCells: 16 });
        expect(res.metrics.coordinationMean, name).toBe(coordination);
      }
    }
    // Spheres of radius 0.3 to 0.6 in cells of 1.25 to 3 along each axis, against the same brute force.
    const rand = new Random(8);
    for (let t = 0; t < 20; t++) {
      const box = [0, 1, 2].map(() => rand.uniform(1.25, 3)) as [number, number, number];
      const pts = Array.from({ length: 6 }, () => box.map((l) => rand.uniform(0, l)));
      const r = pts.map(() => rand.uniform(0.3, 0.6));
      const col = (a: number) => Float64Array.from(pts, (p) => p[a]);
      const got = sphereContacts(col(0), col(1), col(2), Float64Array.from(r), box, [true, true, true], 0.05);
      expect(Array.from(got.degree)).toEqual(bruteForce(pts, r, box, 0.05));
    }
  });

  it('counts spheres placed touching as touching with a gap tolerance of 0, and a gap just over the tolerance as apart', () => {
    // Centres written as decimals 2r apart: the computed gap is within rounding of 0, either side.
    const f = (...v: number[]) => Float64Array.from(v);
    const box: [number, number, number] = [20, 20, 20];
    let pairs = 0;
    for (const r of [0.1, 0.3, 0.05, 1 / 3, 0.7, 1.1]) for (const c of [0.1, 0.2, 0.3, 0.7, 1.3, 2.9, 7.7]) for (let a = 0; a < 3; a++) {
      const p = [[5, 5, 5], [5, 5, 5]];
      p[0][a] = c + r;
      p[1][a] = c + 3 * r;
      const got = sphereContacts(f(p[0][0], p[1][0]), f(p[0][1], p[1][1]), f(p[0][2], p[1][2]), f(r, r), box, [false, false, false], 0);
      expect([got.contacts, got.overlappingPairs], `r ${r}, c ${c}, axis ${a}`).toEqual([1, 0]);
      pairs++;
    }
    expect(pairs).toBe(126);
    // Gaps of the tolerance and 1e-9 either side of it.
    const gapOf = (gap: number, tol: number) => sphereContacts(f(1, 2 + gap), f(1, 1), f(1, 1), f(0.5, 0.5), box, [false, false, false], tol).contacts;
    expect([gapOf(0.01, 0.01), gapOf(0.01 - 1e-9, 0.01), gapOf(0.01 + 1e-9, 0.01), gapOf(1e-9, 0)]).toEqual([1, 1, 0, 0]);
  });

  it('gives the lattice porosity exactly from sphere slices', () => {
    // Simple cubic spheres of diameter a touching the floor: solid fraction π/6 over whole periods.
    const a = 1, k = 4;
    const pts = lattice(k, a, [[0.5, 0.5, 0.5]]);
    const res = analyseSpheres(spheres(pts, a / 2), [k * a, k * a, 10], { sliceThickness: a / 10, poreGridVoxels: 4096 });
    const p = res.series.find((s) => s.name === 'porosity profile')!;
    let sum = 0;
    for (let s = 5; s < 25; s++) sum += p.y[s];
    expect(sum / 20).toBeCloseTo(1 - Math.PI / 6, 12);
    expect(p.y.length).toBe(40);
    expect(res.metrics.maxOverlap).toBeLessThan(1e-12);
    expect(res.metrics.overlappingPairs).toBe(0);
    const squeezed = analyseSpheres(spheres(pts, 0.6 * a), [k * a, k * a, 10], { gapTolerance: 0, poreGridVoxels: 4096 });
    expect(squeezed.metrics.overlappingPairs).toBe(3 * k ** 3 - k * k); // x and y bonds wrap, z bonds do not
    expect(squeezed.metrics.maxOverlap).toBeCloseTo(0.2 * a, 12);
    expect(sphereSliceVolume(0, 2, -5, 5)).toBeCloseTo((4 / 3) * Math.PI * 8, 12);
    expect(sphereSliceVolume(0, 2, 0, 5)).toBeCloseTo((2 / 3) * Math.PI * 8, 12);
  });

  it('takes a cell periodic in z as the region: porosity of the box, a profile that wraps, the RDF of a gas at 1 (over a floor too)', () => {
    // FCC, 3 x 3 x 3 cells shifted by 0.3 along z, so that the box cuts the bottom and top spheres.
    const a = 1, k = 3, rf = a / (2 * Math.SQRT2);
    const pts: number[][] = [];
    for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let l = 0; l < k; l++) {
      for (const b of [[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]]) pts.push([(i + b[0]) * a, (j + b[1]) * a, ((l + b[2] + 0.3) % k) * a]);
    }
    const res = analyseSpheres(spheres(pts, rf), [k * a, k * a, k * a], { periodic: [true, true, true], sliceThickness: a / 8, poreGridVoxels: 1 << 18 });
    const fcc = 1 - Math.PI / (3 * Math.SQRT2);
    expect(res.metrics.bedPorosity).toBeCloseTo(fcc, 12);
    expect(res.metrics.bulkPorosity).toBeCloseTo(fcc, 12);
    expect([res.metrics.bulkFrom, res.metrics.bulkTo]).toEqual([0, k * a]);
    // No top surface to report; the largest pore is the octahedral hole, a - 2r wide, also where the box cuts the spheres.
    expect(res.metrics).not.toHaveProperty('rmsRoughness');
    expect(Math.abs(Number(res.metrics.poreDiameterMax) - (a - 2 * rf))).toBeLessThan(2 * Number(res.metrics.poreGridSpacing));
    // The profile: 24 slices of a/8 over the box, each against a midpoint sum over every image of every sphere.
    const profile = res.series.find((s) => s.name === 'porosity profile')!;
    expect(profile.x.length).toBe(24);
    for (let s = 0; s < 24; s++) {
      const z0 = s / 8, steps = 400;
      let solid = 0;
      for (let q = 0; q < steps; q++) {
        const zq = z0 + (q + 0.5) / (8 * steps);
        for (const p of pts) for (const shift of [-k, 0, k]) {
          const h = zq - (p[2] + shift);
          if (Math.abs(h) < rf) solid += (Math.PI * (rf * rf - h * h)) / (8 * steps);
        }
      }
      expect(profile.y[s], `slice ${s}`).toBeCloseTo(1 - solid / (k * k * (a / 8)), 5);
    }
    // A dilute gas filling a periodic box: g(r) is 1 (within counting noise), no contacts.
    const rand = new Random(3);
    const gas: number[][] = Array.from({ length: 5000 }, () => [rand.uniform(0, 100), rand.uniform(0, 100), rand.uniform(0, 100)]);
    const g = analyseSpheres(spheres(gas, 0.05), [100, 100, 100], { periodic: [true, true, true], rdfMaxDistance: 10, rdfBins: 5, poreGridVoxels: 4096 });
    const rdf = g.series.find((s) => s.name === 'radial distribution function')!;
    for (const v of rdf.y) expect(Math.abs(v - 1)).toBeLessThan(0.1);
    expect(g.metrics.coordinationMean).toBeLessThan(0.001);
    expect(g.metrics.bedPorosity).toBeCloseTo(1 - (5000 * (4 / 3) * Math.PI * 0.05 ** 3) / 1e6, 12);
    // The same gas over a floor (z not periodic): no bed to speak of (the height map is mostly empty,
    // no bulk), so its window is the box, each pair counted over the part of its sphere inside it.
    const open = analyseSpheres(spheres(gas, 0.05), [100, 100, 100], { periodic: [true, true, false], rdfMaxDistance: 10, rdfBins: 5, poreGridVoxels: 4096 });
    expect(open.metrics).not.toHaveProperty('bulkPorosity');
    const openRdf = open.series.find((s) => s.name === 'radial distribution function')!;
    for (const v of openRdf.y) expect(Math.abs(v - 1)).toBeLessThan(0.1);
  });

  it('corrects the RDF for the floor and top of a slab: an ideal gas reads 1 out to half the box', () => {
    // Uniform random points (spheres of radius 0.01: no overlap to speak of) in a slab 20 x 20 x 10,
    // periodic in x and y. Each pair counts over the part of its sphere inside the slab: without
    // that, a shell of radius 10 holds its points in a band of height 10 out of 20, and g read 0.52
    // at r = 9.5 (0.77 at 4.5, 0.91 at 1.5, where a reference within 1.5 of the floor or top loses a cap).
    const rand = new Random(12);
    const n = 4000, box: [number, number, number] = [20, 20, 10];
    const gas = Array.from({ length: n }, () => [rand.uniform(0, box[0]), rand.uniform(0, box[1]), rand.uniform(0, box[2])]);
    const res = analyseSpheres(spheres(gas, 0.01), box, { periodic: [true, true, false], rdfMaxDistance: 10, rdfBins: 10, rdfReferences: 2000, poreGridVoxels: 4096 });
    expect(res.metrics).not.toHaveProperty('bulkPorosity'); // a gas: the slab is the box
    const rdf = res.series.find((s) => s.name === 'radial distribution function')!;
    expect(rdf.x.length).toBe(10);
    rdf.y.forEach((g, b) => expect(Math.abs(g - 1), `g(${rdf.x[b]}) = ${g}`).toBeLessThan(0.05));
  });

  it('corrects the RDF for every side that is not periodic: an ideal gas in a closed box reads 1 out to half its shortest side', () => {
    // Uniform random points in a box 24 x 20 x 16, every side a wall (and x periodic, the others walls),
    // every point a reference. Over 8 seeds the bins of width 1 scattered about 1 by 0.017 (the first,
    // with fewest pairs) and at most 0.006 (the others). Without the correction of the x and y sides
    // (only the floor and the top corrected) g read 0.93 at r = 1.5 and 0.67 at 7.5 (x periodic: 0.81).
    const rand = new Random(21);
    const n = 4000, box: [number, number, number] = [24, 20, 16];
    const gas = Array.from({ length: n }, () => [rand.uniform(0, box[0]), rand.uniform(0, box[1]), rand.uniform(0, box[2])]);
    for (const periodic of [[false, false, false], [true, false, false]] as [boolean, boolean, boolean][]) {
      const res = analyseSpheres(spheres(gas, 0.01), box, { periodic, rdfMaxDistance: 8, rdfBins: 8, rdfReferences: n, poreGridVoxels: 4096, heightMapCells: 16 });
      expect(res.metrics).not.toHaveProperty('bulkPorosity'); // a gas: the window is the box
      const rdf = res.series.find((s) => s.name === 'radial distribution function')!;
      rdf.y.forEach((g, b) => expect(Math.abs(g - 1), `periodic ${periodic}: g(${rdf.x[b]}) = ${g}`).toBeLessThan(b === 0 ? 0.06 : 0.02));
    }
  });

  it('weights a pair by the inverse of the part of its sphere inside the box (two spheres worked by hand)', () => {
    // A on the side x = 0, B 2 from it, both 5 from every other side of the closed box 10³. Half of
    // A's sphere of radius 2 lies in the box: weight 2; B's just touches x = 0: weight 1. So the bin
    // [2, 3) holds 3 over ρ n_ref V = (2 / 1000) · 2 · (4/3)π(3³ − 2³).
    const res = analyseSpheres(spheres([[0, 5, 5], [2, 5, 5]], 0.1), [10, 10, 10], { periodic: [false, false, false], rdfMaxDistance: 4, rdfBins: 4, poreGridVoxels: 4096, heightMapCells: 16 });
    const rdf = res.series.find((s) => s.name === 'radial distribution function')!;
    expect(Array.from(rdf.y)).toEqual([0, 0, expect.closeTo(3 / ((2 / 1000) * 2 * (4 / 3) * Math.PI * 19), 12), 0]);
  });

  it('counts only the solid inside the box along sides that are not periodic (spheres the box cuts)', () => {
    // Simple cubic, centres on the integers 0..k in x and y, so the box [0, k]² cuts the spheres on
    // its sides in exact halves (quarters on its edges): it holds k² spheres a layer, π/6 of its volume.
    const a = 1, k = 4;
    const pts: number[][] = [];
    for (let i = 0; i <= k; i++) for (let j = 0; j <= k; j++) for (let l = 0; l < 4; l++) pts.push([i * a, j * a, (l + 0.5) * a]);
    const box: [number, number, number] = [k * a, k * a, 6];
    const res = analyseSpheres(spheres(pts, a / 2), box, { periodic: [false, false, false], floorLayer: a, bulkTop: 3 * a, sliceThickness: a / 4, poreGridVoxels: 4096, heightMapCells: 16 });
    expect(res.metrics.bulkPorosity).toBeCloseTo(1 - Math.PI / 6, 12);
    const profile = res.series.find((s) => s.name === 'porosity profile')!;
    let mean = 0;
    for (let s = 4; s < 12; s++) mean += profile.y[s] / 8;
    expect(mean).toBeCloseTo(1 - Math.PI / 6, 12);
    // Shifted by (0.3, 0.15): the sides cut caps of other heights. Against a midpoint sum of the chords
    // of every sphere in [1, 3) over a fine x-y grid of the box.
    const shifted = pts.filter((p) => p[0] < k).map((p) => [p[0] + 0.3, p[1] + 0.15, p[2]]).filter((p) => p[1] < k);
    const cut = analyseSpheres(spheres(shifted, a / 2), box, { periodic: [false, false, false], floorLayer: a, bulkTop: 3 * a, poreGridVoxels: 4096, heightMapCells: 16 });
    const m = 400; // grid cells per unit length
    let solid = 0;
    for (const p of shifted) {
      const g0 = Math.max(0, Math.floor((p[0] - 0.5) * m)), g1 = Math.min(k * m, Math.ceil((p[0] + 0.5) * m));
      const h0 = Math.max(0, Math.floor((p[1] - 0.5) * m)), h1 = Math.min(k * m, Math.ceil((p[1] + 0.5) * m));
      for (let gx = g0; gx < g1; gx++) for (let gy = h0; gy < h1; gy++) {
        const h2 = 0.25 - ((gx + 0.5) / m - p[0]) ** 2 - ((gy + 0.5) / m - p[1]) ** 2;
        if (h2 > 0) solid += Math.max(0, Math.min(3, p[2] + Math.sqrt(h2)) - Math.max(1, p[2] - Math.sqrt(h2))) / (m * m);
      }
    }
    expect(Number(cut.metrics.bulkPorosity)).toBeCloseTo(1 - solid / (k * k * 2), 4);
  });

  it('finds the largest pore of a simple cubic lattice: the cube-centre hole', () => {
    // Touching spheres of diameter a on a cubic lattice: the largest void sphere sits at the cube
    // centre with diameter (√3 - 1) a ≈ 0.732 a; the bulk is set explicitly because the straight
    // channels of this lattice reach the floor (its height map's valleys are at z = 0).
    const a = 1, k = 4;
    const pts = lattice(k, a, [[0.5, 0.5, 0.5]]);
    const res = analyseSpheres(spheres(pts, a / 2), [k * a, k * a, 10], { floorLayer: a, bulkTop: 3 * a });
    const g = Number(res.metrics.poreGridSpacing);
    expect(g).toBeCloseTo(a / 20, 12); // twenty cells per diameter
    expect(Math.abs(Number(res.metrics.poreDiameterMax) - (Math.sqrt(3) - 1) * a)).toBeLessThan(2 * g);
    expect(Number(res.metrics.poreDiameterMean)).toBeLessThan(Number(res.metrics.poreDiameterMax));
    const psd = res.series.find((s) => s.name === 'pore-size distribution')!;
    expect(psd.y.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
    // Bulk porosity over whole lattice periods [a, 3a) is the lattice's.
    expect(res.metrics.bulkPorosity).toBeCloseTo(1 - Math.PI / 6, 12);
    expect([res.metrics.bulkFrom, res.metrics.bulkTo]).toEqual([a, 3 * a]);
  });

  it('reports no bulk region for a single layer (floor layer above the valley)', () => {
    const res = analyseSpheres(spheres([[1, 1, 0.5], [3, 3, 0.5]], 0.5), [4, 4, 4]);
    expect(res.metrics.bedPorosity).toBeDefined();
    for (const k of ['bulkPorosity', 'bulkFrom', 'bulkTo']) expect(res.metrics).not.toHaveProperty(k);
  });

  it("counts in the bed only the solid above the floor: spheres centred on z = 0 (a 2D set's disks) give a porosity in [0, 1]", () => {
    // The bed is the volume under the height map from z = 0; a sphere centred on the floor has its upper half there.
    const res = analyseSpheres(spheres([[2, 2, 0], [6, 6, 0]], 1), [8, 8, 1]);
    const p = Number(res.metrics.bedPorosity);
    // Under each cap the heights hold exactly the hemisphere (the height map's cells aside): about 0, not 1 - 2 = -1.
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(0.05);
  });

  it('finds the same close pairs as brute force on random spheres', () => {
    const rand = new Random(11);
    const box: [number, number, number] = [5, 4, 3];
    for (const periodic of [[true, true, false], [false, false, false], [true, true, true]] as [boolean, boolean, boolean][]) {
      const n = 150;
      const x = Float64Array.from({ length: n }, () => rand.uniform(0, box[0]));
      const y = Float64Array.from({ length: n }, () => rand.uniform(0, box[1]));
      const z = Float64Array.from({ length: n }, () => rand.uniform(0, box[2]));
      const reach = 0.9;
      const expected = new Set<string>();
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        const d = [x[j] - x[i], y[j] - y[i], z[j] - z[i]].map((v, a) => (periodic[a] ? v - box[a] * Math.round(v / box[a]) : v));
        if (Math.hypot(...d) < reach) expected.add(`${i}-${j}`);
      }
      const got = new Set<string>();
      forEachClosePair(x, y, z, box, periodic, reach, (i, j) => got.add(`${i}-${j}`));
      expect(got).toEqual(expected);
      // A finer grid than the reach (several cells each way), as the RDF queries it.
      const fine = new SphereGrid(x, y, z, box, periodic, reach / 3.5);
      const viaFine = new Set<string>();
      for (let i = 0; i < n; i++) fine.forEachNear(i, reach, (j) => { if (j > i) viaFine.add(`${i}-${j}`); });
      expect(viaFine).toEqual(expected);
    }
  });

  it('keeps the cell grid near the sphere count for a few spheres in a huge box, with the same pairs', () => {
    const rand = new Random(5);
    const box: [number, number, number] = [1000, 1000, 1000];
    const n = 40;
    // Clusters, so that some pairs are close: without the cap this asks for 1024^3 cells (8 GiB).
    const x = Float64Array.from({ length: n }, (_, i) => (i % 4) * 300 + rand.uniform(0, 2));
    const y = Float64Array.from({ length: n }, () => rand.uniform(0, 2));
    const z = Float64Array.from({ length: n }, (_, i) => (i < 20 ? rand.uniform(0, 3) : rand.uniform(0, 1000)));
    const grid = new SphereGrid(x, y, z, box, [true, true, false], 1);
    const nc = (grid as unknown as { nc: number[] }).nc;
    expect(nc[0] * nc[1] * nc[2]).toBeLessThanOrEqual(4096);
    const expected = new Set<string>(), got = new Set<string>();
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
      const d = [x[j] - x[i], y[j] - y[i], z[j] - z[i]].map((v, a) => (a < 2 ? v - box[a] * Math.round(v / box[a]) : v));
      if (Math.hypot(...d) < 1.5) expected.add(`${i}-${j}`);
    }
    for (let i = 0; i < n; i++) grid.forEachNear(i, 1.5, (j) => { if (j > i) got.add(`${i}-${j}`); });
    expect(expected.size).toBeGreaterThan(3);
    expect(got).toEqual(expected);
  });

  it('reports sizes by number and volume and rejects bad input', () => {
    const res = analyseSpheres(spheres([[1, 1, 1], [3, 3, 1], [5, 5, 1]], [1, 1, 2]), [8, 8, 8], { sizeBins: 2 });
    const byNumber = res.series.find((s) => s.name === 'size distribution by number')!;
    const byVolume = res.series.find((s) => s.name === 'size distribution by volume')!;
    expect(Array.from(byNumber.y)).toEqual([2 / 3, 1 / 3]);
    expect(byVolume.y[1]).toBeCloseTo(8 / 10, 12);
    // 20 % of the volume at diameter 2, all of it at 4: 50 % lies (50 - 20) / 80 of the way (sieve analysis).
    expect(res.metrics.d50).toBeCloseTo(2.75, 12);
    expect(() => analyseSpheres(spheres([[0, 0, 0]], 1), [0, 1, 1])).toThrow(/box\[0\] must be a positive length/);
    expect(() => analyseSpheres({ kind: 'table', name: 't', columns: { x: new Float64Array(1) } }, [1, 1, 1])).toThrow(/lacks column 'y'/);
    expect(() => analyseSpheres(spheres([[0, 0, 0]], 1), [1, 1, 1], { rdfBins: 0 })).toThrow(/rdfBins/);
  });
});
