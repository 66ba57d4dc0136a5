/**
 * The queue and the store when the machine misbehaves: worker bundles that cannot be written where
 * they normally go, a database that is full. Runs fail with the reason, calls get an error the user
 * can act on, and nothing throws out of a timer.
 */
import { describe, expect, it, vi, type TestContext } from 'vitest';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleDirs, runnableEntry, WorkerPool } from '../../main/services/pool';
import { isFullDisk, withExport } from '../../main/services/handlers';
import { ownerTag, THIS_PROCESS } from '../../main/services/processes';
import { openServicesWhenFree, type Services } from '../../main/services/services';
import { BUSY_TIMEOUT_MS } from '../../main/services/store';
import { LIVE_TABLE_FILE } from '../../main/workers/protocol';
import { COUNTER_WORKER, fixtureRegistry } from './fixtures/registry';
import { fillDisk, makeReadOnly, smallDisk } from './faults';
import { afterEachTest, cliIn, fixtureServices, rejection, until } from './helpers';
import { cubicSpheresCsv } from './fixtures/imports';

const { later, dir } = afterEachTest();
const root = fileURLToPath(new URL('../..', import.meta.url));

function setup(o: Parameters<typeof fixtureServices>[1] = {}): { s: Services; dir: string } {
  const data = dir();
  const s = fixtureServices(data, o);
  later(() => s.close());
  return { s, dir: data };
}

const spec = (name: string, params: Record<string, unknown> = {}) => ({ engine: 'counter', name, seed: 1, params: { stepMs: 0, ...params } });

/**
 * Services working through their queue on a disk of `kib` KiB (faults.ts smallDisk), closed and the
 * disk removed after the test; the test is skipped where no such disk can be made.
 */
function servicesOnSmallDisk(ctx: TestContext, kib: number, o: Parameters<typeof fixtureServices>[1] = {}): { s: Services; dir: string } {
  const disk = smallDisk(kib);
  if (!disk) ctx.skip();
  later(disk.cleanup);
  const s = fixtureServices(disk.dir, { autoStart: true, ...o });
  later(() => s.close());
  return { s, dir: disk.dir };
}

/** Queues one counter run and waits for its end: its record. */
async function runToEnd(s: Services, runSpec: ReturnType<typeof spec>) {
  const id = (await s.dispatch('runs.enqueue', { spec: runSpec })).runIds[0];
  await s.queue.waitFor([id]);
  return { id, r: await s.dispatch('runs.get', { id }) };
}

