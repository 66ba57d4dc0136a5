/**
 * The colour of each particle label on a voxel surface: from the inspector's per-particle colour
 * table (RGBA, particle p = label - 1) when it covers the label, else the label's id colour. Shared
 * by the meshing worker and its main-thread fallback so both colour alike.
 */
import { idColour } from './colormap';

export function labelColourer(table: Float32Array | null): (label: number, out: Float32Array, offset: number) => void {
  return (label, out, o) => {
    const p = label - 1;
    if (table && p * 4 < table.length) {
      out[o] = table[p * 4];
      out[o + 1] = table[p * 4 + 1];
      out[o + 2] = table[p * 4 + 2];
    } else idColour(p, out, o, 1);
  };
}
