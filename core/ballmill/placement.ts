/**
 * The initial placement of the balls in the vial at rest, without overlap: uniform random centres
 * inside the vial, then (when they overlap) a relaxation like core/spatial/random-packing's, but
 * bounded by the vial's walls and keeping every radius as given: radii grow from 60 % to full size
 * (dense sets only) while overlapping pairs are pushed apart along their normals, each ball by half
 * of 1.2 times the overlap (equal shares and over-relaxation converge much faster for polysized
 * sets than mass-weighted exact separation), and a ball pushed out of the vial is put back against
 * the wall at once; then sweeps at full size until no pair overlaps. A set that still overlaps after
 * the last sweep is redrawn from fresh random centres (sets of fewer than RETRY_BALLS balls, see
 * there), and one that overlaps after every attempt is refused with a PlacementError that gives the
 * densest placement found (a bisection on the radius scale from the best jam), rather than placed
 * with overlaps or shrunk. Measured: 2D sets of 100-200 balls place at 0.7 (radius ratio up to 10) and
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
/**
 * Sets of fewer balls than RETRY_BALLS get at least RETRY_BALLS / n attempts from fresh random
 * starts, and more while their sweeps times the balls stay below RETRY_WORK (about 0.7 s of CPU);
 * then as much work again to search the densest placement of a set that fails.
 */
const RETRY_BALLS = 1000;
const RETRY_WORK = 1e6;

/**
 * Whether a set of n balls gets one attempt (no fresh random starts): its refusal is then that
 * attempt's jam and a short bisection, while a placement near its limit takes several times those
 * sweeps, so the advice of its refusal is not checked (checkedAdvice in simulation.ts).
 */
export function placedInOneAttempt(n: number): boolean {
  return n >= RETRY_BALLS;
}
/**
 * An attempt ends, jammed, when the last STALL_SWEEPS sweeps at full size have lowered its least
 * total overlap too slowly to place the set in the sweeps it has left, even if it kept that pace
 * (see jammed): a set with retries is redrawn, a larger one is refused.
 */
const STALL_SWEEPS = 200;
/**
 * Least total overlap per ball (relative depths summed over the overlapping pairs, over the balls)
 * below which an attempt is taken to have placed its set, when its pace is judged (jammed). Sets
 * that place go on overlapping far below it (1,000 spheres that placed at sweep 5,773 still overlapped
 * 1e-12 a ball at sweep 5,771), so the sweeps it takes to reach it are fewer than a set needs to place.
 */
const PLACED_DEPTH = 1e-4;
/** Halvings of the interval of radius scales that the densest placement found is searched in. */
const SCALE_PROBES = 10;
/** Pairs are pushed to this relative gap, so that rounding leaves none touching. */
const GAP = 1e-9;
/** Each push separates a pair by this multiple of its overlap. */
const OVER_RELAXATION = 1.2;

/**
 * Thrown when the balls cannot be placed: `scale` is the largest factor on every radius (or, the
 * same, the inverse of one on the vial) at which the densest placement found has no overlap, and
 * `reached` the solid fraction it holds; the caller, who knows which fields set the radii, says
 * what to change.
 */
export class PlacementError extends RangeError {
  constructor(message: string, readonly scale: number, readonly reached: number, readonly sweeps: number) {
    super(message);
    this.name = 'PlacementError';
  }
}

/**
 * What a relaxation sweep is part of, told to `cancelled` at each (a run's progress says it): an
 * attempt to place the balls (1, then the fresh random starts), or the search for the densest
 * placement after every attempt jammed, which only the refusal's advice needs.
 */
export type PlacementStage = { stage: 'placing'; attempt: number } | { stage: 'searching' };
const SEARCHING: PlacementStage = { stage: 'searching' };

/**
 * Writes overlap-free centres for balls of radii r into x, y, z (y = 0 in 2D). Returns the sweeps
 * used, or -1 when `cancelled` said so (asked once a sweep, with what the sweep is part of; the
 * centres may then overlap).
 */
