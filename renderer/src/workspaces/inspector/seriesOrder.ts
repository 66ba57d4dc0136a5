/**
 * Orders a run's series for the plot column: porosity profile, orientation histograms, size
 * distribution, coordination, then progress curves, then anything else, found by name so that
 * every engine's series show up without the inspector knowing the engine. A pair named
 * '<name> asked' and '<name> achieved' (the same axes and kind) shares one plot (plotGroups), so
 * that a target and what a run reached are read against each other.
 */
import type { RunSeries } from '../../api';

const ORDER: RegExp[] = [/porosity|solid.*profile|profile/i, /orient|angle|tilt/i, /size|diameter|gradation|sieve|class/i, /coordination|contact/i, /particles|solid fraction|progress|time/i];

export function seriesRank(name: string): number {
  const i = ORDER.findIndex((r) => r.test(name));
  return i < 0 ? ORDER.length : i;
}

export function orderSeries<T extends { name: string }>(series: T[]): T[] {
  return series.map((s, i) => ({ s, i })).sort((a, b) => seriesRank(a.s.name) - seriesRank(b.s.name) || a.i - b.i).map((x) => x.s);
}

/** One plot: its title, axes, kind and the series drawn in it. */
export interface PlotGroup {
  title: string;
  xLabel: string;
  yLabel: string;
  kind: RunSeries['kind'];
  series: { name: string; x: Float64Array; y: Float64Array }[];
}

const PAIRED = / (asked|achieved)$/;

/** The series in plot order, each in its own plot except '<name> asked' with '<name> achieved'. */
export function plotGroups(series: RunSeries[]): PlotGroup[] {
  const groups: PlotGroup[] = [];
  const open = new Map<string, PlotGroup>();
  for (const s of orderSeries(series)) {
    const m = PAIRED.exec(s.name);
    const key = m ? [s.name.slice(0, m.index), s.xLabel, s.yLabel, s.kind].join('\n') : '';
    const partner = m ? open.get(key) : undefined;
    if (partner && m) {
      const mine = { name: m[1], x: s.x, y: s.y };
      const theirs = { ...partner.series[0], name: m[1] === 'asked' ? 'achieved' : 'asked' };
      partner.title = s.name.slice(0, m.index);
      partner.series = m[1] === 'asked' ? [mine, theirs] : [theirs, mine];
      open.delete(key);
      continue;
    }
    const g: PlotGroup = { title: s.name, xLabel: s.xLabel, yLabel: s.yLabel, kind: s.kind, series: [{ name: s.name, x: s.x, y: s.y }] };
    groups.push(g);
    if (m) open.set(key, g);
  }
  return groups;
}