describe('queue faults', () => {
  it('writes the worker bundle to the next folder when node_modules/.cache is not writable, with its packages inside', async () => {
    const data = dir();
    const fallback = join(data, 'cache');
    // A path below a regular file cannot be created, even by root.
    const pool = new WorkerPool({ bundleDirs: ['/dev/null/cache', fallback] });
    const job = pool.start({ runId: 'r1', engineId: 'counter', workerEntry: COUNTER_WORKER, params: { steps: 3, stepMs: 0, memoryBytes: 1, volume: false, badResult: false }, seed: 1, threads: 1, runDir: data, memoryBytes: 1 });
    expect((await job.done).status).toBe('done');
    expect(existsSync(fallback)).toBe(true);
    await expect(runnableEntry(COUNTER_WORKER, ['/dev/null/a', '/dev/null/b'])).rejects.toThrow(/cannot write the worker bundle of counter-worker.ts to any of: \/dev\/null\/a: .*; \/dev\/null\/b: /);
  });

  it('bundles a worker entry without holding the thread that serves the calls: what comes meanwhile goes first', async () => {
    // esbuild's synchronous build held the host's thread 0.5-0.8 s at the first run, check or preview of a process.
    const order: string[] = [];
    setImmediate(() => order.push('another call'));
    await Promise.resolve(runnableEntry(COUNTER_WORKER, [join(dir(), 'bundles')])).then(() => order.push('bundle'));
    expect(order).toEqual(['another call', 'bundle']);
  });

  it.skipIf(!process.getuid)('runs no bundle another user put in the OS temp folder: its bundle folder there must be this user\'s own', async () => {
    const shared = dir(); // the temp folder, which every user may write in
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = shared;
    later(() => void (tmp === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = tmp)));
    // node_modules/.cache and the data folder cannot be written: the temp folder is the last resort.
    const dirs = bundleDirs('/dev/null/data').slice(1);
    const tempDir = dirs[1];
    expect(tempDir.startsWith(shared)).toBe(true);
    // Another user made that folder first, open to all, with the bundle this one will look for in it.
    const planted = await runnableEntry(COUNTER_WORKER, [tempDir]);
    chmodSync(tempDir, 0o777);
    writeFileSync(planted, 'process.exit(99); // code of another user');
    await expect(runnableEntry(COUNTER_WORKER, dirs)).rejects.toThrow(/is not a folder of this user that only it can write/);
  });

  it.skipIf(process.platform !== 'linux')("makes worker bundles after esbuild's service process was killed (kill -9 of the process under `queue run`): it is started again", async () => {
    // The service runs once a first bundle is made; then it is killed, as a user ending "a worker" would.
    await runnableEntry(COUNTER_WORKER, [join(dir(), 'first')]);
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    const service = children.map(Number).filter((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'esbuild');
    expect(service).toHaveLength(1);
    process.kill(service[0], 'SIGKILL');
    // Every later bundle of the process failed ('The service is no longer running'): each run of `queue run` at once.
    await expect(runnableEntry(COUNTER_WORKER, [join(dir(), 'after')])).resolves.toMatch(/counter-worker-.*\.mjs$/);
  });

  it('fails a run that cannot start (no bundle folder) with the reason, and goes on with the next', async () => {
    const { s } = setup({ autoStart: true });
    // Queued while the bundle folder is there (the engine's checks run in a worker of the same
    // entry), started once it is gone.
    await s.dispatch('queue.pause', {});
    const first = await s.dispatch('runs.enqueue', { spec: spec('no bundle') });
    (s.pool as unknown as { bundleDirs: string[] }).bundleDirs = ['/dev/null/cache'];
    await s.dispatch('queue.resume', {});
    await s.queue.waitFor(first.runIds);
    expect(s.store.getSummary(first.runIds[0])).toMatchObject({ status: 'failed', error: expect.stringMatching(/^could not start: cannot write the worker bundle/) });
    (s.pool as unknown as { bundleDirs: string[] }).bundleDirs = [join(s.dataDir, 'cache')];
    const second = await s.dispatch('runs.enqueue', { spec: spec('bundle') });
    await s.queue.waitFor(second.runIds);
    expect(s.store.getSummary(second.runIds[0])!.status).toBe('done');
  });

  it('answers calls on a full database with an "unavailable" error that says so, and keeps the process up', async () => {
    const { s } = setup({ autoStart: true });
    const pages = s.store.db.pragma('page_count', { simple: true }) as number;
    s.store.db.pragma(`max_page_count = ${pages}`);
    const many = Array.from({ length: 200 }, (_, i) => i + 1);
    const err = await s.dispatch('runs.enqueue', { spec: spec('full', { steps: { $sweep: many } }) }).then(() => null, (e) => e);
    expect(err).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^the disk of the data folder is full \(SQLITE_FULL\)/) });
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
    s.store.db.pragma('max_page_count = 1073741823');
    const ok = await s.dispatch('runs.enqueue', { spec: spec('room again') });
    await s.queue.waitFor(ok.runIds);
    expect(s.store.getSummary(ok.runIds[0])!.status).toBe('done');
  });
  // The queue's writes do not wait for the lock (each would stop this process for the busy timeout,
  // 5 s, and the lock's holder here with it): the runs below would take minutes, not a second.
  it('records the outcome of a run that ends while another process locks the database once the lock goes, with the lines it logged meanwhile, and starts the runs queued meanwhile', async () => {
    const { s, dir: data } = setup({ autoStart: true });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => quiet.mockRestore());
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('ends while locked', { steps: { $sweep: [20, 3] }, stepMs: 10 }) });
    expect(s.store.getSummary(runIds[0])!.status).toBe('running');
    const other = new Database(join(data, 'packbench.db'));
    other.exec('BEGIN EXCLUSIVE');
    try {
      // The first run ends; its outcome cannot be written, nor can the second run be claimed.
      while (s.pool.size > 0) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      expect(s.store.getSummary(runIds[1])!.status).toBe('queued');
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    // Within a few polls of the queue (every 100 ms here); before, the first run stayed 'running' for good.
    await Promise.race([s.queue.waitFor(runIds), new Promise((r) => setTimeout(r, 10_000))]);
    expect(s.store.getSummary(runIds[0])).toMatchObject({ status: 'done', metrics: { steps: 20 } });
    // The line it logged at its end, while the lock was held, with it: it was dropped.
    expect(s.store.getRun(runIds[0])!.log).toContain('counted 20 steps');
    expect((await s.dispatch('runs.series', { id: runIds[0] })).map((x) => x.name)).toEqual(['sum']);
    expect(s.store.getSummary(runIds[1])).toMatchObject({ status: 'done', metrics: { steps: 3 } });
  });

  it('keeps the host up when the database cannot be read as a run ends, and starts the next run at a later look', async () => {
    // The queue picks the next run when one ends, in the promise of its end: a read that threw there
    // (a disk I/O error) was an unhandled rejection, which ends Node, the web host with its runs.
    const { s } = setup({ autoStart: true });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => quiet.mockRestore());
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    later(() => void process.off('unhandledRejection', onUnhandled));
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('ends', { steps: { $sweep: [20, 3] }, stepMs: 10 }) });
    const read = s.store.nextQueued.bind(s.store);
    let failed = false;
    vi.spyOn(s.store, 'nextQueued').mockImplementation((...args) => {
      if (s.pool.size === 0 && !failed) {
        failed = true;
        throw new Error('disk I/O error');
      }
      return read(...args);
    });
    await Promise.race([s.queue.waitFor(runIds), new Promise((r) => setTimeout(r, 10_000))]);
    expect(failed).toBe(true);
    expect(unhandled).toEqual([]);
    expect(runIds.map((id) => s.store.getSummary(id)!.status)).toEqual(['done', 'done']);
    expect(quiet).toHaveBeenCalledWith(expect.stringContaining('disk I/O error'));
  });

  it('answers a resume of the queue whose pick of the next run cannot read the database: stored, and picked at a later look', async () => {
    // The resume was stored, but the pick after it threw: the call answered 'internal'.
    const { s } = setup({ autoStart: true });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => quiet.mockRestore());
    await s.dispatch('queue.pause', {});
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('after resume', { steps: 3 }) });
    const read = s.store.nextQueued.bind(s.store);
    const failing = vi.spyOn(s.store, 'nextQueued').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    expect(await s.dispatch('queue.resume', {})).toMatchObject({ paused: false });
    failing.mockImplementation(read);
    await Promise.race([s.queue.waitFor(runIds), new Promise((r) => setTimeout(r, 10_000))]);
    expect(s.store.getSummary(runIds[0])!.status).toBe('done');
  });
});

