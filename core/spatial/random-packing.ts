/**
 * A relaxed random packing of balls (or disks) in a periodic box, for benchmarks and tests that need
 * high solid fractions: random positions, radii grown from half size towards full size while
 * overlapping pairs are pushed apart (each pair separated along its normal, the lighter ball moving
 * more), then relaxed at full size. Whatever overlap is left is removed by shrinking each ball that
 * still overlaps (by the worst factor among its pairs), so the packing returned has no overlap and
 * `solidFraction` is the fraction actually reached. Beyond jamming (about 0.64 for monosized balls in
 * 3D) that shrink is large and makes a monosized packing slightly polydisperse: `radiusRatio` and
 * `shrunk` say by how much.
 */
import { Random } from '../common/random';
import { checkInteger, checkPositive } from './objects';
import { SpatialTree } from './spatial-tree';
import { powInt, root } from '../common/power';

export interface RandomPackingOptions {
  dim: 2 | 3;
  /** Number of balls. */
  n: number;
  /** Requested solid fraction in (0, 0.9]. */
  solidFraction: number;
  /** Largest / smallest radius; radii are uniform in [1, radiusRatio] before scaling. */
  radiusRatio: number;
  seed: number;
  /** Relaxation sweeps at most, default 400. */
  iterations?: number;
}

export interface RandomPacking {
  dim: 2 | 3;
  /** Edge of the periodic box [0, box)^dim. */
  box: number;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  r: Float64Array;
  /** Solid fraction reached without overlap. */
  solidFraction: number;
  /** Largest / smallest radius actually present, and how many balls were shrunk at the end. */
  radiusRatio: number;
  shrunk: number;
  iterations: number;
}

function ballVolume(dim: number, r: number): number {
  return dim === 3 ? (4 / 3) * Math.PI * r * r * r : Math.PI * r * r;
}

export function randomPacking(o: RandomPackingOptions): RandomPacking {
  if (o.dim !== 2 && o.dim !== 3) throw new RangeError(`dim must be 2 or 3, got ${o.dim}`);
  checkInteger('n', o.n, 2, 1 << 26, '2^26');
  if (!(o.solidFraction > 0 && o.solidFraction <= 0.9)) throw new RangeError(`solidFraction must be in (0, 0.9], got ${o.solidFraction}`);
  checkPositive('radiusRatio', o.radiusRatio);
  if (o.radiusRatio < 1) throw new RangeError(`radiusRatio must be >= 1, got ${o.radiusRatio}`);
  const iterations = o.iterations ?? 400;
  checkInteger('iterations', iterations, 1, 0x8000_0000, '2^31');
  const { dim, n } = o;
  const rnd = new Random(o.seed);
  const r = new Float64Array(n);
  let volume = 0;
  for (let i = 0; i < n; i++) {
    r[i] = 1 + (o.radiusRatio - 1) * rnd.next();
    volume += ballVolume(dim, r[i]);
  }
  const box = root(volume / o.solidFraction, dim);
  let rMax = 0;
  for (let i = 0; i < n; i++) rMax = Math.max(rMax, r[i]);
  if (!(rMax < box / 4)) throw new RangeError(`n = ${n} is too small for radiusRatio ${o.radiusRatio}: the largest ball must be < box / 4`);
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = rnd.uniform(0, box); y[i] = rnd.uniform(0, box); z[i] = dim === 3 ? rnd.uniform(0, box) : 0;
  }
  const tree = new SpatialTree({ dim, capacity: n, period: Array(dim).fill(box), cellSize: 2 });
  // Radii grow linearly from half size to full size over the first 60 % of the sweeps.
  const grow = Math.floor(iterations * 0.6);
  const scaleAt = (it: number) => (it >= grow ? 1 : 0.5 + (0.5 * it) / grow);
  let s = scaleAt(0);
  for (let i = 0; i < n; i++) tree.insertSphere(i, x[i], y[i], z[i], r[i] * s);
  const wrap = (d: number) => d - box * Math.round(d / box);
  let worst = 0;
  // Gauss-Seidel: each overlapping pair is separated at once, along its normal, the lighter ball
  // moving more; candidates come from the tree as it was at the start of the sweep.
  const push = (i: number, j: number) => {
    const ex = wrap(x[i] - x[j]), ey = wrap(y[i] - y[j]), ez = wrap(z[i] - z[j]);
    const d = Math.sqrt(ex * ex + ey * ey + ez * ez);
    const overlap = s * (r[i] + r[j]) - d;
    if (overlap <= 0) return;
    worst = Math.max(worst, overlap / (s * Math.min(r[i], r[j])));
    const mi = powInt(r[i], dim), mj = powInt(r[j], dim);
    const f = (1.01 * overlap) / (d > 0 ? d : 1) / (mi + mj);
    const ux = d > 0 ? ex : 1, uy = d > 0 ? ey : 0, uz = d > 0 ? ez : 0;
    x[i] += ux * f * mj; y[i] += uy * f * mj; z[i] += uz * f * mj;
    x[j] -= ux * f * mi; y[j] -= uy * f * mi; z[j] -= uz * f * mi;
  };
  let it = 0;
  for (; it < iterations; it++) {
    s = scaleAt(it);
    worst = 0;
    tree.pairs(push);
    if (it >= grow && worst < 1e-4) break;
    const next = scaleAt(it + 1);
    for (let i = 0; i < n; i++) {
      x[i] = (x[i] + box) % box;
      y[i] = (y[i] + box) % box;
      z[i] = dim === 3 ? (z[i] + box) % box : 0;
      tree.updateSphere(i, x[i], y[i], z[i], r[i] * next);
    }
  }
  for (let i = 0; i < n; i++) {
    x[i] = (x[i] + box) % box;
    y[i] = (y[i] + box) % box;
    z[i] = dim === 3 ? (z[i] + box) % box : 0;
    tree.updateSphere(i, x[i], y[i], z[i], r[i]);
  }
  // Shrink each ball that still overlaps by the worst factor d / (r_i + r_j) among its pairs, which
  // removes every overlap.
  const shrink = new Float64Array(n).fill(1);
  tree.pairs((i, j) => {
    const d = Math.hypot(wrap(x[i] - x[j]), wrap(y[i] - y[j]), wrap(z[i] - z[j]));
    const f = (d / (r[i] + r[j])) * (1 - 1e-12);
    if (f < shrink[i]) shrink[i] = f;
    if (f < shrink[j]) shrink[j] = f;
  });
  let solid = 0, shrunk = 0, lo = Infinity, hi = 0;
  for (let i = 0; i < n; i++) {
    if (shrink[i] < 1) shrunk++;
    r[i] *= shrink[i];
    solid += ballVolume(dim, r[i]);
    lo = Math.min(lo, r[i]); hi = Math.max(hi, r[i]);
  }
  return { dim, box, x, y, z, r, solidFraction: solid / powInt(box, dim), radiusRatio: hi / lo, shrunk, iterations: it };
}
