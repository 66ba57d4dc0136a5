/**
 * A batch of replicates (one spec at several seeds, no param swept) as a table: each numeric metric's
 * n, mean, sample standard deviation, min and max over the runs that finished (spread.ts), with its
 * unit; saved as CSV one metric a row. Failed, cancelled and unfinished runs are not counted: the
 * table says how many of the batch's runs it holds.
 */
import type { EngineInfo, RunSummary } from '../../api';
import { csvField } from '../../components/figure';
import { spreadOf, type Spread } from '../../components/spread';
import { metricUnit } from './metricInfo';
import { numericMetrics } from './sweeps';

export interface ReplicateRow extends Spread {
  metric: string;
  /** As the engine declares it; '' when none. */
  unit: string;
}

export interface ReplicateTable {
  rows: ReplicateRow[];
  /** Runs counted: done. */
  counted: number;
  /** The batch's runs listed. */
  total: number;
}

export function replicateTable(runs: readonly RunSummary[], engines: readonly EngineInfo[]): ReplicateTable {
  const done = runs.filter((r) => r.status === 'done');
  const rows = numericMetrics(done).map((metric) => {
    const values: number[] = [];
    for (const r of done) {
      const v = r.metrics[metric];
      if (typeof v === 'number' && Number.isFinite(v)) values.push(v);
    }
    return { metric, unit: metricUnit(engines, metric, done[0]?.engine), ...spreadOf(values) };
  });
  return { rows, counted: done.length, total: runs.length };
}

/** The table as CSV: metric, unit, n, mean, sd (empty for one run), min, max; numbers at full precision. */
export function replicateCsv(t: ReplicateTable): string {
  const lines = [['metric', 'unit', 'n', 'mean', 'sd', 'min', 'max'].join(',')];
  for (const r of t.rows) lines.push([csvField(r.metric), csvField(r.unit), ...[r.n, r.mean, r.sd ?? '', r.min, r.max].map(String)].join(','));
  return lines.join('\n') + '\n';
}