describe('data folder faults', () => {
  it("waits at opening for a write lock another process holds, saying so, and past lockWaitMs fails naming the folder", async () => {
    const data = dir();
    await fixtureServices(data).close();
    // Another process holds the write lock until told to let go some time later (this process
    // cannot tell it while it waits: SQLite's wait blocks the thread).
    const hold = `const d = new (require('better-sqlite3'))(${JSON.stringify(join(data, 'packbench.db'))}); d.exec('BEGIN IMMEDIATE'); console.log('locked');
      process.stdin.once('data', (ms) => setTimeout(() => { d.exec('COMMIT'); d.close(); }, Number(ms)));`;
    const holder = spawn(process.execPath, ['-e', hold], { stdio: ['pipe', 'pipe', 'inherit'] });
    later(() => void holder.kill());
    await new Promise((r) => holder.stdout.once('data', r));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    later(() => warn.mockRestore());
    // It failed after 5 s with 'the database is locked by another process; try again (SQLITE_BUSY)', naming no folder.
    // A lockWaitMs shorter than a write's wait for a lock (BUSY_TIMEOUT_MS) is kept: it waited 5 s and said so.
    expect(() => fixtureServices(data, { lockWaitMs: 1000 })).toThrow(`cannot open the data folder ${data}: another process has held the write lock of its database (packbench.db) for over 1 s`);
    // Let go past the first try of BUSY_TIMEOUT_MS: opening says it waits, then tries again.
    holder.stdin.write(String(BUSY_TIMEOUT_MS + 1000));
    const s = fixtureServices(data, { lockWaitMs: 30_000 });
    later(() => s.close());
    expect(s.readOnlyBecause).toBeNull();
    expect(warn).toHaveBeenCalledWith(`PackBench: the database of ${data} is locked by another process; waiting up to 30 s for it`);
  });

  it('removes the export folders a process left in the data folder when it died mid-export, and keeps those of live processes', async () => {
    const data = dir();
    await fixtureServices(data).close();
    const ended = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => ended.once('exit', r));
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    later(() => void alive.kill());
    const left = (pid: number | undefined) => {
      const folder = join(data, `tmp-export-${pid}@${hostname()}-abc123`);
      mkdirSync(folder);
      writeFileSync(join(folder, 'run.labels.raw.partial'), 'half an export');
      return folder;
    };
    const dead = left(ended.pid), mine = left(process.pid), live = left(alive.pid);
    // Another machine's (a folder on a shared disk): its processes cannot be asked.
    const elsewhere = join(data, `tmp-export-${ended.pid}@another-machine-abc123`);
    mkdirSync(elsewhere);
    // A process of an earlier boot (a reboot after a power cut), whatever process has its pid now.
    const beforeReboot = join(data, `tmp-export-${ownerTag({ ...THIS_PROCESS, pid: alive.pid!, boot: '00000000-0000-4000-8000-000000000000' })}-abc123`);
    mkdirSync(beforeReboot);
    const s = fixtureServices(data, { autoStart: true });
    later(() => s.close());
    // They stayed for good, with what they held (a crash during a multi-gigabyte download left that much).
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(mine)).toBe(false); // an earlier process with this pid: none of this one's exports runs yet
    expect(existsSync(live)).toBe(true);
    expect(existsSync(elsewhere)).toBe(true);
    expect(existsSync(beforeReboot)).toBe(!THIS_PROCESS.boot);
    // An export of this process under way stays when it opens the folder again (a second services).
    const [runId] = (await s.dispatch('runs.enqueue', { spec: spec('exported') })).runIds;
    await s.queue.waitFor([runId]);
    const stays = await withExport(s, runId, 'json', async (path) => {
      await fixtureServices(data).close();
      return existsSync(path);
    });
    expect(stays).toBe(true);
    // Read-only services write nothing.
    const ro = left(ended.pid);
    const reader = fixtureServices(data, { readOnly: true });
    await reader.close();
    expect(existsSync(ro)).toBe(true);
  });

  it('a run removed by a process killed between two steps of the removal is still listed with its files, or wholly gone', async () => {
    const data = dir();
    const s = fixtureServices(data, { autoStart: true });
    const ids = [];
    for (const name of ['killed before its row went', 'killed after']) ids.push((await runToEnd(s, spec(name, { volume: true }))).id);
    const [before, after] = ids;
    const files = (await s.dispatch('runs.artifacts', { id: before })).map((a) => a.path);
    expect(files.length).toBeGreaterThan(0);
    await s.close();
    // A `runs rm` killed (kill -9) as it deletes the run's row: before it (nothing stored yet), or after.
    const remove = (id: string, rowFirst: boolean) => new Promise<NodeJS.Signals | null>((done) => {
      const script = `
        import { openServices } from './main/services/services.ts';
        import { fixtureRegistry } from './test/main/fixtures/registry.ts';
        const s = openServices({ dataDir: ${JSON.stringify(data)}, registry: fixtureRegistry() });
        const deleteRow = s.store.deleteRun.bind(s.store);
        s.store.deleteRun = (id) => { ${rowFirst ? 'deleteRow(id); ' : ''}process.kill(process.pid, 'SIGKILL'); };
        await s.dispatch('runs.delete', { id: ${JSON.stringify(id)} });`;
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: 'inherit' }).once('exit', (_code, signal) => done(signal));
    });
    expect(await Promise.all([remove(before, false), remove(after, true)])).toEqual(['SIGKILL', 'SIGKILL']);
    // The row went first, and the folder stayed for good, listed by no command.
    const next = fixtureServices(data);
    later(() => next.close());
    expect((await next.dispatch('runs.get', { id: before })).status).toBe('done');
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
    expect(existsSync(join(data, 'runs', after))).toBe(false);
    expect(readdirSync(join(data, 'runs'))).toEqual(expect.arrayContaining([before, '.removing']));
    expect(readdirSync(join(data, 'runs', '.removing'))).toEqual([]);
    // A removal that cannot delete the row (the database locked past its wait) leaves the run whole.
    vi.spyOn(next.store, 'deleteRun').mockImplementationOnce(() => {
      throw new Error('database is locked');
    });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(next.dispatch('runs.delete', { id: before })).rejects.toThrow(/locked/);
    quiet.mockRestore();
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
    await next.dispatch('runs.delete', { id: before });
    expect(readdirSync(join(data, 'runs'))).toEqual(['.removing']);
    expect((await next.dispatch('runs.list', {})).total).toBe(0);
  });

  it('a run whose files a removal on a full disk deleted first is removed wholly at the next start when that removal was killed', async () => {
    const data = dir();
    const s = fixtureServices(data, { autoStart: true });
    const { id } = await runToEnd(s, spec('removed on a full disk', { volume: true }));
    const files = (await s.dispatch('runs.artifacts', { id })).map((a) => a.path);
    expect(files.length).toBeGreaterThan(0);
    await s.close();
    // `runs rm` on a full disk (opened read-only), killed (kill -9) once the files went, before services that can write removed the row.
    const script = `
      import { openServices } from './main/services/services.ts';
      import { fixtureRegistry } from './test/main/fixtures/registry.ts';
      const s = openServices({ dataDir: ${JSON.stringify(data)}, registry: fixtureRegistry(), readOnly: true });
      s.queue.deleteFilesFirst(${JSON.stringify(id)});
      process.kill(process.pid, 'SIGKILL');`;
    const signal = await new Promise((done) => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: 'inherit' }).once('exit', (_code, sig) => done(sig)));
    expect(signal).toBe('SIGKILL');
    expect(files.filter((f) => existsSync(f))).toEqual([]);
    // Listed (without its files) until the folder is opened for writing, which finishes the removal: not put back as a run with no files.
    const reader = fixtureServices(data, { readOnly: true });
    expect((await reader.dispatch('runs.list', {})).total).toBe(1);
    await reader.close();
    const next = fixtureServices(data);
    later(() => next.close());
    expect((await next.dispatch('runs.list', {})).total).toBe(0);
    expect(readdirSync(join(data, 'runs'))).toEqual(['.removing']);
    expect(readdirSync(join(data, 'runs', '.removing'))).toEqual([]);
  });

  it('History\'s delete on a full disk (the app\'s and the web host\'s services, read-only) deletes the run\'s files first, then its record once that made room; open windows hear of it', async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip();
    later(disk.cleanup);
    const writable = fixtureServices(disk.dir);
    const runWith = (name: string, bytes: number, status: 'done' | 'failed') => {
      const [id] = writable.store.insertRuns([{ name, engine: 'counter', spec: spec(name), params: {}, seed: 1, priority: 0, batchId: null }]);
      writable.store.finishRun(id, { status, metrics: { steps: 1 } });
      mkdirSync(writable.queue.runDir(id), { recursive: true });
      writeFileSync(join(writable.queue.runDir(id), 'labels.raw'), Buffer.alloc(bytes, 1));
      return id;
    };
    const small = runWith('small', 1, 'failed'), big = runWith('big', 2 << 20, 'done'), kept = runWith('kept', 1, 'done');
    await writable.close();
    try {
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(8 << 20, 1));
    } catch {
      // the disk is full now: what this test wants
    }
    const free = () => statfsSync(disk.dir).bavail * statfsSync(disk.dir).bsize;
    expect(free()).toBe(0);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    later(() => warn.mockRestore());
    const s = fixtureServices(disk.dir, { autoStart: true });
    later(() => s.close());
    // Told by its code, not by the words of readOnlyBecause.
    expect(s.readOnlyCode).toMatch(/^(SQLITE_FULL|SQLITE_IOERR\w*|ENOSPC)$/);
    expect(isFullDisk(s.readOnlyCode)).toBe(true);
    // History keeps its delete there (the renderer learns it from app.info).
    expect(await s.dispatch('app.info', {})).toMatchObject({ readOnlyBecause: s.readOnlyBecause, fullDisk: true });
    const heard: string[] = [];
    s.events.onAny((event, payload) => heard.push(event === 'run.deleted' ? `${event} ${(payload as { id: string }).id}` : event));
    // It was refused ('the data folder is read-only'): the user of the app could not free the space PackBench's own runs take.
    // A run of one byte frees too little for the record to go: it stays listed, without its files.
    expect(await s.dispatch('runs.delete', { id: small })).toEqual({ filesFirst: true, recordLeft: expect.stringMatching(/^the disk of the data folder is full/) });
    expect(existsSync(s.queue.runDir(small))).toBe(false);
    expect((await s.dispatch('runs.list', {})).total).toBe(3);
    expect(heard).toEqual([]);
    expect(await s.dispatch('runs.delete', { id: big })).toEqual({ filesFirst: true, recordLeft: null });
    expect(free()).toBeGreaterThan(3 << 19); // its 2 MiB, less what the database took to remove the records
    // Both records went as the folder opened for writing; the windows open on these services hear it, and list what is left.
    expect(heard.filter((e) => e.startsWith('run.deleted')).sort()).toEqual([`run.deleted ${small}`, `run.deleted ${big}`].sort());
    expect(heard.at(-1)).toBe('queue.updated');
    expect((await s.dispatch('runs.list', {})).rows.map((r) => r.id)).toEqual([kept]);
    await expect(s.dispatch('runs.get', { id: big })).rejects.toMatchObject({ code: 'not_found' });
    expect(readdirSync(join(disk.dir, 'runs')).sort()).toEqual(['.removing', kept]);
    expect(readdirSync(join(disk.dir, 'runs', '.removing'))).toEqual([]);
  });

  it("History's delete on a full disk refuses a run another process on the folder runs, naming it, and leaves its files: they are not deleted under it", async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip();
    later(disk.cleanup);
    // `packbench queue run` on the folder, opened before the disk filled; its run writes checkpoints in its folder.
    const runner = fixtureServices(disk.dir, { autoStart: true });
    later(() => runner.close());
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => quiet.mockRestore());
    const id = (await runner.dispatch('runs.enqueue', { spec: spec('long', { steps: 1_000_000, stepMs: 1, checkpointEvery: 20 }) })).runIds[0];
    await until(runner, (r) => r.id === id && r.progress.done > 20);
    const filler = fillDisk(disk.dir);
    later(() => rmSync(filler, { force: true }));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    later(() => warn.mockRestore());
    // The app beside it, read-only on the full disk.
    const app = fixtureServices(disk.dir);
    later(() => app.close());
    expect(isFullDisk(app.readOnlyCode)).toBe(true);
    // It was accepted: the run's folder went aside and its files were deleted while its worker ran on.
    expect(await rejection(app.dispatch('runs.delete', { id }))).toMatchObject({
      code: 'conflict',
      message: `run ${id} runs in another process on this data folder (pid ${process.pid} on ${hostname()}): on a full disk its record cannot be changed from here to stop it, so its files are not deleted under it; cancel it there, or end that process (its runs go back to the queue), then delete it`,
    });
    expect(existsSync(runner.queue.runDir(id))).toBe(true);
    expect(readdirSync(join(disk.dir, 'runs', '.removing'))).toEqual([]);
    expect(runner.pool.size).toBe(1);
  });

  it('a sphere import that fails for want of room for its folder leaves no run behind', async (ctx) => {
    const disk = smallDisk(4096, 64);
    if (!disk) return ctx.skip();
    later(disk.cleanup);
    const s = fixtureServices(disk.dir);
    later(() => s.close());
    // Another program took the disk's last files and folders: the run's folder cannot be made (ENOSPC).
    let n = 0;
    try {
      for (;;) writeFileSync(join(disk.dir, `file ${n++}`), '');
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    expect(await rejection(s.dispatch('runs.importSpheres', { name: 'no room', csv: cubicSpheresCsv(), source: 'grains.csv' }))).toMatchObject({ message: expect.stringMatching(/ENOSPC/) });
    // Its removal could not make runs/.removing either: the import was left 'running' until the next start.
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it('names the database file and what to do when it is damaged or no database, for writing and for reading', () => {
    const data = dir();
    writeFileSync(join(data, 'packbench.db'), 'a note saved over the database by mistake, long enough to be read '.repeat(20));
    // It said 'file is not a database', naming no file.
    const message = new RegExp(`^cannot open the data folder ${data}: its database ${join(data, 'packbench.db')} is damaged or is not a PackBench database \\(SQLITE_NOTADB: file is not a database\\); move it away to start with an empty one, or put back a copy from a backup$`);
    for (const readOnly of [false, true]) expect(() => fixtureServices(data, { readOnly })).toThrow(message);
  });

  it('openServicesWhenFree waits for a write lock without stopping the process, says so once, and past lockWaitMs fails naming the folder', async () => {
    const data = dir();
    await fixtureServices(data).close();
    // A lock held in this very process: released only if the event loop turns while the opening waits.
    const holder = new Database(join(data, 'packbench.db'));
    later(() => void holder.close());
    holder.exec('BEGIN IMMEDIATE');
    const told: string[] = [];
    await expect(openServicesWhenFree({ dataDir: data, registry: fixtureRegistry(), lockWaitMs: 1000 }, (m) => told.push(m))).rejects.toThrow(
      `cannot open the data folder ${data}: another process has held the write lock of its database (packbench.db) for over 1 s`,
    );
    expect(told).toEqual([`PackBench: the database of ${data} is locked by another process; waiting up to 1 s for it`]);
    // Let go by a timer of this process: a synchronous wait (openServices) never lets it run, and fails.
    setTimeout(() => holder.exec('COMMIT'), 500);
    const s = await openServicesWhenFree({ dataDir: data, registry: fixtureRegistry(), lockWaitMs: 30_000 }, () => {});
    later(() => s.close());
    expect(s.readOnlyBecause).toBeNull();
    expect(s.store.db.pragma('busy_timeout', { simple: true })).toBe(BUSY_TIMEOUT_MS);
  });

  /** A data folder with one finished run in it. */
  async function folderWithARun(dir: string): Promise<string> {
    const s = fixtureServices(dir, { autoStart: true });
    expect((await s.dispatch('app.info', {})).readOnlyBecause).toBeNull();
    const { runIds } = await s.dispatch('runs.enqueue', { spec: spec('kept') });
    await s.queue.waitFor(runIds);
    await s.close();
    return runIds[0];
  }

  async function browsable(dir: string, runId: string): Promise<void> {
    const s = fixtureServices(dir, { autoStart: true });
    try {
      // In words, with the code; not the system message (that goes to the log).
      expect(s.readOnlyBecause).toMatch(/^(the|no) [a-z -]+ \((EROFS|EACCES|EPERM|ENOSPC|SQLITE_\w+)\)$/);
      // The renderer learns it from app.info (a banner, and what writes disabled with the reason).
      expect((await s.dispatch('app.info', {})).readOnlyBecause).toBe(s.readOnlyBecause);
      expect((await s.dispatch('app.info', {})).fullDisk).toBe(isFullDisk(s.readOnlyCode));
      // Exports still work: their temporary files go outside the folder.
      expect(JSON.parse(new TextDecoder().decode((await s.dispatch('runs.export', { id: runId, format: 'json' })).bytes))).toMatchObject({ id: runId });
      expect((await s.dispatch('runs.list', {})).rows.map((r) => r.id)).toEqual([runId]);
      expect((await s.dispatch('runs.get', { id: runId })).status).toBe('done');
      expect((await s.dispatch('runs.series', { id: runId })).length).toBeGreaterThan(0);
      const refused = await s.dispatch('runs.enqueue', { spec: spec('new') }).then(() => null, (e) => e);
      expect(refused).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/read-only/) });
    } finally {
      await s.close();
    }
  }

  it('opens a read-only data folder read-only: runs are listed and shown, adding one says why not', async (ctx) => {
    const data = dir();
    const runId = await folderWithARun(data);
    const restore = makeReadOnly(data);
    if (!restore) return ctx.skip();
    try {
      await browsable(data, runId);
    } finally {
      restore();
    }
  });

  it('opens a data folder on a full disk read-only: runs are listed and shown', async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip();
    later(disk.cleanup);
    const runId = await folderWithARun(disk.dir);
    try {
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(8 << 20));
    } catch {
      // the disk is full now: what this test wants
    }
    await browsable(disk.dir, runId);
  });

  it('a disk another program filled holds queued runs saying once why and what they need, in the queue\'s state (the app\'s status bar) and on stderr; freed, they go on', async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 2048, { autoStart: false });
    const id = (await s.dispatch('runs.enqueue', { spec: spec('waits for room') })).runIds[0];
    const filler = fillDisk(disk);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => errors.mockRestore());
    const claims = vi.spyOn(s.store, 'claim');
    s.startQueue();
    // A few polls (every 100 ms here): each said 'queue: cannot start run … now: database or disk is full', and nothing what to do.
    await vi.waitUntil(() => claims.mock.calls.length >= 3, { timeout: 10_000, interval: 20 });
    expect(s.store.getSummary(id)!.status).toBe('queued');
    const waiting = `the disk of the data folder is full: queued runs start, and the outcomes of ended runs are stored, once space is freed on it (SQLITE_FULL, ${disk}, `;
    expect((await s.dispatch('queue.state', {})).waiting).toContain(waiting);
    expect(errors.mock.calls.map(([line]) => String(line))).toEqual([expect.stringContaining(`queue: waiting: ${waiting}`)]);
    // `queue list` in another terminal (its own services) says why too: it listed the run queued, and nothing more.
    const full = `the disk of the data folder is full (0 B free on ${disk}): queued runs start, and the outcomes of ended runs are stored, once space is freed on it`;
    expect((await cliIn(disk, 'queue', 'list')).stdout.split('\n')).toEqual([expect.stringMatching(/^queued .* waits for room$/), full, '']);
    expect(JSON.parse((await cliIn(disk, '--json', 'queue', 'list', '--with-state')).stdout)).toMatchObject({ paused: false, waiting: full, runs: [{ id }] });
    rmSync(filler);
    expect(JSON.parse((await cliIn(disk, '--json', 'queue', 'list', '--with-state')).stdout).waiting).toBeNull();
    await s.queue.waitFor([id]);
    expect(s.store.getSummary(id)!.status).toBe('done');
    expect((await s.dispatch('queue.state', {})).waiting).toBeNull();
    expect(errors).toHaveBeenLastCalledWith('queue: the data folder takes writes again: going on');
  });

  it('a disk another program filled holds a run a killed process left, saying so once, not at every poll; freed, it goes on', async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 2048, { autoStart: false });
    const id = (await s.dispatch('runs.enqueue', { spec: spec('left running') })).runIds[0];
    // As a `queue run` beside this one left it, killed (kill -9) as it ran it.
    expect(s.store.claim(id, { host: null, threads: 1, appVersion: 't', owner: `${hostname()}:2147483646` })).toBe(true);
    const filler = fillDisk(disk);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => errors.mockRestore());
    const looks = vi.spyOn(s.store, 'runningRuns');
    s.startQueue();
    // A few polls (every 100 ms here), each taking the run up (recover) to put it back in the queue.
    await vi.waitUntil(() => looks.mock.calls.length >= 4, { timeout: 10_000, interval: 20 });
    // Each said 'queue: database or disk is full', and nothing what to do: a line every 2 s, for as long as the disk stayed full.
    const waiting = `the disk of the data folder is full: queued runs start, and the outcomes of ended runs are stored, once space is freed on it (SQLITE_FULL, ${disk}, `;
    expect(errors.mock.calls.map(([line]) => String(line))).toEqual([expect.stringContaining(`queue: waiting: ${waiting}`)]);
    expect((await s.dispatch('queue.state', {})).waiting).toContain(waiting);
    rmSync(filler);
    await s.queue.waitFor([id]);
    expect(errors).toHaveBeenCalledWith('queue: the data folder takes writes again: going on');
    expect(s.store.getRun(id)).toMatchObject({ status: 'done', log: expect.arrayContaining([expect.stringContaining('interrupted: the process running it ended; re-queued')]) });
  });

  it('`queue run` waits on a disk another program filled for the outcome it could not store, instead of ending with it lost (the run re-run from its beginning by the next process)', async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 2048, { autoStart: false });
    // Counted, the run waits for this file (outside the small disk) before it ends: the disk fills meanwhile.
    const gate = join(dir(), 'end now');
    const id = (await s.dispatch('runs.enqueue', { spec: spec('ends on a full disk', { finishUntil: gate }) })).runIds[0];
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    later(() => errors.mockRestore());
    s.startQueue();
    await vi.waitUntil(() => s.store.getRun(id)!.log.some((line) => line.includes('counted 10 steps')), { timeout: 10_000, interval: 20 });
    // `queue run` works until the queue is idle, then closes.
    let idle = false;
    void s.queue.idle().then(() => (idle = true));
    const filler = fillDisk(disk);
    writeFileSync(gate, '');
    await vi.waitUntil(() => errors.mock.calls.some(([line]) => String(line).includes(`the outcome of run ${id} cannot be stored now`)), { timeout: 10_000, interval: 20 });
    // A few polls (every 100 ms here), each trying to store it again.
    const writes = vi.spyOn(s.store, 'withoutWaiting');
    await vi.waitUntil(() => writes.mock.calls.length >= 3, { timeout: 10_000, interval: 20 });
    // It was idle at once: `queue run` ended (exit 0), the outcome lost at its close.
    expect(idle).toBe(false);
    expect(s.store.getSummary(id)!.status).toBe('running');
    rmSync(filler);
    await vi.waitUntil(() => idle, { timeout: 10_000, interval: 20 });
    // Its outcome, stored: its table could not be written either (ENOSPC).
    expect(s.store.getSummary(id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/ENOSPC/) });
  });

  it('a run that fails writing its results on a full disk leaves none of its files: its failure is stored, and the next run has the room', async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 2048);
    // A label volume of 4 MiB on a 2 MiB disk: its write fails part-way (ENOSPC). Left there, the
    // part written filled the disk: the failure could not be stored, the next run could not start,
    // and `queue run` tried both every 2 s for good.
    const big = (await s.dispatch('runs.enqueue', { spec: spec('big', { volume: true, volumeDepth: 22_000 }) })).runIds[0];
    const next = (await s.dispatch('runs.enqueue', { spec: spec('next', { volume: true }) })).runIds[0];
    await s.queue.waitFor([big, next]);
    const r = await s.dispatch('runs.get', { id: big });
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/ENOSPC/);
    expect(readdirSync(join(disk, 'runs', big))).toEqual([]);
    expect((await s.dispatch('runs.get', { id: next })).status).toBe('done');
  });

  it('a particle table that the disk has room for only in part fails its run (ENOSPC), instead of being recorded done and cut short', async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 2048);
    // 100,000 rows of 5 columns: 4 MB on a 2 MiB disk. Its one write was cut short where the disk
    // ended, without an error: the run was done, its table recorded whole (size and SHA-256) and torn on disk.
    const { id, r } = await runToEnd(s, spec('large table', { tableRows: 100_000 }));
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/ENOSPC/);
    expect(readdirSync(join(disk, 'runs', id))).toEqual([]);
  });

  it('a checkpoint that cannot be saved on a full disk is said in the log and the run goes on to its results, instead of failing with its work lost', async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 3072, { checkpointSeconds: 1 });
    // Checkpoints of 2 MiB on a 3 MiB disk: the first is saved, the next cannot be written beside it
    // (ENOSPC), though the results (a few hundred bytes) fit. The run failed there, and its first
    // checkpoint went with it: a voxel run of hours whose matrix fitted once on the disk but not twice.
    const { id, r } = await runToEnd(s, spec('insured', { steps: 6, checkpointEvery: 2, checkpointBytes: 2 << 20 }));
    expect(r.status, r.error ?? '').toBe('done');
    expect(r.metrics.steps).toBe(6);
    expect(r.log.join('\n')).toMatch(/checkpoint .*not saved.*ENOSPC/);
    expect(readdirSync(join(disk, 'runs', id)).filter((f) => f.startsWith('checkpoint'))).toEqual([]);
  });

  it("a live table that cannot be published on a full disk is said in the log and the run goes on to its results (the live view only shows the last one)", async (ctx) => {
    const { s, dir: disk } = servicesOnSmallDisk(ctx, 3072);
    // Live tables of 2 MiB on a 3 MiB disk: the next is written beside the last before it replaces it
    // (ENOSPC). A voxel run at a third of its packing failed there with its work lost.
    const { id, r } = await runToEnd(s, spec('watched', { steps: 4, publishBytes: 2 << 20 }));
    expect(r.status, r.error ?? '').toBe('done');
    expect(r.log.join('\n')).toMatch(/live table not saved.*ENOSPC/);
    expect(readdirSync(join(disk, 'runs', id)).filter((f) => f.startsWith(LIVE_TABLE_FILE))).toEqual([]);
  });
});
