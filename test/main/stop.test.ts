/**
 * Stop and keep (runs.stop): a running run ends at its engine's next safe point and is done with its
 * artifacts; refused, naming why, where there is nothing to stop or keep. The fixture engine here;
 * each engine's own stop (valid artifacts by its independent checks) in test/main/stop-engines.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { decodeTable } from '../../core/io/container';
import type { Services } from '../../main/services/services';
import { EngineRegistry } from '../../main/services/engines';
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
