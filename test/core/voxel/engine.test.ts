import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { voxelEngine, pack, finalise, voxelParamsSchema, checkParams, VOXEL_METRICS, type VoxelParams } from '../../../core/voxel/index';
import type { ColumnTable, EngineContext, EngineProgress, EngineResult, LabelVolume } from '../../../core/common/engine';
import { analyseVoxelPacking } from '../../../core/analysis/index';
import { rotation } from './rotation-reference';
import { rebuildLabels } from './rebuild';

const ctx = (seed = 1, cancelAfter = Infinity): EngineContext => {
  let calls = 0;
  return { seed, threads: 1, progress() {}, cancelled: () => ++calls > cancelAfter, log() {} };
};

const mixture = (): VoxelParams =>
  voxelParamsSchema.parse({
    box: { size: [3, 3, 4], resolution: 20 },
    mixture: {
      basis: 'volume',
      types: [
        { name: 'spheres', shape: { kind: 'sphere' }, size: { law: 'uniform', min: 0.6, max: 1 }, fraction: 1 },
        { name: 'plates', shape: { kind: 'hexagonalPlate', thickness: 0.4 }, size: { law: 'fixed', value: 1 }, fraction: 1, maxRotation: [20, 20, 180] },
      ],
    },
    stop: { particles: 30 },
  });

/** The voxel engine runs synchronously. */
const run = (p: VoxelParams, c: EngineContext) => voxelEngine.run(p, c) as EngineResult;

