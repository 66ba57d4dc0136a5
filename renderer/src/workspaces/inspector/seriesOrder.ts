/**
 * Orders a run's series for the plot column: porosity profile, orientation histograms, size
 * distribution, coordination, then progress curves, then anything else, found by name so that
 * every engine's series show up without the inspector knowing the engine.
 */
const ORDER: RegExp[] = [/porosity|solid.*profile|profile/i, /orient|angle|tilt/i, /size|diameter|gradation/i, /coordination|contact/i, /particles|solid fraction|progress|time/i];

export function seriesRank(name: string): number {
  const i = ORDER.findIndex((r) => r.test(name));
  return i < 0 ? ORDER.length : i;
}

export function orderSeries<T extends { name: string }>(series: T[]): T[] {
  return series.map((s, i) => ({ s, i })).sort((a, b) => seriesRank(a.s.name) - seriesRank(b.s.name) || a.i - b.i).map((x) => x.s);
}
