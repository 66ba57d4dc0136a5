/**
 * RunStore at History scale: insert N runs in one transaction (their rows made first, as JobQueue.add
 * makes a sweep's in turns, then written), finish them, then time the queries the History and Batch
 * screens make (page of the newest, filters by status/engine/text/metric range, sorts), the metric
 * names History suggests, and the queue's pick of the next run; wall and CPU milliseconds beside each
 * other (the machine may be shared). `npm run bench -- store [N]` (default 100,000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore, type ListQuery, type NewRun } from '../main/services/store';
import { printTable, timed, writeResults, type Row } from './_harness';

const N = Number(process.argv[2] ?? 100_000);
const REPEAT = 20;
const dir = mkdtempSync(join(tmpdir(), 'packbench-bench-store-'));
const store = new RunStore(join(dir, 'packbench.db'));

const engines = ['voxel', 'stacking', 'eventdriven', 'surface'];
const statuses = ['done', 'done', 'done', 'failed', 'cancelled'] as const;
const runs: NewRun[] = Array.from({ length: N }, (_, i) => ({
  name: `packing ${i} r=${(i % 97) / 10}`,
  engine: engines[i % engines.length],
  spec: { engine: engines[i % engines.length], name: `packing ${i}`, seed: i, params: { box: { size: [10, 10, 10], resolution: 16 }, reboundProbability: (i % 10) / 10 } },
  params: { box: { size: [10, 10, 10], resolution: 16 }, reboundProbability: (i % 10) / 10 },
  seed: i,
  priority: i % 5,
  batchId: null,
}));

// insertRuns, in its two steps: the rows' JSON and ids, then the one transaction that writes them.
const encode = timed(() => runs.map((r) => store.encodeRun(r)));
const insert = timed(() => store.insertEncoded(encode.value));
const ids = insert.value;
const finish = timed(() =>
  store.transaction(() => {
    for (let i = 0; i < N; i++) {
      if (i % 50 === 0) continue; // 2% stay queued
      store.finishRun(ids[i], {
        status: statuses[i % statuses.length],
        metrics: { solidFraction: 0.5 + ((i * 7919) % 1000) / 10_000, particles: 1000 + (i % 5000), stopReason: 'full' },
        wallSeconds: (i % 600) / 10,
      });
    }
  }),
);

const queries: [string, ListQuery][] = [
  ['newest 100', { offset: 0, limit: 100 }],
  ['page 500 of 100', { offset: 50_000 % N, limit: 100 }],
  ['status failed', { offset: 0, limit: 100, filter: { status: ['failed'] } }],
  ['engine voxel, done', { offset: 0, limit: 100, filter: { engine: 'voxel', status: ['done'] } }],
  ['text "r=4.2"', { offset: 0, limit: 100, filter: { text: 'r=4.2' } }],
  ['metric 0.55 ≤ φ ≤ 0.56', { offset: 0, limit: 100, filter: { metric: { name: 'solidFraction', min: 0.55, max: 0.56 } } }],
  ['sort wallSeconds desc', { offset: 0, limit: 100, sort: { field: 'wallSeconds', dir: 'desc' } }],
  ['sort name asc', { offset: 0, limit: 100, sort: { field: 'name', dir: 'asc' } }],
  // History's metric sort, in the store: a page of the order of every matching run.
  ['sort by metric φ desc', { offset: 0, limit: 100, sort: { metric: 'solidFraction', dir: 'desc' } }],
  ['sort by metric φ asc, page 500 of 100', { offset: 50_000 % N, limit: 100, sort: { metric: 'solidFraction', dir: 'asc' } }],
  ['sort by metric φ desc, last page', { offset: Math.max(0, N - 100), limit: 100, sort: { metric: 'solidFraction', dir: 'desc' } }],
  ['engine voxel, sort by metric φ desc', { offset: 0, limit: 100, filter: { engine: 'voxel' }, sort: { metric: 'solidFraction', dir: 'desc' } }],
  // Before: History fetched up to 10,000 matching runs and sorted them itself (refused above that).
  ['10,000 newest (the renderer sorted these by a metric before)', { offset: 0, limit: 10_000 }],
];

/** A row of the table: the time of `calls` calls, per call. */
const row = (operation: string, t: { seconds: number; cpuSeconds: number }, calls: number, rowCount: number, total: number): Row => ({
  operation,
  'wall ms': (t.seconds * 1000) / calls,
  'cpu ms': (t.cpuSeconds * 1000) / calls,
  rows: rowCount,
  total,
});
const rows: Row[] = [
  row(`insert ${N} runs: make the rows (encodeRun)`, encode, 1, N, N),
  row(`insert ${N} runs: write them (insertEncoded, one transaction)`, insert, 1, N, N),
  row(`finish ${N - Math.ceil(N / 50)} runs with metrics (one transaction)`, finish, 1, N - Math.ceil(N / 50), N),
];
for (const [label, q] of queries) {
  store.listRuns(q); // warm the page cache
  let result = store.listRuns(q);
  const t = timed(() => {
    for (let i = 0; i < REPEAT; i++) result = store.listRuns(q);
  });
  rows.push(row(`list: ${label}`, t, REPEAT, result.rows.length, result.total));
}
// History's metric filter suggestions and the sweep columns' batch lookup.
let names = store.metricNames();
const namesTime = timed(() => {
  for (let i = 0; i < REPEAT; i++) names = store.metricNames();
});
rows.push(row('metric names (skip-scan of the metric index)', namesTime, REPEAT, names.length, names.length));
const pick = timed(() => {
  for (let i = 0; i < REPEAT; i++) store.nextQueued();
});
rows.push(row('queue: next run to start', pick, REPEAT, 1, store.countUnfinished().queued));

printTable(`RunStore with ${N} runs (per call; queries: mean of ${REPEAT})`, rows);
console.log(`results: ${writeResults('store', { listing: rows }, { runs: N })}`);
store.close();
rmSync(dir, { recursive: true, force: true });
