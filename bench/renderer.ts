/**
 * The renderer's hot loops on the CPU, the part of "100,000 particles stay interactive" that does
 * not depend on the GPU: colouring a particle table (and a frame's colour range), ray picking over it, the thin-instance matrix
 * fill, the voxel-surface mesh of an inspector region (random spheres rasterised into a label
 * block), and the slice image. GPU frame times are not measured here (SwiftShader in CI says
 * nothing about a desktop GPU).
 *
 *   npm run bench -- renderer [particles] [region edge]    (default: 100000 128)
 */
import { printTable, timed, writeResults, type Row } from './_harness';
import { Random } from '../core/common/random';
import { voxelEngine } from '../core/voxel/index';
import { computeColours, percentileRange, resolveParticleColumns } from '../renderer/src/workspaces/inspector/particleColumns';
import { pickSphere } from '../renderer/src/scene/spherePick';
import { buildVoxelSurface } from '../renderer/src/scene/voxelSurface';
import { sliceToRgba } from '../renderer/src/scene/sliceImage';

const n = Number(process.argv[2] ?? 100_000);
const edge = Number(process.argv[3] ?? 128);
const rnd = new Random(1);

// ---- particles
const cols = {
  id: Uint32Array.from({ length: n }, (_, i) => i),
  type: Int32Array.from({ length: n }, () => rnd.int(3)),
  x: Float64Array.from({ length: n }, () => rnd.uniform(0, 100)),
  y: Float64Array.from({ length: n }, () => rnd.uniform(0, 100)),
  z: Float64Array.from({ length: n }, () => rnd.uniform(0, 50)),
  size: Float64Array.from({ length: n }, () => rnd.uniform(1, 2)),
  bodyTilt: Float32Array.from({ length: n }, () => rnd.uniform(0, 90)),
};
const rows: Row[] = [];
const resolve = timed(() => resolveParticleColumns(cols, n, { particleTable: voxelEngine.particleTable }));
rows.push({ step: 'resolve columns (radius from diameter)', items: n, ms: +(resolve.seconds * 1e3).toFixed(2) });
const p = resolve.value;
const colours = new Float32Array(n * 4);
for (const mode of ['type', 'height', 'bodyTilt', 'id'] as const) {
  const t = timed(() => computeColours(p, mode, colours));
  rows.push({ step: `colours by ${mode}`, items: n, ms: +(t.seconds * 1e3).toFixed(2) });
}
// A run with frames is coloured on each frame's own 2nd-98th percentile (InspectorWorkspace): once a frame, so per call over many.
const tilts = p.colourings.find((c) => c.key === 'bodyTilt')!.values;
const rangeCalls = 50;
const percentile = timed(() => { for (let k = 0; k < rangeCalls; k++) percentileRange(tilts, n); });
rows.push({ step: 'colour range of a frame (2nd-98th percentile)', items: n, ms: +((percentile.seconds * 1e3) / rangeCalls).toFixed(3) });
const matrices = new Float32Array(n * 16);
const fill = timed(() => {
  for (let i = 0; i < n; i++) {
    const r = p.radius![i];
    const o = i * 16;
    matrices[o] = r; matrices[o + 5] = r; matrices[o + 10] = r;
    matrices[o + 12] = p.x[i]; matrices[o + 13] = p.y[i]; matrices[o + 14] = p.z[i]; matrices[o + 15] = 1;
  }
});
rows.push({ step: 'thin-instance matrices', items: n, ms: +(fill.seconds * 1e3).toFixed(2) });
const picks = 200;
const pick = timed(() => {
  let hits = 0;
  for (let k = 0; k < picks; k++) {
    const o = [rnd.uniform(0, 100), rnd.uniform(0, 100), 200];
    if (pickSphere({ count: n, x: p.x, y: p.y, z: p.z, radius: p.radius, dotRadius: 0 }, o, [0.1, -0.05, -1], null) >= 0) hits++;
  }
  return hits;
});
rows.push({ step: 'pick (one ray)', items: n, ms: +((pick.seconds * 1e3) / picks).toFixed(3) });
printTable(`Particles: ${n.toLocaleString('en-US')}`, rows);

// ---- voxel region and slice
const labels = new Uint32Array(edge ** 3);
let label = 0;
for (let painted = 0; painted < 0.55 * edge ** 3; ) {
  const r = rnd.uniform(4, 9), cx = rnd.uniform(0, edge), cy = rnd.uniform(0, edge), cz = rnd.uniform(0, edge);
  label++;
  for (let z = Math.max(0, Math.floor(cz - r)); z < Math.min(edge, cz + r); z++)
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(edge, cy + r); y++)
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(edge, cx + r); x++) {
        if ((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 > r * r) continue;
        const k = x + edge * (y + edge * z);
        if (labels[k] === 0) painted++;
        labels[k] = label;
      }
}
const vrows: Row[] = [];
const grey = (_l: number, out: Float32Array, o: number): void => { out[o] = out[o + 1] = out[o + 2] = 0.6; };
const surf = timed(() => buildVoxelSurface({ labels, dims: [edge, edge, edge], origin: [0, 0, 0], voxelSize: 1 }, grey, 50_000_000));
vrows.push({ step: `surface mesh of ${edge}^3 region`, voxels: edge ** 3, particles: label, quads: surf.value.quads, ms: +(surf.seconds * 1e3).toFixed(1), 'Mvoxel/s': +(edge ** 3 / surf.seconds / 1e6).toFixed(1) });
const img = new Uint8ClampedArray(edge * edge * 4);
const sl = timed(() => { for (let z = 0; z < edge; z++) sliceToRgba(labels.subarray(z * edge * edge, (z + 1) * edge * edge), edge, edge, null, img); });
vrows.push({ step: `slice image ${edge}x${edge}`, voxels: edge * edge, particles: label, quads: 0, ms: +((sl.seconds * 1e3) / edge).toFixed(3), 'Mvoxel/s': +(edge ** 3 / sl.seconds / 1e6).toFixed(1) });
printTable('Voxel region and slices', vrows);
writeResults('renderer', { particles: rows, voxels: vrows }, { particles: n, edge });
