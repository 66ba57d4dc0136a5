/**
 * The initial placement of the balls in the vial at rest, without overlap: uniform random centres
 * inside the vial, then (when they overlap) a relaxation like core/spatial/random-packing's, but
 * bounded by the vial's walls and keeping every radius as given: radii grow from 60 % to full size
 * (dense sets only) while overlapping pairs are pushed apart along their normals, each ball by half
 * of 1.2 times the overlap (equal shares and over-relaxation converge much faster for polysized
 * sets than mass-weighted exact separation), and a ball pushed out of the vial is put back against
 * the wall at once; then sweeps at full size until no pair overlaps. A set that still overlaps after
 * the last sweep is redrawn from fresh random centres (sets of fewer than RETRY_BALLS balls, see
 * there), and one that overlaps after every attempt is refused with an error naming the solid
 * fraction, rather than placed with overlaps or shrunk. Measured: 2D sets of 100-200 balls place at 0.7 (radius ratio up to 10) and
 * 0.8 (monosized) in 1,000-4,000 sweeps; 3D sets of 300 balls at 0.5 in about 1,100; 3D at 0.55
 * does not converge, hence the limits in params.ts.
 */
import { Random } from '../common/random';
import { SpatialTree } from '../spatial/spatial-tree';
import { powInt } from '../common/power';

export interface PlacementVial {
  dim: 2 | 3;
  width: number;
  height: number;
}

/** Sweeps that grow the radii (dense sets) and that relax at full size at most. */
const GROWTH_SWEEPS = 200;
const RELAX_SWEEPS = 6000;
/** Sets of fewer balls than this get RETRY_BALLS / n attempts from fresh random starts. */
const RETRY_BALLS = 1000;
/** Pairs are pushed to this relative gap, so that rounding leaves none touching. */
const GAP = 1e-9;
/** Each push separates a pair by this multiple of its overlap. */
const OVER_RELAXATION = 1.2;

/**
 * Writes overlap-free centres for balls of radii r into x, y, z (y = 0 in 2D). Returns the sweeps
 * used, or -1 when `cancelled` said so (asked once a sweep; the centres may then overlap).
 */
