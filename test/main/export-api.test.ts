/**
 * runs.export through the handler table: an export too big for one API message is 'too_large'
 * (the browser then fetches it from the host's download route), decided by the file's size on disk
 * without reading it into the host's memory; a format the run lacks the data for is 'conflict'
 * (a real failure, shown to the user).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { encodeTable } from '../../core/io/container';
import { createDispatch, createHandlers } from '../../main/services/handlers';
import type { Services } from '../../main/services/services';
import { fixtureServices, rejection, tempDir } from './helpers';

// Records which files are read whole, so that the test sees whether the export itself was.
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, readFileSync: vi.fn(real.readFileSync) };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return { ...real, readFile: vi.fn(real.readFile) };
});

const t = tempDir('packbench-export-api-');
let s: Services;
let runId: string;
beforeAll(async () => {
  s = fixtureServices(t.dir, { autoStart: true });
  [runId] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'to export', seed: 7, params: { steps: 2, stepMs: 0 } } })).runIds;
  for (const t0 = Date.now(); s.store.getSummary(runId)?.status !== 'done'; ) {
    if (Date.now() - t0 > 15_000) throw new Error('the run did not finish');
    await new Promise((r) => setTimeout(r, 20));
  }
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

/** Paths of the exports' own files read whole since `from` calls of readFileSync and readFile (readCalls). */
const readCalls = () => [...vi.mocked(fs.readFileSync).mock.calls, ...vi.mocked(readFile).mock.calls].map(([p]) => String(p));
const exportReads = (from: number) => readCalls().slice(from).filter((p) => p.includes('tmp-export-'));

describe('runs.export', () => {
  it('sends an export that fits as bytes', async () => {
    const res = await s.dispatch('runs.export', { id: runId, format: 'json' });
    expect(res.fileName).toMatch(/\.json$/);
    expect(JSON.parse(new TextDecoder().decode(res.bytes))).toMatchObject({ id: runId });
  });

  it('writes the seed and thread count into the results JSON: with its engine and params, what repeats the run', async () => {
    const json = JSON.parse(new TextDecoder().decode((await s.dispatch('runs.export', { id: runId, format: 'json' })).bytes));
    expect(json).toMatchObject({ id: runId, engine: 'counter', seed: 7, threads: s.store.getRun(runId)!.threads, params: { steps: 2 } });
  });

  it("reads a run's series only for the formats that write them (a number per ball of a ball mill is tens of MB)", async () => {
    const series = vi.spyOn(s.store, 'seriesInSteps');
    try {
      await s.dispatch('runs.export', { id: runId, format: 'metrics-csv' });
      expect(series).not.toHaveBeenCalled();
      await s.dispatch('runs.export', { id: runId, format: 'series-csv' });
      await s.dispatch('runs.export', { id: runId, format: 'json' });
      expect(series).toHaveBeenCalledTimes(2);
    } finally {
      series.mockRestore();
    }
  });

  it("refuses an export over the API's limit as 'too_large' by its size on disk, without reading it", async () => {
    const small = createDispatch(createHandlers({ ...s, maxApiExportBytes: 64 }));
    const before = readCalls().length;
    const err = await rejection(small('runs.export', { id: runId, format: 'json' }));
    expect(err).toMatchObject({ code: 'too_large', message: expect.stringMatching(/the export is \d+ bytes.*download link/) });
    expect(exportReads(before)).toEqual([]);
    // And the command that writes the file, with its data folder (the host may run with --data).
    expect(err.message).toContain(`packbench runs export ${runId} --format json --data "${t.dir}" --out FILE`);
  });

  it("gives 'conflict' for a format the run lacks the data for, however small the limit", async () => {
    const small = createDispatch(createHandlers({ ...s, maxApiExportBytes: 64 }));
    const err = await rejection(small('runs.export', { id: runId, format: 'vti' }));
    expect(err).toMatchObject({ code: 'conflict', message: expect.stringMatching(/no label volume/) });
  });

  it("gives 'conflict' for a volume whose header length is corrupt (fs.promises aborted the process on the read it asked for)", async () => {
    const [id] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'corrupt', seed: 1, params: { steps: 2, stepMs: 0, volume: true } } })).runIds;
    await s.queue.waitFor([id]);
    const volume = s.store.artifacts(id).find((a) => a.kind === 'volume')!;
    const bytes = fs.readFileSync(volume.path);
    bytes.writeUInt32LE(0xfffffff0, 8); // the header's length, after the 8-byte magic
    fs.writeFileSync(volume.path, bytes);
    for (const format of ['vti', 'tiff', 'raw']) {
      const err = await rejection(s.dispatch('runs.export', { id, format }));
      expect(err).toMatchObject({ code: 'conflict', message: expect.stringMatching(/labels\.pbv is truncated: its header needs 4294967292 bytes, the file has \d+/) });
    }
    // The inspector's slice reads the same header, by the same check (it allocated 4 GiB and failed in the read).
    const slice = await rejection(s.dispatch('runs.slice', { id, axis: 'z', index: 0 }));
    expect(slice.message).toMatch(/artifact is truncated: its header needs 4294967292 bytes, the file has \d+/);
  });

  it("gives 'conflict' for a run that has not ended, as the CLI's export refuses it: a running run's export would be its spec with no results", async () => {
    const [running] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'still running', seed: 1, params: { steps: 1000, stepMs: 20 } } })).runIds;
    for (const t0 = Date.now(); s.store.getSummary(running)?.status !== 'running'; ) {
      if (Date.now() - t0 > 15_000) throw new Error('the run did not start');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await rejection(s.dispatch('runs.export', { id: running, format: 'json' }))).toMatchObject({ code: 'conflict', message: `run ${running} is running: only a run that has ended (done, failed or cancelled) can be exported` });
    await s.dispatch('runs.cancel', { id: running });
    await s.queue.waitFor([running]);
    // Cancelled, it keeps its metrics, series and log (the README says so): those export; its artifacts do not exist.
    const metrics = await s.dispatch('runs.export', { id: running, format: 'metrics-csv' });
    expect(new TextDecoder().decode(metrics.bytes)).toMatch(/^metric,value,unit\nsteps,\d+,/);
    expect(JSON.parse(new TextDecoder().decode((await s.dispatch('runs.export', { id: running, format: 'json' })).bytes))).toMatchObject({ engine: 'counter', metrics: { steps: expect.any(Number) } });
    expect(await rejection(s.dispatch('runs.export', { id: running, format: 'csv' }))).toMatchObject({
      code: 'conflict',
      message: `run ${running} is cancelled: it kept no artifacts, which format 'csv' needs; its metrics, series and log export as json, metrics-csv, series-csv`,
    });
  });

  it("the results JSON says how the run ended: its status, error and log (a failed run's only account of its failure)", async () => {
    const [failing] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'fails', seed: 1, params: { steps: 5, stepMs: 0, failAt: 2 } } })).runIds;
    await s.queue.waitFor([failing]);
    const run = await s.dispatch('runs.get', { id: failing });
    expect(run.status).toBe('failed');
    const json = JSON.parse(new TextDecoder().decode((await s.dispatch('runs.export', { id: failing, format: 'json' })).bytes));
    expect(json).toMatchObject({ status: 'failed', error: expect.stringContaining('fixture failure at step 2'), log: run.log });
    expect(run.log.length).toBeGreaterThan(0);
    // A done run: status done, no error, its log.
    const done = JSON.parse(new TextDecoder().decode((await s.dispatch('runs.export', { id: runId, format: 'json' })).bytes));
    expect(done).toMatchObject({ status: 'done', error: null, log: ['counted 2 steps'] });
  });
});

