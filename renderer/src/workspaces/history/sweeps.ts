/**
 * Sweeps as people read them: columns for the swept parameters of the runs in a table, and a metric
 * plotted against one swept parameter with one line per combination of the other swept values.
 * Runs carry their swept values (RunSummary.sweep, dotted params paths); batches their swept paths.
 */
import type { RunSummary } from '../../../../main/api';
import type { PlotSeries } from '../../components/plotData';
import { formatNumber } from '../../components/format';
import { spreadOf } from '../../components/spread';

export interface SweepColumn {
  /** Dotted params path, e.g. 'mixture.types.0.size.value'. */
  path: string;
  /** Short header: the last segment, or more when two columns would read the same. */
  label: string;
}

/**
 * Header labels for paths: each its last segment, with the one before when it is a list's index
 * ('size.2' for box.size.2, the box's height, which read '2'), lengthened until they differ.
 */
export function shortLabels(paths: string[]): string[] {
  const parts = paths.map((p) => p.split('.'));
  const take = parts.map((p) => (p.length > 1 && /^\d+$/.test(p[p.length - 1]) ? 2 : 1));
  for (let guard = 0; guard < 10; guard++) {
    const labels = parts.map((p, i) => p.slice(-take[i]).join('.'));
    let clash = false;
    labels.forEach((l, i) => {
      if (labels.indexOf(l) !== i || labels.lastIndexOf(l) !== i) {
        clash = true;
        if (take[i] < parts[i].length) take[i]++;
      }
    });
    if (!clash) return labels;
  }
  return paths;
}

/**
 * The swept paths of the rows, in first-seen order, at most `max`, but those in `shown` (a table's
 * own columns: History's Seed shows a replicate's swept seed, which read twice, 'Seed' and 'seed').
 */
export function sweepColumns(rows: readonly (RunSummary | undefined)[], max = 3, shown: readonly string[] = []): SweepColumn[] {
  const paths: string[] = [];
  for (const r of rows) for (const p of Object.keys(r?.sweep ?? {})) if (!paths.includes(p) && !shown.includes(p)) paths.push(p);
  const kept = paths.slice(0, max);
  const labels = shortLabels(kept);
  return kept.map((path, i) => ({ path, label: labels[i] }));
}

/** A swept value in a cell: numbers formatted, tuples as '3 × 3 × 3', '—' when the run has none. */
export function sweepText(v: unknown): string {
  if (v === undefined) return '—';
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v.map((x) => formatNumber(x)).join(' × ');
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return formatNumber(v);
  return JSON.stringify(v);
}

/** Swept paths whose values are finite numbers in every run that has them: what an x axis can be. */
export function numericSweeps(runs: readonly RunSummary[], swept: readonly string[]): string[] {
  return swept.filter((p) => {
    let any = false;
    for (const r of runs) {
      if (!(p in r.sweep)) continue;
      if (typeof r.sweep[p] !== 'number' || !Number.isFinite(r.sweep[p] as number)) return false;
      any = true;
    }
    return any;
  });
}

/** Numeric metrics of the finished runs, sorted. */
export function numericMetrics(runs: readonly RunSummary[]): string[] {
  const s = new Set<string>();
  for (const r of runs) for (const [k, v] of Object.entries(r.metrics)) if (typeof v === 'number' && Number.isFinite(v)) s.add(k);
  return [...s].sort();
}

export interface SweepPlot {
  /** One line per combination of the other swept values; each point the mean of its runs, with their spread. */
  series: PlotSeries[];
  /** Runs plotted (done, with the metric and the x value). */
  used: number;
  /** Points that hold several runs (replicates: a sweep of seeds, or a value listed twice). */
  averaged: number;
}

/**
 * `metric` against the swept `x`, one line per combination of the other swept values (named
 * 'path=value, ...' with short paths). Only runs that finished with the metric count; runs that share
 * x and the other values (the seeds of replicates, which batches do not count as swept) make one
 * point: their mean, with their spread (spread.ts).
 */
export function sweepPlot(runs: readonly RunSummary[], swept: readonly string[], x: string, metric: string): SweepPlot {
  const others = swept.filter((p) => p !== x);
  const labels = shortLabels(others);
  const lines = new Map<string, { name: string; points: Map<number, number[]> }>();
  let used = 0;
  for (const r of runs) {
    const xv = r.sweep[x];
    const yv = r.metrics[metric];
    if (r.status !== 'done' || typeof xv !== 'number' || !Number.isFinite(xv) || typeof yv !== 'number' || !Number.isFinite(yv)) continue;
    used++;
    const key = JSON.stringify(others.map((p) => r.sweep[p]));
    let line = lines.get(key);
    if (!line) {
      const name = others.length ? others.map((p, i) => `${labels[i]}=${sweepText(r.sweep[p])}`).join(', ') : metric;
      lines.set(key, (line = { name, points: new Map() }));
    }
    const values = line.points.get(xv);
    if (values) values.push(yv);
    else line.points.set(xv, [yv]);
  }
  let averaged = 0;
  const series = [...lines.values()]
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
    .map((l) => {
      const xs = [...l.points.keys()].sort((a, b) => a - b);
      const spread = xs.map((v) => spreadOf(l.points.get(v)!));
      for (const p of spread) if (p.n > 1) averaged++;
      return { name: l.name, x: Float64Array.from(xs), y: Float64Array.from(spread.map((p) => p.mean)), spread };
    });
  return { series, used, averaged };
}