describe('voxel engine', () => {
  // The same packing moved by the JavaScript loops (simdKernels off) and by the SIMD kernels.
  it.each([
    ['JavaScript loops', false],
    ['SIMD kernels', true],
  ] as const)('independent check (%s): the particle table rebuilt with full solid voxels matches the labels, the overlap report and the packing matrix', (_, kernels) => {
    const base = mixture();
    const params = { ...base, optimisations: { ...base.optimisations, simdKernels: kernels } };
    const { packer } = pack(params, ctx(5));
    expect(packer.count).toBe(30);
    expect(packer.kernelParticles > 0).toBe(kernels);
    const { nx, ny, nz } = packer;
    const res = params.box.resolution;

    // 1. The packing matrix holds exactly the forward-rotated packing shells of all particles, and
    //    no two particles share a voxel there.
    const owner = new Map<number, number>();
    let shared = 0, roundingTies = 0;
    for (let i = 0; i < packer.count; i++) {
      const M = rotation(packer.ax[i], packer.ay[i], packer.az[i]);
      const c = packer.packCoordsOf(i);
      const mine = new Set<number>();
      for (let k = 0; k < c.length; k += 3) {
        const p = [0, 1, 2].map((r) => M[3 * r] * c[k] + M[3 * r + 1] * c[k + 1] + M[3 * r + 2] * c[k + 2]);
        // A coordinate at .5 may round either way in the two implementations (within 1e-4 of .5
        // in the kernels' single precision): leave it out.
        if (p.some((v) => Math.abs(Math.abs(v - Math.floor(v)) - 0.5) < 1e-4)) {
          roundingTies++;
          continue;
        }
        const x = (((packer.px[i] + Math.round(p[0])) % nx) + nx) % nx, y = (((packer.py[i] + Math.round(p[1])) % ny) + ny) % ny;
        const z = packer.pz[i] + Math.round(p[2]);
        expect(z).toBeGreaterThanOrEqual(0);
        mine.add(x + nx * (y + ny * z));
      }
      for (const key of mine) {
        if (owner.has(key)) shared++;
        owner.set(key, i);
      }
    }
    expect(shared).toBeLessThanOrEqual(roundingTies);
    // Every shell voxel is set in the matrix, and every set voxel is some particle's shell voxel.
    let agree = 0, stray = 0;
    for (const key of owner.keys()) {
      const x = key % nx, y = Math.floor(key / nx) % ny, z = Math.floor(key / (nx * ny));
      if (packer.matrix.test(x, y, z)) agree++;
    }
    for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      if (packer.matrix.test(x, y, z) && !owner.has(x + nx * (y + ny * z))) stray++;
    }
    expect(agree).toBeGreaterThanOrEqual(owner.size - roundingTies);
    expect(stray).toBeLessThanOrEqual(roundingTies);
    expect(Math.abs(packer.matrix.countOccupied() - owner.size)).toBeLessThanOrEqual(roundingTies);

    // 2. Exact finalisation, rebuilt here from the table: inverse rotation of every box position.
    const f = finalise(packer, true);
    const t = f.table.columns;
    const { labels, written, overlap, counts, rotations, shapes } = rebuildLabels(params, t, [nx, ny, nz]);
    for (let r = 0; r < t.id.length; r++) {
      const M = rotations[r], shape = shapes[r];
      // voxels: the voxels the particle holds (none below the floor, none held by an earlier particle).
      expect(Math.abs(counts[r] - t.voxels[r])).toBeLessThanOrEqual(2);
      // The table's centre is the reference voxel's centre plus the rotated shape centre.
      const cz = M[6] * shape.centre[0] + M[7] * shape.centre[1] + M[8] * shape.centre[2];
      expect(t.z[r]).toBeCloseTo((t.iz[r] + 0.5 + cz) / res, 9);
    }
    let mismatched = 0;
    const engineLabels = f.labels!.labels;
    for (let k = 0; k < labels.length; k++) if (labels[k] !== engineLabels[k]) mismatched++;
    expect(mismatched).toBeLessThanOrEqual(written * 1e-4 + 2);
    expect(Math.abs(written - f.writtenVoxels)).toBeLessThanOrEqual(written * 1e-4 + 2);
    expect(Math.abs(overlap - f.overlapVoxels)).toBeLessThanOrEqual(written * 1e-4 + 2);
    // The seed's quality bar for this resolution: a small overlap.
    expect(f.overlapVoxels / f.writtenVoxels).toBeLessThan(0.01);
  });

  it('is deterministic by seed, and the seed matters', () => {
    const params = mixture();
    const a = run(params, ctx(9));
    const b = run(params, ctx(9));
    const c = run(params, ctx(10));
    const la = (a.artifacts[1] as LabelVolume).labels, lb = (b.artifacts[1] as LabelVolume).labels, lc = (c.artifacts[1] as LabelVolume).labels;
    expect(Buffer.from(la.buffer).equals(Buffer.from(lb.buffer))).toBe(true);
    expect(Buffer.from(la.buffer).equals(Buffer.from(lc.buffer))).toBe(false);
    expect(a.metrics.voxelChecks).toBe(b.metrics.voxelChecks);
  });

  it('the switches and the id matrix keep the packing valid (all off = the seed case A)', () => {
    const base = mixture();
    const off = { trigTables: false, fastRounding: false, savedRotations: false, risingRoof: false, cheapModulus: false, shellReduction: false, simdKernels: false, bricks: false };
    for (const variant of [{ ...base, optimisations: off }, { ...base, matrix: 'id' as const }]) {
      const r = run({ ...variant, stop: { ...variant.stop, particles: 15 } }, ctx(3));
      expect(r.metrics.particles).toBe(15);
      expect(r.metrics.overlapFraction).toBeLessThan(0.01);
    }
    // Trig tables and rounding do not change the packing, only its speed. Both in the JavaScript
    // loops: the SIMD kernels (which need both switches) rotate in single precision, which may round
    // a coordinate within 1e-4 of a half otherwise (README, SIMD kernels). The voxel checks may
    // differ by a few: fast rounding takes a coordinate within 2^-32 of a half (2.4999999999999996,
    // at 270° whose cosine is -1.8e-16) to the upper integer, Math.round to the lower, so a
    // colliding move may meet its first occupied voxel a few voxels apart (61 of 18.7 million here),
    // or, rarely, the tie decides a move: seed 3 diverges since the plates pack their whole shell
    // (params.ts packsWithWholeShell), whose voxels meet such a coordinate more often.
    const js = { ...base, stop: { ...base.stop, particles: 15 }, optimisations: { ...base.optimisations, simdKernels: false } };
    const fast = run(js, ctx(4));
    const slow = run({ ...js, optimisations: { ...js.optimisations, trigTables: false, fastRounding: false } }, ctx(4));
    const packing = (r: EngineResult) => ['x', 'y', 'z', 'rx', 'ry', 'rz'].map((c) => Array.from((r.artifacts[0] as ColumnTable).columns[c]));
    expect(packing(slow)).toEqual(packing(fast));
    expect(slow.metrics.acceptedMoves).toBe(fast.metrics.acceptedMoves);
  });

  it('a cancel after the packing stops the settling pass at its next look and skips the finalisation and analysis', () => {
    // Settling, finalisation and analysis took seconds each (736 ellipsoids: 1.8 s, 0.6 s, 2.5 s)
    // and a cancel waited for all of them.
    let looksOfPacking = 0;
    pack(mixture(), { ...ctx(5), cancelled: () => (looksOfPacking++, false) });
    for (const after of [0, 2]) {
      const phases: string[] = [];
      const r = run(mixture(), { ...ctx(5, looksOfPacking + after), progress: (q) => { phases.push(q.phase ?? ''); } });
      expect(r.cancelled).toBe(true);
      expect(r.metrics.stopReason).toBe('cancelled');
      expect(r.metrics.particles).toBe(30);
      expect(r.metrics.settlingRounds).toBeUndefined();
      expect(r.artifacts).toEqual([]);
      expect(phases).not.toContain('finalising');
      // after = 2: the pass began (its first look let it report) and stopped at its next look (its
      // rounds would set settlingRounds).
      expect(phases.some((p) => p.startsWith('settling'))).toBe(after === 2);
    }
  });

  it('the passes after the packing report their own progress: each part from 0, rising, below its total until it ends', () => {
    // They reported 1000 of 1000 ('100 %, time left unknown') for what at 512³ takes minutes.
    for (const finalSettling of [true, false]) {
      const seen: EngineProgress[] = [];
      run({ ...mixture(), finalSettling }, { ...ctx(5), progress: (q) => { if (q.phase !== 'packing' && !q.phase?.startsWith('analysis')) seen.push(q); } });
      const phases = [...new Set(seen.map((q) => q.phase))].map((p) => p?.replace(/, \d+ (deep pairs|particles)$/, ''));
      // As many rounds as the packing needs, numbered from 1.
      const rounds = phases.filter((p) => /^settling: round \d+ of up to 50$/.test(p ?? '')).length;
      expect(rounds > 0).toBe(finalSettling);
      expect(phases).toEqual(finalSettling
        ? ['settling: measuring overlaps', ...Array.from({ length: rounds }, (_, r) => `settling: round ${r + 1} of up to 50`), 'settling: sinking, round 1 of up to 50', 'finalising']
        : ['measuring interpenetration', 'finalising']);
      // Each part (each settling round too) has its own scale.
      seen.forEach((q, k) => {
        expect(q.done, q.phase).toBeGreaterThanOrEqual(0);
        expect(q.done, q.phase).toBeLessThan(q.total);
        const before = seen[k - 1];
        if (before !== undefined && before.phase === q.phase) {
          expect(q.total).toBe(before.total);
          expect(q.done, q.phase).toBeGreaterThanOrEqual(before.done);
        } else expect(q.done, `${q.phase} starts from 0`).toBe(0);
      });
    }
  });

  it('a cancel during the analysis stops it part-way and ends the run cancelled', () => {
    // The analysis of a 512³ box takes seconds (minutes with a large poreGridVoxels) and a cancel
    // was not seen inside it: the run waited for every pass.
    let looks = 0, looksBeforeAnalysis = -1;
    run(mixture(), { ...ctx(5), cancelled: () => (looks++, false), progress: (q) => { if (looksBeforeAnalysis < 0 && q.phase?.startsWith('analysis')) looksBeforeAnalysis = looks; } });
    expect(looksBeforeAnalysis).toBeGreaterThan(0);
    const phases: string[] = [];
    const r = run(mixture(), { ...ctx(5, looksBeforeAnalysis), progress: (q) => { phases.push(q.phase ?? ''); } });
    expect(r.cancelled).toBe(true);
    expect(r.metrics.stopReason).toBe('cancelled');
    expect(phases).toContain('analysis: porosity');
    // Stopped in its first pass: the later passes never began.
    expect(phases).not.toContain('analysis: orientation');
    expect(phases).not.toContain('analysis: contacts');
    expect(r.metrics.analysisSeconds).toBeUndefined();
    expect(r.metrics.bedPorosity).toBeUndefined();
    expect(r.artifacts).toEqual([]);
  });

  it('reports results, series and artifacts, and honours cancel within a time step', () => {
    const r = run(mixture(), ctx(2));
    expect(r.artifacts.map((a) => a.name)).toEqual(['particles', 'labels', 'heightmap']);
    expect(r.series.map((s) => s.name).slice(0, 2)).toEqual(['particles', 'solid fraction']);
    expect(r.metrics.stopReason).toBe('particles');
    expect(r.metrics.bedSolidFraction).toBeGreaterThan(0.2);
    const cancelled = run(mixture(), ctx(2, 30));
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.metrics.stopReason).toBe('cancelled');
    expect(cancelled.metrics.steps).toBeLessThanOrEqual(30);
    expect(cancelled.metrics.analysisSeconds).toBeUndefined();
    // Nor the exact finalisation (its artifacts are dropped; 1.2 s after the cancel at 923 spheres).
    expect(cancelled.artifacts).toEqual([]);
    expect(cancelled.metrics.finaliseSeconds).toBeUndefined();
    expect(cancelled.metrics.particles as number).toBeGreaterThan(0);
  });

  it('filling until full, progress is the frozen bed\'s share of the box height, not the roof\'s (which follows the highest frozen top)', () => {
    const params = voxelParamsSchema.parse({ box: { size: [6, 6, 2], resolution: 10 }, mixture: { types: [{ shape: { kind: 'sphere' }, size: { law: 'fixed', value: 0.5 } }] }, optimisations: { shellReduction: false } });
    const seen: { done: number; bed: number }[] = [];
    run(params, { ...ctx(3), progress: (p) => { if (p.phase === 'packing' && p.counters?.bedHeight !== undefined) seen.push({ done: p.done / p.total, bed: p.counters.bedHeight / 2 }); } });
    expect(seen.length).toBeGreaterThan(10);
    for (const s of seen) expect(s.done).toBeCloseTo(Math.min(1, s.bed), 2);
    expect(seen.some((s) => s.done > 0.3 && s.done < 0.9)).toBe(true);
  });

  it('analyses the finished packing (core/analysis): metrics, series after the engine\'s, per-particle columns, height map', () => {
    const phases = new Set<string>();
    const r = run(mixture(), { ...ctx(2), progress: (p) => phases.add(p.phase ?? '') });
    expect([...phases]).toEqual(expect.arrayContaining(['packing', 'finalising', 'analysis: porosity', 'analysis: orientation', 'analysis: contacts']));
    for (const m of ['bedPorosity', 'rmsRoughness', 'meanHeight', 'coordinationMean', 'contacts', 'principalAxisOrder', 'bodyAxisOrder', 'poreDiameterMean', 'analysisSeconds']) {
      expect(r.metrics[m], m).toEqual(expect.any(Number));
    }
    // One reference volume per name: the engine's solid fractions and the analysis' porosities of
    // the bed and the bulk add up to 1; the box (with the empty space above the bed) is looser.
    const table = r.artifacts[0] as ColumnTable;
    const labels = r.artifacts[1] as LabelVolume;
    const alone = analyseVoxelPacking(labels, table, {});
    expect(r.metrics.bedPorosity).toBe(alone.metrics.bedPorosity);
    expect(Number(r.metrics.bedPorosity) + Number(r.metrics.bedSolidFraction)).toBeCloseTo(1, 12);
    expect(r.metrics.meanHeight).toBe(alone.metrics.meanHeight);
    expect(r.metrics.boxSolidFraction).toBeLessThan(Number(r.metrics.bedSolidFraction));
    // Counted here: solid voxels over the voxels under each column's top.
    let solid = 0, under = 0;
    const [nx, ny, nz] = labels.dims;
    for (let c = 0; c < nx * ny; c++) {
      let top = 0;
      for (let z = 0; z < nz; z++) if (labels.labels[c + nx * ny * z]) { solid++; top = z + 1; }
      under += top;
    }
    expect(r.metrics.bedSolidFraction).toBeCloseTo(solid / under, 12);
    // A bed deep enough for a bulk: its porosity and solid fraction over the same slices.
    const deep = run(voxelParamsSchema.parse({
      box: { size: [4, 4, 5], resolution: 8 },
      mixture: { types: [{ name: 'spheres', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 }, fraction: 1 }] },
      stop: { particles: 70 },
    }), ctx(4));
    expect(deep.metrics.bulkPorosity).toEqual(expect.any(Number));
    expect(Number(deep.metrics.bulkPorosity) + Number(deep.metrics.bulkSolidFraction)).toBeCloseTo(1, 12);
    expect(Number(deep.metrics.bulkTo)).toBeGreaterThan(Number(deep.metrics.bulkFrom));
    const names = r.series.map((s) => s.name);
    expect(names.slice(0, 2)).toEqual(['particles', 'solid fraction']);
    expect(names).toEqual(expect.arrayContaining(['porosity profile', 'tilt of principal axis', 'tilt of body axis', 'coordination number', 'pore-size distribution']));
    const n = table.columns.id.length;
    // One name for one quantity, and every metric declared for the tooltips.
    expect(r.metrics.particles).toBe(n);
    expect(r.metrics).not.toHaveProperty('particleCount');
    expect(Object.keys(r.metrics).filter((m) => !(m in VOXEL_METRICS))).toEqual([]);
    for (const c of ['coordination', 'principalTilt', 'equivalentDiameter', 'bodyTilt']) expect(table.columns[c]?.length, c).toBe(n);
    const height = r.artifacts[2] as LabelVolume;
    expect(height.kind).toBe('volume');
    expect(height.dims).toEqual([labels.dims[0], labels.dims[1], 1]);
    expect(Math.max(...height.labels)).toBeLessThanOrEqual(labels.dims[2]);

    // Every metric says what it measures (the engine's declaration is what the app shows).
    for (const metrics of [r.metrics, deep.metrics]) {
      const undeclared = Object.keys(metrics).filter((m) => !voxelEngine.metrics?.[m]);
      expect(undeclared).toEqual([]);
    }

    // Options reach the analysis; without labels only the table part runs; off means off.
    const bins = run({ ...mixture(), analysis: { ...mixture().analysis, angleBins: 9 } }, ctx(2));
    expect(bins.series.find((s) => s.name === 'tilt of principal axis')!.x.length).toBe(9);
    const noLabels = run({ ...mixture(), labelVolume: 'off' }, ctx(2));
    expect(noLabels.artifacts.map((a) => a.name)).toEqual(['particles']);
    expect(noLabels.metrics.bodyAxisOrder).toEqual(expect.any(Number));
    expect(noLabels.metrics.bedPorosity).toBeUndefined();
    expect(noLabels.metrics.bedSolidFraction).toEqual(expect.any(Number));
    expect(noLabels.series.map((s) => s.name)).toContain('tilt of body axis');
    expect(Object.keys(noLabels.metrics).filter((m) => !voxelEngine.metrics?.[m])).toEqual([]);
    const off = run({ ...mixture(), analysis: { ...mixture().analysis, enabled: false } }, ctx(2));
    expect(off.series.map((s) => s.name)).toEqual(['particles', 'solid fraction']);
    expect(off.metrics.bedPorosity).toBeUndefined();
    expect(voxelParamsSchema.safeParse({ analysis: { angleBins: 1 } }).error?.issues[0].path).toEqual(['analysis', 'angleBins']);
  });

  it('an open top lets particles stick out while packing and keeps those centred inside the box', () => {
    const params = voxelParamsSchema.parse({ box: { size: [3, 3, 2], resolution: 12, top: 'open' } });
    const r = run(params, ctx(4));
    expect(r.metrics.stopReason).toBe('full');
    expect(r.metrics.matrixHeight).toBeGreaterThan(24);
    const t = (r.artifacts[0] as { columns: Record<string, Float64Array> }).columns;
    expect(t.z.length).toBeGreaterThan(5);
    for (const z of t.z) expect(z).toBeLessThanOrEqual(2);
    // Hexagonal plates (an even voxel count, centred off the reference voxel): a reference voxel
    // below the top kept centres up to 0.02 above it (seeds 1 and 3 before plates packed their whole
    // shell; seeds 1 and 5 since, which rest within 0.01 of the top).
    for (const seed of [1, 5]) {
      const plates = voxelParamsSchema.parse({
        box: { size: [3, 3, 1.5], resolution: 10, top: 'open' },
        mixture: { basis: 'number', types: [{ name: 'plates', shape: { kind: 'hexagonalPlate' }, size: { law: 'fixed', value: 1 }, fraction: 1 }] },
        stop: { particles: 60 },
      });
      const rp = run(plates, ctx(seed));
      const z = (rp.artifacts[0] as { columns: Record<string, Float64Array> }).columns.z;
      expect(Math.max(...z)).toBeGreaterThan(1.4);
      expect(Math.max(...z)).toBeLessThanOrEqual(1.5);
      expect(rp.metrics.particles).toBe(z.length);
    }
  });

  it('the parameter schema renders as JSON Schema with units and ranges for the forms', () => {
    const json = z.toJSONSchema(voxelParamsSchema, { io: 'input' }) as { properties: Record<string, Record<string, unknown>> };
    expect(json.properties.reboundProbability).toMatchObject({ minimum: 0, maximum: 1, default: 0.25, unit: 'probability' });
    expect(json.properties.freezingInterval).toMatchObject({ unit: 'steps', minimum: 1 });
  });

  it('bad configurations give errors naming the field and the range', () => {
    const bad = voxelParamsSchema.safeParse({ reboundProbability: 2 });
    expect(bad.error?.issues[0].path).toEqual(['reboundProbability']);
    expect(bad.error?.issues[0].message).toMatch(/1/);
    // Weights summing past the largest double drew only the last size (1e308 twice: Infinity).
    expect(voxelParamsSchema.safeParse({ mixture: { types: [{ size: { law: 'table', sizes: [1, 1.2], weights: [1e308, 1e308] } }] } }).error?.issues.map((i) => i.path.join('.'))).toEqual(['mixture.types.0.size.weights.0', 'mixture.types.0.size.weights.1']);
    const res = voxelParamsSchema.safeParse({ box: { resolution: -1 } });
    expect(res.error?.issues[0].path).toEqual(['box', 'resolution']);
    const big = voxelParamsSchema.parse({ box: { size: [2, 2, 2], resolution: 10 }, mixture: { types: [{ size: { law: 'fixed', value: 3 } }] } });
    expect(checkParams(big)).toEqual([expect.objectContaining({ path: 'mixture.types.0.size', message: expect.stringMatching(/at most 18/) })]);
    // A box under three voxels is named at box.size, not as a particle the box 'allows at most -1' voxels.
    const thin = voxelParamsSchema.parse({ box: { size: [10, 10, 0.05], resolution: 20 } });
    expect(checkParams(thin)).toEqual([{ path: 'box.size', message: 'the box is 1 voxel across at its narrowest (box.size × box.resolution); it must be at least 3' }]);
    // Particles of a few voxels pack through each other (300 spheres of 2, 3, 4 voxels: 36, 15, 23 %
    // of their voxels claimed twice with the reduced shell; 6.2, 4.1, 3.8 % with the whole one):
    // refused for every law at the field that gives it, below 8 voxels with the reduced shell and
    // 5 with the whole one (a size below one voxel, packed as one voxel, is among them).
    const tiny = (size: unknown, shellReduction = true) => checkParams(voxelParamsSchema.parse({ box: { size: [3, 3, 3], resolution: 10 }, mixture: { types: [{ size }] }, optimisations: { shellReduction } }));
    const reduced = 'particles under 8 voxels across pack through each other with the reduced shell (optimisations.shellReduction; without it from 5 voxels); allowed ≥ 0.8, or a higher box.resolution';
    expect(tiny({ law: 'fixed', value: 0.05 })).toEqual([{ path: 'mixture.types.0.size.value', message: `0.05 units is 0.5 voxels at 10 voxels/unit; ${reduced}` }]);
    expect(tiny({ law: 'uniform', min: 0.25, max: 1.2 })).toEqual([{ path: 'mixture.types.0.size.min', message: `0.25 units is 2.5 voxels at 10 voxels/unit; ${reduced}` }]);
    expect(tiny({ law: 'table', sizes: [0.01, 0.7, 1.2], weights: [0, 1, 1] })).toEqual([{ path: 'mixture.types.0.size.sizes.1', message: `0.7 units is 7 voxels at 10 voxels/unit; ${reduced}` }]);
    expect(tiny({ law: 'normal', mean: 0.75, sd: 0.01 })).toEqual([{ path: 'mixture.types.0.size.mean', message: `0.75 units is 7.5 voxels at 10 voxels/unit; ${reduced}` }]);
    expect(tiny({ law: 'lognormal', median: 0.05 })).toEqual([{ path: 'mixture.types.0.size.median', message: `0.05 units is 0.5 voxels at 10 voxels/unit; ${reduced}` }]);
    expect(tiny({ law: 'uniform', min: 0.8, max: 1.2 })).toEqual([]);
    expect(tiny({ law: 'fixed', value: 0.4 }, false)).toEqual([{ path: 'mixture.types.0.size.value', message: '0.4 units is 4 voxels at 10 voxels/unit; particles under 5 voxels across pack through each other; allowed ≥ 0.5, or a higher box.resolution' }]);
    expect(tiny({ law: 'fixed', value: 0.5 }, false)).toEqual([]);
    // A type held 'aligned' with an axis that never turns packs with its whole shell whatever
    // shellReduction says (the packer's rule), so the whole shell's limit is its limit: 6-voxel
    // spheres held at [0, 0, 0] were refused for the reduced shell's 8, and pack with no voxel
    // claimed twice (the tests' rebuild).
    const held = (value: number) => voxelParamsSchema.parse({
      box: { size: [3, 3, 3], resolution: 10 },
      mixture: { types: [{ size: { law: 'fixed', value }, orientation: 'aligned', maxRotation: [0, 0, 0] }] },
      finalSettling: false, analysis: { enabled: false }, stop: { particles: 60 },
    });
    expect(checkParams(held(0.6))).toEqual([]);
    expect(checkParams(held(0.4))).toEqual([{ path: 'mixture.types.0.size.value', message: '0.4 units is 4 voxels at 10 voxels/unit; particles under 5 voxels across pack through each other; allowed ≥ 0.5, or a higher box.resolution' }]);
    const small = run(held(0.6), ctx(1));
    expect(small.metrics.particles).toBe(60);
    expect(rebuildLabels(held(0.6), (small.artifacts[0] as ColumnTable).columns, (small.artifacts[1] as LabelVolume).dims).overlap).toBe(0);
    // A side that is not a whole number of voxels was packed rounded to the nearest voxel (2.04 at
    // 20 voxels/unit: a box 2.05 high), its solid fractions those of that box.
    const side = (size: number[], resolution = 20) => checkParams(voxelParamsSchema.parse({ box: { size, resolution }, mixture: { types: [{ size: { law: 'fixed', value: 0.5 } }] } }));
    expect(side([3, 3, 2.04])).toEqual([{ path: 'box.size.2', message: '2.04 units is 40.8 voxels at box.resolution 20 voxels/unit; each side must be a whole number of voxels (the packing matrix has no part voxels): the nearest allowed are 2 and 2.05, or a resolution that makes it whole' }]);
    expect(side([3.01, 3, 2.02]).map((i) => i.path)).toEqual(['box.size.0', 'box.size.2']);
    expect(side([0.01, 3, 3])[0].message).toMatch(/0\.2 voxels at box\.resolution 20 voxels\/unit; .* the nearest allowed is 0\.05,/);
    // Whole up to floating-point error (4.1 × 30 = 122.99999999999999), and any resolution that makes it whole.
    expect(side([4.1, 4.1, 4.1], 30)).toEqual([]);
    expect(side([3, 3, 2.04], 25)).toEqual([]);
    const labels = voxelParamsSchema.parse({ box: { size: [10, 10, 10], resolution: 70 }, labelVolume: 'on' });
    expect(checkParams(labels)).toEqual([expect.objectContaining({ path: 'labelVolume' })]);
    expect(() => voxelEngine.run(big, ctx())).toThrow(/mixture\.types\.0\.size/);
    expect(voxelEngine.estimateMemoryBytes(voxelParamsSchema.parse({ box: { size: [10, 10, 10], resolution: 40 } }))).toBeGreaterThan(4 * 400 ** 3);
    // The analysis' pore grid counts: the whole 500^3 bed (under 2^27 cells) costs about 2 GiB.
    const withPores = voxelEngine.estimateMemoryBytes(voxelParamsSchema.parse({ box: { size: [10, 10, 10], resolution: 50 }, analysis: { poreGridVoxels: 2 ** 27 } }));
    const without = voxelEngine.estimateMemoryBytes(voxelParamsSchema.parse({ box: { size: [10, 10, 10], resolution: 50 }, analysis: { enabled: false } }));
    expect(withPores - without).toBeGreaterThan(16 * 500 ** 3);
  });

  it('under an open top the box height bounds where a particle rests, not its span', () => {
    // Spheres of 1.1 in an open box 0.6 high were refused ('spans 11 voxels, the box allows at
    // most 4'), although the open top has room above the box and keeps particles centred in it.
    const open = (height: number, size: number, type: Record<string, unknown> = {}) => voxelParamsSchema.parse({
      box: { size: [3.5, 3.5, height], resolution: 10, top: 'open' },
      mixture: { types: [{ size: { law: 'fixed', value: size }, ...type }] },
      insertionTries: 20, stop: { particles: 12, settle: false }, finalSettling: false, analysis: { enabled: false },
    });
    expect(checkParams(open(0.6, 1.1))).toEqual([]);
    const r = run(open(0.6, 1.1), ctx(1));
    const t = (r.artifacts[0] as { columns: Record<string, Float64Array> }).columns;
    expect(t.z.length).toBeGreaterThan(0);
    for (const z of t.z) expect(z).toBeLessThanOrEqual(0.6);
    // A sphere resting on the floor has its centre half its diameter up: above the box none is kept.
    expect(checkParams(open(0.4, 1))).toEqual([{
      path: 'mixture.types.0.size',
      message: "the largest particle (10 voxels) rests on the floor with its centre at least 5 voxels up, above the box height (4 voxels); box.top 'open' keeps only particles centred at or below it, so none of these could be kept: allowed sizes up to 0.8 units here, or a taller box",
    }]);
    expect(checkParams(open(0.5, 1))).toEqual([]);
    // Rods held upright rest higher than check() can tell from the shape: the empty result is said.
    const logs: string[] = [];
    const rods = run(open(0.8, 1, { shape: { kind: 'cylinder', length: 3 }, orientation: 'aligned', maxRotation: [0, 0, 0] }), { ...ctx(1), log: (m) => { logs.push(m); } });
    expect(rods.metrics.particles).toBe(0);
    expect(logs).toContainEqual(expect.stringMatching(/^box.top 'open' keeps only particles centred at or below the box height, and none of the \d+ packed is: the result is empty/));
  });

  it('a type of fraction 0 takes no part: not refused for its size, and the packing is the one without it', () => {
    // A user who set a type's fraction to 0 to leave it out was refused for its size ('the largest
    // particle spans 50 voxels', 'under 8 voxels'), and its size still raised an open top's matrix.
    const spec = (others: unknown[]) => voxelParamsSchema.parse({
      box: { size: [3, 3, 2], resolution: 10, top: 'open' },
      mixture: { types: [{ size: { law: 'fixed', value: 1 } }, ...others] },
      stop: { particles: 6, settle: false },
      analysis: { enabled: false },
    });
    const alone = spec([]), withZero = spec([{ fraction: 0, size: { law: 'fixed', value: 5 } }, { fraction: 0, size: { law: 'fixed', value: 0.2 } }]);
    expect(checkParams(withZero)).toEqual([]);
    expect(voxelEngine.estimateMemoryBytes(withZero)).toBe(voxelEngine.estimateMemoryBytes(alone));
    const a = run(alone, ctx(2)), b = run(withZero, ctx(2));
    expect(b.metrics.matrixHeight).toBe(a.metrics.matrixHeight);
    const columns = (r: EngineResult) => (r.artifacts[0] as { columns: Record<string, Float64Array> }).columns;
    expect(Array.from(columns(b).z)).toEqual(Array.from(columns(a).z));
    expect(b.metrics.particles).toBe(6);
  });

  it('a box under a ceiling that is accepted gets its particles: the height each rotation needs is checked', () => {
    // A 10-voxel sphere spans 10 voxels, but the packer inserts it only where every rotation of it
    // fits between floor and ceiling (2 e + 1 = 15 voxels): in a box 12 high the run ended 'full'
    // with no particle.
    const box = (height: number) => voxelParamsSchema.parse({
      box: { size: [1.2, 1.2, height], resolution: 10 },
      mixture: { types: [{ size: { law: 'fixed', value: 1 } }] },
      insertionTries: 20,
      analysis: { enabled: false },
    });
    expect(checkParams(box(1.2))).toEqual([expect.objectContaining({ path: 'mixture.types.0.size', message: expect.stringMatching(/15 voxels of height, the box has 12/) })]);
    expect(checkParams(box(1.4))).toHaveLength(1);
    // A ceiling too low for any size of the shape says so, not 'allowed sizes up to 0 units'.
    const low = voxelParamsSchema.parse({ box: { size: [3, 3, 0.4], resolution: 10 }, mixture: { types: [{ size: { law: 'fixed', value: 0.1 } }] }, optimisations: { shellReduction: false } });
    expect(checkParams(low)[0]).toEqual({
      path: 'mixture.types.0.size',
      message: "the largest particle (1 voxels) is inserted only where each of its rotations lies between the floor and the ceiling: 5 voxels of height, the box has 4; no size of this shape fits under a ceiling this low (one voxel across needs 5): a box at least 0.5 units high, or box.top 'open'",
    });
    expect(checkParams(box(1.5))).toEqual([]);
    expect(run(box(1.5), ctx()).metrics.particles).toBe(1);
    // An open top has the room above the box: accepted and packed.
    const open = voxelParamsSchema.parse({ ...box(1.2), box: { size: [1.2, 1.2, 1.2], resolution: 10, top: 'open' } });
    expect(checkParams(open)).toEqual([]);
    expect(run(open, ctx()).metrics.particles).toBe(1);
  });

  it('the examples parse, and the sphere example runs (scaled down)', () => {
    for (const name of ['voxel-spheres', 'voxel-plates']) {
      const spec = JSON.parse(readFileSync(new URL(`../../../resources/examples/${name}.json`, import.meta.url), 'utf8'));
      expect(spec.engine).toBe('voxel');
      const params = voxelParamsSchema.parse(spec.params);
      expect(checkParams(params)).toEqual([]);
      if (name === 'voxel-spheres') {
        const r = run({ ...params, box: { ...params.box, size: [4, 4, 3] } }, ctx(spec.seed));
        expect(r.metrics.particles).toBeGreaterThan(20);
        expect(r.metrics.stopReason).toBe('full');
      }
    }
  });

  it('a run that ends before what was asked says so in its log: full before a stop target, or cut short by stop.maxSteps', () => {
    const spheres = (stop: Record<string, number>) => voxelParamsSchema.parse({
      box: { size: [3.2, 3.2, 3.2], resolution: 10 },
      mixture: { types: [{ shape: { kind: 'sphere' }, size: { law: 'fixed', value: 0.8 } }] },
      stop, finalSettling: false, analysis: { enabled: false },
    });
    const logs = (stop: Record<string, number>) => {
      const lines: string[] = [];
      const r = run(spheres(stop), { ...ctx(), log: (m) => { lines.push(m); } });
      return { stopReason: r.metrics.stopReason, lines };
    };
    // Spheres fill no 0.9 of a box: it ended 'done', stopReason 'full', and nothing in the log.
    expect(logs({ solidFraction: 0.9 })).toEqual({
      stopReason: 'full',
      lines: [expect.stringMatching(/^ended full before the stop target: solid fraction 0\.\d{4} of the 0\.9 asked \(stop\.solidFraction/)],
    });
    expect(logs({ particles: 1000, maxSteps: 30 })).toEqual({
      stopReason: 'maxSteps',
      lines: [expect.stringMatching(/^ended at stop\.maxSteps \(30 time steps\) before the stop target: \d+ particles of the 1000 asked \(stop\.particles\); raise stop\.maxSteps$/)],
    });
    expect(logs({ maxSteps: 30 }).lines).toEqual([expect.stringMatching(/^ended at stop\.maxSteps \(30 time steps\) before the box was full: \d+ particles; raise stop\.maxSteps$/)]);
    // The target met, stop.maxSteps cut the settling short: three spheres still moving (in mid-air).
    expect(logs({ particles: 3, maxSteps: 200 })).toEqual({
      stopReason: 'particles',
      lines: ['stop.maxSteps (200 time steps) ended the settling after the last insertion with 3 particle(s) still moving, not frozen where they came to rest; raise stop.maxSteps'],
    });
    // Ended as asked: nothing to say.
    expect(logs({ particles: 3 })).toEqual({ stopReason: 'particles', lines: [] });
    expect(logs({}).lines).toEqual([]);
  });
});
