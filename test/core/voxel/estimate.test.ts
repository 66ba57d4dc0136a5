/**
 * The memory estimate voxelises the smallest particle to count its voxels (1-2 ms): it is asked for
 * every point of a sweep (10,000 points took the host's thread 12-20 s), whose points mostly share
 * their shapes, so a shape is voxelised once per size.
 */
import { describe, expect, it, vi } from 'vitest';

const counted = vi.hoisted(() => ({ voxelised: 0 }));
vi.mock('../../../core/voxel/shapes', async (actual) => {
  const shapes = await actual<typeof import('../../../core/voxel/shapes')>();
  return { ...shapes, voxeliseShapeVoxels: (...a: Parameters<typeof shapes.voxeliseShapeVoxels>) => (counted.voxelised++, shapes.voxeliseShapeVoxels(...a)) };
});
const { estimateMemoryBytes, voxelParamsSchema } = await import('../../../core/voxel/params');

describe('the voxel memory estimate of a sweep', () => {
  it("voxelises a shape once for the points that share it, again for another shape or size", () => {
    const spec = (rebound: number, shape: object = { kind: 'ellipsoid', b: 0.71, c: 0.53 }, size = 1) =>
      voxelParamsSchema.parse({ box: { size: [4, 4, 4], resolution: 8 }, reboundProbability: rebound, mixture: { types: [{ shape, size: { law: 'fixed', value: size } }] } });
    counted.voxelised = 0;
    const estimates = [0.1, 0.2, 0.3, 0.4].map((r) => estimateMemoryBytes(spec(r)));
    expect(counted.voxelised).toBe(1);
    expect(new Set(estimates).size).toBe(1);
    estimateMemoryBytes(spec(0.1, { kind: 'ellipsoid', b: 0.7, c: 0.53 }));
    estimateMemoryBytes(spec(0.1, undefined, 1.5));
    expect(counted.voxelised).toBe(3);
  });
});
