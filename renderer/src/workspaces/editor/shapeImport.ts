/**
 * Imported shapes: the files the user chose go to the services (shapes.importMesh,
 * shapes.importRaw), which parse and voxelise them in their import worker under the mesh size and
 * triangle budgets (core/io meshTriangleLimit, main/services/imports.ts importTaskBytes) and add the
 * voxel shape to the library, as `packbench import shape` does. Never in the page: a large or
 * hostile mesh parsed here held the page for as long as it took, or aborted it.
 */
import type { ShapeImportResult } from '../../../../main/api';
import { api } from '../../api';

/**
 * Imports the chosen files into the library: one mesh (.stl, .obj), or a .raw volume with its .json
 * header. `signal` aborted stops the import in the services (nothing is added): it rejects, isCancelled.
 */
export async function importFiles(files: File[], voxelsAcross: number, signal?: AbortSignal): Promise<ShapeImportResult> {
  const raw = files.find((f) => f.name.toLowerCase().endsWith('.raw'));
  if (raw) {
    const header = files.find((f) => f.name.toLowerCase().endsWith('.json'));
    if (!header) throw new Error(`${raw.name}: choose its .json header too (select both files)`);
    return api.call('shapes.importRaw', { fileName: raw.name, bytes: new Uint8Array(await raw.arrayBuffer()), header: await header.text() }, { signal });
  }
  if (files.length !== 1) throw new Error('choose one mesh file (.stl, .obj), or a .raw volume with its .json header');
  return api.call('shapes.importMesh', { fileName: files[0].name, bytes: new Uint8Array(await files[0].arrayBuffer()), voxelsAcross }, { signal });
}
