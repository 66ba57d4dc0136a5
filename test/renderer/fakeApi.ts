/**
 * An in-memory PackbenchApi for component tests (a fixture, not shipped): one engine whose schema comes
 * from zod like the real ones, runs with server-side paging/sorting/filtering, presets, the queue, and
 * events that tests can emit. Calls are recorded for assertions.
 */
import { z } from 'zod';
import type { ApiIssue, BatchSummary, EngineInfo, Events, ExportFormatInfo, Methods, PackbenchApi, Preset, RunArtifact, RunRecord, RunSummary } from '../../main/api';

export const toyParams = z.object({
  box: z
    .object({
      lx: z.number().min(1).max(1000).default(20).meta({ unit: 'unit', description: 'Box length in x' }),
      ly: z.number().min(1).max(1000).default(20).meta({ unit: 'unit' }),
    })
    .default({ lx: 20, ly: 20 }),
  resolution: z.number().int().min(1).max(64).default(4).meta({ unit: 'voxels/unit' }),
  origin: z.tuple([z.number(), z.number(), z.number()]).default([0, 0, 0]).meta({ unit: 'unit' }),
  packing: z.enum(['random', 'rising-roof']).default('random'),
  types: z
    .array(
      z.object({
        shape: z.enum(['sphere', 'cuboid']).default('sphere'),
        size: z
          .discriminatedUnion('law', [
            z.object({ law: z.literal('fixed'), value: z.number().positive().meta({ unit: 'unit' }) }),
            z.object({ law: z.literal('uniform'), min: z.number().positive(), max: z.number().positive() }),
          ])
          .default({ law: 'fixed', value: 2 }),
        fraction: z.number().min(0).max(1).default(1),
      }),
    )
    .min(1)
    .default([{ shape: 'sphere', size: { law: 'fixed', value: 2 }, fraction: 1 }]),
});

export const toyEngine: EngineInfo = {
  id: 'toy',
  title: 'Toy packer',
  description: 'A test engine',
  paramsJsonSchema: z.toJSONSchema(toyParams, { io: 'input' }) as Record<string, unknown>,
  defaults: toyParams.parse({}) as Record<string, unknown>,
  particleTable: { name: 'particles', centre: ['x', 'y', 'z'], size: [{ column: 'r', is: 'radius' }], glyph: { kind: 'sphere' }, quantities: [] },
  metrics: { solidFraction: { unit: 'fraction', description: 'solid volume / box volume' } },
  stopAndKeep: 'the particles placed so far',
};

/** What exports.formats answers here: fewer than the service's, so a test sees the list comes from the API. */
export const FAKE_EXPORT_FORMATS: ExportFormatInfo[] = [
  { id: 'json', label: 'Results as JSON', extension: 'json', mime: 'application/json', needs: 'results', appliesTo: 'every run that has ended: done, failed or cancelled (a failed or cancelled run keeps its metrics, series and log)' },
  { id: 'heightmap-tiff', label: 'Height map as TIFF', extension: 'tif', mime: 'image/tiff', needs: 'heightmap', appliesTo: 'voxel packings with a height map' },
  { id: 'lammps-trajectory', label: 'Trajectories as a multi-frame LAMMPS dump', extension: 'dump', mime: 'text/plain', needs: 'trajectory', appliesTo: 'ball mill runs with output.frameRate > 0' },
];

type Listener = (payload: unknown) => void;

export interface FakeApi extends PackbenchApi {
  calls: { method: string; params: unknown }[];
  runs: RunSummary[];
  batches: BatchSummary[];
  /** The engine's cross-field checks as runs.validate runs them (default: none fail). */
  check: (spec: { engine: string; params: Record<string, unknown> }) => ApiIssue[];
  /** The fields runs.validate, runs.enqueue and runs.rerun warn have no effect (default: none). */
  warn: (spec: { engine: string; params: Record<string, unknown> }) => ApiIssue[];
  presets: Preset[];
  /** What runs.artifacts answers for a run (default: a particle table). */
  artifacts: Record<string, RunArtifact[]>;
  /** Run ids whose runs.series answers none (default: a 'particles' line). */
  noSeries: Set<string>;
  /** What runs.get answers as a run's log (default: none). */
  logs: Record<string, string[]>;
  emit<E extends keyof Events>(event: E, payload: Events[E]): void;
  /** Make the next call of `method` reject with this error. */
  failNext(method: keyof Methods, error: unknown): void;
  /** The callIds the renderer aborted (PackbenchApi.abort), in order. */
  aborted: number[];
}