export function placeBalls(v: PlacementVial, r: Float64Array, rnd: Random, x: Float64Array, y: Float64Array, z: Float64Array, cancelled: () => boolean = () => false): number {
  const n = r.length, dim = v.dim, R = v.width / 2;
  let rMin = Infinity, rMax = 0, solid = 0;
  for (let i = 0; i < n; i++) {
    rMin = Math.min(rMin, r[i]); rMax = Math.max(rMax, r[i]);
    solid += dim === 2 ? Math.PI * r[i] * r[i] : (4 / 3) * Math.PI * r[i] * r[i] * r[i];
  }
  const fraction = solid / (dim === 2 ? v.width * v.height : Math.PI * R * R * v.height);
  const draw = () => {
    for (let i = 0; i < n; i++) {
      if (dim === 2) {
        x[i] = rnd.uniform(r[i], v.width - r[i]);
        y[i] = 0;
      } else {
        // Uniform in the disk of radius R - r around the axis.
        const rho = (R - r[i]) * Math.sqrt(rnd.next()), phi = 2 * Math.PI * rnd.next();
        x[i] = R + rho * Math.cos(phi);
        y[i] = R + rho * Math.sin(phi);
      }
      z[i] = rnd.uniform(r[i], v.height - r[i]);
    }
  };
  draw();
  if (n < 2) return 0;
  const tree = new SpatialTree({ dim, capacity: n, cellSize: (2 * rMax) / powInt(2, Math.floor(Math.log2(rMax / rMin))) });
  // In 2D the tree's second axis is the vertical.
  const put = (i: number, s: number, insert: boolean) => {
    const b = dim === 2 ? z[i] : y[i], c = dim === 2 ? 0 : z[i];
    if (insert) tree.insertSphere(i, x[i], b, c, r[i] * s); else tree.updateSphere(i, x[i], b, c, r[i] * s);
  };
  /** Puts ball i (radius ri) back inside the vial. */
  const clamp = (i: number, ri: number) => {
    z[i] = Math.min(Math.max(z[i], ri), v.height - ri);
    if (dim === 2) x[i] = Math.min(Math.max(x[i], ri), v.width - ri);
    else {
      const qx = x[i] - R, qy = y[i] - R, q = Math.hypot(qx, qy);
      if (q > R - ri) { x[i] = R + (qx * (R - ri)) / q; y[i] = R + (qy * (R - ri)) / q; }
    }
  };
  const grow = fraction > 0.4 ? GROWTH_SWEEPS : 0;
  const scaleAt = (k: number) => (k >= grow ? 1 : 0.6 + (0.4 * k) / grow);
  let s = scaleAt(0);
  for (let i = 0; i < n; i++) put(i, s, true);
  let overlaps = 0;
  const push = (i: number, j: number) => {
    const ex = x[i] - x[j], ey = y[i] - y[j], ez = z[i] - z[j];
    const d = Math.sqrt(ex * ex + ey * ey + ez * ez);
    const want = s * (r[i] + r[j]) * (1 + GAP);
    if (d >= want) return;
    overlaps++;
    const f = (0.5 * OVER_RELAXATION * (want - d)) / (d > 0 ? d : 1);
    const ux = d > 0 ? ex : 1, uy = d > 0 ? ey : 0, uz = d > 0 ? ez : 0;
    x[i] += ux * f; y[i] += uy * f; z[i] += uz * f;
    x[j] -= ux * f; y[j] -= uy * f; z[j] -= uz * f;
    clamp(i, s * r[i] * (1 + GAP));
    clamp(j, s * r[j] * (1 + GAP));
  };
  // A jammed start is redrawn rather than refused while the attempts cost at most about as much as
  // one attempt of 1,000 balls: few large balls jam often (a wall or a cage of neighbours holds a
  // pair apart), and a fresh start usually places them. The first attempt is the only one of every
  // set that placed before retries existed, so their placements are unchanged.
  const attempts = Math.max(1, Math.floor(RETRY_BALLS / n));
  let used = 0;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      draw();
      s = scaleAt(0);
      for (let i = 0; i < n; i++) put(i, s, false);
    }
    for (let sweep = 0; sweep < grow + RELAX_SWEEPS; sweep++) {
      // A sweep of 20,000 balls takes about 20 ms, and a dense set needs up to thousands of them.
      if (cancelled()) return -1;
      s = scaleAt(sweep);
      overlaps = 0;
      tree.pairs(push);
      const next = scaleAt(sweep + 1);
      for (let i = 0; i < n; i++) {
        clamp(i, r[i] * next * (1 + GAP));
        put(i, next, false);
      }
      if (sweep >= grow && overlaps === 0) return used + sweep + 1;
    }
    used += grow + RELAX_SWEEPS;
  }
  throw new RangeError(
    // Not 'fewer balls': with balls.solidFraction set, fewer balls are larger ones, which the walls
    // hold apart more (what fails here is mostly sets of few large balls).
    `balls: could not place ${n} balls (solid fraction ${fraction.toFixed(3)}) in the vial without overlap from ${attempts} random starts; ` +
      'use a lower balls.solidFraction, smaller balls or a larger vial (few large balls leave gaps at the walls: at the same balls.solidFraction, a larger balls.count of smaller balls may place)',
  );
}

/**
 * Renumbers placed balls so that balls near each other get near ids: vertical columns of the given
 * width (x, and y in 3D) in Morton order, bottom to top in each. The event loop reads the records
 * of a ball's neighbours and of the structure's candidates at every impact and box exit; with near
 * ids these share cache lines and stay in cache instead of being scattered over arrays of all the
 * balls. Columns rather than cubes because a shaken bed mixes vertically faster than sideways.
 * Permutes r, x, y, z in place.
 */
export function orderByColumns(dim: 2 | 3, column: number, r: Float64Array, x: Float64Array, y: Float64Array, z: Float64Array): void {
  const n = r.length;
  const key = new Float64Array(n), order = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(x[i] / column), cy = dim === 3 ? Math.floor(y[i] / column) : 0;
    key[i] = morton2(cx, cy);
  }
  order.sort((a, b) => key[a] - key[b] || z[a] - z[b] || a - b);
  for (const a of [r, x, y, z]) {
    const copy = a.slice();
    for (let k = 0; k < n; k++) a[k] = copy[order[k]];
  }
}

/** Interleaves the bits of two non-negative integers below 2^16. */
function morton2(a: number, b: number): number {
  let m = 0;
  for (let bit = 0; bit < 16; bit++) m += ((a >> bit) & 1) * (1 << 2 * bit) + ((b >> bit) & 1) * 2 * (1 << 2 * bit);
  return m;
}
