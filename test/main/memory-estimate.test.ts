import { describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER_BYTES } from '../../core/common/engine';
import { ballmillEngine } from '../../core/ballmill';
import { voxelEngine } from '../../core/voxel';
import { surfaceEngine } from '../../core/surface';
import { openServices } from '../../main/services/services';
import { defaultRegistry, EngineRegistry } from '../../main/services/engines';
import { formatBytes } from '../../main/services/pool';
import { counterEngine } from './fixtures/counter-engine';
import { COUNTER_WORKER } from './fixtures/registry';
import { afterEachTest, cliIn, fixtureServices } from './helpers';

const { later, dir } = afterEachTest();

const params = (size: number) => ({ box: { size: [size, size, size], resolution: 20 }, labelVolume: 'off' });

describe('the memory a run needs, before it runs', () => {
  it('runs.validate gives the largest run\'s estimate of a sweep and the budget', async () => {
    const s = openServices({ dataDir: dir('packbench-memory-'), registry: defaultRegistry(), autoStart: false, memoryBudgetBytes: 2 ** 30 });
    later(() => s.close());
    const sweep = { engine: 'voxel', name: 'm', seed: 1, params: { ...params(4), box: { size: { $sweep: [[4, 4, 4], [6, 6, 6]] }, resolution: 20 } } };
    const v = await s.dispatch('runs.validate', { spec: sweep });
    const largest = voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(6)));
    expect(v).toEqual({ runs: 2, memoryBytes: largest, threadsPerRun: 1, memoryBudgetBytes: 2 ** 30, warnings: [] });
    expect(largest).toBeGreaterThan(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))));
  });

  it('`queue add` prints the estimate against the budget; a run that cannot fit is refused there', async () => {
    const data = dir('packbench-memory-');
    const spec = (size: number) => {
      const file = join(data, `spec-${size}.json`);
      writeFileSync(file, JSON.stringify({ engine: 'voxel', name: 'm', seed: 1, params: params(size) }));
      return file;
    };
    const small = await cliIn(data, 'queue', 'add', spec(4));
    expect(small.code).toBe(0);
    const bytes = formatBytes(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))));
    expect(small.stderr).toMatch(new RegExp(`^memory: about ${bytes} \\(budget \\d+(\\.\\d)? GiB\\)$`, 'm'));
    const json = JSON.parse((await cliIn(data, '--json', 'queue', 'add', spec(4))).stdout);
    expect(json.memoryBytes).toBeGreaterThan(0);
    const huge = await cliIn(data, 'queue', 'add', spec(400));
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/params: the run needs about [\d.]+ GiB, more than the memory budget/);
    expect(huge.stderr).not.toMatch(/^memory:/m);
  });

  it('counts a worker for each helper thread of an engine that has them (voxel), none for one that has not (ball mill)', async () => {
    const s = openServices({ dataDir: dir('packbench-memory-'), registry: defaultRegistry(), autoStart: false, memoryBudgetBytes: 2 ** 32, threadsPerRun: 3 });
    later(() => s.close());
    const voxel = await s.dispatch('runs.validate', { spec: { engine: 'voxel', name: 'm', seed: 1, params: params(4) } });
    expect(voxel).toEqual({ runs: 1, memoryBytes: voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))) + 2 * WORKER_BYTES, threadsPerRun: 3, memoryBudgetBytes: 2 ** 32, warnings: [] });
    const mill = await s.dispatch('runs.validate', { spec: { engine: 'ballmill', name: 'm', seed: 1, params: {} } });
    // The ball mill runs on one thread whatever the queue's threads per run, and the answer says so.
    expect(mill).toEqual({ runs: 1, memoryBytes: ballmillEngine.estimateMemoryBytes(ballmillEngine.paramsSchema.parse({})), threadsPerRun: 1, memoryBudgetBytes: 2 ** 32, warnings: [] });
    // Refused over a budget, it is not said to need 3 threads, nor told to use fewer.
    const small = openServices({ dataDir: dir('packbench-memory-'), registry: defaultRegistry(), autoStart: false, memoryBudgetBytes: 2 ** 20, threadsPerRun: 3 });
    later(() => small.close());
    const refused = await small.dispatch('runs.validate', { spec: { engine: 'ballmill', name: 'm', seed: 1, params: {} } }).then(() => null, (e) => e);
    expect(refused?.issues).toEqual([{ path: 'spec.params', message: expect.stringMatching(/^the run needs about [\d.]+ MiB, more than the memory budget of 1\.0 MiB; use a smaller box, a coarser resolution or fewer particles$/) }]);
  });

  it("a surface run whose search shares nothing with helpers ('queries') is estimated, started and recorded on one thread at `run --threads 2`", async () => {
    const data = dir('packbench-memory-');
    const spec = (neighbourSearch: string) => {
      const file = join(data, `${neighbourSearch}.json`);
      writeFileSync(file, JSON.stringify({ engine: 'surface', name: neighbourSearch, seed: 1, params: { spacing: 0.3, neighbourSearch, voxelsAcross: 0 } }));
      return file;
    };
    const estimate = (neighbourSearch: string) => surfaceEngine.estimateMemoryBytes(surfaceEngine.paramsSchema.parse({ spacing: 0.3, neighbourSearch, voxelsAcross: 0 }));
    const queries = await cliIn(data, 'run', spec('queries'), '--threads', '2');
    expect(queries.code, queries.stderr).toBe(0);
    // It had said 'with 2 threads' and counted a helper's worker (96 MiB) that never started.
    expect(queries.stderr).toMatch(new RegExp(`^memory: about ${formatBytes(estimate('queries'))} \\(budget`, 'm'));
    // ... and said so: --threads 2 had been dropped without a word.
    expect(queries.stderr).toMatch(/^--threads 2: with these params the surface engine runs on one thread /m);
    // The 'cells' search shares its passes: two threads, and the helper's worker counted.
    const cells = await cliIn(data, 'run', spec('cells'), '--threads', '2');
    expect(cells.code, cells.stderr).toBe(0);
    expect(cells.stderr).toMatch(new RegExp(`^memory: about ${formatBytes(estimate('cells') + WORKER_BYTES)} with 2 threads \\(budget`, 'm'));
    expect(cells.stderr).not.toMatch(/^--threads/m);
    const s = openServices({ dataDir: data, registry: defaultRegistry(), autoStart: false });
    later(() => s.close());
    const runs = (await s.dispatch('runs.list', {})).rows;
    const record = (name: string) => s.store.getRun(runs.find((r) => r.name === name)!.id)!;
    // The record's threads (it had said 2) and the run's own threads metric agree.
    expect([record('queries').threads, record('queries').metrics.threads]).toEqual([1, 1]);
    expect(record('cells').threads).toBe(2);
  });

  it('admits a run with its helper threads\' workers: reserved while it runs, refused when they do not fit', async () => {
    // The fixture engine with a helper, as the voxel and surface engines have: each of its runs starts threads - 1 more workers.
    const registry = new EngineRegistry([{ definition: { ...counterEngine, helper: () => {} }, workerEntry: COUNTER_WORKER }]);
    const budget = 512 * 2 ** 20;
    const s = fixtureServices(dir('packbench-memory-'), { registry, memoryBudgetBytes: budget, threadsPerRun: 2, autoStart: true });
    later(() => s.close());
    const spec = (memoryBytes: number) => ({ engine: 'counter', name: 'm', seed: 1, params: { memoryBytes, steps: 1000, stepMs: 5 } });
    const id = (await s.dispatch('runs.enqueue', { spec: spec(100 * 2 ** 20) })).runIds[0];
    await vi.waitFor(() => expect(s.pool.get(id)).toBeDefined(), { timeout: 10_000, interval: 10 });
    // The run and its helper's worker, beside the spec check's worker kept idle for the next check.
    expect(s.pool.reservedBytes()).toBe(100 * 2 ** 20 + WORKER_BYTES + WORKER_BYTES);
    await s.dispatch('runs.cancel', { id });
    // Fits alone, but not with the worker of its helper thread.
    const refused = await s.dispatch('runs.enqueue', { spec: spec(budget - WORKER_BYTES / 2) }).then(() => null, (e) => e);
    expect(refused?.issues).toEqual([{ path: 'spec.params', message: 'the run needs about 560.0 MiB with 2 threads, more than the memory budget of 512.0 MiB; use a smaller box, a coarser resolution, fewer threads per run or fewer particles' }]);
  });

  it("holds a worker's bytes of the budget while a spec's checks run in their worker: never refused for it, and runs wait for them", async () => {
    const budget = 512 * 2 ** 20;
    const s = fixtureServices(dir('packbench-memory-'), { memoryBudgetBytes: budget, autoStart: true });
    later(() => s.close());
    const spec = (params: Record<string, unknown>) => ({ engine: 'counter', name: 'm', seed: 1, params });
    // Each check lasts until the test has looked and writes its gate file (checkUntil), however slow the machine.
    const gates = dir('packbench-memory-gates-');
    // A run holds the whole budget: a form's check still runs, in a worker of its own, and counts it.
    const whole = (await s.dispatch('runs.enqueue', { spec: spec({ memoryBytes: budget, steps: 100_000, stepMs: 5 }) })).runIds[0];
    await vi.waitFor(() => expect(s.pool.get(whole)).toBeDefined(), { timeout: 10_000, interval: 10 });
    const check = s.dispatch('runs.validate', { spec: spec({ checkUntil: join(gates, 'first') }) });
    await vi.waitFor(() => expect(s.pool.reservedBytes()).toBe(budget + WORKER_BYTES), { timeout: 10_000, interval: 10 });
    writeFileSync(join(gates, 'first'), '');
    expect((await check).runs).toBe(1);
    expect(s.pool.reservedBytes()).toBe(budget);
    await s.dispatch('runs.cancel', { id: whole });
    await vi.waitFor(() => expect(s.pool.reservedBytes()).toBe(0), { timeout: 10_000, interval: 10 });
    // A run that fits the budget alone, but not beside a checking worker, starts once the check ends.
    let checked = false;
    const slow = s.dispatch('runs.validate', { spec: spec({ checkUntil: join(gates, 'slow') }) }).then(() => (checked = true));
    await vi.waitFor(() => expect(s.pool.reservedBytes()).toBe(WORKER_BYTES), { timeout: 10_000, interval: 10 });
    const waits = (await s.dispatch('runs.enqueue', { spec: spec({ memoryBytes: budget - WORKER_BYTES / 2, steps: 100_000, stepMs: 5 }) })).runIds[0];
    expect(checked).toBe(false);
    expect(s.pool.get(waits)).toBeUndefined();
    writeFileSync(join(gates, 'slow'), '');
    await slow;
    await vi.waitFor(() => expect(s.pool.get(waits)).toBeDefined(), { timeout: 10_000, interval: 10 });
    await s.dispatch('runs.cancel', { id: waits });
  });

  it("an import holds its worker's bytes beside what it allocates, and a worker kept idle for the next task holds them until a run needs the room", async () => {
    const budget = 512 * 2 ** 20;
    const s = fixtureServices(dir('packbench-memory-'), { memoryBudgetBytes: budget, autoStart: true });
    later(() => s.close());
    const spec = (memoryBytes: number) => ({ engine: 'counter', name: 'm', seed: 1, params: { memoryBytes, steps: 100_000, stepMs: 5 } });
    const csv = 'x,y,z,r\n1,1,1,0.5\n2,2,1,0.5\n';
    // A run leaves a worker's bytes free: room for what the import allocates (about 60 MB), not for its worker beside it.
    const run = (await s.dispatch('runs.enqueue', { spec: spec(budget - WORKER_BYTES) })).runIds[0];
    await vi.waitFor(() => expect(s.pool.get(run)).toBeDefined(), { timeout: 10_000, interval: 10 });
    expect(await s.dispatch('runs.importSpheres', { name: 'beside', csv, source: 'beds.csv' }).then(() => null, (e) => e)).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/^beds\.csv: the import needs about 1\d\d\.\d MiB; runs hold all but 96\.0 MiB of the memory budget now: try again when they finish$/),
    });
    await s.dispatch('runs.cancel', { id: run });
    // The spec check's worker, kept idle for the next check.
    await vi.waitFor(() => expect(s.pool.reservedBytes()).toBe(WORKER_BYTES), { timeout: 10_000, interval: 10 });
    expect((await s.dispatch('runs.importSpheres', { name: 'alone', csv, source: 'beds.csv' })).status).toBe('done');
    // And the import's, kept for the next import.
    expect(s.pool.reservedBytes()).toBe(2 * WORKER_BYTES);
    // A run needing the whole budget starts: the idle workers are let go for it.
    const whole = (await s.dispatch('runs.enqueue', { spec: spec(budget) })).runIds[0];
    await vi.waitFor(() => expect(s.pool.get(whole)).toBeDefined(), { timeout: 10_000, interval: 10 });
    expect(s.pool.reservedBytes()).toBe(budget);
    await s.dispatch('runs.cancel', { id: whole });
  });

  it("`queue add` estimates for the folder's threads per run, with which the app will run it", async () => {
    const data = dir('packbench-memory-');
    const app = openServices({ dataDir: data, registry: defaultRegistry(), autoStart: false });
    await app.dispatch('queue.setThreadsPerRun', { threads: 3 });
    await app.close();
    const file = join(data, 'spec.json');
    writeFileSync(file, JSON.stringify({ engine: 'voxel', name: 'm', seed: 1, params: params(4) }));
    const r = await cliIn(data, 'queue', 'add', file);
    expect(r.code, r.stderr).toBe(0);
    const bytes = formatBytes(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))) + 2 * WORKER_BYTES);
    expect(r.stderr).toMatch(new RegExp(`^memory: about ${bytes} with 3 threads \\(budget`, 'm'));
  });

  it("`runs rerun` checks the budget at the folder's threads per run, with which the app will run it", async () => {
    const data = dir('packbench-memory-');
    const app = openServices({ dataDir: data, registry: defaultRegistry(), autoStart: false });
    await app.dispatch('queue.setThreadsPerRun', { threads: 3 });
    const { runIds } = await app.dispatch('runs.enqueue', { spec: { engine: 'voxel', name: 'm', seed: 1, params: params(4) } });
    await app.close();
    const r = await cliIn(data, 'runs', 'rerun', runIds[0], '--set', 'params.box.size=[3000,3000,3000]');
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/^ {2}params \(with --set\): the run needs about [\d.]+ TiB with 3 threads, more than the memory budget/m)]);
    // Queued, it says its estimate as `queue add` does: on stderr, and with --json in the answer.
    const bytes = voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))) + 2 * WORKER_BYTES;
    const again = await cliIn(data, 'runs', 'rerun', runIds[0]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^memory: about ${formatBytes(bytes)} with 3 threads \\(budget \\d+(\\.\\d)? GiB\\)$`, 'm'));
    const json = await cliIn(data, '--json', 'runs', 'rerun', runIds[0]);
    expect(JSON.parse(json.stdout)).toMatchObject({ memoryBytes: bytes, threadsPerRun: 3, memoryBudgetBytes: expect.any(Number) });
  });

  it('`run --threads 2` prints the estimate with the voxel run\'s helper worker counted', async () => {
    const data = dir('packbench-memory-');
    const file = join(data, 'spec.json');
    writeFileSync(file, JSON.stringify({ engine: 'voxel', name: 'm', seed: 1, params: { ...params(2), stop: { particles: 1 }, analysis: { enabled: false } } }));
    const r = await cliIn(data, 'run', file, '--threads', '2');
    expect(r.code, r.stderr).toBe(0);
    const bytes = formatBytes(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse({ ...params(2), stop: { particles: 1 }, analysis: { enabled: false } })) + WORKER_BYTES);
    expect(r.stderr).toMatch(new RegExp(`^memory: about ${bytes} with 2 threads \\(budget \\d+(\\.\\d)? GiB\\)$`, 'm'));
  });
});
