import { describe, expect, it } from 'vitest';
import { voxelEngine, voxelParamsSchema } from '../../../core/voxel/index';
import { packsWithWholeShell } from '../../../core/voxel/params';
import type { ColumnTable, EngineResult, LabelVolume } from '../../../core/common/engine';
import { rebuildLabels } from './rebuild';

/**
 * Particles with flat faces (paper coating platelets and rods) turning freely: the reduced shell's
 * flat faces are chess boards whose parity (x + y) no move changes, so two particles lying flat
 * with opposite parities passed through each other (params.ts packsWithWholeShell). So did shapes
 * flat only as voxelised: boxy superellipsoids, thin ellipsoids, imported voxel cubes.
 */
describe('voxel particles with flat faces', () => {
  it('free thin hexagonal plates do not sink into each other (the independent rebuild of their full solids)', () => {
    // 26-voxel plates, 4 voxels thick, turned at random and free to turn about every axis. With the
    // reduced shell, as packed: 44 pairs deeper than one voxel (deepest 9.6), 0.45 % of the voxels
    // claimed twice.
    const p = voxelParamsSchema.parse({
      box: { size: [3, 3, 2], resolution: 32 },
      mixture: { types: [{ shape: { kind: 'hexagonalPlate', thickness: 0.15 }, size: { law: 'fixed', value: 0.8 } }] },
      stop: { particles: 120 }, finalSettling: false, analysis: { enabled: false }, labelVolume: 'on',
    });
    const r = voxelEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    expect(r.metrics.stopReason).toBe('full');
    expect(r.metrics.particles as number).toBeGreaterThan(60);
    const rebuilt = rebuildLabels(p, (r.artifacts[0] as ColumnTable).columns, (r.artifacts[1] as LabelVolume).dims);
    expect(rebuilt.overlap / rebuilt.written).toBeLessThan(0.0005);
    expect(r.metrics.interpenetrationVoxels as number).toBeLessThan(2);
    expect(r.metrics.deepPairs as number).toBeLessThanOrEqual(1);
  });

  // Shapes flat only as voxelised: the share of their shell in flat faces decides (params.ts
  // FLAT_FACE_SHARE). With the reduced shell, as packed: a boxy superellipsoid plate 10 pairs deeper
  // than one voxel, 0.14 % of the voxels claimed twice; an imported cube of 11 voxels 34, 3.0 %.
  const packed = (shape: Record<string, unknown>, size: number) => {
    const p = voxelParamsSchema.parse({
      box: { size: [3, 3, 2], resolution: 32 },
      mixture: { types: [{ shape, size: { law: 'fixed', value: size } }] },
      stop: { particles: 120 }, finalSettling: false, analysis: { enabled: false }, labelVolume: 'on',
    });
    const r = voxelEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    const rebuilt = rebuildLabels(p, (r.artifacts[0] as ColumnTable).columns, (r.artifacts[1] as LabelVolume).dims);
    return { particles: r.metrics.particles as number, overlap: rebuilt.overlap / rebuilt.written, deepPairs: r.metrics.deepPairs as number };
  };

  it('free boxy superellipsoid plates do not sink into each other either', () => {
    const r = packed({ kind: 'superellipsoid', b: 1, c: 0.15, e1: 0.3, e2: 0.3 }, 0.8);
    expect(r.particles).toBeGreaterThan(25);
    expect(r.overlap).toBeLessThan(0.0005);
    expect(r.deepPairs).toBeLessThanOrEqual(1);
  });

  it('nor do imported voxel cubes', () => {
    const cube = { kind: 'voxels', dims: [8, 8, 8], bits: Array.from({ length: 64 }, () => 255) };
    const r = packed(cube, 0.35);
    expect(r.particles).toBe(120);
    expect(r.overlap).toBeLessThan(0.001);
    expect(r.deepPairs).toBeLessThanOrEqual(2);
  });

  it('cuboids and cylinders by construction; other shapes by the share of their shell in flat faces', () => {
    const o = voxelParamsSchema.parse({}).optimisations;
    const type = (shape: Record<string, unknown>) => voxelParamsSchema.parse({ mixture: { types: [{ shape }] } }).mixture.types[0];
    const whole = (shape: Record<string, unknown>) => packsWithWholeShell(type(shape), o, 20);
    for (const kind of ['cuboid', 'cylinder', 'hexagonalPlate']) expect(whole({ kind })).toBe(true);
    // Shares at 20 voxels: sphere 0.16, round superellipsoid (ε 0.8) 0.29; thin ellipsoid 0.39,
    // the default superellipsoid (ε 0.5) 0.47, a boxy one (ε 0.3) about 0.7, an imported cube about 0.9.
    for (const shape of [{ kind: 'sphere' }, { kind: 'ellipsoid', c: 0.6 }, { kind: 'superellipsoid', e1: 0.8, e2: 0.8 }]) expect(whole(shape)).toBe(false);
    for (const shape of [{ kind: 'ellipsoid', c: 0.3 }, { kind: 'superellipsoid' }, { kind: 'superellipsoid', e1: 0.3, e2: 0.3 }, { kind: 'voxels', dims: [2, 2, 2], bits: [255] }]) expect(whole(shape)).toBe(true);
  });
});
