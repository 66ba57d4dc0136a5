/**
 * Voxel surface meshing in a Web Worker (voxelSurface.worker.ts), one worker for the app, requests
 * answered in order. Where no worker can run (a test DOM, or the worker script fails to load) the
 * mesh is built here on the main thread, with the same code and colours.
 */
import { buildVoxelSurface, type SurfaceMesh, type VoxelBlock } from './voxelSurface';
import { labelColourer } from './surfaceColours';

type Reply = { seq: number; mesh: SurfaceMesh } | { seq: number; error: string };

let worker: Worker | null = null;
let broken = typeof Worker === 'undefined';
let seq = 0;
const waiting = new Map<number, { resolve: (m: SurfaceMesh) => void; reject: (e: Error) => void; block: VoxelBlock; colours: Float32Array | null }>();

function start(): Worker | null {
  if (worker || broken) return worker;
  try {
    worker = new Worker(new URL('./voxelSurface.worker.ts', import.meta.url), { type: 'module' });
  } catch {
    broken = true;
    return null;
  }
  worker.onmessage = (e: MessageEvent<Reply>) => {
    const w = waiting.get(e.data.seq);
    if (!w) return;
    waiting.delete(e.data.seq);
    if ('error' in e.data) w.reject(new Error(e.data.error));
    else w.resolve(e.data.mesh);
  };
  // A worker that cannot load fails every request it holds: mesh those here, and all later ones.
  worker.onerror = (e) => {
    e.preventDefault();
    broken = true;
    worker?.terminate();
    worker = null;
    for (const [k, w] of waiting) {
      waiting.delete(k);
      try {
        w.resolve(buildVoxelSurface(w.block, labelColourer(w.colours)));
      } catch (err) {
        w.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
  };
  return worker;
}

/**
 * Meshes `block` coloured by `colours` (RGBA per particle, label - 1; null: id colours). The block
 * is copied to the worker, so the caller may keep it; the colours are copied too.
 */
export function meshVoxelSurface(block: VoxelBlock, colours: Float32Array | null): Promise<SurfaceMesh> {
  const w = start();
  if (!w) return Promise.resolve().then(() => buildVoxelSurface(block, labelColourer(colours)));
  const mine = ++seq;
  return new Promise((resolve, reject) => {
    waiting.set(mine, { resolve, reject, block, colours });
    w.postMessage({ seq: mine, block, colours });
  });
}