export function placeBalls(v: PlacementVial, r: Float64Array, rnd: Random, x: Float64Array, y: Float64Array, z: Float64Array, cancelled: (stage: PlacementStage) => boolean = () => false): number {
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
  let s = grow > 0 ? 0.6 : 1;
  for (let i = 0; i < n; i++) put(i, s, true);
  // Overlapping pairs of the current sweep, and the sum of their overlaps relative to their radii.
  let overlaps = 0, depth = 0;
  const push = (i: number, j: number) => {
    const ex = x[i] - x[j], ey = y[i] - y[j], ez = z[i] - z[j];
    const d = Math.sqrt(ex * ex + ey * ey + ez * ez);
    const want = s * (r[i] + r[j]) * (1 + GAP);
    if (d >= want) return;
    overlaps++;
    depth += (want - d) / want;
    const f = (0.5 * OVER_RELAXATION * (want - d)) / (d > 0 ? d : 1);
    const ux = d > 0 ? ex : 1, uy = d > 0 ? ey : 0, uz = d > 0 ? ez : 0;
    x[i] += ux * f; y[i] += uy * f; z[i] += uz * f;
    x[j] -= ux * f; y[j] -= uy * f; z[j] -= uz * f;
    clamp(i, s * r[i] * (1 + GAP));
    clamp(j, s * r[j] * (1 + GAP));
  };
  // A jammed start is redrawn rather than refused: few large balls jam often (a wall or a cage of
  // neighbours holds a pair apart), and a fresh start usually places them. The first attempt is the
  // only one of every set that placed before retries existed, so their placements are unchanged.
  // An attempt that has stopped lowering its overlap ends early, since a jam does not free itself;
  // with retries the cheaper attempts are spent on more of them where they are short (3D at 0.45
  // with 10 balls had taken 100 attempts of 6,200 sweeps, 3 s of CPU, to fail; now 286 attempts of
  // some 370 sweeps, 0.55 s, and 15 balls at 0.5 place from seeds whose 100 attempts all jammed).
  // A large set's one attempt ran all 6,200 sweeps before it was refused: 2,000 balls of radius 4-5
  // at 0.5 of a 20 mm cylinder took 16 s of CPU, 20,000 minutes.
  const retries = !placedInOneAttempt(n);
  let used = 0, stopped = false, stage: PlacementStage = { stage: 'placing', attempt: 1 };
  // The least overlap of each of the last STALL_SWEEPS sweeps at full size, by sweep modulo STALL_SWEEPS.
  const trail = new Float64Array(STALL_SWEEPS);
  /**
   * At most `limit` sweeps from the current centres, radii growing from 0.6 to `full` times r over
   * the first `growth`; true when a sweep at full size leaves no overlap, false when out of sweeps,
   * jammed or cancelled.
   */
  const relax = (full: number, growth: number, limit: number): boolean => {
    const scaleAt = (k: number) => (k >= growth ? full : full * (0.6 + (0.4 * k) / growth));
    let least = Infinity;
    for (let sweep = 0; sweep < limit; sweep++) {
      // A sweep of 20,000 balls takes about 20 ms, and a dense set needs up to thousands of them.
      if (cancelled(stage)) { stopped = true; return false; }
      s = scaleAt(sweep);
      overlaps = 0; depth = 0;
      tree.pairs(push);
      const next = scaleAt(sweep + 1);
      for (let i = 0; i < n; i++) {
        clamp(i, r[i] * next * (1 + GAP));
        put(i, next, false);
      }
      used++;
      if (sweep < growth) continue;
      if (overlaps === 0) return true;
      // The least overlap only falls more slowly as the relaxation goes on (a jam's overlap levels
      // off above zero, a set that places loses a share of it every sweep), so at the pace of the
      // last STALL_SWEEPS it would reach zero soonest: when even that is past the sweeps left, this
      // attempt cannot place the set and ends now rather than at its last sweep.
      least = Math.min(least, depth);
      const k = sweep - growth, slot = k % STALL_SWEEPS;
      if (k >= STALL_SWEEPS && jammed(least, trail[slot], limit - 1 - sweep, n)) return false;
      trail[slot] = least;
    }
    return false;
  };
  let fits = 1;
  const fitPair = (i: number, j: number) => {
    fits = Math.min(fits, Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j]) / (r[i] + r[j]));
  };
  /** The largest factor on every radius at which the current centres (inside the walls at full size) do not overlap. */
  const scaleThatFits = () => { fits = 1; tree.pairs(fitPair); return fits; };
  // The centres of the jam that fits the largest radii: where the densest placement is sought.
  const bx = new Float64Array(n), by = new Float64Array(n), bz = new Float64Array(n);
  const keep = () => { bx.set(x); by.set(y); bz.set(z); };
  let best = 0, attempts = 0;
  const work = Math.floor(RETRY_WORK / n);
  do {
    if (attempts > 0) {
      draw();
      for (let i = 0; i < n; i++) put(i, grow > 0 ? 0.6 : 1, false);
    }
    attempts++;
    stage = { stage: 'placing', attempt: attempts };
    if (relax(1, grow, grow + RELAX_SWEEPS)) return used;
    if (stopped) return -1;
    const fit = scaleThatFits();
    if (fit > best) { best = fit; keep(); }
  } while (retries && (attempts < RETRY_BALLS / n || used < work));
  // The densest placement found: bisection on the radius scale between the best jam, which fits,
  // and 1, each probe relaxing the jam's centres at the middle scale, within as much work again.
  let lo = best, hi = 1;
  const end = used + work;
  stage = SEARCHING;
  for (let probe = 0; probe < SCALE_PROBES && used < end; probe++) {
    const mid = (lo + hi) / 2;
    x.set(bx); y.set(by); z.set(bz);
    // Inside the walls at this scale first: relax counts overlaps before its sweep's clamp.
    for (let i = 0; i < n; i++) { clamp(i, r[i] * mid * (1 + GAP)); put(i, mid, false); }
    if (relax(mid, 0, end - used)) { lo = mid; keep(); } else if (stopped) return -1; else hi = mid;
  }
  const reached = fraction * powInt(lo, dim);
  // The fraction asked to six digits (0.65 as 0.65, 0.53904 whole) and the one found rounded down:
  // rounded to the nearest, two disks asked at 0.53904 read 'solid fraction 0.539' and found 0.5390
  // '0.5390', as if the fraction asked had been found.
  throw new PlacementError(
    `balls: could not place ${n} balls (solid fraction ${Number(fraction.toPrecision(6))}) in the vial without overlap from ${attempts === 1 ? 'one random start' : `${attempts} random starts`} ` +
      `(${used} relaxation sweeps); the densest placement found fills ${(Math.floor(reached * 1e4) / 1e4).toFixed(4)} of the vial`,
    lo, reached, used,
  );
}

