/**
 * A batch of replicates (one spec at several seeds, no param swept) as a table: each numeric metric's
 * n, mean, sample standard deviation, min and max over the runs that finished (spread.ts), with its
 * unit; saved as CSV one metric a row. Failed, cancelled and unfinished runs are not counted: the
 * table says how many of the batch's seeds it holds. A failed or cancelled replicate re-run unchanged
 * joins the batch in its place (JobQueue.rerun): its seed is counted once, by the re-run when it is done.
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
  /** Seeds counted: those with a run done. */
  counted: number;
  /** Runs of a seed after its first: re-runs that joined the batch in a failed or cancelled run's place. */
  reruns: number;
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
  return { rows, counted: new Set(done.map((r) => r.seed)).size, reruns: runs.length - new Set(runs.map((r) => r.seed)).size };
}

/** The table as CSV: metric, unit, n, mean, sd (empty for one run), min, max; numbers at full precision. */
export function replicateCsv(t: ReplicateTable): string {
  const lines = [['metric', 'unit', 'n', 'mean', 'sd', 'min', 'max'].join(',')];
  for (const r of t.rows) lines.push([csvField(r.metric), csvField(r.unit), ...[r.n, r.mean, r.sd ?? '', r.min, r.max].map(String)].join(','));
  return lines.join('\n') + '\n';
}
