import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { decodeTable, decodeVolume } from '../../core/io/container';
import type { QueueState, RunSummary } from '../../main/api';
import type { Services } from '../../main/services/services';
import { RunStore } from '../../main/services/store';
import { ownerText, THIS_PROCESS } from '../../main/services/processes';
import { CHECKPOINT_FILE } from '../../main/workers/checkpoint';
import { LIVE_TABLE_FILE } from '../../main/workers/protocol';
import { threadedFixtureRegistry } from './fixtures/registry';
import { fixtureServices, tempDir, until } from './helpers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const open: Services[] = [];
const dirs: (() => void)[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const c of dirs.splice(0)) c();
});

function setup(o: Parameters<typeof fixtureServices>[1] = {}): { s: Services; dir: string } {
  const t = tempDir();
  dirs.push(t.cleanup);
  return { s: alsoOn(t.dir, o), dir: t.dir };
}

/** Another set of services on the folder (another process: the app beside `packbench run`), closed after the test. */
function alsoOn(dir: string, o: Parameters<typeof fixtureServices>[1] = {}): Services {
  const s = fixtureServices(dir, o);
  open.push(s);
  return s;
}

const spec = (name: string, params: Record<string, unknown> = {}, seed = 1) => ({ engine: 'counter', name, seed, params });

