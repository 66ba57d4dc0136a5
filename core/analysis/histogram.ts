/** Fixed-width histograms as engine series (bar kind), the form the inspector plots. */
import type { EngineSeries } from '../common/engine';

export interface Histogram {
  /** Bin centres. */
  centres: Float64Array;
  /** Sum of weights per bin. */
  counts: Float64Array;
  lo: number;
  width: number;
}

/**
 * Histogram of values[i] (weighted by weights[i] when given) over [lo, hi) in `bins` equal bins;
 * the value hi itself falls in the last bin, values outside [lo, hi] are ignored.
 */
export function histogram(values: ArrayLike<number>, lo: number, hi: number, bins: number, weights?: ArrayLike<number>): Histogram {
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`bins must be a positive integer, got ${bins}`);
  if (!(hi > lo)) hi = lo + 1; // a single value: one unit-wide range
  const width = (hi - lo) / bins;
  const counts = new Float64Array(bins);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!(v >= lo && v <= hi)) continue;
    const b = Math.min(bins - 1, Math.floor((v - lo) / width));
    counts[b] += weights ? weights[i] : 1;
  }
  const centres = new Float64Array(bins);
  for (let b = 0; b < bins; b++) centres[b] = lo + (b + 0.5) * width;
  return { centres, counts, lo, width };
}

/** Divides counts by their sum (fractions that add to 1); an empty histogram stays zero. */
export function normalised(counts: Float64Array): Float64Array {
  let sum = 0;
  for (let i = 0; i < counts.length; i++) sum += counts[i];
  return sum > 0 ? counts.map((c) => c / sum) : counts.slice();
}

export function barSeries(name: string, xLabel: string, yLabel: string, x: Float64Array, y: Float64Array): EngineSeries {
  return { name, xLabel, yLabel, x, y, kind: 'bar' };
}

export function lineSeries(name: string, xLabel: string, yLabel: string, x: Float64Array, y: Float64Array): EngineSeries {
  return { name, xLabel, yLabel, x, y, kind: 'line' };
}

/** The q-quantile (0..1) of values by linear interpolation between order statistics. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = q * (sorted.length - 1);
  const i = Math.floor(pos);
  const f = pos - i;
  return i + 1 < sorted.length ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}