export function makeRun(i: number, over: Partial<RunSummary> = {}): RunSummary {
  const created = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return {
    id: `r${i}`,
    name: `run ${i}`,
    engine: 'toy',
    status: 'done',
    priority: 0,
    seed: i,
    progress: { done: 10, total: 10, phase: '', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 },
    createdAt: created,
    startedAt: created,
    finishedAt: created,
    pausedAt: null,
    pausedSeconds: 0,
    wallSeconds: 1 + (i % 7),
    metrics: { solidFraction: 0.5 + (i % 10) / 100, particles: 100 + i },
    batchId: null,
    sweep: {},
    error: null,
    ...over,
  };
}

/** Each fake is a data folder of its own: the drafts a test's forms keep (stores/keptDrafts.ts) are not another test's. */
let folders = 0;

export function installFakeApi(runs: RunSummary[] = []): FakeApi {
  const dataDir = `/tmp/pb-${++folders}`;
  const listeners = new Map<string, Set<Listener>>();
  const failures = new Map<string, unknown>();
  let queue = { paused: false, running: 0, runningElsewhere: 0, pausedRuns: 0, queued: 0, concurrency: 2, threadsPerRun: 1, checkpointSeconds: 60, waiting: null as string | null };
  let nextRun = 100_000;
  /** runs.list's nexts: the page's last run. */
  const cursors = new Map<string, RunSummary>();
  const fake: FakeApi = {
    calls: [],
    runs,
    batches: [],
    check: () => [],
    warn: () => [],
    presets: [],
    artifacts: {},
    noSeries: new Set(),
    logs: {},
    emit(event, payload) {
      listeners.get(event)?.forEach((l) => l(payload));
    },
    failNext(method, error) {
      failures.set(method, error);
    },
    aborted: [],
    abort(callId) {
      fake.aborted.push(callId);
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener as Listener);
      return () => listeners.get(event)!.delete(listener as Listener);
    },
    async call(method, params) {
      fake.calls.push({ method, params });
      if (failures.has(method)) {
        const e = failures.get(method);
        failures.delete(method);
        throw e;
      }
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a fixture reading loosely typed params
      const p = params as Record<string, any>;
      const find = (id: string) => {
        const r = fake.runs.find((x) => x.id === id);
        if (!r) throw Object.assign(new Error(`no run ${id}`), { code: 'not_found' });
        return r;
      };
      const result = ((): unknown => {
        switch (method) {
          case 'app.info':
            return { version: '0.1.0', dataDir, cores: 2, totalMemoryBytes: 1 << 30, platform: 'linux', electron: false, readOnlyBecause: null, fullDisk: false, recoveredRuns: 0 };
          case 'engines.list':
            return [toyEngine];
          case 'queue.state':
            return queue;
          case 'queue.pause':
            return (queue = { ...queue, paused: true });
          case 'queue.resume':
            return (queue = { ...queue, paused: false });
          case 'queue.setConcurrency':
            return (queue = { ...queue, concurrency: p.concurrency });
          case 'queue.setThreadsPerRun':
            return (queue = { ...queue, threadsPerRun: p.threads });
          case 'queue.setCheckpointSeconds':
            return (queue = { ...queue, checkpointSeconds: p.seconds });
          case 'presets.list':
            return fake.presets.filter((x) => !p.engine || x.spec.engine === p.engine);
          case 'presets.save': {
            const preset = { id: `p${fake.presets.length + 1}`, name: p.name, spec: p.spec, createdAt: new Date().toISOString() };
            fake.presets.push(preset);
            return preset;
          }
          case 'presets.delete':
            fake.presets = fake.presets.filter((x) => x.id !== p.id);
            return {};
          case 'runs.enqueue': {
            const id = `r${nextRun++}`;
            fake.runs.push(makeRun(0, { id, name: p.spec.name, status: 'queued', priority: p.priority ?? 0, finishedAt: null, startedAt: null, wallSeconds: null, metrics: {} }));
            return { batchId: null, runIds: [id], warnings: fake.warn(p.spec) };
          }
          case 'runs.list': {
            // As the store's `after`: the rows after the page's last run, though it has been deleted since.
            const at = p.after === undefined ? undefined : cursors.get(p.after);
            if (p.after !== undefined && !at) throw Object.assign(new Error('after: not a next of this fake'), { code: 'bad_request' });
            let rows = at && !fake.runs.includes(at) ? [...fake.runs, at] : fake.runs.slice();
            const f = p.filter ?? {};
            if (f.engine) rows = rows.filter((r) => r.engine === f.engine);
            if (f.batchId) rows = rows.filter((r) => r.batchId === f.batchId);
            if (f.status?.length) rows = rows.filter((r) => f.status.includes(r.status));
            if (f.text) rows = rows.filter((r) => (r.name + ' ' + r.id).toLowerCase().includes(f.text.toLowerCase()));
            if (f.createdFrom) rows = rows.filter((r) => r.createdAt >= f.createdFrom);
            if (f.createdTo) rows = rows.filter((r) => r.createdAt <= f.createdTo);
            if (f.metric) {
              rows = rows.filter((r) => {
                const v = r.metrics[f.metric.name];
                return typeof v === 'number' && (f.metric.min === undefined || v >= f.metric.min) && (f.metric.max === undefined || v <= f.metric.max);
              });
            }
            if (p.sort && 'metric' in p.sort) {
              // As RunStore.listRuns: by the metric, runs without it (or NaN) last either way, ties newest first.
              const s = p.sort.dir === 'asc' ? 1 : -1;
              const value = (r: RunSummary): number | null => {
                const v = r.metrics[p.sort.metric];
                return typeof v === 'number' && !Number.isNaN(v) ? v : null;
              };
              rows.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
              rows.sort((a, b) => {
                const va = value(a), vb = value(b);
                if (va === null || vb === null) return va === null ? (vb === null ? 0 : 1) : -1;
                return s * (va - vb);
              });
            } else if (p.sort) {
              const k = p.sort.field as keyof RunSummary;
              const s = p.sort.dir === 'asc' ? 1 : -1;
              rows.sort((a, b) => (a[k]! < b[k]! ? -s : a[k]! > b[k]! ? s : 0));
            }
            const from = at ? rows.indexOf(at) + 1 : (p.offset ?? 0);
            const page = rows.slice(from, from + (p.limit ?? 100));
            const next = page.length ? `c${cursors.size}` : null;
            if (next) cursors.set(next, page.at(-1)!);
            return { total: rows.length - (at && !fake.runs.includes(at) ? 1 : 0), rows: page, next };
          }
          case 'runs.get': {
            const r = find(p.id);
            const rec: RunRecord = {
              ...r,
              spec: { engine: r.engine, name: r.name, seed: r.seed, params: { box: { lx: 10 + Number(r.id.slice(1)), ly: 20 } } },
              params: { box: { lx: 10 + Number(r.id.slice(1)), ly: 20 }, resolution: 4 },
              counters: {},
              log: fake.logs[r.id] ?? [],
              // As the store: these are written when the run starts.
              appVersion: r.startedAt ? '0.1.0' : '',
              host: null,
              threads: 1,
              attempts: r.startedAt ? 1 : 0,
            };
            return rec;
          }
          case 'runs.series': {
            const n = Number(find(p.id).id.slice(1));
            if (fake.noSeries.has(find(p.id).id)) return [];
            return [{ name: 'particles', xLabel: 'step', yLabel: 'particles', kind: 'line', x: new Float64Array([0, 1, 2]), y: new Float64Array([0, n, 2 * n]) }];
          }
          case 'runs.artifacts':
            return fake.artifacts[find(p.id).id] ?? [{ id: 1, kind: 'table', name: 'particles', path: `/runs/${find(p.id).id}/particles.pbt`, bytes: 2048, checksum: 'ab', meta: {} }];
          case 'runs.pause':
            return Object.assign(find(p.id), { status: 'paused' });
          case 'runs.resume':
            return Object.assign(find(p.id), { status: 'queued' });
          case 'runs.cancel':
            return Object.assign(find(p.id), { status: 'cancelled' });
          case 'runs.stop':
            return Object.assign(find(p.id), { status: 'done' });
          case 'runs.setPriority':
            return Object.assign(find(p.id), { priority: p.priority });
          case 'runs.importSpheres': {
            // Like the service: data lines of x,y,z,r[,type] after a header, else an 'invalid' answer.
            const lines = (p.csv as string).trim().split(/\r?\n/).slice(1);
            const bad = lines.findIndex((l) => l.split(',').length < 4 || l.split(',').some((v) => !Number.isFinite(Number(v))));
            if (bad >= 0) throw Object.assign(new Error(`${p.source}: line ${bad + 2}: expected numbers x, y, z, r`), { code: 'invalid' });
            const run = makeRun(0, { id: `r${nextRun++}`, name: p.name, engine: 'spheres', createdAt: new Date(Date.UTC(2027, 0, 1)).toISOString(), metrics: { particles: lines.length } });
            fake.runs.push(run);
            return run;
          }
          case 'runs.validate': {
            const issues = fake.check(p.spec), warnings = fake.warn(p.spec);
            if (issues.length) throw { code: 'invalid', message: `invalid request:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`, issues, ...(warnings.length ? { warnings } : {}) };
            return { runs: 1, memoryBytes: 3 * 2 ** 30, threadsPerRun: 1, memoryBudgetBytes: 16 * 2 ** 30, warnings };
          }
          case 'runs.metricNames':
            return [...new Set(fake.runs.flatMap((r) => Object.entries(r.metrics).filter(([, v]) => typeof v === 'number').map(([k]) => k)))].sort();
          case 'batches.list':
            return p.ids ? fake.batches.filter((b) => p.ids.includes(b.id)) : fake.batches.slice(0, p.limit ?? 200);
          case 'runs.rerun': {
            // As the service: a batch's failed or cancelled run joins its batch (its point taken by no other run here).
            const { batchId, status } = find(p.id), joins = batchId !== null && (status === 'failed' || status === 'cancelled');
            return { batchId: joins ? batchId : null, outside: batchId && !joins ? 'the batch has a run of this point done or still to run' : null, runIds: [`r${nextRun++}`], warnings: fake.warn({ engine: find(p.id).engine, params: p.overrides ?? {} }), memoryBytes: 3 * 2 ** 30, threadsPerRun: 1, memoryBudgetBytes: 16 * 2 ** 30 };
          }
          case 'runs.delete':
            fake.runs = fake.runs.filter((r) => r.id !== p.id);
            return { filesFirst: false, recordLeft: null };
          case 'exports.formats':
            return FAKE_EXPORT_FORMATS;
          case 'runs.export':
            return { fileName: `${p.id}.${p.format}`, mime: 'text/csv', bytes: new TextEncoder().encode('a,b\n1,2\n') };
          case 'runs.saveExport':
            return { files: [`/home/u/${p.id}.${p.format}`], bytes: 8 };
          default:
            throw new Error(`fake api: ${method} not implemented`);
        }
      })();
      return structuredClone(result) as never;
    },
  };
  window.packbench = fake;
  return fake;
}

/** Waits for pending promises and Vue updates. */
export async function settle(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setTimeout(r, 0));
}
