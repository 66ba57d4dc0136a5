/**
 * The API surface every client sees: payload validation with field paths, the engine list the
 * forms are built from, the shape library, the handler table covering every method of the contract.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_PARAMS_VALUES, METHOD_NAMES, paramsSchemas, type MethodName } from '../../main/api';
import { EngineRegistry, defaultRegistry } from '../../main/services/engines';
import { createDispatch, createHandlers } from '../../main/services/handlers';
import { openServices, type Services } from '../../main/services/services';
import { largeTableRun, tempDir } from './helpers';
import { counterEngine } from './fixtures/counter-engine';
import { COUNTER_WORKER } from './fixtures/registry';
import { voxelEngine } from '../../core/voxel/index';
import { encodeVolume } from '../../core/io/container';
import type { CheckTask } from '../../main/workers/protocol';

const root = fileURLToPath(new URL('../..', import.meta.url));
let s: Services;
const t = tempDir();
beforeAll(() => {
  const registry = new EngineRegistry([...defaultRegistry().ids().map((id) => defaultRegistry().get(id)), { definition: counterEngine, workerEntry: COUNTER_WORKER }]);
  s = openServices({ dataDir: t.dir, registry });
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

async function rejection(method: MethodName, params: unknown): Promise<{ code: string; issues?: { path: string; message: string }[]; message: string }> {
  try {
    await s.dispatch(method, params);
  } catch (err) {
    return err as never;
  }
  throw new Error(`${method} accepted ${JSON.stringify(params)}`);
}

describe('API contract', () => {
  it('has a schema and a handler for every method', () => {
    const handlers = createHandlers(s);
    expect(Object.keys(handlers).sort()).toEqual([...METHOD_NAMES].sort());
    expect(Object.keys(paramsSchemas).sort()).toEqual([...METHOD_NAMES].sort());
  });

  it('rejects bad payloads with the path and message of each field', async () => {
    expect(await rejection('runs.list', { offset: -1, limit: 0 })).toMatchObject({
      code: 'invalid',
      issues: [
        { path: 'offset', message: 'must be a whole number in [0, ∞), got -1' },
        { path: 'limit', message: 'must be a whole number in [1, 10000], got 0' },
      ],
    });
    expect(await rejection('runs.enqueue', { spec: { engine: 'voxel', name: '', seed: 2 ** 32 } })).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'spec.name' }, { path: 'spec.seed', message: expect.stringMatching(/4294967295/) }],
    });
    // At its place in the request, as every other issue (it said 'engine').
    const nope = { spec: { engine: 'nope', name: 'x' } };
    for (const [method, params] of [['runs.enqueue', nope], ['runs.validate', nope], ['presets.save', { name: 'p', ...nope }]] as const) {
      expect(await rejection(method, params)).toMatchObject({ code: 'invalid', issues: [{ path: 'spec.engine', message: expect.stringMatching(/^unknown engine 'nope'; known: voxel, /) }] });
    }
    expect(await rejection('runs.enqueue', { spec: { engine: 'voxel', name: 'x', params: { box: { resolution: 0 } } } })).toMatchObject({
      code: 'invalid',
      issues: expect.arrayContaining([{ path: 'spec.params.box.resolution', message: expect.any(String) }]),
    });
    expect(await rejection('queue.setConcurrency', { concurrency: 0 })).toMatchObject({ issues: [{ path: 'concurrency' }] });
    expect(await rejection('queue.setThreadsPerRun', { threads: 1.5 })).toMatchObject({ issues: [{ path: 'threads' }] });
    expect(await rejection('runs.slice', { id: 'x', axis: 'w', index: 0 })).toMatchObject({ issues: [{ path: 'axis' }] });
    // It was 'internal: too many SQL variables', after seconds of work.
    expect(await rejection('runs.list', { filter: { status: Array(40_000).fill('done') } })).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'filter.status', message: 'has 40000 entries; allowed: 0 to 6' }],
    });
    expect(await rejection('nope.method' as MethodName, {})).toMatchObject({ code: 'not_found' });
    expect(await rejection('runs.get', { id: 'missing' })).toMatchObject({ code: 'not_found' });
    // Nothing was stored by the rejected calls.
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it("answers a fault of ours (a typed array's RangeError inside a service) as 'internal' with its stack in the log, not as bad input", async () => {
    const handlers = createHandlers(s);
    const dispatch = createDispatch({ ...handlers, 'runs.list': () => ({ rows: [], total: new Float64Array(-1).length, next: null }) });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const err = await dispatch('runs.list', {}).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'internal', message: expect.stringMatching(/Invalid typed array length/) });
      expect(log).toHaveBeenCalledWith(expect.stringMatching(/runs\.list[^]*RangeError: Invalid typed array length[^]*\n\s+at /));
    } finally {
      log.mockRestore();
    }
  });

  it('refuses unknown fields at every level, naming the one meant when it is close, and short tuples', async () => {
    const enqueue = (spec: Record<string, unknown>) => rejection('runs.enqueue', { spec: { engine: 'voxel', name: 'x', ...spec } });
    expect(await enqueue({ parms: {} })).toMatchObject({ code: 'invalid', issues: [{ path: 'spec.parms', message: "unknown field 'parms' (did you mean 'params'?)" }] });
    expect(await enqueue({ params: { reboundProbabilty: 0.3 } })).toMatchObject({
      issues: [{ path: 'spec.params.reboundProbabilty', message: "unknown field 'reboundProbabilty' (did you mean 'reboundProbability'?)" }],
    });
    expect(await enqueue({ params: { box: { sizes: [4, 4, 4] } } })).toMatchObject({ issues: [{ path: 'spec.params.box.sizes', message: "unknown field 'sizes' (did you mean 'size'?)" }] });
    expect(await enqueue({ params: { box: { size: [4, 4] } } })).toMatchObject({ issues: [{ path: 'spec.params.box.size', message: 'must have 3 entries, got 2' }] });
    // Inside arrays and discriminated unions; far from every field: the list of known ones.
    expect(await enqueue({ params: { mixture: { types: [{}, { size: { law: 'uniform', min: 1, max: 2, mean: 1.5 } }] } } })).toMatchObject({
      issues: [{ path: 'spec.params.mixture.types.1.size.mean', message: "unknown field 'mean'; known fields: law, min, max" }],
    });
    // '__proto__' as JSON.parse makes it (an own field), at any level: unknown like any other.
    expect(await enqueue({ params: JSON.parse('{"box": {"__proto__": 5}}') })).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'spec.params.box.__proto__', message: expect.stringMatching(/^unknown field '__proto__'/) }],
    });
    // The spec's params are a record (zod copied it, and the key became the copy's prototype).
    expect(await enqueue({ params: JSON.parse('{"__proto__": {"x": 1}}') })).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'spec.params.__proto__', message: "'__proto__' is not allowed as a field name" }],
    });
    expect(await rejection('runs.validate', JSON.parse('{"spec": {"engine": "voxel", "name": "x", "__proto__": {}}}'))).toMatchObject({ issues: [{ path: 'spec.__proto__' }] });
    expect(await rejection('runs.list', { limit: 5, fliter: {} })).toMatchObject({ issues: [{ path: 'fliter', message: "unknown field 'fliter' (did you mean 'filter'?)" }] });
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it('names an unknown field or a wrong choice of millions of characters without a table of its length, in 64 MB of heap', () => {
    // The field meant was looked for by an edit-distance table of the name's length for each known
    // field: a 12 MB field name in one call ran the web host (or the app's main process) out of memory.
    const script = `
      import { parseParams } from './main/api.ts';
      const long = 'x'.repeat(4_000_000);
      for (const [method, params] of [['runs.list', { [long]: 1 }], ['runs.slice', { id: 'r', axis: long, index: 0 }]]) {
        try { parseParams(method, params); } catch (e) { console.log(e.issues[0].path.slice(0, 5), e.issues[0].message.slice(0, 23)); }
      }`;
    const r = spawnSync(process.execPath, ['--max-old-space-size=64', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual(["xxxxx unknown field 'xxxxxxxx", "axis must be one of 'x', 'y'", '']);
  });

  it('quotes a long name the caller typed by its start and length, so that its refusal stays small', async () => {
    // Quoted whole (path, message, and both again in the error's text), a 140 MB unknown field name
    // made a refusal past the longest string V8 makes: the caller got 'internal: cannot be sent'.
    const long = 'x'.repeat(4_000_000);
    const clipped = `'${'x'.repeat(40)}…' (4,000,000 characters)`;
    const spec = JSON.parse(readFileSync(join(root, 'resources', 'examples', 'ballmill-3d.json'), 'utf8')) as { params: Record<string, unknown> };
    const refusals = [
      [await rejection('runs.list', { [long]: 1 }), { path: `${'x'.repeat(40)}…`, message: `unknown field ${clipped}; known fields: offset, after, limit, sort, filter` }],
      [await rejection('runs.validate', { spec: { ...spec, params: { ...spec.params, cdo: long } } }), { path: 'spec.params.cdo', message: expect.stringContaining(`, got ${clipped}`) }],
      // A datetime takes any number of digits after its seconds: both were quoted whole twice, 4 times the call.
      [await rejection('runs.list', { filter: { createdFrom: `2026-11-02T00:00:00.${'1'.repeat(4_000_000)}Z`, createdTo: '2026-11-01T00:00:00Z' } }), { path: 'filter.createdTo', message: `must not be before createdFrom ('2026-11-02T00:00:00.${'1'.repeat(20)}…' (4,000,021 characters)), got '2026-11-01T00:00:00Z'` }],
      // A seed of a sweep given as text, and a sweep's unknown field (zod's words quoted it whole).
      [await rejection('runs.validate', { spec: { ...spec, seed: { $sweep: [1, long] } } }), { path: 'spec.seed.$sweep.1', message: `must be a whole number in [0, 4294967295], got the text "${'x'.repeat(40)}…"` }],
      [await rejection('runs.validate', { spec: { ...spec, params: { ...spec.params, cdo: { $sweep: { from: 1, to: 2, steps: 2, [long]: 1 } } } } }), { path: 'spec.params.cdo.$sweep', message: expect.stringContaining(`unknown field ${clipped}; known fields: from, to, steps; a sweep is `) }],
      // Engine ids are at most 100 characters: one of 80 is quoted by its start too.
      [await rejection('runs.validate', { spec: { ...spec, engine: 'y'.repeat(80) } }), { path: 'spec.engine', message: expect.stringContaining(`unknown engine '${'y'.repeat(40)}…' (80 characters); known: `) }],
    ] as const;
    for (const [refusal, issue] of refusals) {
      expect(refusal).toMatchObject({ code: 'invalid', issues: [issue] });
      expect(JSON.stringify(refusal).length).toBeLessThan(1_000);
    }
    expect(await rejection(long as MethodName, {})).toMatchObject({ code: 'not_found', message: `unknown method ${clipped}` });
    // Short names are quoted whole, as before.
    expect(await rejection('runs.list', { fliter: {} })).toMatchObject({ issues: [{ message: "unknown field 'fliter' (did you mean 'filter'?)" }] });
  });

  it('takes a field set to undefined as not written, in strict objects too (the app\'s IPC keeps such fields, JSON drops them)', async () => {
    // The strict objects' validation returned nothing for them: the handler then ran on undefined
    // ('internal: Cannot read properties of undefined', the ball mill's checks failing in their worker).
    const v = { size: 2, resolution: 30, reductionThreshold: 1 };
    expect((await s.dispatch('shapes.create', { name: 'kept', shape: { kind: 'sphere' }, voxelisation: { ...v, stale: undefined } as typeof v })).voxelisation).toEqual(v);
    const spec = JSON.parse(readFileSync(join(root, 'resources', 'examples', 'ballmill-3d.json'), 'utf8')) as { params: Record<string, unknown> };
    expect((await s.dispatch('runs.validate', { spec: { ...spec, params: { ...spec.params, stale: undefined } } as never })).runs).toBe(1);
    // Beside a field it refuses, only that one is named.
    expect(await rejection('runs.validate', { spec: { ...spec, params: { ...spec.params, stale: undefined, seeds: 2 } } })).toMatchObject({ code: 'invalid', issues: [{ path: 'spec.params.seeds' }] });
  });

  it('refuses binary data, a Date or a Map where an object goes, naming the field', async () => {
    const spec = JSON.parse(readFileSync(join(root, 'resources', 'examples', 'ballmill-3d.json'), 'utf8')) as { params: Record<string, unknown> };
    // Over the web host too (typed arrays travel as such), and over IPC a Date or a Map. Binary data failed 'internal' in the engine's checks; an empty one, a Date or a Map passed as the defaults.
    for (const [vial, got] of [[new Uint8Array(2), 'binary data'], [new Float64Array(0), 'binary data'], [new Date(0), 'a Date'], [new Map(), 'a Map']] as const) {
      expect(await rejection('runs.validate', { spec: { ...spec, params: { ...spec.params, vial } } })).toMatchObject({
        code: 'invalid',
        issues: [{ path: 'spec.params.vial', message: `must be an object { ... }, got ${got}` }],
      });
    }
  });

  it('says an unknown field with the other mistakes of the spec at once, not alone', async () => {
    const both = [
      { path: 'spec.params.freezngInterval', message: "unknown field 'freezngInterval' (did you mean 'freezingInterval'?)" },
      { path: 'spec.params.reboundProbability', message: 'must be in [0, 1], got 2' },
    ];
    for (const method of ['runs.validate', 'runs.enqueue'] as const) {
      const err = await rejection(method, { spec: { engine: 'voxel', name: 'two', params: { reboundProbability: 2, freezngInterval: 100 } } });
      expect(err).toMatchObject({ code: 'invalid', issues: both });
      expect(err.message).toMatch(/freezngInterval[^]*reboundProbability/);
    }
    // In a sweep: the point that fails, with the unknown field (every point has it) said once.
    const swept = await rejection('runs.enqueue', { spec: { engine: 'voxel', name: 'sw', params: { reboundProbability: { $sweep: [0.5, 2] }, freezngInterval: 100 } } });
    expect(swept.message).toMatch(/^sweep point 2 of 2/);
    expect(swept.issues).toEqual(both);
    // A malformed sweep beside an unknown field: both too.
    expect((await rejection('runs.validate', { spec: { engine: 'voxel', name: 'sw', params: { reboundProbability: { $sweep: [] }, freezngInterval: 100 } } })).issues?.map((i) => i.path)).toEqual([
      'spec.params.freezngInterval',
      'spec.params.reboundProbability.$sweep',
    ]);
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it('refuses an array over its size limit before walking its entries, naming the field and the allowed range', async () => {
    // 100,000 mixture types (the limit is 64) took 2.5 s to refuse: the unknown-field walk and the
    // sweep search went through every entry first. Each entry here counts the walks that list its keys:
    // only the depth check (nestedDeeperThan, one pass of about 40 ms for these) lists them, once a call.
    let entered = 0;
    const type = { shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 } };
    const types = Array.from({ length: 100_000 }, () => new Proxy(type, { ownKeys: (o) => (entered++, Reflect.ownKeys(o)) }));
    for (const method of ['runs.validate', 'runs.enqueue'] as const) {
      expect(await rejection(method, { spec: { engine: 'voxel', name: 'huge', params: { mixture: { types } } } })).toMatchObject({
        code: 'invalid',
        issues: [{ path: 'spec.params.mixture.types', message: 'has 100000 entries; allowed: 1 to 64' }],
      });
    }
    expect(entered).toBe(2 * types.length);
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it("refuses params nested deeper than MAX_PARAMS_DEPTH as 'invalid' naming the limit, before a recursive walk overflows", async () => {
    // 10,000 levels (as Electron's IPC delivers them) overflowed the sweep search: 'internal'.
    let deep: unknown = [];
    for (let i = 0; i < 10_000; i++) deep = [deep];
    // A value that holds itself (a structured clone may) is deeper than any limit.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const inner of [deep, cycle]) {
      expect(await rejection('runs.validate', { spec: { engine: 'voxel', name: 'deep', params: { mixture: { types: [inner] } } } })).toMatchObject({
        code: 'invalid',
        message: expect.stringMatching(/^params nested deeper than 64 levels/),
      });
    }
  });

  it("refuses params that hold one list in many places (a structured clone may) before walking them as a tree, naming the limit", async () => {
    // [x, x] within itself 40 times: 40 lists over the app's IPC, 2^40 values to the depth check,
    // the schemas and the sweep search, which walk params as a tree: the main process hung for good.
    // Each list counts the times its first entry is read; past 5,000,000 this test stops the walk itself.
    let read = 0;
    let shared: unknown = 1;
    for (let i = 0; i < 40; i++) {
      shared = new Proxy([shared, shared], {
        get(list, key) {
          if (key === '0' && ++read > 5_000_000) throw new Error('params walked as a tree: lists read past 5,000,000 times');
          return Reflect.get(list, key);
        },
      });
    }
    expect(await rejection('runs.validate', { spec: { engine: 'voxel', name: 'dag', params: { mixture: { types: [shared] } } } })).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^params of more than 1000000 values \(lists, objects and their entries; one held in several places counts at each\)/),
    });
    expect(read).toBeLessThan(MAX_PARAMS_VALUES);
  });

  it('re-runs with overrides laid over the run\'s params field by field: a nested override keeps the fields beside it', async () => {
    const { runIds } = await s.dispatch('runs.enqueue', { spec: { engine: 'voxel', name: 'base', params: { box: { size: [4, 5, 6], resolution: 10 }, reboundProbability: 0.5 } } });
    const again = await s.dispatch('runs.rerun', { id: runIds[0], overrides: { box: { resolution: 12 } } });
    // The box's size fell back to the default [10, 10, 10].
    expect((await s.dispatch('runs.get', { id: again.runIds[0] })).params).toMatchObject({ box: { size: [4, 5, 6], resolution: 12 }, reboundProbability: 0.5 });
    for (const id of [...runIds, ...again.runIds]) await s.dispatch('runs.delete', { id });
  });

  it("refuses a spec that fails its engine's cross-field checks, at every sweep point, before anything is stored", async () => {
    // A particle of size 3 in a 2-unit box: the schema accepts every field, the voxel engine's check does not.
    const tooBig = { box: { size: [2, 2, 2], resolution: 10 }, mixture: { types: [{ size: { law: 'fixed', value: 3 } }] } };
    expect(await rejection('runs.enqueue', { spec: { engine: 'voxel', name: 'big', params: tooBig } })).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'spec.params.mixture.types.0.size', message: expect.stringMatching(/spans 30 voxels.*at most 18/) }],
    });
    // The fixture engine's check (failAt and exitAt exclude each other), at the second point of a sweep.
    expect(await rejection('runs.validate', { spec: { engine: 'counter', name: 'sw', params: { steps: 3, failAt: 1, exitAt: { $sweep: [1, 2] } } } })).toMatchObject({ code: 'invalid' });
    const err = await rejection('runs.enqueue', { spec: { engine: 'counter', name: 'sw', params: { failAt: 1, steps: { $sweep: [3, 4] }, exitAt: 2 } } });
    expect(err.message).toMatch(/sweep point 1 of 2/);
    expect(err.issues).toEqual([{ path: 'spec.params.exitAt', message: 'give at most one of failAt and exitAt' }]);
    // A malformed sweep and one of too many runs, at their place in the request like every other issue (they said 'params.steps...').
    expect(await rejection('runs.enqueue', { spec: { engine: 'counter', name: 'sw', params: { steps: { $sweep: { from: 1, to: 'x', steps: 3 } } } } })).toMatchObject({
      issues: [{ path: 'spec.params.steps.$sweep.to' }],
    });
    expect(await rejection('runs.validate', { spec: { engine: 'counter', name: 'sw', params: { steps: { $sweep: { from: 1, to: 9, steps: 200 } }, stepMs: { $sweep: { from: 0, to: 1, steps: 200 } } } } })).toMatchObject({
      issues: [{ path: 'spec.params', message: 'sweep of 40000 runs exceeds 10000' }],
    });
    expect(await s.dispatch('runs.validate', { spec: { engine: 'counter', name: 'ok', params: { steps: { $sweep: [3, 4, 5] } } } })).toMatchObject({ runs: 3, memoryBytes: 1 << 20 });
    // A seed is one whole number or a sweep of them (replicates, crossed with the params' points), each refusal with the range.
    expect(await s.dispatch('runs.validate', { spec: { engine: 'counter', name: 'ok', seed: { $sweep: [1, 2] }, params: { steps: { $sweep: [3, 4, 5] } } } })).toMatchObject({ runs: 6 });
    const seedIssues = async (seed: unknown) => (await rejection('runs.enqueue', { spec: { engine: 'counter', name: 'sw', seed } })).issues;
    expect(await seedIssues(1.5)).toEqual([{ path: 'spec.seed', message: 'must be a whole number in [0, 4294967295], got 1.5' }]);
    expect(await seedIssues({ sweep: [1, 2] })).toEqual([{ path: 'spec.seed', message: 'must be a whole number in [0, 4294967295] or a sweep of such ({ "$sweep": [1, 2, 3] }), got an object without "$sweep"' }]);
    expect(await seedIssues({ $sweep: [1, -2] })).toEqual([{ path: 'spec.seed.$sweep.1', message: 'must be a whole number in [0, 4294967295], got -2' }]);
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it("answers other calls while a spec's cross-field checks run: they run in a worker (a large blobby surface's take seconds)", async () => {
    const answered: string[] = [];
    // The check lasts until app.info has answered and the gate file is written (checkUntil).
    const gate = join(t.dir, 'check-gate');
    const checking = s.dispatch('runs.validate', { spec: { engine: 'counter', name: 'slow check', params: { checkUntil: gate } } }).then(() => answered.push('runs.validate'));
    await s.dispatch('app.info', {}).then(() => answered.push('app.info'));
    writeFileSync(gate, '');
    await checking;
    expect(answered).toEqual(['app.info', 'runs.validate']);
  });

  it('answers other calls while it reads the points of a large sweep', async () => {
    const parse = vi.spyOn(s.registry, 'parseParams');
    try {
      let parsedWhenAnswered = -1;
      const checking = s.dispatch('runs.validate', { spec: { engine: 'counter', name: 'sweep', params: { steps: { $sweep: { from: 1, to: 1000, steps: 1000 } } } } });
      await s.dispatch('app.info', {}).then(() => (parsedWhenAnswered = parse.mock.calls.length));
      expect((await checking).runs).toBe(1000);
      expect(parsedWhenAnswered).toBeLessThan(1000);
    } finally {
      parse.mockRestore();
    }
  });

  it('checks a large sweep in parts: each point estimated once, the cross-field checks sent to the worker 500 points a task', async () => {
    const estimate = vi.spyOn(s.registry.get('counter').definition, 'estimateMemoryBytes');
    const task = vi.spyOn(s.pool, 'task');
    try {
      // The voxel estimate takes milliseconds a point; one message of 10,000 points took the serving thread 0.2-0.4 s to copy.
      expect((await s.dispatch('runs.validate', { spec: { engine: 'counter', name: 'sweep', params: { steps: { $sweep: { from: 1, to: 1200, steps: 1200 } } } } })).runs).toBe(1200);
      expect(estimate).toHaveBeenCalledTimes(1200);
      expect(task.mock.calls.map(([, t]) => (t as CheckTask).points.length)).toEqual([500, 500, 200]);
    } finally {
      estimate.mockRestore();
      task.mockRestore();
    }
  });

  it('answers other calls while it writes and tells the runs of a large sweep', async () => {
    const told: string[] = [];
    let toldWhenAnswered = -1;
    const off = s.events.on('run.updated', (r) => {
      if (told.push(r.id) === 1) void s.dispatch('app.info', {}).then(() => (toldWhenAnswered = told.length));
    });
    try {
      const { runIds } = await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'sweep', params: { steps: { $sweep: { from: 1, to: 1000, steps: 1000 } } } } });
      expect(told.slice(0, 1000)).toEqual(runIds);
      expect(toldWhenAnswered).toBeGreaterThan(0);
      expect(toldWhenAnswered).toBeLessThan(1000);
      for (const id of runIds) await s.dispatch('runs.delete', { id });
    } finally {
      off();
    }
  });

  it('runs every engine of core\'s list through the one generic worker, and its particle table carries the declaration', async () => {
    const { runIds } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'voxel', name: 'tiny', params: { box: { size: [3, 3, 2], resolution: 10 }, stop: { particles: 3 }, analysis: { enabled: false } } },
    });
    s.queue.start();
    await s.queue.waitFor(runIds);
    const run = await s.dispatch('runs.get', { id: runIds[0] });
    expect(run.status, run.error ?? '').toBe('done');
    const particles = await s.dispatch('runs.particles', { id: runIds[0] });
    expect(particles.meta.particleTable).toEqual(voxelEngine.particleTable);
    await s.dispatch('runs.delete', { id: runIds[0] });
  });

  it('answers other calls while it reads a large particle table: one asked after runs.particles answers first', async () => {
    // 400,000 rows (16 MB of columns): read with readFileSync and decoded in one go, it held the
    // thread that serves every call (2,000,000 rows: 150-230 ms).
    const n = 400_000, id = largeTableRun(s, t.dir, 'large table', n, 101);
    const order: string[] = [];
    const particles = s.dispatch('runs.particles', { id, limit: 1000 }).then((p) => (order.push('runs.particles'), p));
    await s.dispatch('app.info', {}).then(() => order.push('app.info'));
    const read = await particles;
    expect(order).toEqual(['app.info', 'runs.particles']);
    expect(read).toMatchObject({ total: n, count: 1000 });
    expect(read.columns.y[999]).toBe(((Math.floor((999 * n) / 1000)) * 3) % 101);
    await s.dispatch('runs.delete', { id });
  });

  it("answers other calls while it reads a large run's series, and a run deleted meanwhile is not_found", async () => {
    // Two columns of 400,000 points each (a ball mill's collision frequency per ball): all read in one
    // query, they held the thread that serves every call (2,000,000 points: 30-60 ms).
    const n = 400_000, x = Float64Array.from({ length: n }, (_, i) => i), y = Float64Array.from({ length: n }, (_, i) => (i * 7) % 13);
    const [id] = s.store.insertRuns([{ name: 'long series', engine: 'counter', spec: { engine: 'counter', name: 'long series', seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
    s.store.finishRun(id, { status: 'done', metrics: {}, series: [{ name: 'frequency', xLabel: 'ball', yLabel: 'impacts', kind: 'bar', x, y }, { name: 'energy', xLabel: 't', yLabel: 'E', kind: 'line', x: y, y: x }], wallSeconds: 1 });
    const order: string[] = [];
    const series = s.dispatch('runs.series', { id }).then((r) => (order.push('runs.series'), r));
    await s.dispatch('app.info', {}).then(() => order.push('app.info'));
    const read = await series;
    expect(order).toEqual(['app.info', 'runs.series']);
    expect(read.map((r) => [r.name, r.kind, r.x.length, r.y[n - 1]])).toEqual([['frequency', 'bar', n, y[n - 1]], ['energy', 'line', n, n - 1]]);
    const gone = s.dispatch('runs.series', { id }).catch((err: unknown) => err);
    await s.dispatch('runs.delete', { id });
    expect(await gone).toMatchObject({ code: 'not_found', message: `run ${id} was deleted while its series were read` });
  });

  it('answers other calls while it reads an x slice of a large volume (every plane of it), and the slice is right', async () => {
    // 256 x 256 x 64 (16 MB): an x slice read every z plane with readSync in one go; of a 1024³ volume, 4 GiB.
    const [nx, ny, nz] = [256, 256, 64], path = join(t.dir, 'large.pbv');
    const labels = Uint32Array.from({ length: nx * ny * nz }, (_, i) => i % 1009);
    writeFileSync(path, encodeVolume({ kind: 'volume', name: 'labels', dims: [nx, ny, nz], voxelSize: 1, labels }));
    const [id] = s.store.insertRuns([{ name: 'large volume', engine: 'counter', spec: { engine: 'counter', name: 'large volume', seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
    s.store.finishRun(id, { status: 'done', metrics: {}, series: [], artifacts: [{ kind: 'volume', name: 'labels', path, bytes: statSync(path).size, checksum: '', meta: {} }], wallSeconds: 1 });
    const order: string[] = [];
    const slice = s.dispatch('runs.slice', { id, axis: 'x', index: 200 }).then((r) => (order.push('runs.slice'), r));
    await s.dispatch('app.info', {}).then(() => order.push('app.info'));
    const read = await slice;
    expect(order).toEqual(['app.info', 'runs.slice']);
    expect(read).toMatchObject({ axis: 'x', index: 200, width: ny, height: nz });
    for (const [y, z] of [[0, 0], [17, 5], [255, 63]]) expect(read.labels[z * ny + y]).toBe(labels[(z * ny + y) * nx + 200]);
    await s.dispatch('runs.delete', { id });
  });

  it('lists engines with JSON Schemas for forms: defaults, ranges, units', async () => {
    const engines = await s.dispatch('engines.list', {});
    const counter = engines.find((e) => e.id === 'counter')!;
    expect(counter.defaults).toEqual({ steps: 10, stepMs: 2, memoryBytes: 1 << 20, volume: false, badResult: false });
    const props = (counter.paramsJsonSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.steps).toMatchObject({ type: 'integer', default: 10, minimum: 1, maximum: 1_000_000, unit: 'steps', description: 'Steps to count' });
    const voxel = engines.find((e) => e.id === 'voxel')!;
    expect(voxel.title).toBeTruthy();
    expect(voxel.paramsJsonSchema).toHaveProperty('properties');
    expect(voxel.particleTable).toEqual(voxelEngine.particleTable);
    // What each metric measures travels with the engine (tooltips); engines without declarations list none.
    expect(voxel.metrics.bedSolidFraction).toMatchObject({ unit: 'fraction', description: expect.stringMatching(/below the top surface/) });
    expect(counter.metrics).toEqual({});
    // Every object says it is closed, as parseStrict treats it: a validator of the published schema refuses a misspelt field too.
    const open: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${path}[${i}]`));
      else if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        if (o.properties && o.additionalProperties !== false) open.push(path);
        for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`);
      }
    };
    for (const e of engines) walk(e.paramsJsonSchema, e.id);
    expect(open).toEqual([]);
  });

  it('keeps the shape library: built-ins protected, user shapes validated by the voxel shape schema', async () => {
    const shapes = await s.dispatch('shapes.list', {});
    const sphere = shapes.find((x) => x.id === 'builtin-sphere')!;
    expect(sphere).toMatchObject({ builtin: true, kind: 'sphere' });
    expect(await rejection('shapes.delete', { id: sphere.id })).toMatchObject({ code: 'conflict' });
    expect(await rejection('shapes.update', { id: sphere.id, name: 'ball' })).toMatchObject({ code: 'conflict' });
    const copy = await s.dispatch('shapes.duplicate', { id: 'builtin-plate' });
    expect(copy).toMatchObject({ builtin: false, kind: 'hexagonalPlate', name: 'Hexagonal plate (kaolin-like) (copy)' });
    const updated = await s.dispatch('shapes.update', { id: copy.id, shape: { kind: 'hexagonalPlate', thickness: 0.2 } });
    expect(updated.params).toEqual({ kind: 'hexagonalPlate', thickness: 0.2 });
    expect(await rejection('shapes.create', { name: 'bad', shape: { kind: 'ellipsoid', b: 2 } })).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'shape.b', message: 'must be in (0, 1], got 2' }],
    });
    // A misspelt field is refused, naming the one meant (it was dropped: the default b = 1 made a round ellipsoid).
    for (const [method, params] of [['shapes.create', { name: 'flat' }], ['shapes.update', { id: copy.id }], ['shapes.preview', { size: 1, resolution: 10 }]] as const) {
      expect(await rejection(method, { ...params, shape: { kind: 'ellipsoid', B: 0.5 } })).toMatchObject({
        code: 'invalid',
        issues: [{ path: 'shape.B', message: "unknown field 'B' (did you mean 'b'?)" }],
      });
    }
    await s.dispatch('shapes.delete', { id: copy.id });
    expect((await s.dispatch('shapes.list', {})).some((x) => x.id === copy.id)).toBe(false);
  });

  it("saves a shape's voxelisation (size, resolution, reduction threshold) with it", async () => {
    const v = { size: 2, resolution: 30, reductionThreshold: 1 };
    const made = await s.dispatch('shapes.create', { name: 'grain', shape: { kind: 'cylinder', length: 2 }, voxelisation: v });
    expect(made.voxelisation).toEqual(v);
    // an update that leaves it out keeps it; one that gives it replaces it
    expect((await s.dispatch('shapes.update', { id: made.id, name: 'grain 2' })).voxelisation).toEqual(v);
    expect((await s.dispatch('shapes.update', { id: made.id, voxelisation: { ...v, size: 3 } })).voxelisation).toEqual({ ...v, size: 3 });
    expect((await s.dispatch('shapes.duplicate', { id: made.id })).voxelisation).toEqual({ ...v, size: 3 });
    expect((await s.dispatch('shapes.list', {})).find((x) => x.id === 'builtin-sphere')!.voxelisation).toBe(null);
    expect(await rejection('shapes.update', { id: made.id, voxelisation: { ...v, size: -1 } })).toMatchObject({ code: 'invalid', issues: [{ path: 'voxelisation.size' }] });
  });

  it('previews a shape as voxels', async () => {
    const p = await s.dispatch('shapes.preview', { shape: { kind: 'sphere' }, size: 1, resolution: 10 });
    expect(p.solid.length).toBe(3 * p.solidCount);
    // A sphere of 10 voxels across holds about (pi/6) 10^3 voxels.
    expect(Math.abs(p.solidCount - (Math.PI / 6) * 1000) / ((Math.PI / 6) * 1000)).toBeLessThan(0.1);
    expect(p.reducedShellCount).toBeLessThanOrEqual(p.shellCount);
    expect(await rejection('shapes.preview', { shape: { kind: 'sphere' }, size: 10, resolution: 100 })).toMatchObject({ issues: [{ path: 'resolution' }] });
    // A long cylinder samples a box its length long: 400 across at length 50 would be 3.2e9 voxels.
    expect(await rejection('shapes.preview', { shape: { kind: 'cylinder', length: 50 }, size: 1, resolution: 400 }))
      .toMatchObject({ code: 'invalid', issues: [{ path: 'resolution', message: expect.stringMatching(/samples 3\.2\de\+9 voxels .* at most 6\.5\de\+7/) }] });
    // The mixture editor's volume factor of such a shape (32 voxels across) is still drawn.
    expect((await s.dispatch('shapes.preview', { shape: { kind: 'cylinder', length: 50 }, size: 1, resolution: 32 })).dims).toEqual([32, 32, 1600]);
  });

  it('voxelises a preview off the thread that serves the calls: a call made after a large preview answers first', async () => {
    // 200 voxels across: about a second of voxelising. On the serving thread it held every other call back.
    const order: string[] = [];
    const preview = s.dispatch('shapes.preview', { shape: { kind: 'sphere' }, size: 2, resolution: 100 }).then((p) => { order.push('preview'); return p; });
    const info = s.dispatch('app.info', {}).then(() => order.push('app.info'));
    const [p] = await Promise.all([preview, info]);
    expect(order).toEqual(['app.info', 'preview']);
    expect(p.dims).toEqual([200, 200, 200]);
    expect(p.solid).toBeInstanceOf(Int32Array);
    expect(p.solid.length).toBe(3 * p.solidCount);
  });

  it('saves presets for known engines only', async () => {
    const p = await s.dispatch('presets.save', { name: 'quick', spec: { engine: 'counter', name: 'q', params: { steps: 3 } } });
    expect(await s.dispatch('presets.list', { engine: 'counter' })).toEqual([p]);
    expect(await rejection('presets.save', { name: 'x', spec: { engine: 'nope', name: 'q' } })).toMatchObject({ code: 'invalid' });
    // A spec runs.enqueue would refuse is refused as it is saved, naming the field (it was stored, and failed only when queued).
    expect(await rejection('presets.save', { name: 'x', spec: { engine: 'counter', name: 'q', params: { steps: -5 } } })).toMatchObject({ code: 'invalid', issues: [{ path: 'spec.params.steps' }] });
    expect(await rejection('presets.save', { name: 'x', spec: { engine: 'counter', name: 'q', params: { stepz: 5 } } })).toMatchObject({
      issues: [{ path: 'spec.params.stepz', message: "unknown field 'stepz' (did you mean 'steps'?)" }],
    });
    const swept = await s.dispatch('presets.save', { name: 'sweep', spec: { engine: 'counter', name: 'q', params: { steps: { $sweep: [2, 3] } } } });
    await s.dispatch('presets.delete', { id: swept.id });
    await s.dispatch('presets.delete', { id: p.id });
    expect(await s.dispatch('presets.list', {})).toEqual([]);
  });
});
