/**
 * A dense lattice packing of equal balls (disks) at an exact solid fraction, for the benchmark's
 * monosized high-fraction cases: random packings of equal spheres jam near 0.64 (3D), so 70 % needs
 * order. In 3D the lattice is hexagonal close packed (hexagonal layers stacked ABAB, 0.7405 at
 * contact, the same density as FCC; FCC's ABC stacking would need the layer count to be a multiple of
 * 3, which 10,000 balls are not); in 2D it is the hexagonal lattice (0.9069). The lattice is spread
 * from contact to the requested fraction and every ball is then displaced at random by at most half
 * of the gap, so no two balls overlap and the fraction is exact.
 *
 * Balls are laid out as `counts` = (columns, rows, layers), chosen to make the box as near a cube as
 * the factorisations of n allow. The box tiles space (is periodic) when rows and, in 3D, layers are
 * even; `periodic: true` restricts the choice to such layouts (a less cubic box), and the result's
 * `periodic` says whether the box tiles.
 */
import { Random } from '../common/random';
import { checkInteger } from './objects';
import { root } from '../common/power';

export interface LatticePackingOptions {
  dim: 2 | 3;
  /** Number of balls. */
  n: number;
  /** Solid fraction in (0, 0.7405] (3D) or (0, 0.9069] (2D). */
  solidFraction: number;
  /** Seed of the jitter. */
  seed: number;
  /** Require a layout whose box tiles space (even rows and layers), default false. */
  periodic?: boolean;
}

export interface LatticePacking {
  dim: 2 | 3;
  /** Box [0, size[a]) per axis (size[2] = 0 in 2D). */
  size: [number, number, number];
  /** Columns (x), rows (y) and layers (z) of the lattice; columns * rows * layers = n. */
  counts: [number, number, number];
  /** True when the box tiles space without overlap (even rows and layers). */
  periodic: boolean;
  /** Nearest-neighbour distance of the lattice before the jitter. */
  spacing: number;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  /** All 1. */
  r: Float64Array;
  solidFraction: number;
}

/** Densest fraction of the lattice at contact. */
export const LATTICE_MAX_FRACTION = { 2: Math.PI / (2 * Math.sqrt(3)), 3: Math.PI / (3 * Math.SQRT2) } as const;

/** Box edge per lattice step on each axis: column d, row d·√3/2, layer d·√(2/3). */
const STEP = [1, Math.sqrt(3) / 2, Math.sqrt(2 / 3)];

/** The factorisation n = columns * rows * layers with the most cube-like box (among the periodic
 *  ones when asked), or null when there is none. */
function chooseCounts(dim: 2 | 3, n: number, periodic: boolean): [number, number, number] | null {
  let best: [number, number, number] | null = null;
  let bestScore = Infinity;
  for (let rows = 1; rows <= n; rows++) {
    if (n % rows !== 0) continue;
    const rest = n / rows;
    for (let layers = 1; layers <= (dim === 3 ? rest : 1); layers++) {
      if (rest % layers !== 0) continue;
      const cols = rest / layers;
      const edges = dim === 3 ? [cols * STEP[0], rows * STEP[1], layers * STEP[2]] : [cols * STEP[0], rows * STEP[1]];
      const aspect = Math.max(...edges) / Math.min(...edges);
      if (periodic && (rows % 2 !== 0 || (dim === 3 && layers % 2 !== 0))) continue;
      if (aspect < bestScore) { bestScore = aspect; best = [cols, rows, layers]; }
    }
  }
  return best;
}

export function latticePacking(o: LatticePackingOptions): LatticePacking {
  if (o.dim !== 2 && o.dim !== 3) throw new RangeError(`dim must be 2 or 3, got ${o.dim}`);
  checkInteger('n', o.n, 1, 1 << 26, '2^26');
  const max = LATTICE_MAX_FRACTION[o.dim];
  if (!(o.solidFraction > 0 && o.solidFraction <= max)) {
    throw new RangeError(`solidFraction must be in (0, ${max.toFixed(4)}] for a ${o.dim}D lattice, got ${o.solidFraction}`);
  }
  const { dim, n } = o;
  const counts = chooseCounts(dim, n, o.periodic ?? false);
  if (counts === null) {
    throw new RangeError(`n must be a multiple of ${dim === 3 ? 4 : 2} for a periodic ${dim}D lattice (even rows${dim === 3 ? ' and layers' : ''}), got ${n}`);
  }
  const [cols, rows, layers] = counts;
  // Spacing d so that n unit balls fill the fraction: the box volume per ball is d^3/√2 (3D) or
  // d^2·√3/2 (2D), and the fraction at d = 2 is the contact density.
  const d = 2 * root(max / o.solidFraction, dim);
  const size: [number, number, number] = [cols * d * STEP[0], rows * d * STEP[1], dim === 3 ? layers * d * STEP[2] : 0];
  // Each ball moves by at most half the gap, so two neighbours stay at least 2 apart.
  const jitter = ((d - 2) / 2 / Math.sqrt(dim)) * (1 - 1e-9);
  const rnd = new Random(o.seed);
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n).fill(1);
  const wrapInto = (v: number, L: number) => { const w = v % L; return w < 0 ? w + L : w; };
  let k = 0;
  for (let l = 0; l < layers; l++) {
    // Layer B sits over the triangle centres of layer A: shifted by (d/2, d/(2√3)).
    const bx = l % 2 === 1 ? d / 2 : 0, by = l % 2 === 1 ? d / (2 * Math.sqrt(3)) : 0;
    for (let j = 0; j < rows; j++) {
      for (let i = 0; i < cols; i++, k++) {
        const cx = (i + 0.25 + (j % 2 === 1 ? 0.5 : 0)) * d + bx;
        const cy = (j + 0.25) * d * STEP[1] + by;
        x[k] = wrapInto(cx + rnd.uniform(-jitter, jitter), size[0]);
        y[k] = wrapInto(cy + rnd.uniform(-jitter, jitter), size[1]);
        z[k] = dim === 3 ? wrapInto((l + 0.5) * d * STEP[2] + rnd.uniform(-jitter, jitter), size[2]) : 0;
      }
    }
  }
  const ball = dim === 3 ? (4 / 3) * Math.PI : Math.PI;
  const volume = dim === 3 ? size[0] * size[1] * size[2] : size[0] * size[1];
  return {
    dim, size, counts, periodic: rows % 2 === 0 && (dim === 2 || layers % 2 === 0), spacing: d,
    x, y, z, r, solidFraction: (n * ball) / volume,
  };
}
