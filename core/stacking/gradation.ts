/**
 * The gradation as the stacker uses it: size classes, each a radius range [rMin, rMax] drawn
 * uniformly (the seed's Eq. 1 for a class of nominal radius r and fluctuation rang; the segment
 * between two sieve sizes for a sieve curve), a volume fraction and the search index a_f. Also the
 * sieve curve (percent of the solid volume finer than a size) asked for and achieved.
 */
import type { GradationParams } from './params';
import { powInt } from '../common/power';

export interface SizeClass {
  rMin: number;
  rMax: number;
  /** Volume fraction of the solid, normalised over the classes. */
  fraction: number;
  /** The seed's a_f = [a1, a2]. */
  af1: number;
  af2: number;
  /** Index of the class or sieve segment in the params, for labels. */
  source: number;
}

/** The classes of a gradation, largest first; classes with a zero fraction are left out. */
export function resolveGradation(g: GradationParams): SizeClass[] {
  const out: SizeClass[] = [];
  if (g.kind === 'classes') {
    let total = 0;
    for (const c of g.classes) total += c.fraction;
    g.classes.forEach((c, i) => {
      if (c.fraction > 0) {
        out.push({ rMin: c.radius * (1 - g.rang), rMax: c.radius * (1 + g.rang), fraction: c.fraction / total, af1: c.af[0], af2: c.af[1], source: i });
      }
    });
  } else {
    const last = g.passing[g.passing.length - 1] - g.passing[0];
    for (let k = 0; k + 1 < g.sizes.length; k++) {
      const share = g.passing[k + 1] - g.passing[k];
      if (share <= 0) continue;
      const af = g.af.length === 1 ? g.af[0] : g.af[k];
      out.push({ rMin: g.sizes[k] / 2, rMax: g.sizes[k + 1] / 2, fraction: share / last, af1: af[0], af2: af[1], source: k });
    }
  }
  return out.sort((a, b) => b.rMax - a.rMax || b.rMin - a.rMin);
}

/** Share of a class's solid volume in balls of radius below rho (ball volume ∝ r^dim, r uniform). */
function finerWithinClass(c: SizeClass, rho: number, dim: 2 | 3): number {
  if (rho <= c.rMin) return 0;
  if (rho >= c.rMax) return 1;
  const k = dim + 1;
  return (powInt(rho, k) - powInt(c.rMin, k)) / (powInt(c.rMax, k) - powInt(c.rMin, k));
}

/**
 * Sieve sizes (diameters) at which the curves are compared: every class bound, and four sizes
 * inside each interval between consecutive bounds, so that a curve drawn through them shows the
 * shape inside a class.
 */
export function sieveSizes(classes: SizeClass[]): Float64Array {
  const bounds = [...new Set(classes.flatMap((c) => [2 * c.rMin, 2 * c.rMax]))].sort((a, b) => a - b);
  const sizes: number[] = [];
  for (let k = 0; k < bounds.length; k++) {
    sizes.push(bounds[k]);
    if (k + 1 < bounds.length) for (let q = 1; q <= 4; q++) sizes.push(bounds[k] + ((bounds[k + 1] - bounds[k]) * q) / 5);
  }
  return Float64Array.from(sizes);
}

/** Percent of the solid volume finer than each size, as the gradation asks. */
export function askedPassing(classes: SizeClass[], sizes: Float64Array, dim: 2 | 3): Float64Array {
  return sizes.map((d) => {
    let p = 0;
    for (const c of classes) p += c.fraction * finerWithinClass(c, d / 2, dim);
    return 100 * p;
  });
}

/** Percent of the solid volume in balls of diameter at most each size, as placed. */
export function achievedPassing(radii: Float64Array, sizes: Float64Array, dim: 2 | 3): Float64Array {
  const sorted = Float64Array.from(radii).sort();
  const out = new Float64Array(sizes.length);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) total += powInt(sorted[i], dim);
  if (total === 0) return out;
  let i = 0, below = 0;
  for (let k = 0; k < sizes.length; k++) {
    while (i < sorted.length && 2 * sorted[i] <= sizes[k]) below += powInt(sorted[i++], dim);
    out[k] = (100 * below) / total;
  }
  return out;
}
