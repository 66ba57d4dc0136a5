import { afterEach, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { dirname, join } from 'node:path';
import { RunStore, SCHEMA_VERSION, type NewRun } from '../../main/services/store';
import { inTurns } from '../../main/services/turns';
import { tempDir } from './helpers';
import { z } from 'zod';
import { paramsSchemas, remainingSeconds } from '../../main/api';
import { resolveParticleColumns } from '../../renderer/src/workspaces/inspector/particleColumns';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function open(): { store: RunStore; file: string } {
  const t = tempDir();
  cleanup = t.cleanup;
  const file = join(t.dir, 'packbench.db');
  return { store: new RunStore(file), file };
}

/** A store holding one finished run with a one-row particle table, as the migration tests start. */
function openWithParticleTable(): { store: RunStore; file: string; id: string } {
  const { store, file } = open();
  const [id] = store.insertRuns([run(1)]);
  const artifact = { kind: 'table' as const, name: 'particles', path: '/p.pbt', bytes: 1, checksum: 'c', meta: { rows: 1 } };
  store.finishRun(id, { status: 'done', metrics: {}, series: [], artifacts: [artifact], wallSeconds: 1 });
  return { store, file, id };
}

function run(i: number, extra: Partial<NewRun> = {}): NewRun {
  return {
    name: `run ${i}`,
    engine: i % 2 ? 'voxel' : 'stacking',
    spec: { engine: 'voxel', name: `run ${i}`, seed: i, params: {} },
    params: { i },
    seed: i,
    priority: 0,
    batchId: null,
    ...extra,
  };
}

describe('RunStore', () => {
  it('migrates an empty file to the current schema, in WAL mode, and reopens without migrating again', () => {
    const { store, file } = open();
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(['artifacts', 'batches', 'deleted_runs', 'presets', 'run_metrics', 'runs', 'series', 'settings', 'shapes']);
    store.insertRuns([run(1)]);
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.listRuns({ offset: 0, limit: 10 }).total).toBe(1);
    again.close();
  });

  it("keeps SQLite's temporary files (a big transaction's statement journal, sorts) in memory, not in the OS temp folder, on every connection it opens", () => {
    // SQLite's default writes them to SQLITE_TMPDIR, TMPDIR or /var/tmp: outside the data folder
    // (finishing 100,000 runs in one transaction opened /var/tmp/etilqs_* there, bench/store.ts).
    const MEMORY = 2;
    const { store, file } = open();
    expect(store.db.pragma('temp_store', { simple: true })).toBe(MEMORY);
    store.close();
    const reading = new RunStore(file, { readOnly: true });
    expect(reading.db.pragma('temp_store', { simple: true })).toBe(MEMORY);
    reading.close();
    const empty = new RunStore(join(dirname(file), 'none.db'), { readOnly: true });
    expect(empty.db.pragma('temp_store', { simple: true })).toBe(MEMORY);
    empty.close();
  });

  it('migrates a version-1 file: its shapes gain an empty voxelisation', () => {
    const { store, file } = open();
    store.putShape({ id: 's1', name: 'old', params: { kind: 'sphere' } });
    store.db.exec('ALTER TABLE shapes DROP COLUMN voxelisation; ALTER TABLE runs DROP COLUMN sweep');
    store.db.pragma('user_version = 1');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.getShape('s1')).toMatchObject({ name: 'old', voxelisation: null });
    again.close();
  });

  it('migration 3 gives particle tables written before engines declared them the declaration of their engine', () => {
    const { store, file, id } = openWithParticleTable();
    store.db.pragma('user_version = 2');
    store.close();
    const again = new RunStore(file);
    const meta = again.artifacts(id)[0].meta;
    expect(meta.rows).toBe(1);
    const columns = resolveParticleColumns({ x: Float64Array.of(1), y: Float64Array.of(2), z: Float64Array.of(3), size: Float64Array.of(0.5) }, 1, meta);
    expect(columns.radius![0]).toBe(0.25);
    expect(columns.categoryNames).toEqual([]);
    again.close();
  });

  it("migrates a version-3 file: runs of earlier sweeps get their swept values from their batch's spec", () => {
    const { store, file } = open();
    const batchSpec = { engine: 'voxel', name: 'b', seed: 1, params: { box: { size: { $sweep: [[3, 3, 3], [4, 4, 4]] } }, rebound: { $sweep: { from: 0, to: 1, steps: 2 } }, k: 1 } };
    const batchId = store.createBatch('b', batchSpec);
    store.insertRuns([
      run(1, { batchId, spec: { engine: 'voxel', name: 'b1', seed: 1, params: { box: { size: [3, 3, 3] }, rebound: 1, k: 1 } } }),
      run(2),
    ]);
    store.db.exec('ALTER TABLE runs DROP COLUMN sweep');
    store.db.pragma('user_version = 3');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    const rows = again.listRuns({ offset: 0, limit: 10, sort: { field: 'name', dir: 'asc' } }).rows;
    expect(rows.map((r) => r.sweep)).toEqual([{ 'box.size': [3, 3, 3], rebound: 1 }, {}]);
    expect(again.listBatches({ limit: 10 })[0].swept).toEqual(['box.size', 'rebound']);
    again.close();
  });

  it("migrates a version-11 file: old voxel tables' principalTilt is labelled as the axis that stands apart, not the longest", () => {
    const { store, file, id } = openWithParticleTable();
    // Migration 3's declaration, as runs of the voxel engine stored it before 432562c.
    store.db.pragma('user_version = 2');
    store.close();
    new RunStore(file).close();
    const old = new Database(file);
    const stored = () => JSON.parse((old.prepare('SELECT meta FROM artifacts').get() as { meta: string }).meta);
    expect(stored().particleTable.quantities[1]).toEqual({ column: 'principalTilt', label: "Tilt of the principal axis (a rod's axis, a plate's normal)", unit: '° from z' });
    old.prepare('UPDATE artifacts SET meta = json_set(meta, \'$.particleTable.quantities[1].label\', \'Tilt of the longest principal axis\')').run();
    old.pragma('user_version = 11');
    old.close();
    const again = new RunStore(file);
    const quantities = again.artifacts(id)[0].meta.particleTable as { quantities: { column: string; label: string }[] };
    expect(quantities.quantities.find((q) => q.column === 'principalTilt')!.label).toBe("Tilt of the principal axis (a rod's axis, a plate's normal)");
    expect(again.artifacts(id)[0].meta.rows).toBe(1);
    again.close();
  });

  it('lists the numeric metric names of all runs', () => {
    const { store } = open();
    const ids = store.insertRuns([run(1), run(2)]);
    store.finishRun(ids[0], { status: 'done', metrics: { porosity: 0.4, label: 'x', particles: 10 } });
    store.finishRun(ids[1], { status: 'done', metrics: { bedHeight: 2, porosity: 0.5 } });
    expect(store.metricNames()).toEqual(['bedHeight', 'particles', 'porosity']);
    store.close();
  });

  it('migrates a version-4 file: voxel and sphere runs get the metric names of their reference volumes', () => {
    const { store, file } = open();
    const [voxel, spheres, other] = store.insertRuns([run(1), run(2, { engine: 'spheres' }), run(4)]);
    const old = { porosity: 0.387, solidFraction: 0.572, bulkSolidFraction: 0.596, bulkPorosity: 0.41, bedHeight: 4.4, meanHeight: 4.4, stopReason: 'full' };
    store.finishRun(voxel, { status: 'done', metrics: old, series: [], artifacts: [], wallSeconds: 1 });
    store.finishRun(spheres, { status: 'done', metrics: { porosity: 0.36, bulkPorosity: 0.35 }, series: [], artifacts: [], wallSeconds: 1 });
    store.finishRun(other, { status: 'done', metrics: { porosity: 0.5 }, series: [], artifacts: [], wallSeconds: 1 });
    store.db.pragma('user_version = 4');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.getRun(voxel)!.metrics).toEqual({ bedPorosity: 0.387, legacySolidFraction: 0.572, legacyBulkSolidFraction: 0.596, bulkPorosity: 0.41, meanHeight: 4.4, stopReason: 'full' });
    expect(again.getRun(spheres)!.metrics).toEqual({ bedPorosity: 0.36, bulkPorosity: 0.35 });
    expect(again.getRun(other)!.metrics).toEqual({ porosity: 0.5 }); // another engine's porosity is its own
    // The metric index follows: filtering by the new names finds the old runs.
    const names = again.db.prepare('SELECT name FROM run_metrics WHERE run_seq = (SELECT seq FROM runs WHERE id = ?) ORDER BY name').all(voxel) as { name: string }[];
    expect(names.map((n) => n.name)).toEqual(['bedPorosity', 'bulkPorosity', 'legacyBulkSolidFraction', 'legacySolidFraction', 'meanHeight']);
    again.close();
  });

  it('migrates a version-6 file: finished voxel runs from before the final settling pass say it was off', () => {
    const { store, file } = open();
    const [done, failed, queued, stacking, newer] = store.insertRuns([run(1), run(3), run(5), run(2), run(7, { params: { finalSettling: true } })]);
    for (const id of [done, stacking, newer]) store.finishRun(id, { status: 'done', metrics: {}, series: [], artifacts: [], wallSeconds: 1 });
    store.finishRun(failed, { status: 'failed', error: 'x' });
    store.db.pragma('user_version = 6');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.getRun(done)!.params).toEqual({ i: 1, finalSettling: false });
    expect(again.getRun(failed)!.params).toEqual({ i: 3, finalSettling: false });
    expect(again.getRun(queued)!.params).toEqual({ i: 5 }); // it will run with this version's default
    expect(again.getRun(stacking)!.params).toEqual({ i: 2 }); // another engine
    expect(again.getRun(newer)!.params).toEqual({ finalSettling: true }); // it had the pass: untouched
    again.close();
  });

  it('migrates a version-5 file: particleCount of voxel and sphere runs becomes particles, one name for one quantity', () => {
    const { store, file } = open();
    const [both, only, other] = store.insertRuns([run(1), run(2, { engine: 'spheres' }), run(4)]);
    store.finishRun(both, { status: 'done', metrics: { particles: 183, particleCount: 183, bedPorosity: 0.4 }, series: [], artifacts: [], wallSeconds: 1 });
    store.finishRun(only, { status: 'done', metrics: { particleCount: 27, bedPorosity: 0.36 }, series: [], artifacts: [], wallSeconds: 1 });
    store.finishRun(other, { status: 'done', metrics: { particleCount: 5 }, series: [], artifacts: [], wallSeconds: 1 });
    store.db.pragma('user_version = 5');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.getRun(both)!.metrics).toEqual({ particles: 183, bedPorosity: 0.4 });
    expect(again.getRun(only)!.metrics).toEqual({ bedPorosity: 0.36, particles: 27 });
    expect(again.getRun(other)!.metrics).toEqual({ particleCount: 5 }); // another engine's metric is its own
    // The metric index follows: filtering by particles finds both, particleCount only the other engine's run.
    const indexed = (name: string) => again.listRuns({ offset: 0, limit: 10, filter: { metric: { name, min: 0 } } }).rows.map((r) => r.id).sort();
    expect(indexed('particles')).toEqual([both, only].sort());
    expect(indexed('particleCount')).toEqual([other]);
    again.close();
  });

  it("migrates a version-14 file: a batch's runs are indexed by status, so that a run's end finds those still to run without reading the others", () => {
    const { store, file } = open();
    const batchId = store.createBatch('b', { engine: 'voxel', name: 'b', seed: 1, params: {} });
    const [ended, left] = store.insertRuns([run(1, { batchId }), run(2, { batchId })]);
    store.finishRun(ended, { status: 'cancelled' });
    store.db.exec('DROP INDEX IF EXISTS runs_batch_status');
    store.db.pragma('user_version = 14');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'runs_batch_status'").get()).toEqual({ sql: 'CREATE INDEX runs_batch_status ON runs (batch_id, status)' });
    expect(again.batchUnfinished(batchId)).toBe(true);
    again.finishRun(left, { status: 'done' });
    expect(again.batchUnfinished(batchId)).toBe(false);
    again.close();
  });

  it('migrates a version-7 file: the ball mill\'s balls metric becomes particles, as every other engine names it', () => {
    const { store, file } = open();
    const [mill, other] = store.insertRuns([run(1, { engine: 'ballmill' }), run(2, { engine: 'stacking' })]);
    store.finishRun(mill, { status: 'done', metrics: { balls: 100, collisions: 5000 }, series: [], artifacts: [], wallSeconds: 1 });
    store.finishRun(other, { status: 'done', metrics: { balls: 7, particles: 9 }, series: [], artifacts: [], wallSeconds: 1 });
    store.db.pragma('user_version = 7');
    store.close();
    const again = new RunStore(file);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.getRun(mill)!.metrics).toEqual({ collisions: 5000, particles: 100 });
    expect(again.getRun(other)!.metrics).toEqual({ balls: 7, particles: 9 }); // another engine's metric is its own
    const indexed = (name: string) => again.listRuns({ offset: 0, limit: 10, filter: { metric: { name, min: 0 } } }).rows.map((r) => r.id).sort();
    expect(indexed('particles')).toEqual([mill, other].sort());
    expect(indexed('balls')).toEqual([other]);
    again.close();
  });

  it('refuses a database written by a newer PackBench', () => {
    const { store, file } = open();
    store.close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new RunStore(file)).toThrow(/newer than this PackBench/);
  });

  it('stores outcomes: metrics (numeric ones filterable), series as Float64Array, artifacts', async () => {
    const { store } = open();
    const [id] = store.insertRuns([run(1)]);
    store.finishRun(id, {
      status: 'done',
      metrics: { solidFraction: 0.61, stopReason: 'target' },
      series: [{ name: 's', xLabel: 'step', yLabel: 'phi', kind: 'line', x: Float64Array.of(1, 2), y: Float64Array.of(0.5, 0.6) }],
      artifacts: [{ kind: 'table', name: 'particles', path: '/x.pbt', bytes: 10, checksum: 'ab', meta: { rows: 2 } }],
      wallSeconds: 1.5,
    });
    const r = store.getRun(id)!;
    expect(r.status).toBe('done');
    expect(r.metrics).toEqual({ solidFraction: 0.61, stopReason: 'target' });
    const [s] = await inTurns(store.seriesInSteps(id));
    expect(s.x).toBeInstanceOf(Float64Array);
    expect([...s.y]).toEqual([0.5, 0.6]);
    expect(store.artifacts(id)).toEqual([{ id: 1, kind: 'table', name: 'particles', path: '/x.pbt', bytes: 10, checksum: 'ab', meta: { rows: 2 } }]);
    expect(store.listRuns({ offset: 0, limit: 10, filter: { metric: { name: 'solidFraction', min: 0.6 } } }).total).toBe(1);
    expect(store.listRuns({ offset: 0, limit: 10, filter: { metric: { name: 'solidFraction', max: 0.6 } } }).total).toBe(0);
    store.deleteRun(id);
    expect(await inTurns(store.seriesInSteps(id))).toEqual([]);
    expect(store.db.prepare('SELECT count(*) AS n FROM run_metrics').get()).toEqual({ n: 0 });
  });

  // Writing the rows is most of it (once 18.8 s of inserts and 9.9 s of finishes): this test alone took
  // 14 to 29 s on the loaded 2-core machine, and 35 s in the whole suite there, against the unit tests'
  // 60 s. The bound is for a store that hangs, not for a busy machine.
  it('lists, filters, sorts and pages 100,000 runs, checked against a brute-force filter', () => {
    const { store } = open();
    const N = 100_000;
    const rows = Array.from({ length: N }, (_, i) => run(i, { priority: i % 7 }));
    const ids = store.insertRuns(rows);
    expect(ids).toHaveLength(N);
    // Mark every 10th run done with a metric in [0, 1).
    const metric = (i: number) => ((i * 7919) % 1000) / 1000;
    store.transaction(() => {
      for (let i = 0; i < N; i += 10) store.finishRun(ids[i], { status: 'done', metrics: { phi: metric(i) } });
    });

    const all = store.listRuns({ offset: 0, limit: 5 });
    expect(all.total).toBe(N);
    expect(all.rows.map((r) => r.id)).toEqual(ids.slice(-5).reverse());

    const byEngine = store.listRuns({ offset: 100, limit: 3, filter: { engine: 'voxel', status: ['queued'] }, sort: { field: 'createdAt', dir: 'asc' } });
    const expected = rows.map((r, i) => ({ r, i })).filter(({ r, i }) => r.engine === 'voxel' && i % 10 !== 0);
    expect(byEngine.total).toBe(expected.length);
    expect(byEngine.rows.map((r) => r.name)).toEqual(expected.slice(100, 103).map(({ r }) => r.name));

    const byMetric = store.listRuns({ offset: 0, limit: 10_000, filter: { metric: { name: 'phi', min: 0.25, max: 0.5 } } });
    const brute = ids.filter((_, i) => i % 10 === 0 && metric(i) >= 0.25 && metric(i) <= 0.5);
    expect(byMetric.total).toBe(brute.length);
    expect(new Set(byMetric.rows.map((r) => r.id))).toEqual(new Set(brute));

    const byText = store.listRuns({ offset: 0, limit: 100, filter: { text: 'run 9999' } });
    expect(byText.rows.map((r) => r.name).sort()).toEqual(['run 9999', 'run 99990', 'run 99991', 'run 99992', 'run 99993', 'run 99994', 'run 99995', 'run 99996', 'run 99997', 'run 99998', 'run 99999'].sort());
    // LIKE wildcards in the text are literal.
    expect(store.listRuns({ offset: 0, limit: 1, filter: { text: 'run_1' } }).total).toBe(0);

    const byPriority = store.listRuns({ offset: 0, limit: 3, sort: { field: 'priority', dir: 'desc' } });
    expect(byPriority.rows.every((r) => r.priority === 6)).toBe(true);
    // Equal priorities in the queue's order, oldest first: the queue table lists them so.
    expect(byPriority.rows.map((r) => r.name)).toEqual([...Array(N).keys()].filter((i) => i % 7 === 6).slice(0, 3).map((i) => `run ${i}`));
    // The queue's pick: highest priority, oldest first.
    expect(store.nextQueued()!.name).toBe(`run ${[...Array(N).keys()].find((i) => i % 7 === 6 && i % 10 !== 0)}`);

    // Sorted by a metric in the store, page by page: by value, ties newest first, runs without it last
    // in either direction; a filter applies first.
    const metricOrder = (dir: 'asc' | 'desc', keep: (i: number) => boolean) => {
      const all = [...Array(N).keys()].filter(keep).reverse();
      const withIt = all.filter((i) => i % 10 === 0).sort((a, b) => (dir === 'asc' ? 1 : -1) * (metric(a) - metric(b)));
      return [...withIt, ...all.filter((i) => i % 10 !== 0)].map((i) => ids[i]);
    };
    const page = (dir: 'asc' | 'desc', offset: number, limit: number, filter?: { engine: string }) =>
      store.listRuns({ offset, limit, sort: { metric: 'phi', dir }, filter }).rows.map((r) => r.id);
    const desc = metricOrder('desc', () => true), asc = metricOrder('asc', () => true);
    expect(page('desc', 0, 20)).toEqual(desc.slice(0, 20));
    expect(page('desc', N / 10 - 3, 6)).toEqual(desc.slice(N / 10 - 3, N / 10 + 3)); // the last with phi, the first without
    expect(page('desc', N - 4, 10)).toEqual(desc.slice(N - 4));
    expect(page('asc', 0, 20)).toEqual(asc.slice(0, 20));
    expect(page('asc', N / 10 - 3, 6)).toEqual(asc.slice(N / 10 - 3, N / 10 + 3));
    const stacking = metricOrder('desc', (i) => rows[i].engine === 'stacking');
    expect(page('desc', N / 10 - 3, 6, { engine: 'stacking' })).toEqual(stacking.slice(N / 10 - 3, N / 10 + 3));
    expect(store.listRuns({ offset: 0, limit: 1, sort: { metric: 'phi', dir: 'desc' }, filter: { engine: 'stacking' } }).total).toBe(N / 2);
    // Only seq and the value are sorted: the runs through an index that holds seq (not their rows), the
    // value through run_metrics' key; no metrics JSON is read for the order.
    const prepare = vi.spyOn(store.db, 'prepare');
    page('desc', 0, 1);
    const sql = prepare.mock.calls.map(([text]) => text).find((text) => text.includes('sort_value'))!;
    prepare.mockRestore();
    const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ sortMetric: 'phi', limit: 1, offset: 0 }) as { detail: string }[]).map((r) => r.detail);
    expect(plan).toContain('SEARCH m USING PRIMARY KEY (run_seq=? AND name=?) LEFT-JOIN');
    expect(plan.filter((d) => d.startsWith('SCAN runs'))).toEqual([expect.stringMatching(/^SCAN runs USING COVERING INDEX /)]);
    expect(sql).not.toContain('json_extract');
  }, 180_000);

  it("pages by `after` (an answer's next) without skipping a run when one of the page before is deleted, in every sort, NULLs and ties included", () => {
    type Sort = NonNullable<z.input<(typeof paramsSchemas)['runs.list']>['sort']>;
    const sorts: Sort[] = [
      ...(['createdAt', 'startedAt', 'finishedAt', 'name', 'engine', 'status', 'priority', 'seed', 'wallSeconds'] as const).flatMap((field) => (['asc', 'desc'] as const).map((dir) => ({ field, dir }))),
      { metric: 'phi', dir: 'asc' },
      { metric: 'phi', dir: 'desc' },
    ];
    const list = (store: RunStore, p: z.input<(typeof paramsSchemas)['runs.list']>) => store.listRuns(paramsSchemas['runs.list'].parse(p));
    for (const sort of sorts) {
      const { store } = open();
      // Ties (names, priorities, wall times, metric values) and NULLs (never started, never finished, no metric).
      const ids = store.insertRuns(Array.from({ length: 23 }, (_, i) => run(i, { name: `run ${i % 4}`, priority: i % 3 })));
      ids.forEach((id, i) => {
        if (i % 3 === 0) return;
        store.claim(id, { host: null, threads: 1, appVersion: 't', owner: 'h:1' });
        if (i % 2 === 0) store.finishRun(id, { status: i % 4 ? 'done' : 'failed', metrics: i % 5 ? { phi: (i % 4) / 10 } : {}, wallSeconds: i % 4 });
      });
      const whole = list(store, { limit: 100, sort }).rows.map((r) => r.id);
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = list(store, { limit: 4, sort, after });
        if (!res.rows.length) break;
        seen.push(...res.rows.map((r) => r.id));
        // Deleted while the page is on screen: by offset, the next page began a run too far.
        store.deleteRun(res.rows[0].id);
        after = res.next!;
      }
      store.close();
      cleanup?.();
      expect(seen, JSON.stringify(sort)).toEqual(whole);
    }
  });

  it('refuses an after that is not a next, and an offset beside it, naming the field', () => {
    const parse = (p: unknown) => paramsSchemas['runs.list'].safeParse(p).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(parse({ after: '12' })).toEqual(["after: must be the next of an earlier runs.list answer, got '12'"]);
    expect(parse({ after: '[null,1]', offset: 5 })).toEqual(['offset: must be 0 with after (the rows after a run are counted from it), got 5']);
    expect(parse({ after: '["2026-01-01T00:00:00.000Z",7]' })).toBeUndefined();
  });

  it("prepares the statements of a run's life once: the second run's claim, progress, finish, requeue and reads prepare nothing", async () => {
    const { store } = open();
    const info = { host: null, threads: 1, appVersion: 't', owner: 'h:1' };
    const life = async (id: string) => {
      store.claim(id, info);
      store.setProgress(id, { done: 1, total: 2, phase: 'packing' });
      store.finishRun(id, { status: 'done', metrics: { phi: 0.5 }, series: [{ name: 's', xLabel: 'x', yLabel: 'y', kind: 'line', x: Float64Array.of(1), y: Float64Array.of(2) }], artifacts: [], wallSeconds: 1 });
      await inTurns(store.seriesInSteps(id));
      store.artifacts(id);
      store.requeue(id, 'again');
    };
    const [first, second] = store.insertRuns([run(1), run(2)]);
    await life(first);
    const prepare = vi.spyOn(store.db, 'prepare');
    await life(second);
    expect(prepare).not.toHaveBeenCalled();
    expect(store.getRun(second)).toMatchObject({ status: 'queued', metrics: { phi: 0.5 }, attempts: 1 });
  });

  it('claims a queued run for one process only', () => {
    const { store } = open();
    const [id] = store.insertRuns([run(1)]);
    const info = { host: null, threads: 1, appVersion: 't', owner: 'h:1' };
    expect(store.claim(id, info)).toBe(true);
    expect(store.claim(id, info)).toBe(false);
    expect(store.getRun(id)!.attempts).toBe(1);
  });

  it('goes by the pace of the current phase for the time left: a phase reported from 0 starts a new progress scale', () => {
    // The settling pass after an hour of packing: its 10 % read as 9 hours left at the run's pace.
    const { store } = open();
    const [id] = store.insertRuns([run(1)]);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    // julianday() keeps times to about 10 µs.
    const from = (seconds: number, done: number) => ({ fromSeconds: expect.closeTo(seconds, 3), fromDone: done });
    const at = (s: number, p: { done: number; total: number; phase: string }) => {
      vi.setSystemTime(t0 + s * 1000);
      store.setProgress(id, p);
      return store.getSummary(id)!;
    };
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(t0);
      store.claim(id, { host: null, threads: 1, appVersion: 't', owner: 'h:1' });
      // The first scale begins at the attempt's first report (the start-up does not come again).
      let r = at(1000, { done: 250, total: 1000, phase: 'packing' });
      expect(r.progress).toMatchObject(from(1000, 250));
      expect(remainingSeconds(r, t0 + 1000_000)).toBe(null);
      r = at(2000, { done: 500, total: 1000, phase: 'packing' });
      expect(remainingSeconds(r, t0 + 2000_000)).toBeCloseTo(2000, 2);
      r = at(3600, { done: 1000, total: 1000, phase: 'packing' });
      expect(remainingSeconds(r, t0 + 3600_000)).toBe(null);
      // The settling's first round (another total): 5 of its 50 pairs after 60 s of it, 540 s left, not 9 hours.
      r = at(3600, { done: 0, total: 50, phase: 'settling: round 1 of up to 50, 50 deep pairs' });
      expect(r.progress).toMatchObject(from(3600, 0));
      r = at(3660, { done: 5, total: 50, phase: 'settling: round 1 of up to 50, 50 deep pairs' });
      expect(r.progress).toMatchObject(from(3600, 0));
      expect(remainingSeconds(r, t0 + 3660_000)).toBeCloseTo(540, 2);
      // The next phase of the same total from 0: a new scale too, from its first report.
      store.setStatus(id, 'paused');
      vi.setSystemTime(t0 + 3700_000);
      store.setStatus(id, 'running');
      r = at(3700, { done: 0, total: 50, phase: 'settling: sinking, round 1 of up to 50, 50 particles' });
      expect(r.progress).toMatchObject(from(3660, 0));
      r = at(3710, { done: 10, total: 50, phase: 'settling: sinking, round 1 of up to 50, 50 particles' });
      expect(remainingSeconds(r, t0 + 3710_000)).toBeCloseTo(40, 2);
      // Another attempt starts from 0 again.
      store.requeue(id, 'test');
      expect(store.getSummary(id)!.progress).toMatchObject({ fromSeconds: 0, fromDone: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('goes by the recent pace for the time left once a phase has slowed down: its fast part is not averaged in', () => {
    // An analysis phase: its porosity pass half of the scale in half a second, then the orientation
    // at 1 % every 2 s, reported every second. At 20.5 s it is at 60 %, with 80 s left; at the pace
    // since the phase began (60 % in 20.5 s) that read 13.7 s.
    const { store } = open();
    const [id] = store.insertRuns([run(1)]);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(t0);
      store.claim(id, { host: null, threads: 1, appVersion: 't', owner: 'h:1' });
      const report = (s: number, done: number) => {
        vi.setSystemTime(t0 + s * 1000);
        store.setProgress(id, { done, total: 100, phase: 'analysis' });
      };
      report(0, 0);
      report(0.5, 50);
      for (let s = 1.5; s <= 20.5; s++) report(s, 50 + Math.floor((s - 0.5) / 2));
      expect(store.getSummary(id)!.progress.done).toBe(60);
      expect(remainingSeconds(store.getSummary(id)!, t0 + 20_500)).toBeCloseTo(80, -1);
      // Between reports, and when none comes, the time worked since still counts: a run that stops
      // moving reads ever longer, as before.
      expect(remainingSeconds(store.getSummary(id)!, t0 + 60_500)!).toBeGreaterThan(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("goes by a resumed run's pace since its first report, which is at its checkpoint's progress", () => {
    // Counted from 0 at the attempt's start, a packing resumed at 60 % read as 700 of 1000 done in
    // 20 s: 9 s left instead of 30.
    const { store } = open();
    const [id] = store.insertRuns([run(1)]);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (const attempt of [1, 2]) {
        vi.setSystemTime(t0);
        store.claim(id, { host: null, threads: 1, appVersion: 't', owner: 'h:1' });
        vi.setSystemTime(t0 + 10_000);
        store.setProgress(id, { done: 600, total: 1000, phase: 'packing' });
        vi.setSystemTime(t0 + 20_000);
        store.setProgress(id, { done: 700, total: 1000, phase: 'packing' });
        expect(remainingSeconds(store.getSummary(id)!, t0 + 20_000), `attempt ${attempt}`).toBeCloseTo(30, 3);
        store.requeue(id, 'interrupted');
      }
      // A run not started (a test's, as test/e2e/batch-layout's) has worked 0 s.
      store.setProgress(id, { done: 520, total: 1000, phase: 'packing' });
      expect(store.getSummary(id)!.progress).toMatchObject({ done: 520, fromSeconds: 0, fromDone: 520 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a started run's pauses: when the current one began and the seconds of the earlier ones", () => {
    const { store } = open();
    const [id, held] = store.insertRuns([run(1), run(2)]);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(t0);
      store.claim(id, { host: null, threads: 1, appVersion: 't', owner: 'h:1' });
      vi.setSystemTime(t0 + 10_000);
      store.setStatus(id, 'paused');
      expect(store.getSummary(id)).toMatchObject({ pausedAt: '2026-01-01T00:00:10.000Z', pausedSeconds: 0 });
      vi.setSystemTime(t0 + 25_000);
      store.setStatus(id, 'running');
      expect(store.getSummary(id)!.pausedAt).toBe(null);
      expect(store.getSummary(id)!.pausedSeconds).toBeCloseTo(15, 3);
      // A run paused before it started has no time to stand still.
      store.setStatus(held, 'paused');
      expect(store.getSummary(held)).toMatchObject({ pausedAt: null, pausedSeconds: 0 });
      // Another attempt starts with no pauses.
      store.requeue(id, 'test');
      expect(store.getSummary(id)).toMatchObject({ pausedAt: null, pausedSeconds: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps shapes and presets', () => {
    const { store } = open();
    const s = store.putShape({ name: 'ball', params: { kind: 'sphere' } });
    expect(store.getShape(s.id)).toMatchObject({ name: 'ball', kind: 'sphere', builtin: false });
    const p = store.savePreset('p', { engine: 'voxel', name: 'x', params: {} });
    expect(store.listPresets('voxel')).toEqual([p]);
    expect(store.listPresets('other')).toEqual([]);
    expect(store.deletePreset(p.id)).toBe(true);
  });
});
