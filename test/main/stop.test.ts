/**
 * Stop and keep (runs.stop): a running run ends at its engine's next safe point and is done with its
 * artifacts; refused, naming why, where there is nothing to stop or keep. The fixture engine here;
 * each engine's own stop (valid artifacts by its independent checks) in test/main/stop-engines.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { decodeTable } from '../../core/io/container';
import { Random } from '../../core/common/random';
import type { Services } from '../../main/services/services';
import { workingSeconds, type RunSummary } from '../../main/api';
import { EngineRegistry } from '../../main/services/engines';
import { STOP_REQUEST_FILE } from '../../main/services/queue';
import { RunStore } from '../../main/services/store';
import { saveCheckpoint } from '../../main/workers/checkpoint';
import { counterEngine } from './fixtures/counter-engine';
import { COUNTER_WORKER } from './fixtures/registry';
import { afterEachTest, cliIn, fixtureServices, rejection, until } from './helpers';

const { later, dir } = afterEachTest();

function services(o: Parameters<typeof fixtureServices>[1] = {}, data = dir()): Services {
  const s = fixtureServices(data, o);
  later(() => s.close());
  return s;
}

const long = { engine: 'counter', name: 'long', seed: 1, params: { steps: 1_000_000, stepMs: 1 } };

/** Checks a run stopped by the user: done, where it stopped in its log, and its particle table readable. */
async function expectStoppedAndKept(s: Services, id: string): Promise<void> {
  const r = await s.dispatch('runs.get', { id });
  expect([r.status, r.error]).toEqual(['done', null]);
  expect(r.metrics.steps as number).toBeGreaterThan(0);
  expect(r.metrics.steps as number).toBeLessThan(1_000_000);
  expect(r.log).toContain(`stopped by user at step ${r.metrics.steps} of 1000000`);
  const arts = await s.dispatch('runs.artifacts', { id });
  expect(arts.map((a) => a.name)).toEqual(['particles']);
  expect(decodeTable(readFileSync(arts[0].path)).columns.x.length).toBe(5);
}

