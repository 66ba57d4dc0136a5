/**
 * uPlot wants one shared x array with one y array per series. Series from different runs have
 * different x (steps, heights), so they are merged onto the sorted union of their x values, with null
 * where a series has no sample (drawn with spanGaps). Series that already share x are passed through.
 */
import type { Spread } from './spread';

export interface PlotSeries {
  name: string;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  /** The runs behind each point (replicates), index by index with x: y is then their mean (spread.ts). */
  spread?: readonly Spread[];
}

export type AlignedData = [Float64Array | number[], ...(ArrayLike<number | null>)[]];

function sameX(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isSorted(x: ArrayLike<number>): boolean {
  for (let i = 1; i < x.length; i++) if (!(x[i] >= x[i - 1])) return false;
  return true;
}

/** Indices of x sorted ascending (NaN dropped). */
function sortedOrder(x: ArrayLike<number>): Uint32Array {
  const idx: number[] = [];
  for (let i = 0; i < x.length; i++) if (Number.isFinite(x[i])) idx.push(i);
  idx.sort((a, b) => x[a] - x[b]);
  return Uint32Array.from(idx);
}

export function alignSeries(series: PlotSeries[]): AlignedData {
  if (series.length === 0) return [[]];
  const first = series[0].x;
  if (isSorted(first) && series.every((s) => sameX(s.x, first))) {
    return [Float64Array.from(first), ...series.map((s) => s.y)];
  }
  // Union of the finite x values of every series.
  let total = 0;
  for (const s of series) total += s.x.length;
  const all = new Float64Array(total);
  let k = 0;
  for (const s of series) for (let i = 0; i < s.x.length; i++) all[k++] = s.x[i];
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) {
    const v = all[i];
    if (!Number.isFinite(v)) continue;
    if (n === 0 || all[n - 1] !== v) all[n++] = v;
  }
  const xs = all.slice(0, n);
  const ys = series.map((s) => {
    const y: (number | null)[] = new Array(n).fill(null);
    const order = sortedOrder(s.x);
    // Both xs and the series' order are ascending: one merge walk.
    let j = 0;
    for (let o = 0; o < order.length; o++) {
      const xi = s.x[order[o]];
      while (xs[j] < xi) j++;
      const v = s.y[order[o]];
      y[j] = Number.isFinite(v) ? v : null;
    }
    return y;
  });
  return [xs, ...ys];
}

/**
 * The x range that shows whole bars centred on ascending `xs`: half the smallest spacing beyond the
 * first and last centre (uPlot's auto range ends at the centres and cut the outer bars in half).
 * Null for no bars; one bar gets ±0.5.
 */
export function barXRange(xs: ArrayLike<number>): [number, number] | null {
  const n = xs.length;
  if (n === 0) return null;
  let step = Infinity;
  for (let i = 1; i < n; i++) {
    const d = xs[i] - xs[i - 1];
    if (d > 0 && d < step) step = d;
  }
  const half = Number.isFinite(step) ? step / 2 : 0.5;
  return [xs[0] - half, xs[n - 1] + half];
}

/** What yAxisSize reads of a uPlot chart: the canvas context and each axis's drawn font, tick length, gap and last size. */
interface AxisSizing {
  ctx: { font: string; measureText(text: string): { width: number } };
  axes: { font?: unknown; ticks?: { size?: number }; gap?: number; _size?: number }[];
}

/**
 * A uPlot axis `size` callback (CSS px) that fits the longest tick label: tick length, gap and the
 * label's width measured in the axis font. A fixed size cut labels such as "10,000" or "-0.0005" at
 * the plot's left edge. uPlot scales the canvas font by its pixel ratio, hence the division; after
 * the first layout cycle the size is kept, so the plot does not keep resizing to its new ticks.
 */
export function yAxisSize(u: AxisSizing, values: string[] | null, axisIdx: number, cycleNum: number, pxRatio: number): number {
  const axis = u.axes[axisIdx];
  if (cycleNum > 1 && axis._size) return axis._size;
  let size = (axis.ticks?.size ?? 10) + (axis.gap ?? 5);
  const longest = (values ?? []).reduce((a, v) => (v != null && String(v).length > a.length ? String(v) : a), '');
  if (longest) {
    if (Array.isArray(axis.font) && typeof axis.font[0] === 'string') u.ctx.font = axis.font[0];
    size += u.ctx.measureText(longest).width / pxRatio;
  }
  return Math.max(30, Math.ceil(size + 2));
}
