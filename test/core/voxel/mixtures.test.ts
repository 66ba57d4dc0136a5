import { describe, expect, it } from 'vitest';
import { voxelEngine, voxelParamsSchema } from '../../../core/voxel/index';
import type { ColumnTable, EngineResult, LabelVolume } from '../../../core/common/engine';
import { rebuildLabels } from './rebuild';

/** Mixtures of very different sizes (pharmacy: a few large particles among many small ones). */
describe('voxel mixtures of very different sizes', () => {
  it('a first particle as wide as the box (the JavaScript loops move it) followed by small ones in the kernels', () => {
    // 62-voxel spheres in a 64² box: extent 32, 2·32 + 1 ≥ 64, so no self mask and no kernels; the
    // 10-voxel spheres have both. The large type is drawn first (a tie of the shares goes to the
    // first type), then they alternate. The shapes' board rows were pushed per kernel shape but
    // read per shape: the small spheres read row 1 of a board holding one, and their first
    // insertion wrote through a trial buffer address read from the matrix (wasm: memory access
    // out of bounds).
    const p = voxelParamsSchema.parse({
      box: { size: [2, 2, 6], resolution: 32 },
      mixture: {
        basis: 'number',
        types: [
          { name: 'large', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1.9375 }, fraction: 0.5 },
          { name: 'small', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 0.3125 }, fraction: 0.5 },
        ],
      },
      stop: { particles: 4, settle: false }, finalSettling: false, analysis: { enabled: false }, labelVolume: 'on',
    });
    const r = voxelEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    const table = r.artifacts[0] as ColumnTable, labels = r.artifacts[1] as LabelVolume;
    expect(r.metrics.particles).toBe(4);
    expect(Array.from(table.columns.type as ArrayLike<number>)).toEqual([0, 1, 0, 1]);
    expect(r.metrics.kernel).toBe('simd');
    expect(r.metrics.kernelParticles).toBe(2);
    // The tests' own rebuild of the table (full solid voxels) finds what the engine found.
    const rebuilt = rebuildLabels(p, table.columns, labels.dims);
    expect(rebuilt.overlap / rebuilt.written).toBeLessThan(0.001);
    expect(Math.abs(rebuilt.overlap / rebuilt.written - (r.metrics.overlapFraction as number))).toBeLessThan(1e-4);
  });
});