describe('runs.saveExport (the app: its save dialog, then the export written there)', () => {
  const withDialog = (choose: (name: string) => Promise<string | null>) => createDispatch(createHandlers({ ...s, chooseSavePath: choose }));

  it("is 'unavailable' where nothing can ask the user for a path (the web host, scripts)", async () => {
    const err = await rejection(s.dispatch('runs.saveExport', { id: runId, format: 'json' }));
    expect(err).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/app's.*runs\.export.*download link.*packbench runs export/) });
  });

  it('writes what runs.export sends, at the chosen path, whatever the API limit, with progress ending at 1', async () => {
    const out = `${t.dir}/chosen/run.json`;
    fs.mkdirSync(`${t.dir}/chosen`, { recursive: true });
    const suggested: string[] = [];
    const progress: number[] = [];
    const off = s.events.on('export.progress', (e) => {
      expect(e).toMatchObject({ id: runId, format: 'json', path: out });
      progress.push(e.fraction);
    });
    try {
      const save = createDispatch(createHandlers({ ...s, maxApiExportBytes: 64, chooseSavePath: async (name) => (suggested.push(name), out) }));
      const res = await save('runs.saveExport', { id: runId, format: 'json' });
      expect(res).toEqual({ files: [out], bytes: fs.statSync(out).size });
    } finally {
      off();
    }
    const sent = await s.dispatch('runs.export', { id: runId, format: 'json' });
    expect(suggested).toEqual([sent.fileName]);
    expect(fs.readFileSync(out)).toEqual(Buffer.from(sent.bytes));
    expect(progress.at(-1)).toBe(1);
  });

  it('answers other calls while it writes a large table: a call made at its first progress answers before it ends', async () => {
    // 40,000 rows of a sphere table: the CSV was formatted in one go of 65,536 rows, holding the thread that serves every call.
    const n = 40_000, path = `${t.dir}/big.pbt`;
    const f = (k: number) => Float64Array.from({ length: n }, (_, i) => (i * k) % 97);
    const table = { kind: 'table' as const, name: 'particles', columns: { x: f(1), y: f(3), z: f(7), r: new Float64Array(n).fill(0.5) }, meta: {} };
    fs.writeFileSync(path, encodeTable(table));
    const [id] = s.store.insertRuns([{ name: 'big table', engine: 'counter', spec: { engine: 'counter', name: 'big table', seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
    s.store.finishRun(id, { status: 'done', metrics: {}, series: [], artifacts: [{ kind: 'table', name: 'particles', path, bytes: fs.statSync(path).size, checksum: '', meta: {} }], wallSeconds: 1 });
    const order: string[] = [];
    const off = s.events.on('export.progress', (e) => {
      if (e.fraction < 1 && !order.length) void s.dispatch('app.info', {}).then(() => order.push('app.info'));
    });
    try {
      const res = await withDialog(async () => `${t.dir}/big.csv`)('runs.saveExport', { id, format: 'csv' }).then((r) => (order.push('export'), r));
      expect(order).toEqual(['app.info', 'export']);
      expect(fs.readFileSync(`${t.dir}/big.csv`, 'utf8').split('\n')).toHaveLength(n + 2);
      expect(res.bytes).toBe(fs.statSync(`${t.dir}/big.csv`).size);
    } finally {
      off();
    }
  });

  it('answers other calls while it writes a large results JSON: a call made at its first progress answers before it ends', async () => {
    // A ball mill's collision frequency per ball: a number per ball. The JSON was one stringify of the whole run.
    const n = 200_000, x = Float64Array.from({ length: n }, (_, i) => i), y = Float64Array.from({ length: n }, (_, i) => (i * 7) % 13);
    const [id] = s.store.insertRuns([{ name: 'long series', engine: 'counter', spec: { engine: 'counter', name: 'long series', seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
    s.store.finishRun(id, { status: 'done', metrics: {}, series: [{ name: 'collision frequency per ball', xLabel: 'ball', yLabel: 'impacts per second', kind: 'bar', x, y }], artifacts: [], wallSeconds: 1 });
    const order: string[] = [];
    const off = s.events.on('export.progress', (e) => {
      if (e.fraction < 1 && !order.length) void s.dispatch('app.info', {}).then(() => order.push('app.info'));
    });
    try {
      await withDialog(async () => `${t.dir}/long.json`)('runs.saveExport', { id, format: 'json' }).then(() => order.push('export'));
      expect(order).toEqual(['app.info', 'export']);
      expect(JSON.parse(fs.readFileSync(`${t.dir}/long.json`, 'utf8')).series[0].y).toEqual(Array.from(y));
    } finally {
      off();
    }
  });

  it('writes nothing when the user closes the dialog', async () => {
    const before = fs.readdirSync(t.dir).sort();
    expect(await withDialog(async () => null)('runs.saveExport', { id: runId, format: 'json' })).toEqual({ files: [], bytes: 0 });
    expect(fs.readdirSync(t.dir).sort()).toEqual(before);
  });

  it('refuses an unknown format, naming the field, and a run that has not finished, before asking where', async () => {
    let asked = 0;
    const save = withDialog(async () => (asked++, `${t.dir}/never`));
    const bad = await rejection(save('runs.saveExport', { id: runId, format: 'xlsx' }));
    expect(bad).toMatchObject({ code: 'invalid', issues: [{ path: 'format', message: expect.stringContaining('json') }] });
    const [running] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'long', seed: 1, params: { steps: 10_000, stepMs: 5 } } })).runIds;
    const busy = await rejection(save('runs.saveExport', { id: running, format: 'json' }));
    expect(busy).toMatchObject({ code: 'conflict', message: expect.stringMatching(/^run \S+ is (queued|running): only a run that has ended \(done, failed or cancelled\) can be exported$/) });
    await s.dispatch('runs.cancel', { id: running });
    expect(asked).toBe(0);
  });

  it('says a format the run has no data for before asking where, keeps a file already at the path when the export fails, and writes the raw header beside the volume', async () => {
    let asked = 0;
    const lacking = await rejection(withDialog(async () => (asked++, `${t.dir}/never.vti`))('runs.saveExport', { id: runId, format: 'vti' }));
    expect(lacking).toMatchObject({ code: 'conflict', message: expect.stringMatching(/cannot export run \S+ as vti: .*no label volume/) });
    expect(asked).toBe(0);

    const [id] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'volume', seed: 1, params: { steps: 2, stepMs: 0, volume: true } } })).runIds;
    await s.queue.waitFor([id]);
    const raw = `${t.dir}/labels.raw`;
    const res = await withDialog(async () => raw)('runs.saveExport', { id, format: 'raw' });
    expect(res.files).toEqual([raw, `${raw}.json`]);
    expect(JSON.parse(fs.readFileSync(`${raw}.json`, 'utf8'))).toBeTypeOf('object');
    expect(fs.statSync(raw).size).toBe(res.bytes);

    // Its volume cut short: the export fails after the dialog, and the user's file stays as it was.
    const volume = s.store.artifacts(id).find((a) => a.kind === 'volume')!;
    fs.truncateSync(volume.path, 64);
    const out = `${t.dir}/kept.vti`;
    fs.writeFileSync(out, 'the user’s file');
    const err = await rejection(withDialog(async () => out)('runs.saveExport', { id, format: 'vti' }));
    expect(err).toMatchObject({ code: 'conflict', message: expect.stringMatching(/cannot export run \S+ as vti to .*kept\.vti: .*truncated/) });
    expect(fs.readFileSync(out, 'utf8')).toBe('the user’s file');
    expect(fs.readdirSync(t.dir).filter((f) => f.startsWith('kept.vti.partial'))).toEqual([]);
  });
});
