/**
 * Babylon side of voxel drawing: a surface mesh built by voxelSurface.ts (inspector regions) and
 * thin-instanced unit cubes for a shape's voxel list (editor preview, where every voxel of a
 * shell with holes must stay visible as its own cube).
 */
import type { Scene } from '@babylonjs/core/scene';
import { Mesh } from '@babylonjs/core/Meshes/mesh';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData';
import '@babylonjs/core/Meshes/thinInstanceMesh';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import type { SurfaceMesh } from './voxelSurface';

/** Uploads a surface mesh (per-vertex colours, updatable for highlighting). The caller disposes it. */
export function createSurfaceMesh(scene: Scene, s: SurfaceMesh, name = 'voxels'): Mesh {
  const mesh = new Mesh(name, scene);
  const vd = new VertexData();
  vd.positions = s.positions;
  vd.normals = s.normals;
  vd.colors = s.colors;
  vd.indices = s.indices;
  vd.applyToMesh(mesh, true);
  const mat = new StandardMaterial(`${name}-mat`, scene);
  mat.diffuseColor = new Color3(1, 1, 1);
  mat.specularColor = new Color3(0.08, 0.08, 0.08);
  mat.backFaceCulling = false;
  mesh.material = mat;
  mesh.isPickable = false;
  mesh.onDisposeObservable.add(() => mat.dispose());
  return mesh;
}

export interface VoxelCubes {
  /** Shows one cube per voxel: offsets interleaved x,y,z (voxel units), drawn at `voxelSize`. */
  set(offsets: ArrayLike<number>, voxelSize: number, colour: [number, number, number]): void;
  dispose(): void;
}

export function createVoxelCubes(scene: Scene): VoxelCubes {
  const mesh = CreateBox('voxel', { size: 0.92 }, scene); // a small gap shows the voxel grid
  const mat = new StandardMaterial('voxel-mat', scene);
  mat.specularColor = new Color3(0.1, 0.1, 0.1);
  mesh.material = mat;
  mesh.isPickable = false;
  mesh.alwaysSelectAsActiveMesh = true;
  mesh.setEnabled(false);
  let matrices = new Float32Array(0);
  return {
    set(offsets, voxelSize, colour) {
      const n = Math.floor(offsets.length / 3);
      if (matrices.length !== n * 16) matrices = new Float32Array(n * 16);
      for (let i = 0; i < n; i++) {
        const o = i * 16;
        matrices.fill(0, o, o + 16);
        matrices[o] = matrices[o + 5] = matrices[o + 10] = voxelSize;
        matrices[o + 12] = offsets[i * 3] * voxelSize;
        matrices[o + 13] = offsets[i * 3 + 1] * voxelSize;
        matrices[o + 14] = offsets[i * 3 + 2] * voxelSize;
        matrices[o + 15] = 1;
      }
      mat.diffuseColor = new Color3(...colour);
      mesh.thinInstanceSetBuffer('matrix', matrices, 16, true);
      mesh.setEnabled(n > 0);
    },
    dispose() {
      mesh.dispose();
      mat.dispose();
    },
  };
}

/** Draws the faces of one label white (0: none), from the mesh's original colours. */
export function highlightLabel(mesh: Mesh, s: SurfaceMesh, label: number): void {
  const c = label > 0 ? s.colors.slice() : s.colors;
  if (label > 0) for (let q = 0; q < s.quads; q++) if (s.quadLabels[q] === label) c.fill(1, q * 16, q * 16 + 16);
  mesh.updateVerticesData('color', c);
}