describe('runs.stop', () => {
  it('ends a running run at its next safe point: done, with its artifacts and where it stopped in its log', async () => {
    const s = services({ autoStart: true });
    const id = (await s.dispatch('runs.enqueue', { spec: long })).runIds[0];
    await until(s, (r) => r.id === id && r.progress.done > 0);
    await s.dispatch('runs.stop', { id });
    await s.queue.waitFor([id]);
    await expectStoppedAndKept(s, id);
  });

  it('wakes a paused run, which then ends done (shown running while it finishes, never paused again)', async () => {
    const s = services({ autoStart: true });
    const id = (await s.dispatch('runs.enqueue', { spec: long })).runIds[0];
    await until(s, (r) => r.id === id && r.progress.done > 0);
    await s.dispatch('runs.pause', { id });
    const statuses: string[] = [];
    s.events.on('run.updated', (r) => r.id === id && statuses.push(r.status));
    await s.dispatch('runs.stop', { id });
    await s.queue.waitFor([id]);
    expect(statuses).toContain('running');
    expect(statuses).not.toContain('paused');
    await expectStoppedAndKept(s, id);
  });

  it('stops a run working in another process on the folder (`packbench runs stop` beside the app) within a poll', async () => {
    const data = dir();
    const runner = services({ autoStart: true }, data);
    const app = services({}, data);
    const id = (await runner.dispatch('runs.enqueue', { spec: long })).runIds[0];
    await until(runner, (r) => r.id === id && r.progress.done > 0);
    expect((await app.dispatch('runs.stop', { id })).status).toBe('running');
    await runner.queue.waitFor([id]);
    await expectStoppedAndKept(runner, id);
  });

  it('refuses, naming why: an unknown id, a finished run, a queued run (nothing to keep yet), an engine that cannot stop early, a stopping run paused', async () => {
    const s = services({ autoStart: true });
    expect(await rejection(s.dispatch('runs.stop', { id: 'nope' }))).toMatchObject({ code: 'not_found', message: expect.stringContaining("'nope'") });
    // The payload is validated as every other: no id, no call.
    expect(await rejection(s.dispatch('runs.stop', {} as never))).toMatchObject({ code: 'invalid' });

    const short = (await s.dispatch('runs.enqueue', { spec: { ...long, params: { steps: 3 } } })).runIds[0];
    await s.queue.waitFor([short]);
    expect(await rejection(s.dispatch('runs.stop', { id: short }))).toMatchObject({ code: 'conflict', message: `run ${short} is already done: only a running or paused run can be stopped` });

    s.queue.pause();
    const queued = (await s.dispatch('runs.enqueue', { spec: long })).runIds[0];
    expect(await rejection(s.dispatch('runs.stop', { id: queued }))).toMatchObject({ code: 'conflict', message: `run ${queued} has not started: it has nothing to keep yet; cancel it to take it out of the queue` });
    expect((await s.dispatch('runs.get', { id: queued })).status).toBe('queued');

    s.queue.resume();
    await until(s, (r) => r.id === queued && r.progress.done > 0);
    await s.dispatch('runs.stop', { id: queued });
    expect(await rejection(s.dispatch('runs.pause', { id: queued }))).toMatchObject({ code: 'conflict', message: expect.stringContaining('is stopping') });
    await s.queue.waitFor([queued]);
    expect((await s.dispatch('runs.get', { id: queued })).status).toBe('done');

    // An engine that does not declare stopAndKeep: its runs only cancel, and engines.list says so.
    const plain = services({ autoStart: true, registry: new EngineRegistry([{ definition: { ...counterEngine, stopAndKeep: undefined }, workerEntry: COUNTER_WORKER }]) });
    expect((await plain.dispatch('engines.list', {}))[0].stopAndKeep).toBeNull();
    const id = (await plain.dispatch('runs.enqueue', { spec: long })).runIds[0];
    await until(plain, (r) => r.id === id && r.progress.done > 0);
    expect(await rejection(plain.dispatch('runs.stop', { id }))).toMatchObject({
      code: 'conflict',
      message: `run ${id}: the engine 'counter' cannot end a run early with a meaningful result, so its runs cannot be stopped and kept; cancel it instead`,
    });
    expect((await plain.dispatch('runs.get', { id })).status).toBe('running');
  });
});

