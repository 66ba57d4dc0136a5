/**
 * A slice of the labelled packing as an RGBA image, like an SEM cross-section: void is dark,
 * each particle has its colour (the same as in the 3D view), and pixels on a particle's outline
 * are darkened so touching particles stay apart.
 *
 * Labels: 0 is void, label l > 0 is particle l - 1 of the particle table (core/common/engine.ts).
 * The image has the slice's second axis pointing up (row 0 of the image is the top), so a z slice
 * shows y up and an x or y slice shows z up, as a cross-section is usually drawn.
 */
import { idColour } from './colormap';

const VOID = [18, 20, 24] as const;
const EDGE = 0.55; // outline brightness factor

/**
 * Fills `out` (width * height * 4 bytes) from `labels` (labels[u + width * v]).
 * `particleColours` holds RGBA in 0..1 for particles 0..n-1 (label 1..n); labels beyond it, or
 * all labels when it is null, get an id colour.
 */
export function sliceToRgba(
  labels: Uint32Array,
  width: number,
  height: number,
  particleColours: Float32Array | null,
  out: Uint8ClampedArray,
): void {
  if (labels.length !== width * height) throw new Error(`slice labels: expected ${width * height} values (width ${width} x height ${height}), got ${labels.length}`);
  if (out.length !== width * height * 4) throw new Error(`slice image: expected ${width * height * 4} bytes, got ${out.length}`);
  const nColoured = particleColours ? particleColours.length >> 2 : 0;
  for (let v = 0; v < height; v++) {
    const row = (height - 1 - v) * width; // flip: v grows upwards
    for (let u = 0; u < width; u++) {
      const l = labels[u + width * v];
      const o = (row + u) * 4;
      out[o + 3] = 255;
      if (l === 0) {
        out[o] = VOID[0];
        out[o + 1] = VOID[1];
        out[o + 2] = VOID[2];
        continue;
      }
      const p = l - 1;
      if (p < nColoured) {
        const c = p * 4;
        out[o] = particleColours![c] * 255;
        out[o + 1] = particleColours![c + 1] * 255;
        out[o + 2] = particleColours![c + 2] * 255;
      } else {
        idColour(p, out, o, 255);
      }
      const edge =
        (u > 0 && labels[u - 1 + width * v] !== l) ||
        (u < width - 1 && labels[u + 1 + width * v] !== l) ||
        (v > 0 && labels[u + width * (v - 1)] !== l) ||
        (v < height - 1 && labels[u + width * (v + 1)] !== l);
      if (edge) {
        out[o] *= EDGE;
        out[o + 1] *= EDGE;
        out[o + 2] *= EDGE;
      }
    }
  }
}

/** Fraction of void pixels of a slice: the slice's porosity, shown under the image. */
export function slicePorosity(labels: Uint32Array): number {
  let empty = 0;
  for (let i = 0; i < labels.length; i++) if (labels[i] === 0) empty++;
  return labels.length ? empty / labels.length : 0;
}
