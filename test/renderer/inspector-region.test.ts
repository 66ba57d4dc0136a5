import { describe, it, expect } from 'vitest';
import { SLICES_IN_FLIGHT, fetchRegion, regionOf, slicePosition, volumeInfo } from '../../renderer/src/workspaces/inspector/regionBlock';
import { Random } from '../../core/common/random';

describe('voxel region', () => {
  it('maps a world box to voxel ranges, clamped to the volume and cut in z to the budget', () => {
    const v = { dims: [10, 8, 6] as [number, number, number], voxelSize: 0.5, origin: [0, 0, 0] as [number, number, number] };
    expect(regionOf({ min: [-1, 1, 0], max: [2.2, 9, 3] }, v, 1e9)).toEqual({ region: { x: [0, 5], y: [2, 8], z: [0, 6] }, limited: false });
    const { region, limited } = regionOf({ min: [0, 0, 0], max: [5, 4, 3] }, v, 160);
    expect(limited).toBe(true);
    expect(region.z).toEqual([0, 2]); // 80 voxels a plane, 160 voxels: 2 planes
  });

  it("places a volume whose meta has an offset (a surface sampling's solid) there: regions, blocks and slice planes", async () => {
    const v = volumeInfo({ dims: [10, 8, 6], voxelSize: 0.5, offset: [-2.5, -2, 1] })!;
    expect(v.origin).toEqual([-2.5, -2, 1]);
    expect(volumeInfo({ dims: [1, 1, 1], voxelSize: 2 })).toEqual({ dims: [1, 1, 1], voxelSize: 2, origin: [0, 0, 0] });
    // The box of the surface (the frame's box moved to the offset) is the whole volume.
    expect(regionOf({ min: [-2.5, -2, 1], max: [2.5, 2, 4] }, v, 1e9).region).toEqual({ x: [0, 10], y: [0, 8], z: [0, 6] });
    expect(regionOf({ min: [0, 0, 2], max: [1, 1, 3] }, v, 1e9).region).toEqual({ x: [5, 7], y: [4, 6], z: [2, 4] });
    const block = (await fetchRegion(async () => ({ width: 10, height: 8, labels: new Uint32Array(80) }), { x: [5, 7], y: [4, 6], z: [2, 4] }, v))!;
    expect(block.origin).toEqual([0, 0, 2]);
    expect(slicePosition(v, 'z', 0)).toBe(1.25);
    expect(slicePosition(v, 'x', 5)).toBe(0.25);
  });

  it('assembles z slices into a block equal to the volume cropped by brute force', async () => {
    const [nx, ny, nz] = [7, 5, 4];
    const rnd = new Random(11);
    const volume = Uint32Array.from({ length: nx * ny * nz }, () => rnd.int(4));
    const fetchSlice = async (z: number) => ({ width: nx, height: ny, labels: volume.slice(z * nx * ny, (z + 1) * nx * ny) });
    const region = { x: [2, 6] as [number, number], y: [1, 4] as [number, number], z: [1, 3] as [number, number] };
    const block = (await fetchRegion(fetchSlice, region, { dims: [nx, ny, nz], voxelSize: 0.25, origin: [0, 0, 0] }))!;
    expect(block.dims).toEqual([4, 3, 2]);
    expect(block.origin).toEqual([0.5, 0.25, 0.25]);
    for (let z = 0; z < 2; z++) for (let y = 0; y < 3; y++) for (let x = 0; x < 4; x++) {
      expect(block.labels[x + 4 * (y + 3 * z)]).toBe(volume[(x + 2) + nx * ((y + 1) + ny * (z + 1))]);
    }
  });

  it('stops asking for slices when cancelled', async () => {
    let n = 0;
    const r = await fetchRegion(async () => { n++; return { width: 1, height: 1, labels: Uint32Array.of(1) }; }, { x: [0, 1], y: [0, 1], z: [0, 20] }, { dims: [1, 1, 20], voxelSize: 1, origin: [0, 0, 0] }, () => n >= 2);
    expect(r).toBeNull();
    // the requests already in flight when the first answer came, none after
    expect(n).toBe(SLICES_IN_FLIGHT);
  });

  it('fails with the slice error and asks for no more slices after it', async () => {
    let n = 0;
    const fetchSlice = async (z: number) => {
      n++;
      if (z === 1) throw new Error('slice 1 is unreadable');
      await new Promise((r) => setTimeout(r, 5));
      return { width: 1, height: 1, labels: Uint32Array.of(1) };
    };
    await expect(fetchRegion(fetchSlice, { x: [0, 1], y: [0, 1], z: [0, 40] }, { dims: [1, 1, 40], voxelSize: 1, origin: [0, 0, 0] })).rejects.toThrow('slice 1 is unreadable');
    await new Promise((r) => setTimeout(r, 30));
    expect(n).toBeLessThanOrEqual(2 * SLICES_IN_FLIGHT);
  });
});
