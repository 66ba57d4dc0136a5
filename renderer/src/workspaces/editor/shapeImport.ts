/**
 * Imported shapes: a closed triangle mesh (STL, OBJ) voxelised in the renderer with core/io's
 * winding-number voxeliser, or a raw voxel volume with its JSON header (any non-zero sample is
 * solid). Either becomes a voxel-engine shape of kind 'voxels' (dims, bits as base64), which the
 * shape library stores like any other shape.
 */
import { assertWatertight, meshTriangleLimit, parseObj, parseStl, type TriangleMesh } from '../../../../core/io/mesh';
import { bounds, voxeliseMesh, MAX_SHAPE_VOXELS_PER_AXIS } from '../../../../core/io/voxelise';
import { parseRawHeader, rawToSolidBits } from '../../../../core/io/raw';

export interface ImportedShape {
  name: string;
  shape: { kind: 'voxels'; dims: [number, number, number]; bits: string };
  solidVoxels: number;
}

export function bitsToBase64(bits: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bits.length; i += 0x8000) s += String.fromCharCode(...bits.subarray(i, i + 0x8000));
  return btoa(s);
}

function countBits(bits: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) {
    let b = bits[i];
    while (b) {
      b &= b - 1;
      n++;
    }
  }
  return n;
}

const baseName = (file: string): string => file.replace(/\.[^.]+$/, '');

/** Voxelises a mesh file with `voxelsAcross` voxels along its longest side. */
export function importMesh(fileName: string, bytes: Uint8Array, voxelsAcross: number): ImportedShape {
  if (!Number.isInteger(voxelsAcross) || voxelsAcross < 2 || voxelsAcross > MAX_SHAPE_VOXELS_PER_AXIS) {
    throw new RangeError(`voxels across must be an integer in [2, ${MAX_SHAPE_VOXELS_PER_AXIS}], got ${voxelsAcross}`);
  }
  const lower = fileName.toLowerCase();
  let mesh: TriangleMesh;
  // The services' limit: an OBJ of long faces fans into more triangles than the page can hold.
  if (lower.endsWith('.stl')) mesh = parseStl(bytes, meshTriangleLimit(bytes));
  else if (lower.endsWith('.obj')) mesh = parseObj(new TextDecoder().decode(bytes), meshTriangleLimit(bytes));
  else throw new Error(`${fileName}: import reads .stl and .obj meshes, or a .raw volume with its .json header`);
  if (mesh.triangles === 0) throw new Error(`${fileName}: the mesh has no triangles`);
  assertWatertight(mesh, fileName);
  const { min, max } = bounds(mesh);
  const longest = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  if (!(longest > 0)) throw new Error(`${fileName}: the mesh has no extent`);
  const v = voxeliseMesh(mesh, voxelsAcross / longest);
  if (v.voxelCount === 0) throw new Error(`${fileName}: no voxel centre is inside the mesh at ${voxelsAcross} voxels across; raise it`);
  return { name: baseName(fileName), shape: { kind: 'voxels', dims: v.dims, bits: bitsToBase64(v.bits) }, solidVoxels: v.voxelCount };
}

/** A raw volume and its JSON header (as `packbench` exports them, or written by hand). */
export function importRaw(fileName: string, data: Uint8Array, headerJson: string): ImportedShape {
  const h = parseRawHeader(headerJson, data.length);
  h.dims.forEach((n, a) => {
    if (n > MAX_SHAPE_VOXELS_PER_AXIS) throw new RangeError(`${fileName}: ${n} voxels along ${'xyz'[a]}, a shape has at most ${MAX_SHAPE_VOXELS_PER_AXIS}`);
  });
  const bits = rawToSolidBits(data, h);
  const solid = countBits(bits);
  if (solid === 0) throw new Error(`${fileName}: every sample is 0, there is no solid voxel`);
  return { name: baseName(fileName), shape: { kind: 'voxels', dims: h.dims, bits: bitsToBase64(bits) }, solidVoxels: solid };
}

/** Reads the chosen files: one mesh, or a .raw with its .json header. */
export async function importFiles(files: File[], voxelsAcross: number): Promise<ImportedShape> {
  const raw = files.find((f) => f.name.toLowerCase().endsWith('.raw'));
  if (raw) {
    const header = files.find((f) => f.name.toLowerCase().endsWith('.json'));
    if (!header) throw new Error(`${raw.name}: choose its .json header too (select both files)`);
    return importRaw(raw.name, new Uint8Array(await raw.arrayBuffer()), await header.text());
  }
  if (files.length !== 1) throw new Error('choose one mesh file (.stl, .obj), or a .raw volume with its .json header');
  return importMesh(files[0].name, new Uint8Array(await files[0].arrayBuffer()), voxelsAcross);
}
