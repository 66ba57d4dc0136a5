/**
 * The checks of a shape preview (shapes.preview) on the thread that serves the app: an implicit
 * shape's sampled box and memory are bounded by the cube of its size, without the surface's bounds
 * (solidBounds: seconds for a blobby object of 256 blobs), which the voxeliser finds in its worker.
 */
import { describe, expect, it, vi } from 'vitest';

const counted = vi.hoisted(() => ({ bounds: 0 }));
vi.mock('../../core/surface/solid', async (actual) => {
  const solid = await actual<typeof import('../../core/surface/solid')>();
  return { ...solid, solidBounds: (...a: Parameters<typeof solid.solidBounds>) => (counted.bounds++, solid.solidBounds(...a)) };
});
const { checkPreview, previewBytes } = await import('../../main/services/shapes');

describe('shape preview checks', () => {
  it("check an implicit shape's preview without measuring its surface, its memory bounded by the cube of its size", () => {
    const blobs = [{ from: [0, 0, 0], to: [2, 0, 0], radius: 0.5 }, { from: [0, 0, 0], to: [0, 1, 0], radius: 0.5 }];
    const shape = checkPreview({ kind: 'implicit', surface: { kind: 'blobby', threshold: 0.5, blobs } }, 1, 40);
    const bytes = previewBytes(shape, 1, 40);
    expect(counted.bounds).toBe(0);
    expect(bytes).toBe(previewBytes({ kind: 'cuboid', b: 1, c: 1 } as never, 1, 40));
  });
});