describe('closing while a run is stopping (the app quits, the web host or `queue run` gets Ctrl-C after Stop)', () => {
  const enqueue = async (s: Services, params: Record<string, unknown>, priority = 0) => (await s.dispatch('runs.enqueue', { spec: { ...long, params }, priority })).runIds[0];

  /**
   * The state a process that ended while its runs were stopping (kill -9, a second Ctrl-C) leaves in
   * `data`: the runs `ids` marked running by a pid that no longer exists, the stop-request file
   * runs.stop writes in their folders; those of `checkpointed` with a checkpoint at step 40.
   */
  function endedWhileStopping(data: string, ids: string[], checkpointed: string[]): void {
    const store = new RunStore(join(data, 'packbench.db'));
    for (const id of ids) {
      expect(store.claim(id, { host: null, threads: 1, appVersion: 't', owner: `${hostname()}:2147483646` })).toBe(true);
      mkdirSync(join(data, 'runs', id), { recursive: true });
      writeFileSync(join(data, 'runs', id, STOP_REQUEST_FILE), '');
    }
    store.close();
    for (const id of checkpointed) saveCheckpoint(join(data, 'runs', id), { meta: { step: 40, sum: 20 }, arrays: { rng: new Random(1).getState() } });
  }

  it('the close waits for the stopping run: it ends done with its results, not re-queued to run again', async () => {
    const data = dir();
    const finish = join(data, 'finish');
    const s = services({ autoStart: true }, data);
    const id = await enqueue(s, { ...long.params, finishUntil: finish });
    await until(s, (r) => r.id === id && r.progress.done > 0);
    await s.dispatch('runs.stop', { id });
    const closed = s.close();
    // The run's work after its main loop ends only now, after the close began: the close waited for it.
    writeFileSync(finish, '');
    await closed;
    await expectStoppedAndKept(services({}, data), id);
  });

  it('a stop the close could not wait for is not lost: at the next start the run resumes from its checkpoint only to end there, done as stopped', async () => {
    const data = dir();
    const finish = join(data, 'finish');
    const first = services({ autoStart: true, stopGraceMs: 0 }, data);
    const id = await enqueue(first, { steps: 2000, stepMs: 1, checkpointEvery: 50, finishUntil: finish });
    await until(first, (r) => r.id === id && r.progress.done > 100);
    await first.dispatch('runs.stop', { id });
    await first.close();
    writeFileSync(finish, '');
    const second = services({ autoStart: true }, data);
    await second.queue.waitFor([id]);
    const r = await second.dispatch('runs.get', { id });
    expect([r.status, r.error]).toEqual(['done', null]);
    const log = r.log.join('\n');
    expect(log).toMatch(/interrupted while stopping: the app closed before the run had kept its results; re-queued to resume from its last checkpoint and end there/);
    const resumedAt = Number(/resumed from the checkpoint at step (\d+)/.exec(log)?.[1]);
    expect(resumedAt).toBeGreaterThanOrEqual(100);
    expect(log).toContain(`stopped by user at step ${resumedAt} of 2000`);
    expect(r.metrics.steps).toBe(resumedAt);
    expect((await second.dispatch('runs.artifacts', { id })).map((a) => a.name)).toEqual(['particles']);
  });

  it('without a checkpoint the stopping run has nothing to keep: it ends cancelled, saying so, and is not run again', async () => {
    const data = dir();
    const first = services({ autoStart: true, stopGraceMs: 0 }, data);
    const id = await enqueue(first, { ...long.params, finishUntil: join(data, 'never') });
    await until(first, (r) => r.id === id && r.progress.done > 0);
    await first.dispatch('runs.stop', { id });
    await first.close();
    const r = await services({ autoStart: true }, data).dispatch('runs.get', { id });
    expect(r.status).toBe('cancelled');
    expect(r.error).toBe('stopped by user, but the app closed before the run had kept its results, and it had no checkpoint to keep them from: nothing was kept');
    // What it had counted stays, as a cancelled run's metrics do.
    expect(r.metrics.steps as number).toBeGreaterThan(0);
  });

  it('a process that ended while its runs were stopping (kill -9, a second Ctrl-C): the next start honours the stops, from a checkpoint or as cancelled', async () => {
    const data = dir();
    const first = services({}, data);
    const withCheckpoint = await enqueue(first, { steps: 100, checkpointEvery: 10 });
    const without = await enqueue(first, { steps: 100 });
    await first.close();
    endedWhileStopping(data, [withCheckpoint, without], [withCheckpoint]);

    // Meanwhile a read-only look (`packbench queue list`, `runs show` beside the app) shows each as the next start will leave it.
    const reader = services({ readOnly: true }, data);
    const shown = await reader.dispatch('runs.get', { id: withCheckpoint });
    expect([shown.status, shown.startedAt]).toEqual(['queued', null]);
    expect(shown.log.at(-1)).toMatch(/^interrupted while stopping: the process running it has ended before the run had kept its results; it resumes from its last checkpoint only to end there, as stopped \(stop and keep\), before the other queued runs/);
    const nothing = await reader.dispatch('runs.get', { id: without });
    expect([nothing.status, nothing.error]).toEqual(['cancelled', 'stopped by user, but the process running it ended before the run had kept its results, and it had no checkpoint to keep them from: nothing was kept']);
    const listed = async (status: 'queued' | 'cancelled') => (await reader.dispatch('runs.list', { filter: { status: [status] } })).rows.map((r) => r.id);
    expect([await listed('queued'), await listed('cancelled')]).toEqual([[withCheckpoint], [without]]);
    expect((await reader.dispatch('queue.state', {})).queued).toBe(1);

    const second = services({ autoStart: true }, data);
    expect(second.recovered).toEqual([withCheckpoint]);
    await second.queue.waitFor([withCheckpoint]);
    const r = await second.dispatch('runs.get', { id: withCheckpoint });
    expect([r.status, r.error, r.metrics.steps]).toEqual(['done', null, 40]);
    expect(r.log.join('\n')).toMatch(/interrupted while stopping: the process running it ended[^]*resumed from the checkpoint at step 40[^]*stopped by user at step 40 of 100/);
    const c = await second.dispatch('runs.get', { id: without });
    expect([c.status, c.error]).toEqual(['cancelled', 'stopped by user, but the process running it ended before the run had kept its results, and it had no checkpoint to keep them from: nothing was kept']);
    // Its time worked is not known (its process is gone): the queue's Time says so, not the time since it started, growing.
    expect([c.wallSeconds, workingSeconds(c, Date.now() + 3_600_000)]).toEqual([null, null]);
  });

  it('a run re-queued to end as stopped starts first, even when the queue is paused and a run of a higher priority waits', async () => {
    const data = dir();
    const first = services({}, data);
    const stopped = await enqueue(first, { steps: 100, checkpointEvery: 10 });
    const waiting = await enqueue(first, { steps: 3 }, 5);
    first.queue.pause();
    await first.close();
    endedWhileStopping(data, [stopped], [stopped]);
    // `queue list` (read-only) says so: it starts first.
    const listed = JSON.parse((await cliIn(data, '--json', 'queue', 'list')).stdout) as RunSummary[];
    expect(listed.map((r) => [r.id, r.status])).toEqual([[stopped, 'queued'], [waiting, 'queued']]);

    // The app (or the web host) starts on the paused folder.
    const second = services({ autoStart: true }, data);
    await second.queue.waitFor([stopped]);
    const r = await second.dispatch('runs.get', { id: stopped });
    expect([r.status, r.error, r.metrics.steps]).toEqual(['done', null, 40]);
    expect(r.log.join('\n')).toMatch(/end there, as stopped \(stop and keep\), before the other queued runs/);
    // The pause holds the others.
    expect(second.queue.state()).toMatchObject({ paused: true, queued: 1 });
    expect((await second.dispatch('runs.get', { id: waiting })).status).toBe('queued');

    // One that another process re-queued so (a `packbench` command that opened the folder first) starts at the next poll.
    const elsewhere = await enqueue(second, { steps: 100, checkpointEvery: 10 });
    mkdirSync(join(data, 'runs', elsewhere), { recursive: true });
    writeFileSync(join(data, 'runs', elsewhere, STOP_REQUEST_FILE), '');
    saveCheckpoint(join(data, 'runs', elsewhere), { meta: { step: 40, sum: 20 }, arrays: { rng: new Random(1).getState() } });
    const other = new RunStore(join(data, 'packbench.db'));
    other.transaction(() => {
      other.claim(elsewhere, { host: null, threads: 1, appVersion: 't', owner: `${hostname()}:2147483646` });
      other.requeue(elsewhere, 'interrupted while stopping (by the test)');
    });
    other.close();
    await second.queue.waitFor([elsewhere]);
    expect((await second.dispatch('runs.get', { id: elsewhere })).metrics.steps).toBe(40);
    expect((await second.dispatch('runs.get', { id: waiting })).status).toBe('queued');
  });
});

describe('packbench runs stop / runs cancel', () => {
  it('stop: 2 for an unknown id, 3 for a finished run, each naming why; cancel of a queued run: 0', async () => {
    const data = dir();
    const s = services({}, data);
    const done = (await s.dispatch('runs.enqueue', { spec: { ...long, params: { steps: 2 } } })).runIds[0];
    s.queue.start();
    await s.queue.waitFor([done]);
    s.queue.pause();
    const queued = (await s.dispatch('runs.enqueue', { spec: long })).runIds[0];

    const unknown = await cliIn(data, '--json', 'runs', 'stop', 'nope');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.message).toBe("no run with id 'nope'");
    const finished = await cliIn(data, 'runs', 'stop', done);
    expect(finished.code).toBe(3);
    expect(finished.stderr).toBe(`packbench: run ${done} is already done: only a running or paused run can be stopped\n`);

    const cancel = await cliIn(data, 'runs', 'cancel', queued);
    expect([cancel.code, cancel.stdout]).toEqual([0, `cancelled ${queued}\n`]);
    expect((await s.dispatch('runs.get', { id: queued })).status).toBe('cancelled');
  });
});
