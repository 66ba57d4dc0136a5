import { describe, expect, it } from 'vitest';
import { Packer, finalise, voxelParamsSchema } from '../../../core/voxel/index';

/** Finalisation without a label volume (large boxes) works in the packing matrix, in proportion to the particles. */
describe('voxel finalisation', () => {
  it.each([
    ['a few particles in a large box: each particle\'s cube is cleared', 8, true],
    ['a full small box: the whole matrix is cleared', 0, true],
    ['a full small box in rows', 0, false],
  ])('%s, and the result is the one with labels', (_, particles, bricks) => {
    const params = voxelParamsSchema.parse({
      box: particles > 0 ? { size: [12, 12, 12], resolution: 16 } : { size: [3, 3, 3], resolution: 16 },
      stop: { particles, settle: false },
      analysis: { enabled: false },
      optimisations: { bricks },
    });
    const packer = new Packer(params, 4);
    while (packer.step()) { /* pack */ }
    const withLabels = finalise(packer, true);
    // The labels' finalisation leaves the matrix alone; this one clears the shells and writes the solids.
    const inMatrix = finalise(packer, false);
    expect(inMatrix.writtenVoxels).toBe(withLabels.writtenVoxels);
    expect(inMatrix.overlapVoxels).toBe(withLabels.overlapVoxels);
    expect(inMatrix.bedHeight).toBe(withLabels.bedHeight);
    expect(Array.from(inMatrix.solidPerPlane)).toEqual(Array.from(withLabels.solidPerPlane));
    expect(inMatrix.table.columns.voxels).toEqual(withLabels.table.columns.voxels);
    expect(inMatrix.columnHeights).toEqual(withLabels.columnHeights);
    expect(inMatrix.clippedVoxels).toBe(withLabels.clippedVoxels);
    // No shell voxel is left over: the matrix holds exactly the solid voxels.
    expect(packer.matrix.countOccupied()).toBe(inMatrix.solidVoxels);
    // The bed statistics, recounted from the labels.
    const [nx, ny, nz] = withLabels.labels!.dims, labels = withLabels.labels!.labels;
    let heights = 0;
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      let top = -1;
      for (let z = 0; z < nz; z++) if (labels[x + nx * (y + ny * z)] !== 0) top = z;
      heights += top + 1;
    }
    expect(withLabels.bedHeight).toBeCloseTo(heights / (nx * ny), 12);
    expect(withLabels.solidPerPlane.reduce((a, b) => a + b, 0)).toBe(labels.reduce((n, l) => n + (l !== 0 ? 1 : 0), 0));
  });
});