/**
 * Whether an attempt whose least overlap fell from `before` to `least` over its last STALL_SWEEPS
 * sweeps cannot place its n balls in the `left` sweeps it has. A relaxation's least overlap only falls
 * more slowly as it goes on, both by the amount and by the share it loses in STALL_SWEEPS sweeps (a
 * jam's levels off above zero; a set that places loses a share of it every window, a share that
 * shrinks), so at either pace kept it would place soonest; when even that is past the sweeps left,
 * it cannot. Kept as an amount, the pace would bring the overlap to zero; kept as a share, it would
 * bring it to PLACED_DEPTH per ball, where a set is taken to place (the share alone never reaches
 * zero). The share ends jams sooner: 1,000 equal spheres at 0.5 of a 20 mm cylinder, which the
 * amount ended at sweep 1,265 (losing 3.7 % a window), lost 18 % of their overlap (0.026 a ball) in
 * the window to sweep 791: kept, that share would take 5,470 sweeps to reach PLACED_DEPTH, and 5,408
 * were left.
 */
function jammed(least: number, before: number, left: number, n: number): boolean {
  if (least * STALL_SWEEPS >= (before - least) * left) return true;
  const target = PLACED_DEPTH * n;
  return least > target && Math.log(least / target) * STALL_SWEEPS >= Math.log(before / least) * left;
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