describe('JobQueue and WorkerPool with the fixture engine', () => {
  it('runs a spec in a worker and records metrics, series and artifacts whose files match their checksums', async () => {
    const { s } = setup({ autoStart: true });
    const updates: RunSummary[] = [];
    s.events.on('run.updated', (r) => updates.push(r));
    const { runIds, batchId } = await s.dispatch('runs.enqueue', { spec: spec('one', { steps: 30, volume: true }, 9) });
    expect(batchId).toBeNull();
    await s.queue.waitFor(runIds);
    const r = await s.dispatch('runs.get', { id: runIds[0] });
    expect(r.status).toBe('done');
    expect(r.metrics.steps).toBe(30);
    expect(r.params).toEqual({ steps: 30, stepMs: 2, memoryBytes: 1 << 20, volume: true, badResult: false });
    expect(r.log).toContain('counted 30 steps');
    expect(r.attempts).toBe(1);
    expect(updates.map((u) => u.status)).toEqual(expect.arrayContaining(['queued', 'running', 'done']));
    expect(updates.some((u) => u.status === 'running' && u.progress.done > 0)).toBe(true);
    // Writing the artifacts is a phase of its own (seconds for a large label volume), not the
    // engine's last phase at its end.
    const writing = updates.filter((u) => u.status === 'running' && u.progress.phase === 'writing results');
    expect(writing[0]?.progress).toMatchObject({ done: 0, total: 2 });
    for (const u of writing) expect(u.progress.done).toBeLessThan(u.progress.total);

    const series = await s.dispatch('runs.series', { id: r.id });
    expect(series[0].y).toBeInstanceOf(Float64Array);
    const arts = await s.dispatch('runs.artifacts', { id: r.id });
    expect(arts.map((a) => a.kind)).toEqual(['table', 'volume']);
    for (const a of arts) {
      const bytes = readFileSync(a.path);
      expect(a.path.startsWith(join(s.dataDir, 'runs', r.id))).toBe(true);
      expect(a.bytes).toBe(bytes.length);
      expect(a.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    const table = decodeTable(readFileSync(arts[0].path));
    expect([...table.columns.x]).toEqual([0, 1.5, 3, 4.5, 6]);
    const volume = decodeVolume(readFileSync(arts[1].path));
    expect(volume.dims).toEqual([8, 6, 4]);

    const particles = await s.dispatch('runs.particles', { id: r.id, limit: 2 });
    expect(particles.total).toBe(5);
    expect([...particles.columns.x]).toEqual([0, 3]);
    // Slices against the decoded volume (x fastest).
    const at = (x: number, y: number, z: number) => volume.labels[x + 8 * (y + 6 * z)];
    const z = await s.dispatch('runs.slice', { id: r.id, axis: 'z', index: 3 });
    const y = await s.dispatch('runs.slice', { id: r.id, axis: 'y', index: 5 });
    const x = await s.dispatch('runs.slice', { id: r.id, axis: 'x', index: 7 });
    expect([z.width, z.height, y.width, y.height, x.width, x.height]).toEqual([8, 6, 8, 4, 6, 4]);
    expect(z.labels[2 + 8 * 4]).toBe(at(2, 4, 3));
    expect(y.labels[2 + 8 * 1]).toBe(at(2, 5, 1));
    expect(x.labels[3 + 6 * 2]).toBe(at(7, 3, 2));
    await expect(s.dispatch('runs.slice', { id: r.id, axis: 'z', index: 4 })).rejects.toMatchObject({ code: 'invalid' });
  });

  it('waitFor() reads a run as it ends, not every run still pending at each end (a Ctrl-C of `run` on a 9,300-run sweep cancelled 6 runs a second)', async () => {
    const { s } = setup(); // not started: the runs stay queued until cancelled
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('many', { steps: { $sweep: Array.from({ length: 300 }, (_, i) => i + 1) } }) });
    const waiting = s.queue.waitFor(runIds);
    const reads = vi.spyOn(s.store, 'getSummary');
    for (const id of runIds) s.queue.cancelRun(id);
    await waiting;
    // Each end read all those still pending: 300 + 299 + … (45,000) for 300 runs, 43 million for 9,300.
    expect(reads.mock.calls.length).toBeLessThan(10 * runIds.length);
  });

  it('cancelMany cancels a sweep at once (a Ctrl-C of `run`): the queue\'s state told once, not after each of its runs (9,300 runs took 4.8 s of CPU, mostly counting the queue each time); the running run stopped as cancelRun stops it, the batch finished once', async () => {
    const { s } = setup();
    const { runIds, batchId } = await s.dispatch('runs.enqueue', { spec: spec('sweep', { steps: { $sweep: Array.from({ length: 100 }, (_, i) => 100_000 + i) }, stepMs: 1 }) });
    s.queue.start();
    const running = (await until(s, (r) => r.status === 'running' && r.progress.done > 0)).id;
    const states: QueueState[] = [], updated: string[] = [], finished: unknown[] = [];
    s.events.on('queue.updated', (q) => states.push(q));
    s.events.on('run.updated', (r) => updated.push(r.id));
    s.events.on('batch.finished', (b) => finished.push(b));
    s.queue.cancelMany(runIds);
    // One state, with none left queued: it was 100 states counting down from 98.
    expect(states).toEqual([expect.objectContaining({ queued: 0, running: 1 })]);
    expect(updated.sort()).toEqual(runIds.filter((id) => id !== running).sort());
    expect(finished).toEqual([]); // its running run has not ended yet
    await s.queue.waitFor(runIds);
    expect(finished).toEqual([{ batchId, name: 'sweep', done: 0, failed: 0, cancelled: 100 }]);
    const runs = await Promise.all(runIds.map((id) => s.dispatch('runs.get', { id })));
    expect(runs.map((r) => r.status)).toEqual(runIds.map(() => 'cancelled'));
    const stopped = runs.find((r) => r.id === running)!;
    expect(stopped.log.at(-1)).toBe('cancelled by the user: its metrics and series so far are kept, its artifacts (an unfinished result) are not');
    expect(stopped.metrics.steps).toBeGreaterThan(0);
    for (const r of runs) if (r.id !== running) expect(r.log).toEqual(['cancelled by the user while queued']);
    // Runs already over are left as they are (cancelRun refuses them), and nothing is told.
    const told = states.length;
    s.queue.cancelMany(runIds);
    expect(states).toHaveLength(told);
  }, 30_000);

  it('ends idle() and waitFor() when the queue closes: a Ctrl-C of queue run with its run put back exited', async () => {
    const { s } = setup();
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('long', { steps: 100_000, stepMs: 1 }) });
    s.queue.start();
    await until(s, (r) => r.status === 'running' && r.progress.done > 0);
    const idle = s.queue.idle();
    const waited = s.queue.waitFor(runIds);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await s.close();
      const stuck = new Promise((r) => setTimeout(() => r('stuck'), 3000));
      // Before: both waited on, polling the closed database ('The database connection is not open' every 2 s).
      expect(await Promise.race([Promise.all([idle, waited]).then(() => 'ended'), stuck])).toBe('ended');
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it("answers for a run whose files were removed outside PackBench: not_found naming the file, not 'internal'", async () => {
    const { s } = setup({ autoStart: true });
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('removed', { steps: 2, stepMs: 0, volume: true }) });
    await s.queue.waitFor(runIds);
    rmSync(s.queue.runDir(runIds[0]), { recursive: true });
    const id = runIds[0];
    for (const [method, params, what] of [
      ['runs.particles', { id }, /table 'particles' of this run is missing .*particles\.pbt/],
      ['runs.frame', { id, table: 'particles', index: 0 }, /table 'particles' of this run is missing/],
      ['runs.slice', { id, axis: 'z', index: 0 }, /volume 'labels' of this run is missing .*labels\.pbv/],
    ] as const) {
      await expect(s.dispatch(method, params)).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(what) });
    }
    expect((await s.dispatch('runs.get', { id })).status).toBe('done');
  });

  it('starts higher priorities first, then older runs; pause and resume of the queue', async () => {
    const { s } = setup({ autoStart: true });
    s.queue.pause();
    const started: string[] = [];
    s.events.on('run.updated', (r) => r.status === 'running' && !started.includes(r.name) && started.push(r.name));
    const a = await s.dispatch('runs.enqueue', { spec: spec('a') });
    const b = await s.dispatch('runs.enqueue', { spec: spec('b') });
    const c = await s.dispatch('runs.enqueue', { spec: spec('c'), priority: 5 });
    const d = await s.dispatch('runs.enqueue', { spec: spec('d') });
    await s.dispatch('runs.setPriority', { id: d.runIds[0], priority: 3 });
    expect(await s.dispatch('queue.state', {})).toEqual({ paused: true, running: 0, runningElsewhere: 0, pausedRuns: 0, queued: 4, concurrency: 1, threadsPerRun: 1, checkpointSeconds: 60, waiting: null });
    // A paused run is counted apart from the queued ones: it keeps its place but waits for the user.
    await s.dispatch('runs.pause', { id: b.runIds[0] });
    expect(await s.dispatch('queue.state', {})).toMatchObject({ pausedRuns: 1, queued: 3 });
    await s.dispatch('runs.resume', { id: b.runIds[0] });
    await s.dispatch('queue.resume', {});
    await s.queue.waitFor([a, b, c, d].flatMap((x) => x.runIds));
    expect(started).toEqual(['c', 'd', 'a', 'b']);
  });

  it('keeps the queue paused across a restart of the app or host, until resumed', async () => {
    const { s, dir } = setup({ autoStart: true });
    await s.dispatch('queue.pause', {});
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('waits') });
    await s.close();
    // It started every queued run on its own after a restart.
    const again = fixtureServices(dir, { autoStart: true });
    try {
      expect(await again.dispatch('queue.state', {})).toMatchObject({ paused: true, running: 0, queued: 1 });
      await new Promise((r) => setTimeout(r, 300));
      expect(again.store.getSummary(runIds[0])!.status).toBe('queued');
      await again.dispatch('queue.resume', {});
      await again.queue.waitFor(runIds);
    } finally {
      await again.close();
    }
    const third = fixtureServices(dir, { autoStart: true });
    expect((await third.dispatch('queue.state', {})).paused).toBe(false);
    await third.close();
  });

  it("keeps the queue's runs at a time, threads per run and checkpoint interval across a restart of the app or host", async () => {
    // As the app and the host open it: no option given, so the stored settings are taken up.
    const asApp = (dir: string) => fixtureServices(dir, { autoStart: true, concurrency: undefined, threadsPerRun: undefined, checkpointSeconds: undefined });
    const { dir } = setup();
    const s = asApp(dir);
    await s.dispatch('queue.setConcurrency', { concurrency: 3 });
    await s.dispatch('queue.setThreadsPerRun', { threads: 2 });
    await s.dispatch('queue.setCheckpointSeconds', { seconds: 7 });
    await s.close();
    // They went back to cores - 1, 1 thread and 60 s.
    const again = asApp(dir);
    try {
      expect(await again.dispatch('queue.state', {})).toMatchObject({ concurrency: 3, threadsPerRun: 2, checkpointSeconds: 7 });
    } finally {
      await again.close();
    }
    // What a caller gives wins (the CLI's queue run --concurrency 1).
    const told = fixtureServices(dir, { autoStart: true, concurrency: 1 });
    expect(await told.dispatch('queue.state', {})).toMatchObject({ concurrency: 1, threadsPerRun: 2, checkpointSeconds: 7 });
    await told.close();
  });

  it('follows a pause or resume of the queue made by another process on the data folder (the app beside a web host) when it next picks a run', async () => {
    const { s, dir } = setup({ autoStart: true });
    const other = fixtureServices(dir);
    try {
      const told: boolean[] = [];
      s.events.on('queue.updated', (q) => told.push(q.paused));
      await other.dispatch('queue.pause', {});
      const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('waits') });
      await new Promise((r) => setTimeout(r, 300));
      // It started the run: the pause was read only at start.
      expect(s.store.getSummary(runIds[0])!.status).toBe('queued');
      expect((await s.dispatch('queue.state', {})).paused).toBe(true);
      expect(told).toContain(true);
      await other.dispatch('queue.resume', {});
      await s.queue.waitFor(runIds);
      expect(s.store.getSummary(runIds[0])!.status).toBe('done');
      expect((await s.dispatch('queue.state', {})).paused).toBe(false);
    } finally {
      await other.close();
    }
  });

  it("tells its subscribers (the app's, a browser's) about runs another process on the folder adds, runs, finishes and deletes", async () => {
    const { s, dir } = setup({ autoStart: true });
    s.queue.pause(); // so that the runs below are the other process's to run
    const mine = new Set<string>(); // as the CLI's run: it works only its own runs
    const cli = fixtureServices(dir, { only: mine });
    try {
      const seen: string[] = [];
      s.events.on('run.updated', (r) => seen.push(`${r.name} ${r.status}`));
      s.events.on('run.deleted', ({ id }) => seen.push(`deleted ${id}`));
      const { runIds } = await cli.dispatch('runs.enqueue', { spec: spec('beside', { steps: 100, stepMs: 10 }) });
      mine.add(runIds[0]);
      cli.queue.start();
      await cli.queue.waitFor(runIds);
      const waitSeen = async (what: string) => {
        for (const t0 = Date.now(); !seen.includes(what); await new Promise((r) => setTimeout(r, 50))) {
          if (Date.now() - t0 > 10_000) throw new Error(`never told '${what}': ${seen.join(', ')}`);
        }
      };
      // Before, nothing: the app's History and queue table showed such runs only when reloaded.
      await waitSeen('beside done');
      expect(seen).toContain('beside running');
      // A run that waits in the queue, deleted there.
      const [waiting] = (await cli.dispatch('runs.enqueue', { spec: spec('waiting') })).runIds;
      await waitSeen('waiting queued');
      await cli.dispatch('runs.delete', { id: waiting });
      await waitSeen(`deleted ${waiting}`);
      // A finished run deleted there (`packbench runs rm` beside the app): History kept it until reloaded.
      await cli.dispatch('runs.delete', { id: runIds[0] });
      await waitSeen(`deleted ${runIds[0]}`);
      // Its own deletions are told once, when made, not again when another process commits.
      const [own] = (await s.dispatch('runs.enqueue', { spec: spec('own') })).runIds;
      await s.dispatch('runs.delete', { id: own });
      const [later] = (await cli.dispatch('runs.enqueue', { spec: spec('later') })).runIds;
      await waitSeen('later queued');
      expect(seen.filter((x) => x === `deleted ${own}`)).toHaveLength(1);
      expect(seen.filter((x) => x === `deleted ${runIds[0]}`)).toHaveLength(1);
      // A process opened later does not tell the deletions made before it.
      const again = fixtureServices(dir, { autoStart: true });
      try {
        const told: string[] = [];
        again.events.on('run.deleted', ({ id }) => told.push(id));
        await cli.dispatch('runs.delete', { id: later });
        for (const t0 = Date.now(); !told.includes(later) && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 50));
        expect(told).toEqual([later]);
      } finally {
        await again.close();
      }
    } finally {
      await cli.close();
    }
  });

  it('pauses a queued run (skipped until resumed) and a running one (its worker waits), then resumes both', async () => {
    const { s } = setup({ autoStart: true });
    const long = (await s.dispatch('runs.enqueue', { spec: spec('long', { steps: 400, stepMs: 2 }) })).runIds[0];
    const held = (await s.dispatch('runs.enqueue', { spec: spec('held') })).runIds[0];
    await s.dispatch('runs.pause', { id: held });
    await until(s, (r) => r.id === long && r.progress.done > 5);
    const paused = await s.dispatch('runs.pause', { id: long });
    expect(paused.status).toBe('paused');
    expect(paused.pausedAt).not.toBe(null);
    const at = s.pool.get(long)!.progress().done;
    await new Promise((r) => setTimeout(r, 150));
    expect(s.pool.get(long)!.progress().done).toBeLessThanOrEqual(at + 1);
    expect((await s.dispatch('runs.get', { id: held })).status).toBe('paused');
    const resumed = await s.dispatch('runs.resume', { id: long });
    expect(resumed.pausedAt).toBe(null);
    expect(resumed.pausedSeconds).toBeGreaterThanOrEqual(0.14);
    await s.dispatch('runs.resume', { id: held });
    await s.queue.waitFor([long, held]);
    const l = await s.dispatch('runs.get', { id: long });
    expect(l.status).toBe('done');
    // Its wall time is the time it worked: from start to end without the pause (the pool's clock and the store's differ by milliseconds).
    expect(l.wallSeconds!).toBeLessThan((Date.parse(l.finishedAt!) - Date.parse(l.startedAt!)) / 1000 - l.pausedSeconds + 0.1);
    expect((await s.dispatch('runs.get', { id: held })).status).toBe('done');
    await expect(s.dispatch('runs.resume', { id: held })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('cancelling a queued run that an interrupted attempt left files for (a checkpoint, a live table) removes them', async () => {
    const { s } = setup();
    const id = (await s.dispatch('runs.enqueue', { spec: spec('interrupted') })).runIds[0];
    // As `queue run` stopped by Ctrl-C, or a crash and its recovery, leave a voxel run's folder.
    const dir = s.queue.runDir(id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, CHECKPOINT_FILE), 'matrix');
    writeFileSync(join(dir, LIVE_TABLE_FILE), 'table');
    expect((await s.dispatch('runs.cancel', { id })).status).toBe('cancelled');
    expect(existsSync(dir)).toBe(false);
  });

  it('cancels running and queued runs; re-runs reproduce the same result from the same seed', async () => {
    const { s } = setup({ autoStart: true });
    const long = (await s.dispatch('runs.enqueue', { spec: spec('long', { steps: 100_000, stepMs: 1 }) })).runIds[0];
    const queued = (await s.dispatch('runs.enqueue', { spec: spec('queued') })).runIds[0];
    const short = (await s.dispatch('runs.enqueue', { spec: spec('short', { steps: 20 }, 77) })).runIds[0];
    await until(s, (r) => r.id === long && r.status === 'running');
    expect((await s.dispatch('runs.cancel', { id: queued })).status).toBe('cancelled');
    await s.dispatch('runs.cancel', { id: long });
    await s.queue.waitFor([long, short]);
    const l = await s.dispatch('runs.get', { id: long });
    expect(l.status).toBe('cancelled');
    // Each log says why it ended (it was empty: only a stopped run's said so).
    expect(l.log.at(-1)).toBe('cancelled by the user: its metrics and series so far are kept, its artifacts (an unfinished result) are not');
    expect((await s.dispatch('runs.get', { id: queued })).log).toEqual(['cancelled by the user while queued']);
    expect(await s.dispatch('runs.artifacts', { id: long })).toEqual([]);
    await expect(s.dispatch('runs.cancel', { id: long })).rejects.toMatchObject({ code: 'conflict' });

    const { runIds } = await s.dispatch('runs.rerun', { id: short });
    await s.queue.waitFor(runIds);
    const [a, b] = [await s.dispatch('runs.get', { id: short }), await s.dispatch('runs.get', { id: runIds[0] })];
    expect(b.seed).toBe(77);
    expect(b.metrics.sum).toBe(a.metrics.sum);
    const other = await s.dispatch('runs.rerun', { id: short, overrides: { steps: 21 } });
    await s.queue.waitFor(other.runIds);
    expect((await s.dispatch('runs.get', { id: other.runIds[0] })).metrics.steps).toBe(21);
    // Named where the caller typed them (overrides.steps), not 'overrides.params.steps', which no one typed.
    await expect(s.dispatch('runs.rerun', { id: short, overrides: { steps: -1 } })).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^invalid request:\n {2}overrides\.steps: /),
      issues: [{ path: 'overrides.steps' }],
    });
    const swept = await s.dispatch('runs.rerun', { id: short, overrides: { steps: { $sweep: [3, -1] } } }).then(() => null, (e) => e);
    expect(swept).toMatchObject({ code: 'invalid', message: expect.stringMatching(/^sweep point 2 of 2 \(.*\): invalid request:\n {2}overrides\.steps: /), issues: [{ path: 'overrides.steps' }] });
    // A cross-field check between an override and the run's own value: each named where it comes from.
    const crossed = await s.dispatch('runs.rerun', { id: short, overrides: { failAt: 1, exitAt: 2 } }).then(() => null, (e) => e);
    expect(crossed.issues).toEqual([{ path: 'overrides.exitAt', message: 'give at most one of failAt and exitAt' }]);
    // A value of the run's own spec that no longer passes (an older PackBench's): named as the run's, at
    // params, with no advice for one surface (it said 'override it, or remove it with null' to the app's
    // user too, who has no --set: the CLI and the app each say what their user can do).
    const [old] = s.store.insertRuns([{ name: 'old', engine: 'counter', spec: spec('old', { steps: -1 }), params: { steps: -1 }, seed: 1, priority: 0, batchId: null, status: 'paused' }]);
    s.store.finishRun(old, { status: 'failed', error: 'made by hand' });
    const own = await s.dispatch('runs.rerun', { id: old, overrides: { stepMs: 0 } }).then(() => null, (e) => e);
    expect(own).toMatchObject({ code: 'invalid', issues: [{ path: 'params.steps', message: expect.not.stringMatching(/override|null/) }] });

    await s.dispatch('runs.delete', { id: short });
    await expect(s.dispatch('runs.get', { id: short })).rejects.toMatchObject({ code: 'not_found' });
  });

  it("a failed or cancelled replicate run again unchanged fills its place in its batch (unfinished until it ends); a changed one or a second run of a point stays outside", async () => {
    const { s } = setup();
    const finished: unknown[] = [];
    s.events.on('batch.finished', (b) => finished.push(b));
    const b = await s.dispatch('runs.enqueue', { spec: { ...spec('reps', { steps: 3 }), seed: { $sweep: [1, 2, 3] } } });
    const [one, two] = b.runIds;
    await s.dispatch('runs.cancel', { id: two });
    s.queue.start();
    await s.queue.waitFor(b.runIds);
    expect(finished).toEqual([{ batchId: b.batchId, name: 'reps', done: 2, failed: 0, cancelled: 1 }]);

    await s.dispatch('queue.pause', {}); // the re-run waits: the batch is seen with it queued
    const again = await s.dispatch('runs.rerun', { id: two });
    expect(again).toMatchObject({ batchId: b.batchId, outside: null });
    const [batch] = await s.dispatch('batches.list', { ids: [b.batchId!] });
    expect(batch).toMatchObject({ finishedAt: null, counts: { done: 2, cancelled: 1, queued: 1 } });
    await s.dispatch('queue.resume', {});
    await s.queue.waitFor(again.runIds);
    const [rerun] = again.runIds.map((id) => s.store.getSummary(id)!);
    expect(rerun).toMatchObject({ batchId: b.batchId, seed: 2, status: 'done', sweep: (await s.dispatch('runs.get', { id: two })).sweep });
    expect(finished).toEqual([finished[0], { batchId: b.batchId, name: 'reps', done: 3, failed: 0, cancelled: 1 }]);
    expect((await s.dispatch('batches.list', { ids: [b.batchId!] }))[0].finishedAt).not.toBeNull();

    // Its point is done now: another run of it (of the cancelled run, or of a done one) would count that replicate twice.
    for (const id of [two, one]) {
      expect(await s.dispatch('runs.rerun', { id })).toMatchObject({ batchId: null, outside: 'the batch has a run of this point done or still to run' });
    }
    // A changed value or another seed is a new experiment.
    await s.dispatch('runs.delete', { id: again.runIds[0] });
    for (const change of [{ overrides: { steps: 4 } }, { seed: 9 }]) {
      expect(await s.dispatch('runs.rerun', { id: two, ...change })).toMatchObject({ batchId: null, outside: 'its values changed, so it is a new experiment' });
    }
    expect((await s.dispatch('batches.list', { ids: [b.batchId!] }))[0].counts).toMatchObject({ done: 2, cancelled: 1, queued: 0 });
    // Outside a batch there is nothing to say.
    const plain = (await s.dispatch('runs.enqueue', { spec: spec('plain') })).runIds[0];
    expect(await s.dispatch('runs.rerun', { id: plain })).toMatchObject({ batchId: null, outside: null });
  });

  it('two processes that re-run one cancelled replicate at the same moment put one run in its place, not two', async () => {
    const { s, dir } = setup();
    const b = await s.dispatch('runs.enqueue', { spec: { ...spec('reps', { steps: 3 }), seed: { $sweep: [1, 2] } } });
    const two = b.runIds[1];
    await s.dispatch('runs.cancel', { id: two });
    // The app and `packbench runs rerun` on the folder: each holds on after its check of the batch's
    // point until the other has made its own (rerun-racer.ts), as two processes can.
    const marks = join(dir, 'marks');
    mkdirSync(marks);
    const racer = fileURLToPath(new URL('./fixtures/rerun-racer.ts', import.meta.url));
    const outs = ['a', 'b'].map((me, i) => {
      const child = spawn(process.execPath, ['--import', 'tsx', racer, dir, two, join(marks, me), join(marks, i ? 'a' : 'b'), join(marks, 'go')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      return new Promise<{ batchId: string | null; outside: string | null }>((done, fail) => child.once('exit', (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`racer ${me} exited ${code}`)))));
    });
    while (!existsSync(join(marks, 'a.ready')) || !existsSync(join(marks, 'b.ready'))) await new Promise((r) => setTimeout(r, 10));
    writeFileSync(join(marks, 'go'), '');
    const answers = await Promise.all(outs);
    expect(answers).toEqual(expect.arrayContaining([
      { batchId: b.batchId, outside: null },
      { batchId: null, outside: 'the batch has a run of this point done or still to run' },
    ]));
    expect((await s.dispatch('batches.list', { ids: [b.batchId!] }))[0].counts).toMatchObject({ queued: 2, cancelled: 1 });
  }, 30_000);

  it("a batch's run that ends with others still to run looks at those alone, not at every run of the batch", async () => {
    // A cancelled `packbench run` of a 10,000-run sweep ends its runs one by one: each asked for the
    // counts of the whole batch (a scan of its runs), 10,000 times.
    const { s } = setup();
    await s.dispatch('queue.pause', {});
    const b = await s.dispatch('runs.enqueue', { spec: spec('many', { steps: { $sweep: [1, 2, 3] } }) });
    const prepare = vi.spyOn(s.store.db, 'prepare');
    await s.dispatch('runs.cancel', { id: b.runIds[0] });
    const asked = prepare.mock.calls.map(([text]) => text).filter((text) => /^\s*SELECT[\s\S]*WHERE[\s\S]*batch_id =/.test(text));
    prepare.mockRestore();
    expect(asked.length).toBeGreaterThan(0);
    for (const sql of asked) {
      const plan = (s.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ batchId: b.batchId }) as { detail: string }[]).map((r) => r.detail);
      expect(plan).toEqual([expect.stringMatching(/^SEARCH runs USING COVERING INDEX \w+ \(batch_id=\? AND status=\?\)$/)]);
    }
    expect((await s.dispatch('batches.list', { ids: [b.batchId!] }))[0]).toMatchObject({ finishedAt: null, counts: { queued: 2, cancelled: 1 } });
  });

  it("the queue's state counts the runs still to run, not every run of the folder", async () => {
    // Asked at each run's end, at each start and at each look at the folder (every 2 s in the app):
    // with 100,000 runs done, counting all of them took 4.4 ms of CPU each time.
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    try {
      const { s } = setup();
      const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('one') });
      await s.dispatch('runs.cancel', { id: runIds[0] });
      expect(s.queue.state()).toMatchObject({ queued: 0, running: 0, pausedRuns: 0 });
      const counts = [...new Set(prepare.mock.calls.map(([text]) => text).filter((text) => /count\(\*\)[\s\S]*FROM runs\b/.test(text) && !text.startsWith('EXPLAIN')))];
      expect(counts.length).toBeGreaterThan(0);
      for (const sql of counts) {
        const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name, 'x']));
        const plan = (s.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail);
        expect(plan.filter((d) => d.startsWith('SCAN runs'))).toEqual([]);
      }
    } finally {
      prepare.mockRestore();
    }
  });

  it("a re-run's name says its own values of the fields it was swept over and of those changed, not the run's", async () => {
    const { s } = setup();
    const point = (await s.dispatch('runs.enqueue', { spec: spec('pts', { steps: { $sweep: [3, 4] } }) })).runIds[0];
    const rerun = async (id: string, overrides?: Record<string, unknown>) => {
      const { runIds } = await s.dispatch('runs.rerun', { id, overrides });
      return Promise.all(runIds.map((x) => s.dispatch('runs.get', { id: x })));
    };
    const seen = (runs: RunSummary[]) => runs.map((r) => [r.name, r.sweep]);
    expect(seen(await rerun(point))).toEqual([['pts [steps=3]', { steps: 3 }]]);
    // The swept field changed: its label was 'steps=3' still.
    expect(seen(await rerun(point, { steps: 5 }))).toEqual([['pts [steps=5]', { steps: 5 }]]);
    // Another field changed is said beside it; a re-run of that re-run says its own values, not both runs'.
    const [changed] = await rerun(point, { stepMs: 0 });
    expect(seen([changed])).toEqual([['pts [steps=3, stepMs=0]', { steps: 3, stepMs: 0 }]]);
    expect(seen(await rerun(changed.id, { stepMs: 1 }))).toEqual([['pts [steps=3, stepMs=1]', { steps: 3, stepMs: 1 }]]);
    // Swept again: each point says its value once. Removed (null): the value it takes, its default.
    expect(seen(await rerun(point, { steps: { $sweep: [6, 7] } }))).toEqual([['pts [steps=6]', { steps: 6 }], ['pts [steps=7]', { steps: 7 }]]);
    expect(seen(await rerun(changed.id, { stepMs: null }))).toEqual([['pts [steps=3, stepMs=2]', { steps: 3, stepMs: 2 }]]);
    // A run outside a sweep keeps its name unless a field changes.
    const plain = (await s.dispatch('runs.enqueue', { spec: spec('plain') })).runIds[0];
    expect(seen(await rerun(plain))).toEqual([['plain', {}]]);
    expect(seen(await rerun(plain, { steps: 9 }))).toEqual([['plain [steps=9]', { steps: 9 }]]);
  });

  it('a worker that throws or exits fails only its run, with the error stored; the queue goes on', async () => {
    const { s } = setup({ autoStart: true });
    const thrower = (await s.dispatch('runs.enqueue', { spec: spec('throws', { steps: 10, failAt: 3 }) })).runIds[0];
    const exiter = (await s.dispatch('runs.enqueue', { spec: spec('exits', { steps: 10, exitAt: 4 }) })).runIds[0];
    const fine = (await s.dispatch('runs.enqueue', { spec: spec('fine') })).runIds[0];
    await s.queue.waitFor([thrower, exiter, fine]);
    const t = await s.dispatch('runs.get', { id: thrower });
    expect(t.status).toBe('failed');
    expect(t.error).toBe('fixture failure at step 3');
    expect(t.log.join('\n')).toMatch(/at Object\.run|at run/);
    const e = await s.dispatch('runs.get', { id: exiter });
    expect(e.status).toBe('failed');
    expect(e.error).toMatch(/worker exited with code 7/);
    expect((await s.dispatch('runs.get', { id: fine })).status).toBe('done');
  });

  it('checks the result an engine returns: a malformed series fails the run, a NaN metric is dropped', async () => {
    const { s } = setup({ autoStart: true });
    const bad = (await s.dispatch('runs.enqueue', { spec: spec('bad', { steps: 3, badResult: true }) })).runIds[0];
    await s.queue.waitFor([bad]);
    const r = await s.dispatch('runs.get', { id: bad });
    expect(r.status).toBe('failed');
    expect(r.error).toBe("series[0] 'sum': x has 3 points, y has 1");
    expect(r.log).toContain("metric 'undefinedRatio' is NaN; not stored");
  });

  it('checks the memory budget: too big is refused when queued (every sweep point), two that do not fit together run one after the other', async () => {
    const budget = 100 << 20;
    const { s } = setup({ autoStart: true, concurrency: 2, memoryBudgetBytes: budget });
    const refused = await s.dispatch('runs.enqueue', { spec: spec('big', { memoryBytes: { $sweep: [1, budget + 1] } }) }).then(() => null, (e) => e);
    expect(refused).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^sweep point 2 of 2 \(big \[memoryBytes=104857601\]\): /),
      issues: [{ path: 'spec.params', message: 'the run needs about 100.0 MiB, more than the memory budget of 100.0 MiB; use a smaller box, a coarser resolution or fewer particles' }],
    });
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
    const half = { memoryBytes: 0.6 * budget, steps: 20, stepMs: 3 };
    const p = (await s.dispatch('runs.enqueue', { spec: spec('p', half) })).runIds[0];
    const q = (await s.dispatch('runs.enqueue', { spec: spec('q', half) })).runIds[0];
    await s.queue.waitFor([p, q]);
    const [rp, rq] = [await s.dispatch('runs.get', { id: p }), await s.dispatch('runs.get', { id: q })];
    expect(rp.status).toBe('done');
    expect(rq.status).toBe('done');
    expect(rq.startedAt! >= rp.finishedAt!).toBe(true);
  });

  it('runs at a time × threads per run stay within the cores: with as many threads as cores, one run at a time', async () => {
    const { s } = setup({ registry: threadedFixtureRegistry(), autoStart: true, concurrency: 3, threadsPerRun: availableParallelism() });
    const ids = [];
    for (const name of ['a', 'b', 'c']) ids.push((await s.dispatch('runs.enqueue', { spec: spec(name, { steps: 10, stepMs: 3 }) })).runIds[0]);
    await s.queue.waitFor(ids);
    const runs = await Promise.all(ids.map((id) => s.dispatch('runs.get', { id })));
    expect(runs.map((r) => [r.status, r.threads])).toEqual(ids.map(() => ['done', availableParallelism()]));
    // None overlapped: each started after the one before had finished.
    expect(runs[1].startedAt! >= runs[0].finishedAt! && runs[2].startedAt! >= runs[1].finishedAt!).toBe(true);
  });

  it('a run of an engine without helper threads runs on one, whatever the threads per run, and does not hold the others back', async () => {
    // As the ball mill and stacking engines: recorded as one thread, and two at a time on any machine.
    const { s } = setup({ autoStart: true, concurrency: 2, threadsPerRun: availableParallelism() });
    const a = (await s.dispatch('runs.enqueue', { spec: spec('a', { steps: 200, stepMs: 5 }) })).runIds[0];
    const b = (await s.dispatch('runs.enqueue', { spec: spec('b', { steps: 200, stepMs: 5 }) })).runIds[0];
    await vi.waitFor(() => expect(s.queue.state().running).toBe(2), { timeout: 10_000, interval: 10 });
    await s.queue.waitFor([a, b]);
    const [ra, rb] = [await s.dispatch('runs.get', { id: a }), await s.dispatch('runs.get', { id: b })];
    expect([ra.status, ra.threads, rb.status, rb.threads]).toEqual(['done', 1, 'done', 1]);
  });

  it('threads per run set through the API apply to the runs started afterwards, which record them', async () => {
    const { s } = setup({ registry: threadedFixtureRegistry(), autoStart: true, concurrency: 1 });
    const a = (await s.dispatch('runs.enqueue', { spec: spec('a', { steps: 5, stepMs: 2 }) })).runIds[0];
    await s.queue.waitFor([a]);
    expect(await s.dispatch('queue.setThreadsPerRun', { threads: 2 })).toMatchObject({ threadsPerRun: 2 });
    const b = (await s.dispatch('runs.enqueue', { spec: spec('b', { steps: 5, stepMs: 2 }) })).runIds[0];
    await s.queue.waitFor([b]);
    const [ra, rb] = [await s.dispatch('runs.get', { id: a }), await s.dispatch('runs.get', { id: b })];
    expect([ra.status, ra.threads, rb.status, rb.threads]).toEqual(['done', 1, 'done', 2]);
  });

  it('expands a sweep into a batch and announces batch.finished with its counts', async () => {
    const { s } = setup({ autoStart: true, concurrency: 2 });
    const finished = new Promise((resolve) => s.events.on('batch.finished', resolve));
    const r = await s.dispatch('runs.enqueue', { spec: spec('sweep', { steps: { $sweep: [3, 4] }, failAt: { $sweep: [2, 100] } }), batchName: 'my sweep' });
    expect(r.runIds).toHaveLength(4);
    expect(await finished).toEqual({ batchId: r.batchId, name: 'my sweep', done: 2, failed: 2, cancelled: 0 });
    const list = await s.dispatch('runs.list', { offset: 0, limit: 10, filter: { batchId: r.batchId! } });
    expect(list.total).toBe(4);
    expect(new Set(list.rows.map((x) => x.seed)).size).toBe(4);
    // each run carries its swept values; the batch its swept paths and counts; metric names are listed
    expect(list.rows.map((x) => x.sweep).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { steps: 3, failAt: 100 }, { steps: 3, failAt: 2 }, { steps: 4, failAt: 100 }, { steps: 4, failAt: 2 },
    ]);
    const [batch] = await s.dispatch('batches.list', { ids: [r.batchId!] });
    expect(batch).toMatchObject({ id: r.batchId, name: 'my sweep', swept: ['steps', 'failAt'], seeds: 0, counts: { done: 2, failed: 2, queued: 0 } });
    expect((await s.dispatch('batches.list', {})).map((b) => b.id)).toEqual([r.batchId]);
    expect(await s.dispatch('runs.metricNames', {})).toEqual(expect.arrayContaining(['steps']));
    const single = await s.dispatch('runs.enqueue', { spec: spec('single', { steps: 2 }) });
    expect((await s.dispatch('runs.get', { id: single.runIds[0] })).sweep).toEqual({});
  });

  it('says how many seeds a batch sweeps: replicates of one spec sweep no param, and are told apart from a sweep of params', async () => {
    const { s } = setup();
    const r = await s.dispatch('runs.enqueue', { spec: { ...spec('replicates', { steps: 3 }), seed: { $sweep: { from: 1, to: 4, steps: 4 } } } });
    const [batch] = await s.dispatch('batches.list', { ids: [r.batchId!] });
    expect(batch).toMatchObject({ swept: [], seeds: 4, counts: { queued: 4 } });
  });

  it('finishes a batch whose last run still to run is deleted, the others being final; one with no run left stays open', async () => {
    const { s } = setup();
    const finished: unknown[] = [];
    s.events.on('batch.finished', (b) => finished.push(b));
    const r = await s.dispatch('runs.enqueue', { spec: spec('cut short', { steps: { $sweep: [1, 2] } }) });
    await s.dispatch('runs.cancel', { id: r.runIds[0] });
    await s.dispatch('runs.delete', { id: r.runIds[1] });
    // It stayed unfinished for good: no batch.finished, finishedAt null.
    expect(finished).toEqual([{ batchId: r.batchId, name: 'cut short', done: 0, failed: 0, cancelled: 1 }]);
    expect((await s.dispatch('batches.list', { ids: [r.batchId!] }))[0].finishedAt).not.toBeNull();
    const gone = await s.dispatch('runs.enqueue', { spec: spec('all gone', { steps: { $sweep: [1, 2] } }) });
    for (const id of gone.runIds) await s.dispatch('runs.delete', { id });
    expect(finished).toHaveLength(1);
  });

  it('re-queues runs left running by a dead process on restart; runs of a live process are left alone', async () => {
    const t = tempDir();
    dirs.push(t.cleanup);
    const first = fixtureServices(t.dir);
    const { runIds } = await first.dispatch('runs.enqueue', { spec: spec('x', { steps: { $sweep: [5, 6, 7] } }) });
    await first.close();
    // The state a crash leaves behind: two runs marked running, one by a pid that no longer exists.
    const store = new RunStore(join(t.dir, 'packbench.db'));
    const info = { host: null, threads: 1, appVersion: 't' };
    expect(store.claim(runIds[0], { ...info, owner: `${hostname()}:2147483646` })).toBe(true);
    expect(store.claim(runIds[1], { ...info, owner: `${hostname()}:${process.ppid}` })).toBe(true);
    store.close();

    const second = fixtureServices(t.dir, { autoStart: true });
    open.push(second);
    expect(second.recovered).toEqual([runIds[0]]);
    // The app and the web host's pages learn it from app.info (the CLI prints it).
    expect((await second.dispatch('app.info', {})).recoveredRuns).toBe(1);
    await second.queue.waitFor([runIds[0], runIds[2]]);
    const r0 = await second.dispatch('runs.get', { id: runIds[0] });
    expect(r0.status).toBe('done');
    expect(r0.attempts).toBe(2);
    expect(r0.log.join('\n')).toMatch(/interrupted/);
    expect((await second.dispatch('runs.get', { id: runIds[1] })).status).toBe('running');
    expect((await second.dispatch('runs.get', { id: runIds[2] })).status).toBe('done');
  });

  it('re-queues on restart the runs of a process of an earlier boot whose pid a live process has now (a reboot after a power cut)', async ({ skip }) => {
    if (!existsSync('/proc/sys/kernel/random/boot_id')) return skip();
    const t = tempDir();
    dirs.push(t.cleanup);
    const first = fixtureServices(t.dir);
    const { runIds } = await first.dispatch('runs.enqueue', { spec: spec('before the reboot', { steps: 5 }) });
    await first.close();
    // Its process had the pid this test's parent has now, in a boot that has ended: it stayed 'running' for good.
    const store = new RunStore(join(t.dir, 'packbench.db'));
    expect(store.claim(runIds[0], { host: null, threads: 1, appVersion: 't', owner: `${hostname()}:${process.ppid}:00000000-0000-4000-8000-000000000000` })).toBe(true);
    store.close();
    const second = fixtureServices(t.dir, { autoStart: true });
    open.push(second);
    expect(second.recovered).toEqual(runIds);
    await second.queue.waitFor(runIds);
    expect((await second.dispatch('runs.get', { id: runIds[0] })).status).toBe('done');
  });

  it('knows this machine by its machine key, not its hostname: takes up its crashed runs after the hostname changed, leaves another machine of the same name alone', async ({ skip }) => {
    if (!THIS_PROCESS.machine) return skip();
    const t = tempDir();
    dirs.push(t.cleanup);
    const first = fixtureServices(t.dir);
    const { runIds } = await first.dispatch('runs.enqueue', { spec: spec('x', { steps: { $sweep: [5, 6] } }) });
    await first.close();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const store = new RunStore(join(t.dir, 'packbench.db'));
    const info = { host: null, threads: 1, appVersion: 't' };
    // Its process crashed here, then the machine was renamed: it stayed 'running' for good.
    expect(store.claim(runIds[0], { ...info, owner: ownerText({ ...THIS_PROCESS, host: 'old-name', pid: dead }) })).toBe(true);
    // Another machine, also called as this one ('localhost', 'raspberrypi'), runs it on a shared disk: it was taken up (its boot is not this one's).
    expect(store.claim(runIds[1], { ...info, owner: ownerText({ host: hostname(), pid: dead, boot: '00000000-0000-4000-8000-000000000000', machine: '0123456789abcdef' }) })).toBe(true);
    store.close();
    const second = fixtureServices(t.dir);
    open.push(second);
    expect(second.recovered).toEqual([runIds[0]]);
    expect((await second.dispatch('runs.get', { id: runIds[1] })).status).toBe('running');
  });

  it("idle() (`queue run`) takes up the runs of a process on the folder that died meanwhile, instead of ending with them left running", async () => {
    const { s, dir } = setup();
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('orphan', { steps: 5 }) });
    // Another `queue run` on the folder took it, then was killed (kill -9, the OOM killer) after this one opened it.
    const store = new RunStore(join(dir, 'packbench.db'));
    expect(store.claim(runIds[0], { host: null, threads: 1, appVersion: 't', owner: `${hostname()}:2147483646` })).toBe(true);
    store.close();
    s.queue.start();
    await s.queue.idle();
    const r = await s.dispatch('runs.get', { id: runIds[0] });
    expect(r.status).toBe('done');
    expect(r.log.join('\n')).toMatch(/interrupted: the process running it ended/);
  });

  it('closing the services puts running runs back in the queue', async () => {
    const t = tempDir();
    dirs.push(t.cleanup);
    const s1 = fixtureServices(t.dir, { autoStart: true });
    const id = (await s1.dispatch('runs.enqueue', { spec: spec('long', { steps: 100_000, stepMs: 1 }) })).runIds[0];
    await until(s1, (r) => r.id === id && r.status === 'running');
    await s1.close();
    const s2 = fixtureServices(t.dir);
    open.push(s2);
    const back = await s2.dispatch('runs.get', { id });
    expect(back.status).toBe('queued');
    // Which way it goes on, said (it was 'from its last checkpoint (or the beginning, without one)').
    expect(back.log.at(-1)).toMatch(/ interrupted: the app closed; re-queued to start again from its beginning \(it had saved no checkpoint\)$/);
  });

  it.skipIf(process.platform !== 'linux')('a close while a run writes its results leaves it done without its checkpoint (the app quits, Ctrl-C of the host or `queue run`)', async () => {
    const { s, dir } = setup({ autoStart: true, checkpointSeconds: 1 });
    const id = (await s.dispatch('runs.enqueue', { spec: spec('late close', { steps: 40, stepMs: 5, checkpointEvery: 10 }) })).runIds[0];
    const runDir = join(dir, 'runs', id);
    await until(s, (r) => r.id === id && r.progress.done >= 20);
    // Its particle table's file a pipe: the worker's write of its results waits there for a reader,
    // so that the close comes while it writes them, after the engine's last look at cancel.
    const table = join(runDir, 'particles.pbt');
    execFileSync('mkfifo', [table]);
    await until(s, (r) => r.id === id && r.progress.phase === 'writing results');
    const closed = s.close();
    // Read to its end only now: close() has told the worker to stop as it returned.
    const written = new Promise<void>((resolve, reject) => createReadStream(table).on('data', () => {}).on('end', () => resolve()).on('error', reject));
    await Promise.all([closed, written]);
    const again = alsoOn(dir);
    expect((await again.dispatch('runs.get', { id })).status).toBe('done');
    // The checkpoint of a finished run only held the disk (a voxel run's: its whole packing matrix).
    expect(existsSync(join(runDir, CHECKPOINT_FILE))).toBe(false);
  });
});

