/**
 * Imports and the export format list through the one handler table (what the renderer, the web
 * host and the CLI call): shapes from mesh and raw bytes into the library, a sphere CSV into a
 * finished, analysed run that lists, reads back and exports like any other.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { analyseSpheres } from '../../core/analysis/index';
import { decodeTable } from '../../core/io/container';
import { rawSidecar } from '../../core/io/raw';
import { sphereCsvToTable } from '../../core/io/csv';
import { EXPORT_FORMATS } from '../../main/services/exports';
import { openServices, type Services } from '../../main/services/services';
import { RunStore } from '../../main/services/store';
import type { Events } from '../../main/api';
import { rejection, tempDir } from './helpers';
import { asciiBox, cubicSpheresCsv } from './fixtures/imports';

let s: Services;
const t = tempDir();
beforeAll(() => {
  s = openServices({ dataDir: t.dir });
});
afterAll(async () => {
  await s.close();
  t.cleanup();
});

describe('shapes.importMesh / shapes.importRaw', () => {
  it('voxelises STL bytes into a shape of the library, with a unique name', async () => {
    const bytes = new TextEncoder().encode(asciiBox(2, 1, 0.5));
    const a = await s.dispatch('shapes.importMesh', { fileName: 'C:\\models\\Box.STL', bytes, resolution: 10 });
    expect(a.shape.name).toBe('Box');
    expect(a.shape.kind).toBe('voxels');
    expect(a.shape.params).toMatchObject({ kind: 'voxels', dims: [20, 10, 5] });
    expect(a.voxelCount).toBe(1000);
    expect(a.volume).toBeCloseTo(1, 12);
    expect(a.triangles).toBe(12);
    const b = await s.dispatch('shapes.importMesh', { fileName: 'Box.stl', bytes, voxelsAcross: 8 });
    expect(b.shape.name).toBe('Box 2');
    expect(b.shape.params).toMatchObject({ dims: [8, 4, 2] });
    expect((await s.dispatch('shapes.list', {})).filter((x) => x.name.startsWith('Box')).map((x) => x.id).sort()).toEqual([a.shape.id, b.shape.id].sort());
  });

  it('names the bad field or the problem of the file', async () => {
    const bytes = new TextEncoder().encode(asciiBox(1, 1, 1));
    expect(await rejection(s.dispatch('shapes.importMesh', { fileName: 'box.ply', bytes, resolution: 4 }))).toMatchObject({ code: 'invalid', issues: [{ path: 'fileName' }] });
    expect(await rejection(s.dispatch('shapes.importMesh', { fileName: 'box.stl', bytes: 'abc', resolution: 4 }))).toMatchObject({ code: 'invalid', issues: [{ path: 'bytes' }] });
    expect(await rejection(s.dispatch('shapes.importMesh', { fileName: 'box.stl', bytes, resolution: 4, voxelsAcross: 4 }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/exactly one of resolution or voxelsAcross/),
    });
    expect(await rejection(s.dispatch('shapes.importMesh', { fileName: 'box.stl', bytes, voxelsAcross: 5000 }))).toMatchObject({ code: 'invalid', issues: [{ path: 'voxelsAcross' }] });
    const open = new TextEncoder().encode(asciiBox(1, 1, 1).replace(/ facet normal[^]*?endfacet\n/, ''));
    expect(await rejection(s.dispatch('shapes.importMesh', { fileName: 'open.stl', bytes: open, resolution: 4 }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^open\.stl: .*not watertight/),
    });
  });

  it('reads raw bytes with their JSON header into a shape', async () => {
    const data = Uint8Array.of(0, 1, 1, 0, 2, 0, 0, 0, 3, 0, 0, 7);
    const header = rawSidecar({ dims: [3, 2, 2], dtype: 'uint8', byteOrder: 'little', headerBytes: 0, voxelSize: 0.5 });
    const r = await s.dispatch('shapes.importRaw', { fileName: 'grain.raw', bytes: data, header, name: 'Grain' });
    expect(r.shape.name).toBe('Grain');
    expect(r.shape.params).toMatchObject({ kind: 'voxels', dims: [3, 2, 2] });
    expect(r.voxelCount).toBe(5);
    expect(r.resolution).toBe(2);
    expect(await rejection(s.dispatch('shapes.importRaw', { fileName: 'g.raw', bytes: data.subarray(0, 5), header }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^g\.raw: /),
    });
    expect(await rejection(s.dispatch('shapes.importRaw', { fileName: 'g.raw', bytes: Uint8Array.of(...data, 0, 0, 0), header }))).toMatchObject({
      code: 'invalid',
      message: 'g.raw: raw data has 15 bytes, more than the 12 that the header (dims 3x2x2, uint8, headerBytes 0) describes: its dims, dtype or headerBytes do not match the file',
    });
    expect(await rejection(s.dispatch('shapes.importRaw', { fileName: 'g.raw', bytes: new Uint8Array(12), header }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/no non-zero \(solid\) voxel/),
    });
  });
});

describe('runs.importSpheres', () => {
  it('records a finished, analysed spheres run that lists, reads back and exports', async () => {
    const updates: string[] = [];
    const off = s.events.on('run.updated', (r) => updates.push(r.id));
    const run = await s.dispatch('runs.importSpheres', { name: 'Cubic stack', csv: cubicSpheresCsv(), source: 'stack.csv', analysis: { gapTolerance: 1e-9, poreGridVoxels: 4096 } });
    off();
    expect(run).toMatchObject({ name: 'Cubic stack', engine: 'spheres', status: 'done' });
    expect(updates).toEqual([run.id]);
    expect(run.metrics.particles).toBe(27);
    expect(run.metrics).not.toHaveProperty('particleCount');
    expect(run.metrics.coordinationMean).toBeGreaterThan(3);
    const direct = analyseSpheres(sphereCsvToTable(cubicSpheresCsv()), [3, 3, 3], { gapTolerance: 1e-9, poreGridVoxels: 4096 });
    expect(run.metrics).toMatchObject(direct.metrics);
    const rec = await s.dispatch('runs.get', { id: run.id });
    expect(rec.params).toMatchObject({ source: 'stack.csv', box: [3, 3, 3], analysis: { gapTolerance: 1e-9 } });
    // Recorded like a run this process ran: app version, machine, start time.
    expect(rec.appVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(rec.host?.cpus).toBeGreaterThan(0);
    expect(rec.startedAt).not.toBeNull();
    const list = await s.dispatch('runs.list', { filter: { engine: 'spheres' } });
    expect(list.rows.map((r) => r.id)).toContain(run.id);
    const series = await s.dispatch('runs.series', { id: run.id });
    expect(series.map((x) => x.name)).toEqual(expect.arrayContaining(['porosity profile', 'coordination number']));
    const [artifact] = await s.dispatch('runs.artifacts', { id: run.id });
    expect(artifact).toMatchObject({ kind: 'table', name: 'spheres' });
    expect(artifact.path.startsWith(t.dir)).toBe(true);
    const particles = await s.dispatch('runs.particles', { id: run.id });
    expect(particles.count).toBe(27);
    // x and y periodic, z not: bottom and top layers touch 5 spheres, the middle layer 6.
    expect(Array.from(particles.columns.coordination).sort()).toEqual([...Array(18).fill(5), ...Array(9).fill(6)]);
    const csv = await s.dispatch('runs.export', { id: run.id, format: 'csv' });
    const back = sphereCsvToTable(new TextDecoder().decode(csv.bytes));
    expect(Array.from(back.columns.z)).toEqual(Array.from(sphereCsvToTable(cubicSpheresCsv()).columns.z));
    const stl = await s.dispatch('runs.export', { id: run.id, format: 'stl-particles' });
    expect(stl.bytes.length).toBeGreaterThan(84);
    expect(await rejection(s.dispatch('runs.export', { id: run.id, format: 'heightmap-tiff' }))).toMatchObject({ code: 'conflict' });
    expect(await rejection(s.dispatch('runs.rerun', { id: run.id }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(/imported sphere set/) });
    // The table artifact holds the analysis columns too.
    expect(Object.keys(decodeTable(readFileSync(artifact.path)).columns)).toEqual(['id', 'type', 'x', 'y', 'z', 'r', 'coordination']);
  });

  it('says how far it is, as runs do: import.progress events, parsing then analysing, each from 0 to 1', async () => {
    const events: Events['import.progress'][] = [];
    const off = s.events.on('import.progress', (e) => events.push(e));
    await s.dispatch('runs.importSpheres', { name: 'Watched', csv: cubicSpheresCsv(), source: 'watched.csv', analysis: { poreGridVoxels: 4096 } });
    off();
    expect(events.every((e) => e.name === 'Watched' && e.source === 'watched.csv')).toBe(true);
    const phases = events.map((e) => e.phase).filter((p, k, all) => p !== all[k - 1]);
    expect(phases).toEqual(['parsing', 'analysing']);
    for (const phase of phases) {
      const fractions = events.filter((e) => e.phase === phase).map((e) => e.fraction);
      expect(fractions[0], phase).toBe(0);
      expect(fractions.at(-1), phase).toBe(1);
      expect(fractions.every((f, k) => k === 0 || f >= fractions[k - 1]), `${phase}: ${fractions.join(', ')}`).toBe(true);
    }
  });

  it('takes an explicit box, and names bad CSV lines and bad analysis options', async () => {
    const run = await s.dispatch('runs.importSpheres', { name: 'In a taller box', csv: cubicSpheresCsv(), box: [3, 3, 6] });
    expect((await s.dispatch('runs.get', { id: run.id })).params).toMatchObject({ box: [3, 3, 6], source: '' });
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'bad', csv: 'x,y,z,r\n1,2,abc,3\n', source: 'bad.csv' }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^bad\.csv: .*line 2: column 'z' is 'abc'/),
    });
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'bad', csv: cubicSpheresCsv(), analysis: { rdfBins: 0 } }))).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'analysis.rdfBins' }],
    });
    // A misspelt option is refused, naming the one meant (it was dropped, and the default used).
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'bad', csv: cubicSpheresCsv(), analysis: { rdfbins: 50 } }))).toMatchObject({
      code: 'invalid',
      issues: [{ path: 'analysis.rdfbins', message: "unknown field 'rdfbins' (did you mean 'rdfBins'?)" }],
    });
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'bad', csv: cubicSpheresCsv(), box: [3, -1, 3] }))).toMatchObject({ code: 'invalid', issues: [{ path: 'box.1' }] });
    const names = (await s.dispatch('runs.list', { filter: { engine: 'spheres' } })).rows.map((r) => r.name);
    expect(names).not.toContain('bad');
  });
});

describe('a sphere import its process did not finish (kill -9 while it wrote the table)', () => {
  it('is failed at the next opening, saying the import was interrupted, its partial file removed; a read-only look shows it so', async () => {
    const data = tempDir();
    try {
      // What recordSphereRun leaves when its process is killed between claiming its row and storing its outcome.
      const store = new RunStore(join(data.dir, 'packbench.db'));
      const params = { source: 'grains.csv' };
      const [id] = store.insertRuns([{ name: 'Grains', engine: 'spheres', spec: { engine: 'spheres', name: 'Grains', seed: 0, params }, params, seed: 0, priority: 0, batchId: null, status: 'paused' }]);
      expect(store.claim(id, { host: null, threads: 1, appVersion: 't', owner: `${hostname()}:2147483646` }, 'paused')).toBe(true);
      store.close();
      const dir = join(data.dir, 'runs', id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'spheres.pbt'), 'the start of a table');
      // It was re-queued as a run to resume, then failed 'could not start: unknown engine 'spheres'', its partial file kept.
      const error = "interrupted: the process importing it ended before the spheres were stored; import grains.csv again";
      const reader = openServices({ dataDir: data.dir, readOnly: true });
      expect(await reader.dispatch('runs.get', { id })).toMatchObject({ status: 'failed', error });
      await reader.close();
      const writer = openServices({ dataDir: data.dir, autoStart: true });
      try {
        expect(writer.recovered).toEqual([]);
        expect(await writer.dispatch('runs.get', { id })).toMatchObject({ status: 'failed', error });
        expect(existsSync(dir)).toBe(false);
      } finally {
        await writer.close();
      }
    } finally {
      data.cleanup();
    }
  });

  it('an import whose process is killed as it records its run leaves no run that never started', async () => {
    const data = tempDir();
    try {
      // Killed (kill -9) once the run's row is in, as it is marked started: its row was inserted and claimed in two transactions.
      const root = fileURLToPath(new URL('../..', import.meta.url));
      const script = join(data.dir, 'import.mts');
      writeFileSync(script, `
        import { openServices } from ${JSON.stringify(join(root, 'main/services/services.ts'))};
        import { cubicSpheresCsv } from ${JSON.stringify(join(root, 'test/main/fixtures/imports.ts'))};
        const s = openServices({ dataDir: ${JSON.stringify(data.dir)} });
        s.store.claim = () => process.kill(process.pid, 'SIGKILL');
        await s.dispatch('runs.importSpheres', { name: 'Grains', csv: cubicSpheresCsv(), source: 'grains.csv' });`);
      const signal = await new Promise((done) => spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: 'inherit' }).once('exit', (_code, sig) => done(sig)));
      expect(signal).toBe('SIGKILL');
      // A 'paused' spheres run stayed, never started, with no table: nothing at any start takes it up.
      const next = openServices({ dataDir: data.dir });
      try {
        expect((await next.dispatch('runs.list', {})).rows.map((r) => [r.status, r.name])).toEqual([]);
      } finally {
        await next.close();
      }
    } finally {
      data.cleanup();
    }
  });

  it('a failed import whose process is killed as it removes its row leaves no folder that no run points to', async () => {
    const data = tempDir();
    try {
      // An import whose outcome cannot be stored (a full disk, say), killed (kill -9) as it deletes its row: before it, or after.
      // (A script file: --input-type would pass on to the import's worker, which has no string to run.)
      const root = fileURLToPath(new URL('../..', import.meta.url));
      const killedImport = (rowFirst: boolean) => new Promise<NodeJS.Signals | null>((done) => {
        const script = join(data.dir, `import-${rowFirst}.mts`);
        writeFileSync(script, `
          import { openServices } from ${JSON.stringify(join(root, 'main/services/services.ts'))};
          import { cubicSpheresCsv } from ${JSON.stringify(join(root, 'test/main/fixtures/imports.ts'))};
          const s = openServices({ dataDir: ${JSON.stringify(data.dir)} });
          s.store.finishRun = () => { throw new Error('database or disk is full'); };
          const deleteRow = s.store.deleteRun.bind(s.store);
          s.store.deleteRun = (id) => { ${rowFirst ? 'deleteRow(id); ' : ''}process.kill(process.pid, 'SIGKILL'); };
          await s.dispatch('runs.importSpheres', { name: 'Grains', csv: cubicSpheresCsv(), source: 'grains.csv' });`);
        spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: 'inherit' }).once('exit', (_code, signal) => done(signal));
      });
      expect(await killedImport(true)).toBe('SIGKILL');
      expect(await killedImport(false)).toBe('SIGKILL');
      // Its folder stayed for good when the row went first, listed by no command.
      const next = openServices({ dataDir: data.dir });
      try {
        const { rows } = await next.dispatch('runs.list', {});
        expect(rows.map((r) => [r.status, r.error])).toEqual([['failed', 'interrupted: the process importing it ended before the spheres were stored; import grains.csv again']]);
        expect(readdirSync(join(data.dir, 'runs')).filter((name) => name !== '.removing')).toEqual([]);
        expect(readdirSync(join(data.dir, 'runs', '.removing'))).toEqual([]);
      } finally {
        await next.close();
      }
    } finally {
      data.cleanup();
    }
  });
});

describe('sphere imports that would not fit', () => {
  it('refuses up front, naming the line and the limit: far-out coordinates, outside the box, wider than the box', async () => {
    // Refused by the line check before any grid (this took 36 s and 8.5 GB): that check's message.
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'far', csv: 'x,y,z,r\n1,1,1,1\n1,1,1e300,1\n', source: 'far.csv' }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^far\.csv: sphere CSV line 3: z = 1e\+300 makes the box 1e\+300 long along z, .* the analysis allows at most 100000$/),
    });
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'out', csv: cubicSpheresCsv(), box: [2, 3, 3] }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/sphere CSV line 20: x = 2\.5 lies outside the box \[0, 2\] along x/),
    });
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'neg', csv: '# shifted\nx,y,z,r\n1,1,1,0.5\n-1,1,1,0.5\n' }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/line 4: x = -1 is below 0; the box runs from the origin \(a given box too\), so shift the coordinates to 0 and above$/),
    });
    // A box does not help (it starts at the origin too), so the message above does not offer one.
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'neg', csv: 'x,y,z,r\n1,1,1,0.5\n-1,1,1,0.5\n', box: [4, 4, 4] }))).toMatchObject({
      message: expect.stringMatching(/line 3: x = -1 lies outside the box \[0, 4\] along x/),
    });
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'wide', csv: 'x,y,z,r\n1,1,1,0.5\n1,1,1,5\n', box: [4, 4, 4] }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/line 3: the sphere's diameter 10 is wider than the box \(4 x 4\)/),
    });
    // With z periodic a sphere taller than the box overlaps its own image, which no analysis counted.
    const thin = { csv: 'x,y,z,r\n1,1,0.3,0.5\n2,2,0.3,0.5\n', box: [3, 3, 0.6] as [number, number, number] };
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'tall', ...thin, analysis: { periodic: [true, true, true] } }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/line 2: the sphere's diameter 1 is taller than the box \(0\.6 along z\); with z periodic, spheres must fit the box in z too$/),
    });
    expect((await s.dispatch('runs.importSpheres', { name: 'flat bed', ...thin })).status).toBe('done');
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'empty', csv: 'x,y,z,r\n' }))).toMatchObject({ code: 'invalid', message: expect.stringMatching(/no spheres/) });
    const names = (await s.dispatch('runs.list', { filter: { engine: 'spheres' } })).rows.map((r) => r.name);
    for (const bad of ['far', 'out', 'neg', 'wide', 'tall', 'empty']) expect(names).not.toContain(bad);
  });

  it('runs imports in a worker under the memory budget: over it is refused, and the services answer meanwhile', async () => {
    const t2 = tempDir();
    const small = openServices({ dataDir: t2.dir, memoryBudgetBytes: 32 << 20 });
    try {
      expect(await rejection(small.dispatch('runs.importSpheres', { name: 'big', csv: cubicSpheresCsv() }))).toMatchObject({
        code: 'invalid',
        message: expect.stringMatching(/^sphere CSV: the import needs about .* MiB, more than the memory budget of 32\.0 MiB$/),
      });
      expect((await small.dispatch('runs.list', {})).total).toBe(0);
    } finally {
      await small.close();
      t2.cleanup();
    }
    // While a sphere set (20,000 spheres: a second or so of analysis) is analysed, this thread goes
    // on: timers fire and other calls are answered (the analysis runs in the worker).
    const rows = ['x,y,z,r'];
    for (let i = 0; i < 20_000; i++) rows.push(`${(i % 25) + 0.5},${(Math.floor(i / 25) % 25) + 0.5},${Math.floor(i / 625) + 0.5},0.5`);
    const order: string[] = [];
    const importing = s.dispatch('runs.importSpheres', { name: 'while', csv: rows.join('\n') }).then(() => order.push('import'));
    await new Promise((r) => setTimeout(r, 5));
    order.push('timer');
    order.push(`listed ${(await s.dispatch('runs.list', { limit: 1 })).rows.length}`);
    await importing;
    expect(order).toEqual(['timer', 'listed 1', 'import']);
  });
});

describe('a client gone during an import or a preview', () => {
  it('ends its worker task there: the call is abandoned, its worker terminated, nothing stored', async () => {
    // A worker task has no cancel flag to ask: before, a closed tab's import or preview ran to its
    // end (20,000 spheres: a second or so of analysis) and its run was stored for nobody.
    const rows = ['x,y,z,r'];
    for (let i = 0; i < 20_000; i++) rows.push(`${(i % 25) + 0.5},${(Math.floor(i / 25) % 25) + 0.5},${Math.floor(i / 625) + 0.5},0.5`);
    const calls = [['runs.importSpheres', { name: 'gone', csv: rows.join('\n') }], ['shapes.preview', { shape: { kind: 'sphere' }, size: 2, resolution: 100 }]] as const;
    const runsBefore = (await s.dispatch('runs.list', {})).total;
    const realPost = Worker.prototype.postMessage;
    for (const [method, params] of calls) {
      const gone = new AbortController();
      const terminate = vi.spyOn(Worker.prototype, 'terminate');
      const post = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
        realPost.apply(this, args);
        gone.abort(); // the client goes once its task is in the worker
      });
      try {
        expect(await rejection(s.dispatch(method, params, gone.signal))).toMatchObject({ code: 'unavailable', message: `${method} was abandoned: the client that asked has gone` });
        expect(post).toHaveBeenCalledTimes(1);
        expect(terminate.mock.contexts).toContain(post.mock.contexts[0]);
      } finally {
        post.mockRestore();
        terminate.mockRestore();
      }
    }
    expect((await s.dispatch('runs.list', {})).total).toBe(runsBefore);
  });
});

describe('exports.formats', () => {
  it('lists every export format with label, extension and the runs it applies to', async () => {
    const formats = await s.dispatch('exports.formats', {});
    expect(formats.map((f) => f.id)).toEqual(EXPORT_FORMATS.map((f) => f.id));
    for (const f of formats) {
      expect(f.label.length, f.id).toBeGreaterThan(5);
      expect(f.extension, f.id).toMatch(/^[a-z]+$/);
      expect(f.appliesTo.length, f.id).toBeGreaterThan(5);
    }
    expect(formats.find((f) => f.id === 'heightmap-tiff')).toMatchObject({ needs: 'heightmap', extension: 'tif' });
    expect(formats.find((f) => f.id === 'csv')).toMatchObject({ needs: 'table', appliesTo: expect.stringMatching(/sphere/) });
    // Every engine's run has a particle table, and the sphere engines' tables mesh as spheres: say so.
    for (const id of ['csv', 'lammps', 'stl-particles']) expect(formats.find((f) => f.id === id)!.appliesTo, id).toMatch(/stacking, ball mill, surface/);
  });
});
