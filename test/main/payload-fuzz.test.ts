/**
 * Every handler's payload fuzzed as the app's IPC delivers it (structured clone: undefined fields,
 * NaN, BigInt, Date, Map, binary data are kept, where JSON drops or refuses them): valid payloads of
 * each method (the example specs, a run, a shape, a preset) with one to three fields removed, added
 * or replaced by values of other types, from a seeded generator (the same calls every run). Each
 * call is answered, or refused as the caller's mistake (invalid, not_found, conflict, ...): never as
 * a fault of ours ('internal'), which a payload that passed validation malformed would give.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, type MethodName } from '../../main/api';
import { openServices } from '../../main/services/services';
import { Random } from '../../core/common/random';
import { tempDir } from './helpers';

const examples = fileURLToPath(new URL('../../resources/examples/', import.meta.url));
const t = tempDir('packbench-payload-fuzz-');
const s = openServices({ dataDir: t.dir, autoStart: false });
afterAll(async () => {
  await s.close();
  t.cleanup();
});

describe('handler payloads fuzzed', () => {
  it('refuses what is malformed as the caller\'s mistake, never as a fault of ours', async () => {
    const rnd = new Random(19);
    const int = (n: number) => rnd.nextU32() % n;
    const pick = <T,>(a: readonly T[]): T => a[int(a.length)];
    const specs = readdirSync(examples).map((f) => JSON.parse(readFileSync(join(examples, f), 'utf8')) as Record<string, unknown>);
    const imported = await s.dispatch('runs.importSpheres', { name: 'imported', csv: 'x,y,z,r\n1,1,1,0.5\n2,2,2,0.5\n' });
    const queued = (await s.dispatch('runs.enqueue', { spec: specs[0] })).runIds[0];
    const shape = await s.dispatch('shapes.create', { name: 'grain', shape: { kind: 'sphere' } });
    const ids = [imported.id, queued, shape.id, 'nope'];
    const valid: [MethodName, () => unknown][] = [
      ['runs.enqueue', () => ({ spec: structuredClone(pick(specs)), priority: 1, batchName: 'b' })],
      ['runs.validate', () => ({ spec: structuredClone(pick(specs)) })],
      ['presets.save', () => ({ name: 'p', spec: structuredClone(pick(specs)) })],
      ['runs.list', () => ({ offset: 0, limit: 5, sort: pick([{ field: 'name', dir: 'asc' }, { metric: 'porosity', dir: 'desc' }]), filter: { engine: 'voxel', status: ['done'], text: 'a', createdFrom: '2020-01-01T00:00:00Z', metric: { name: 'porosity', min: 0, max: 1 } } })],
      ['runs.get', () => ({ id: pick(ids) })],
      ['runs.particles', () => ({ id: pick(ids), limit: 10 })],
      ['runs.slice', () => ({ id: pick(ids), axis: 'x', index: 0 })],
      ['runs.frame', () => ({ id: pick(ids), table: 'trajectories', index: 0 })],
      ['runs.rerun', () => ({ id: pick(ids), overrides: { box: { size: [5, 5, 5] } }, seed: 2 })],
      ['runs.setPriority', () => ({ id: pick(ids), priority: 3 })],
      ['runs.export', () => ({ id: imported.id, format: pick(['csv', 'results', 'vtk']) })],
      ['runs.importSpheres', () => ({ name: 'i', csv: 'x,y,z,r\n1,1,1,0.5\n', source: 's', box: [3, 3, 3], analysis: { rdfBins: 10 } })],
      ['shapes.create', () => ({ name: 'n', shape: { kind: 'ellipsoid', b: 0.5, c: 0.5 }, voxelisation: { size: 1, resolution: 10, reductionThreshold: 3 } })],
      ['shapes.update', () => ({ id: shape.id, name: 'm', shape: { kind: 'cylinder', length: 2 } })],
      ['shapes.preview', () => ({ shape: { kind: 'sphere' }, size: 1, resolution: 10, reductionThreshold: 0 })],
      ['shapes.importRaw', () => ({ fileName: 'a.raw', bytes: new Uint8Array(8), header: '{"dims":[2,2,2]}' })],
      ['batches.list', () => ({ ids: ['x'], limit: 3 })],
      ['queue.setCheckpointSeconds', () => ({ seconds: 60 })],
    ];
    const others = [-1, 1.5, 1e308, '', '__proto__', true, null, undefined, [], {}, { $sweep: [1, 2] },
      new Uint8Array(4), new Float64Array(0), NaN, 5n, new Date(0), new Map([[1, 2]]), new Uint8ClampedArray(2), new DataView(new ArrayBuffer(4))];
    /** The paths of every field of `v`, at any depth. */
    const paths = (v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) => {
      out.push(at);
      if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...at, Array.isArray(v) ? Number(k) : k], out);
      return out;
    };
    const mutated = (p: unknown) => {
      for (let n = 1 + int(3); n > 0; n--) {
        const path = pick(paths(p));
        if (path.length === 0) continue;
        const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string | number, unknown>, p as Record<string, unknown>);
        const key = path[path.length - 1], how = int(4);
        if (how === 0) delete parent[key];
        else if (how === 1 && !Array.isArray(parent)) parent[`${key}X`] = int(2) ? undefined : pick(others); // undefined: only IPC keeps it
        else if (how === 2 && typeof parent[key] === 'number') parent[key] = pick([-(parent[key] as number), (parent[key] as number) + 0.5, (parent[key] as number) * 1e6]);
        else parent[key] = pick(others);
      }
      return p;
    };
    const faults: string[] = [];
    for (let i = 0; i < 600; i++) {
      const [method, make] = pick(valid);
      const params = mutated(make());
      await s.dispatch(method, params).catch((err: unknown) => {
        if (!(err instanceof ApiError) || err.code === 'internal') faults.push(`${method}: ${String(err)}`);
      });
    }
    expect(faults).toEqual([]);
  });
});