describe('two processes on one data directory', () => {
  it('a queue limited to its own runs (`packbench run`) leaves the others queued', async () => {
    const mine = new Set<string>();
    const { s } = setup({ only: mine });
    const other = (await s.queue.enqueue({ engine: 'counter', name: 'other', seed: 1, params: {} }, 10)).runIds[0];
    const own = (await s.queue.enqueue({ engine: 'counter', name: 'own', seed: 1, params: {} })).runIds[0];
    mine.add(own);
    s.queue.start();
    await s.queue.waitFor([own]);
    expect(s.store.getSummary(own)!.status).toBe('done');
    expect(s.store.getSummary(other)!.status).toBe('queued');
  });

  it('stops a run of this process that another one on the folder cancels or deletes (the app beside `packbench run`) within a poll', async () => {
    const { s: runner, dir } = setup({ autoStart: true });
    const app = alsoOn(dir);
    const stopped = async () => {
      for (const t0 = Date.now(); runner.pool.size > 0 && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 50));
      return runner.pool.size === 0;
    };
    const long = spec('long', { steps: 1_000_000, stepMs: 1 });
    const cancelled = (await runner.queue.enqueue(long)).runIds[0];
    await until(runner, (r) => r.id === cancelled && r.progress.done > 0);
    expect((await app.dispatch('runs.cancel', { id: cancelled })).status).toBe('cancelled');
    expect(await stopped()).toBe(true);
    const r = runner.store.getSummary(cancelled)!;
    expect(r.status).toBe('cancelled');
    expect(r.metrics.steps).toBeLessThan(1_000_000);

    const deleted = (await runner.queue.enqueue(long)).runIds[0];
    await until(runner, (r) => r.id === deleted && r.progress.done > 0);
    const told = new Promise<string>((resolve) => runner.events.on('run.deleted', ({ id }) => resolve(id)));
    await app.dispatch('runs.delete', { id: deleted });
    expect(await stopped()).toBe(true);
    expect(runner.store.getSummary(deleted)).toBeNull();
    // The runner's windows drop it from their lists (they showed it running).
    expect(await Promise.race([told, new Promise((r) => setTimeout(() => r('no run.deleted'), 5000))])).toBe(deleted);

    // `packbench run` closes as soon as its runs are final, which a cancel elsewhere makes them at once:
    // the run stays cancelled (it was put back in the queue, and the app ran it again).
    const closing = (await runner.queue.enqueue(long)).runIds[0];
    await until(runner, (r) => r.id === closing && r.progress.done > 0);
    await app.dispatch('runs.cancel', { id: closing });
    await runner.close();
    expect(app.store.getSummary(closing)!.status).toBe('cancelled');
  });

  it('waitFor a run of this process that another one cancels resolves once its outcome is stored here (`packbench run` printed no metrics)', async () => {
    const { s: runner, dir } = setup({ autoStart: true });
    const app = alsoOn(dir);
    const id = (await runner.queue.enqueue(spec('long', { steps: 1_000_000, stepMs: 1 }))).runIds[0];
    await until(runner, (r) => r.id === id && r.progress.done > 0);
    await app.dispatch('runs.cancel', { id });
    // It resolved as soon as the store said 'cancelled', before the worker here had ended and
    // stored the run's metrics and wall time: 'cancelled: long (ID) in ? s' and no metrics.
    await runner.queue.waitFor([id]);
    const r = runner.store.getRun(id)!;
    expect(r.status).toBe('cancelled');
    expect(r.metrics.steps).toBeGreaterThan(0);
    expect(runner.pool.size).toBe(0);
  });

  it("counts the runs another process on the folder runs, and tells its subscribers when they start and end (the app said '0 running' beside `packbench run`)", async () => {
    // The runner as `packbench run` (its own runs; the folder's pause is not its own), the app paused: the run is the runner's.
    const mine = new Set<string>();
    const { s: runner, dir } = setup({ only: mine });
    const app = alsoOn(dir, { autoStart: true });
    app.queue.pause();
    const told: QueueState[] = [];
    app.events.on('queue.updated', (q) => void told.push(q));
    const id = (await runner.queue.enqueue(spec('long', { steps: 1_000_000, stepMs: 1 }))).runIds[0];
    mine.add(id);
    runner.queue.start();
    await until(runner, (r) => r.id === id && r.progress.done > 0);
    expect(runner.queue.state()).toMatchObject({ running: 1, runningElsewhere: 0 });
    expect(app.queue.state()).toMatchObject({ running: 0, runningElsewhere: 1 });
    await vi.waitFor(() => expect(told.at(-1)).toMatchObject({ running: 0, runningElsewhere: 1 }), { timeout: 5000, interval: 20 });
    await runner.dispatch('runs.cancel', { id });
    await vi.waitFor(() => expect(told.at(-1)).toMatchObject({ running: 0, runningElsewhere: 0 }), { timeout: 5000, interval: 20 });
  });

  it("refuses to pause or resume a run inside another process's worker, saying so (a resume started it a second time)", async () => {
    const { s: runner, dir } = setup({ autoStart: true });
    const app = alsoOn(dir, { autoStart: true });
    const id = (await runner.queue.enqueue(spec('long', { steps: 1_000_000, stepMs: 1 }))).runIds[0];
    await until(runner, (r) => r.id === id && r.progress.done > 0);
    const elsewhere = { code: 'conflict', message: expect.stringMatching(/another process on this data folder/) };
    await expect(app.dispatch('runs.pause', { id })).rejects.toMatchObject(elsewhere);
    await runner.dispatch('runs.pause', { id });
    await expect(app.dispatch('runs.resume', { id })).rejects.toMatchObject(elsewhere);
    expect(app.pool.size).toBe(0);
    expect(runner.store.getSummary(id)!.status).toBe('paused');
    // A paused run that waits in the queue (no worker) is resumed from anywhere.
    runner.queue.pause();
    const queued = (await runner.queue.enqueue(spec('queued', { steps: 3 }))).runIds[0];
    await runner.dispatch('runs.pause', { id: queued });
    expect((await app.dispatch('runs.resume', { id: queued })).status).not.toBe('paused');
  });

  it('starts runs queued by another process (the CLI adding to the app) without being told', async () => {
    const { s: app, dir } = setup({ autoStart: true });
    const seen = new Promise<RunSummary>((resolve) => app.events.on('run.updated', (r) => r.status === 'done' && resolve(r)));
    // A second set of services on the same folder, as `packbench queue add` opens it.
    const cli = fixtureServices(dir);
    const { runIds } = await cli.queue.enqueue({ engine: 'counter', name: 'from the cli', seed: 1, params: { steps: 3 } });
    await cli.close();
    expect((await seen).id).toBe(runIds[0]);
  });
});
