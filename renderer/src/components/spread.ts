/**
 * The spread of the runs at one point of a plot (replicates: the same parameters at several seeds):
 * how many, their mean, sample standard deviation, min and max. Plots draw the mean with a bar of
 * ± one standard deviation; a point of one run has no standard deviation, and so no bar (a bar of
 * zero would claim the runs agreed).
 */
import type { PlotSeries } from './plotData';

export interface Spread {
  n: number;
  mean: number;
  /** Sample standard deviation (divided by n − 1); null for one run. */
  sd: number | null;
  min: number;
  max: number;
}

/**
 * The spread of `values` (at least one, all finite). Two passes, the deviations taken from the
 * mean: summing squares first loses every digit of a small scatter about a large mean (1e9 + 1, 2, 3).
 */
export function spreadOf(values: ArrayLike<number>): Spread {
  const n = values.length;
  if (n === 0) throw new Error('spreadOf: no values');
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  if (n === 1) return { n, mean, sd: null, min, max };
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i] - mean) * (values[i] - mean);
  return { n, mean, sd: Math.sqrt(squares / (n - 1)), min, max };
}

/** The error bars of a series: its points of two runs or more, from mean − sd to mean + sd. */
export function errorBars(s: PlotSeries): { x: number; lo: number; hi: number }[] {
  const out: { x: number; lo: number; hi: number }[] = [];
  if (!s.spread) return out;
  for (let i = 0; i < s.x.length; i++) {
    const p = s.spread[i];
    if (p?.sd === null || p?.sd === undefined) continue;
    out.push({ x: s.x[i], lo: p.mean - p.sd, hi: p.mean + p.sd });
  }
  return out;
}

/** The lowest and highest ends of the series' error bars (a y range must hold them), null without any. */
export function errorBarExtent(series: readonly PlotSeries[]): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    for (const b of errorBars(s)) {
      if (b.lo < lo) lo = b.lo;
      if (b.hi > hi) hi = b.hi;
    }
  }
  return lo <= hi ? [lo, hi] : null;
}

/** The spread of the series at x (its point there), or undefined. */
export function spreadAt(s: PlotSeries, x: number): Spread | undefined {
  if (!s.spread) return undefined;
  for (let i = 0; i < s.x.length; i++) if (s.x[i] === x) return s.spread[i];
  return undefined;
}

/**
 * What the error bars of the series show, as the plot and its figure say it: '' when no point holds
 * two runs (no bars), else the runs per point ('3', '2 to 5') and what a bar spans.
 */
export function errorBarsNote(series: readonly PlotSeries[]): string {
  let lo = Infinity;
  let hi = 0;
  for (const s of series) for (const p of s.spread ?? []) {
    if (p.n < lo) lo = p.n;
    if (p.n > hi) hi = p.n;
  }
  if (hi < 2) return '';
  const runs = lo === hi ? `${hi} runs` : `${lo} to ${hi} runs`;
  return `error bars: mean ± 1 standard deviation (sample) of the ${runs} at each point${lo === 1 ? '; none for one run' : ''}`;
}
