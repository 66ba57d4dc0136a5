import { describe, expect, it } from 'vitest';
import { voxelEngine, voxelParamsSchema } from '../../../core/voxel/index';
import { packsWithWholeShell } from '../../../core/voxel/params';
import type { ColumnTable, EngineResult, LabelVolume } from '../../../core/common/engine';
import { rebuildLabels } from './rebuild';

/**
 * Particles with flat faces (paper coating platelets and rods) turning freely: the reduced shell's
 * flat faces are chess boards whose parity (x + y) no move changes, so two particles lying flat
 * with opposite parities passed through each other (params.ts packsWithWholeShell).
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

  it('cuboids and cylinders too; spheres, ellipsoids and superellipsoids keep the reduced shell', () => {
    const o = voxelParamsSchema.parse({}).optimisations;
    const type = (shape: Record<string, unknown>) => voxelParamsSchema.parse({ mixture: { types: [{ shape }] } }).mixture.types[0];
    for (const kind of ['cuboid', 'cylinder', 'hexagonalPlate']) expect(packsWithWholeShell(type({ kind }), o)).toBe(true);
    for (const kind of ['sphere', 'ellipsoid', 'superellipsoid']) expect(packsWithWholeShell(type({ kind }), o)).toBe(false);
  });
});
