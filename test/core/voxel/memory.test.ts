import { describe, expect, it } from 'vitest';
import { voxelEngine, voxelParamsSchema } from '../../../core/voxel/index';
import { estimateMemoryBytes, particleBound } from '../../../core/voxel/params';
import { bitMatrixBytes } from '../../../core/voxel/bit-matrix';
import { WORKER_BYTES, type EngineResult } from '../../../core/common/engine';
import { arrayBufferPeak } from '../common/array-buffer-peak';

describe('the voxel memory estimate (bench/voxel-memory.ts measures it on larger runs)', () => {
  // Each run's own allocation (ArrayBuffers and SharedArrayBuffers, seen at every progress report)
  // against the estimate without its fixed term for the worker thread.
  it.each([
    ['8-voxel spheres, labels and analysis', { box: { size: [4, 4, 4], resolution: 8 } }],
    ['8-voxel spheres, id matrix', { box: { size: [4, 4, 4], resolution: 8 }, matrix: 'id' }],
    ['plates, open top, no labels', { box: { size: [3, 3, 3], resolution: 12, top: 'open' }, labelVolume: 'off', mixture: { types: [{ shape: { kind: 'hexagonalPlate', thickness: 0.4 } }] } }],
  ])('%s: the run allocates less than the estimate says, and holds no more particles than its bound', (_, spec) => {
    const p = voxelParamsSchema.parse(spec);
    const { sample, peak } = arrayBufferPeak();
    const result = voxelEngine.run(p, { seed: 1, threads: 1, progress: sample, cancelled: () => false, log: sample }) as EngineResult;
    sample();
    expect(peak()).toBeGreaterThan(0);
    expect(estimateMemoryBytes(p) - WORKER_BYTES).toBeGreaterThan(peak());
    expect(result.metrics.particles).toBeLessThanOrEqual(particleBound(p));
  });

  it('a large box with few particles is estimated by its matrix, not by particles that cannot be there', () => {
    // 1024² × 1280 voxels, 50 spheres of 20 voxels: the bit matrix is 160 MiB and a run of it takes
    // 250 MiB (bench/voxel-memory.ts); the estimate was 1.9 GiB, and a 1 GiB budget refused it.
    const p = voxelParamsSchema.parse({ box: { size: [51.2, 51.2, 64], resolution: 20 }, stop: { particles: 50 } });
    const matrix = bitMatrixBytes(1024, 1024, 1280, 'bricks');
    expect(estimateMemoryBytes(p)).toBeGreaterThan(WORKER_BYTES + matrix);
    expect(estimateMemoryBytes(p)).toBeLessThan(2 * (WORKER_BYTES + matrix));
    // Filled until full, the count is bounded by the box over the smallest particle's voxels
    // (4,224 for a 20-voxel sphere), not a tenth of a sphere's volume.
    const full = voxelParamsSchema.parse({ box: { size: [51.2, 51.2, 64], resolution: 20 }, labelVolume: 'off' });
    expect(particleBound(full)).toBeLessThan((1.2 * 1024 * 1024 * 1280) / 4224);
  });
});
