/**
 * Builds voxel surface meshes off the main thread: a 3-million-voxel region has up to a few million
 * faces, whose meshing would freeze the 3D view and the UI. The block's labels come in transferred,
 * the mesh's arrays go back transferred.
 */
import { buildVoxelSurface, type VoxelBlock } from './voxelSurface';
import { labelColourer } from './surfaceColours';

export interface MeshRequest {
  seq: number;
  block: VoxelBlock;
  colours: Float32Array | null;
}

const ctx = self as unknown as { onmessage: ((e: MessageEvent<MeshRequest>) => void) | null; postMessage(m: unknown, transfer: Transferable[]): void };

ctx.onmessage = (e) => {
  const { seq, block, colours } = e.data;
  try {
    const mesh = buildVoxelSurface(block, labelColourer(colours));
    ctx.postMessage({ seq, mesh }, [mesh.positions.buffer, mesh.normals.buffer, mesh.colors.buffer, mesh.indices.buffer, mesh.quadLabels.buffer]);
  } catch (err) {
    ctx.postMessage({ seq, error: err instanceof Error ? err.message : String(err) }, []);
  }
};
