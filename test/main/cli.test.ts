/**
 * The `packbench` CLI as a user runs it, the real voxel engine on small specs. Commands run in
 * this process through main(argv, io); two smoke tests spawn bin/packbench.mjs (the real entry,
 * and a `queue run` killed with SIGKILL).
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { QueueState, RunSummary } from '../../main/api';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchSummary, FAILED_LINES, main, RUN_LINES, type RunOutcome } from '../../main/cli';
import { defaultDataDir } from '../../main/services/datadir';
import { EventBus } from '../../main/services/events';
import { JobQueue } from '../../main/services/queue';
import { openServices } from '../../main/services/services';
import { RunStore, SCHEMA_VERSION } from '../../main/services/store';
import { CHECKPOINT_FILE } from '../../main/workers/checkpoint';
import { makeReadOnly, smallDisk } from './faults';
import { cliIn, tempDir, type CliResult } from './helpers';
import { asciiBox, cubicSpheresCsv } from './fixtures/imports';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'packbench.mjs');
const example = join(root, 'resources', 'examples', 'voxel-spheres.json');
const t = tempDir('packbench-cli-');
afterAll(() => t.cleanup());

const cli = (...args: string[]) => cliIn(t.dir, ...args);

/** The real entry in a child process (tsx, argv, exit code). */
function spawned(...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [bin, '--data', t.dir, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A small voxel spec (a second or so): `params` merged over a 4 x 4 x 4 box of unit spheres. */
function smallSpec(name: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    engine: 'voxel',
    name,
    seed: 1,
    params: { box: { size: [4, 4, 4], resolution: 10 }, mixture: { types: [{ shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 } }] }, ...params },
  };
}

function writeJson(name: string, value: unknown): string {
  const file = join(t.dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

const noStack = (r: CliResult) => expect(r.stderr).not.toMatch(/\n\s+at /);

/** Presses Ctrl-C (SIGINT) when the first run starts (its first 'running' update); mockRestore() ends it. */
function ctrlCAtFirstStart() {
  const emit = EventBus.prototype.emit;
  let interrupted = false;
  return vi.spyOn(EventBus.prototype, 'emit').mockImplementation(function (this: EventBus, ...args: Parameters<EventBus['emit']>) {
    emit.apply(this, args);
    if (!interrupted && args[0] === 'run.updated' && (args[1] as RunSummary).status === 'running') {
      interrupted = true;
      process.emit('SIGINT');
    }
  });
}

describe('packbench CLI', () => {
  let runId = '';

  it('spawned: runs the example spec to the end and prints one JSON object', () => {
    const r = spawned('--json', 'run', example);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ engine: 'voxel', status: 'done' });
    // The same fields as each run of a batch: error is null here, the message for a failed run; log its lines.
    expect(Object.keys(out).sort()).toEqual(['engine', 'error', 'log', 'metrics', 'runId', 'status', 'wallSeconds']);
    expect(out.error).toBeNull();
    expect(out.metrics.particles).toBeGreaterThan(50);
    expect(out.wallSeconds).toBeGreaterThan(0);
    runId = out.runId;
  });

  it('lists, shows and exports the run', async () => {
    const list = JSON.parse((await cli('--json', 'runs', 'list')).stdout);
    expect(list.total).toBe(1);
    expect(list.rows[0].id).toBe(runId);
    const show = JSON.parse((await cli('--json', 'runs', 'show', runId)).stdout);
    expect(show.artifacts.map((a: { kind: string; name: string }) => `${a.kind} ${a.name}`)).toEqual(['table particles', 'volume labels', 'volume heightmap']);
    expect(show.metrics.bedPorosity).toBeGreaterThan(0);
    expect(show.params.box.resolution).toBe(16);
    const file = join(t.dir, 'out.json');
    const exp = await cli('runs', 'export', runId, '--format', 'json', '--out', file);
    expect(exp.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).metrics.particles).toBe(show.metrics.particles);
    const bad = await cli('runs', 'export', runId, '--format', 'nope', '--out', file);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown format 'nope'; allowed: .*json/);
  });

  it('spawned: a reader that closes stdout early (`runs list | head -1`) ends the output quietly, not with an EPIPE crash', async () => {
    const child = spawn(process.execPath, [bin, '--data', t.dir, '--json', 'runs', 'list'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // closed before the command writes: its first write meets EPIPE
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('rejects a bad spec naming the field and its allowed range, before running anything', async () => {
    const spec = JSON.parse(readFileSync(example, 'utf8'));
    spec.params.box.resolution = -3;
    spec.seed = 'x';
    const file = writeJson('bad.json', spec);
    const r = await cli('run', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/seed: /);
    spec.seed = 1;
    writeFileSync(file, JSON.stringify(spec));
    const r2 = await cli('run', file);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/params\.box\.resolution: .*/);
    expect(JSON.parse((await cli('--json', 'runs', 'list')).stdout).total).toBe(1);
  });

  it('queue add says every mistake of a spec at once, an unknown field with the others, exits 2 and stores nothing', async () => {
    const before = JSON.parse((await cli('--json', 'runs', 'list')).stdout).total;
    const file = writeJson('two-mistakes.json', smallSpec('two mistakes', { reboundProbability: 2, freezngInterval: 100 }));
    const r = await cli('queue', 'add', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: invalid spec:\n  params.freezngInterval: unknown field 'freezngInterval' (did you mean 'freezingInterval'?)\n  params.reboundProbability: must be in [0, 1], got 2`);
    noStack(r);
    expect(JSON.parse((await cli('--json', 'runs', 'list')).stdout).total).toBe(before);
  });

  it('refuses a spec nested deeper than the API allows as invalid (exit 2), not with a stack overflow (exit 3)', async () => {
    const file = join(t.dir, 'deep.json');
    writeFileSync(file, `{"engine":"voxel","name":"deep","params":{"mixture":{"types":[${'['.repeat(3000)}${']'.repeat(3000)}]}}}`);
    const r = await cli('validate', file);
    expect([r.code, r.stderr]).toEqual([2, `packbench: ${file}: invalid spec: nested deeper than 63 levels (lists and objects within each other)\n`]);
  });

  it('with --json, a failing command prints one JSON document on stdout too: the error and its exit code', async () => {
    const spec = JSON.parse(readFileSync(example, 'utf8'));
    spec.params.box.resolution = -3;
    const bad = writeJson('bad-json.json', spec);
    const cases: [string[], number, RegExp][] = [
      [['--json', 'run', bad], 2, /params\.box\.resolution: /],
      [['--json', 'runs', 'show', 'nope'], 2, /no run with id 'nope'/],
      [['--json', 'runs', 'export', 'nope', '--format', 'nope', '--out', join(t.dir, 'x')], 2, /unknown format 'nope'/],
      [['--json', 'import', 'spheres', join(t.dir, 'missing.csv')], 2, /cannot read .*missing\.csv/],
      // An argument error before --json is read (commander stops at the bad value).
      [['runs', 'list', '--limit', '0', '--json'], 2, /--limit must be an integer in \[1, 10000\]/],
      [['--json', 'rnu'], 2, /unknown command 'rnu'/],
      [['--json'], 2, /^a command is needed: packbench --help/],
      [['--json', 'runs'], 2, /^a command is needed/],
    ];
    for (const [args, code, message] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stdout.endsWith('\n') && r.stdout.split('\n').length === 2, args.join(' ')).toBe(true);
      const out = JSON.parse(r.stdout);
      expect(out, args.join(' ')).toEqual({ error: { message: expect.stringMatching(message), exitCode: code } });
    }
    expect((await cli('runs', 'show', 'nope')).stdout).toBe('');
    expect(JSON.parse((await cli('--json', 'runs', 'list')).stdout).total).toBe(1);
  });

  it('refuses a file given as --data, instead of listing an empty folder', async () => {
    let stderr = '';
    const file = writeJson('not-a-folder.json', {});
    for (const args of [['runs', 'list'], ['runs', 'show', 'abc'], ['queue', 'add', example]]) {
      const r = await main(['--data', file, ...args], { stdout: () => {}, stderr: (s) => void (stderr += s), stderrIsTTY: false });
      expect(r, args.join(' ')).toBe(2);
    }
    expect(stderr).toContain(`packbench: --data ${file} is a file; give the data folder`);
  });

  it("refuses an empty --data (a script's unset variable: --data \"$DATA\"), instead of taking the current folder as the data folder", async () => {
    for (const data of ['', ' ']) {
      let stderr = '';
      const r = await main(['--data', data, 'runs', 'list'], { stdout: () => {}, stderr: (s) => void (stderr += s), stderrIsTTY: false });
      expect(r).toBe(2);
      expect(stderr).toBe(`packbench: --data is empty; give the data folder, or leave --data out for the app's (${defaultDataDir()})\n`);
    }
  });

  it('refuses a --data folder that does not exist for a command that only reads (a typo listed no runs, exit 0), and makes none', async () => {
    const missing = join(t.dir, 'no-such-folder');
    for (const args of [['runs', 'list'], ['queue', 'list'], ['runs', 'show', 'abc']]) {
      let stderr = '';
      const r = await main(['--data', missing, ...args], { stdout: () => {}, stderr: (s) => void (stderr += s), stderrIsTTY: false });
      expect(r, args.join(' ')).toBe(2);
      expect(stderr).toBe(`packbench: --data ${missing}: no such folder (a command that stores runs makes it: run, queue add, import)\n`);
    }
    expect(existsSync(missing)).toBe(false);
  });

  it('reads a spec that starts with a UTF-8 byte order mark', async () => {
    const file = join(t.dir, 'bom.json');
    writeFileSync(file, '\uFEFF' + JSON.stringify({ engine: 'voxel', name: 'bom', params: {} }));
    const r = await cli('--json', 'queue', 'add', file, '--priority', '-5');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { runIds } = JSON.parse(r.stdout);
    expect(runIds).toHaveLength(1);
    // A queued run has not run anywhere yet: no 'PackBench , 1 thread(s)' line with an empty version.
    const shown = (await cli('runs', 'show', runIds[0])).stdout;
    expect(shown).toMatch(/status queued/);
    expect(shown).not.toMatch(/PackBench /);
    expect((await cli('runs', 'rm', runIds[0])).code).toBe(0);
  });

  it('exits 2 on every argument error, with commander\'s message; 0 for help and version', async () => {
    const cases: [string[], RegExp][] = [
      [['run', example, '--threads', '0'], /--threads must be an integer in \[1, 256\]/],
      [['run', example, '--threads', 'two'], /--threads must be an integer/],
      // Number() read these as 16, 10 and 2: a number is written as one, in decimal.
      [['queue', 'add', example, '--priority', '0x10'], /--priority must be an integer in \[-1000, 1000\], written in decimal digits, got '0x10'/],
      [['runs', 'list', '--limit', '1e1'], /--limit must be an integer in \[1, 10000\], written in decimal digits, got '1e1'/],
      [['import', 'shape', 'a.stl', '--resolution', '0b10'], /--resolution must be a number > 0, written in decimal \(2\.5, 1e3\), got '0b10'/],
      [['import', 'spheres', 'a.csv', '--box', '10,0x10,10'], /--box must be three lengths > 0: X,Y,Z, written in decimal/],
      [['run', example, '--thread', '2'], /unknown option '--thread'/],
      [['run'], /missing required argument 'spec'/],
      [['rnu', example], /unknown command 'rnu'/],
      [['runs', 'list', '--limit', '0'], /--limit must be an integer in \[1, 10000\]/],
      [['runs', 'list', '--status', 'finished'], /unknown status 'finished'; allowed: queued, running/],
      [['runs', 'list', '--engine', 'voxl'], /--engine: unknown engine 'voxl' \(did you mean 'voxel'\?\); known: voxel, .*, spheres/],
      [['runs', 'export', 'x', '--format', 'json'], /required option '--out <file>' not specified/],
      [['queue', 'add', example, '--priority', '5000'], /--priority must be an integer in \[-1000, 1000\]/],
      [['import', 'spheres', 'a.csv', '--box', '1,2'], /--box must be three lengths > 0/],
      [['import', 'shape', 'a.stl', '--voxels-across', '2000'], /--voxels-across must be an integer in \[1, 1024\]/],
      [['serve', '--port', '70000'], /--port must be an integer in \[0, 65535\]/],
      [['queue', 'run', '--concurrency', '-1'], /--concurrency must be an integer in \[1, 256\]/],
      // It printed the message with a stack trace and exited 3, as a fault of ours.
      [['serve', '--web-root', t.dir], /^packbench: --web-root .*: no built renderer there \(no index\.html\); give the folder npm run build:web writes \(out\/web\)\n$/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      noStack(r);
    }
    expect((await cli('--help')).code).toBe(0);
    expect((await cli('runs', 'export', '--help')).stdout).toMatch(/--format <f>/);
    expect((await cli('--version')).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    // With --json, before or after --version, one JSON object (it printed the bare version).
    for (const args of [['--json', '--version'], ['-V', '--json']]) {
      const v = await cli(...args);
      expect(v.code, args.join(' ')).toBe(0);
      expect(JSON.parse(v.stdout), args.join(' ')).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    }
    expect(JSON.parse((await cli('--json', 'runs', 'list')).stdout).total).toBe(1);
  });

  it('serve --port of a port in use: exit 2 (bad input, as the README says) naming the port, without a stack', async () => {
    const webRoot = join(t.dir, 'web-busy');
    mkdirSync(webRoot, { recursive: true });
    writeFileSync(join(webRoot, 'index.html'), '<!doctype html>');
    const taken = createServer();
    await new Promise<void>((up) => taken.listen(0, '127.0.0.1', up));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await cli('serve', '--port', String(port), '--web-root', webRoot);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`packbench: --port ${port}: the port is in use (another program listens on 127.0.0.1:${port}); give another port, or --port 0 for any free one\n`);
      expect(JSON.parse((await cli('--json', 'serve', '--port', String(port), '--web-root', webRoot)).stdout)).toMatchObject({ error: { exitCode: 2 } });
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
  });

  it('serve that cannot listen starts no queued run (it started them, then put them back as interrupted)', async () => {
    const t2 = tempDir('packbench-cli-busy-');
    const taken = createServer();
    await new Promise<void>((up) => taken.listen(0, '127.0.0.1', up));
    try {
      const webRoot = join(t2.dir, 'web');
      mkdirSync(webRoot);
      writeFileSync(join(webRoot, 'index.html'), '<!doctype html>');
      const [id] = JSON.parse((await cliIn(t2.dir, '--json', 'queue', 'add', writeJson('busy.json', smallSpec('busy')))).stdout).runIds;
      expect((await cliIn(t2.dir, 'serve', '--port', String((taken.address() as AddressInfo).port), '--web-root', webRoot)).code).toBe(2);
      const run = JSON.parse((await cliIn(t2.dir, '--json', 'runs', 'show', id)).stdout);
      expect(run).toMatchObject({ status: 'queued', attempts: 0, startedAt: null, log: [] });
    } finally {
      await new Promise((closed) => taken.close(closed));
      t2.cleanup();
    }
  });

  it('exports safely: one line and exit 2 for a format that does not apply, a missing folder, a folder as --out, a run not done; never touches an existing file', async () => {
    writeFileSync(join(t.dir, 'few.csv'), cubicSpheresCsv());
    const spheres = JSON.parse((await cli('--json', 'import', 'spheres', join(t.dir, 'few.csv'))).stdout).runId;
    const keep = join(t.dir, 'keep.vti');
    writeFileSync(keep, 'my own file');
    const notApplicable = await cli('runs', 'export', spheres, '--format', 'vti', '--out', keep);
    expect(notApplicable.code).toBe(2);
    expect(notApplicable.stderr).toMatch(/^packbench: cannot export run \w+ as vti: run \w+ has no label volume artifact, which format 'vti' needs/);
    expect(notApplicable.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(keep, 'utf8')).toBe('my own file');
    expect(readdirSync(t.dir).filter((f) => f.startsWith('keep.vti'))).toEqual(['keep.vti']);

    const missing = await cli('runs', 'export', spheres, '--format', 'csv', '--out', join(t.dir, 'no', 'such', 'x.csv'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/the folder .*no[/\\]such does not exist/);
    const folder = await cli('runs', 'export', spheres, '--format', 'csv', '--out', t.dir);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/is a folder; give a file name/);

    // A run that failed keeps its metrics, series and log: those export; it has no artifacts, and an artifact format says so.
    const services = openServices({ dataDir: t.dir });
    const [failedRun] = services.store.insertRuns([{ name: 'failed', engine: 'voxel', spec: { engine: 'voxel', name: 'failed', seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
    services.store.finishRun(failedRun, { status: 'failed', error: 'worker exited with code 7', metrics: { phi: 0.41 } });
    await services.close();
    const metrics = await cli('runs', 'export', failedRun, '--format', 'metrics-csv', '--out', join(t.dir, 'f.csv'));
    expect(metrics.code).toBe(0);
    expect(readFileSync(join(t.dir, 'f.csv'), 'utf8')).toMatch(/^metric,value,unit\nphi,0\.41,/);
    const failed = await cli('runs', 'export', failedRun, '--format', 'csv', '--out', join(t.dir, 'f.particles.csv'));
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^packbench: run \w+ is failed \(worker exited with code 7\): it kept no artifacts, which format 'csv' needs; its metrics, series and log export as json, metrics-csv, series-csv\n$/);
    expect(existsSync(join(t.dir, 'f.particles.csv'))).toBe(false);
    expect((await cli('runs', 'rm', failedRun)).code).toBe(0);
    for (const r of [notApplicable, missing, folder, failed]) noStack(r);
  });

  it('removes a partial export when the disk fills up, and keeps the file it would have replaced', async (ctx) => {
    const disk = smallDisk(64);
    if (!disk) return ctx.skip();
    try {
      const out = join(disk.dir, 'labels.raw');
      writeFileSync(out, 'older export');
      const r = await cli('runs', 'export', runId, '--format', 'raw', '--out', out);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^packbench: cannot write .*labels\.raw: the disk is full \(ENOSPC\); nothing was written\n$/);
      noStack(r);
      expect(readdirSync(disk.dir)).toEqual(['labels.raw']);
      expect(readFileSync(out, 'utf8')).toBe('older export');
    } finally {
      disk.cleanup();
    }
  });

  it('Ctrl-C during an export leaves nothing beside --out (no .partial file) and keeps the file it would have replaced', async () => {
    const out = join(t.dir, 'interrupted.stl');
    writeFileSync(out, 'older export');
    // The first progress line on the terminal is where the user presses Ctrl-C.
    let pressed = false;
    let stderr = '';
    const io = {
      stdout: () => {},
      stderr: (text: string) => {
        stderr += text;
        if (!pressed && text.startsWith('\rexporting')) {
          pressed = true;
          process.emit('SIGINT');
        }
      },
      stderrIsTTY: true,
    };
    const code = await main(['--data', t.dir, 'runs', 'export', runId, '--format', 'stl-solid', '--out', out], io);
    expect(pressed).toBe(true);
    expect(code).toBe(130);
    expect(stderr).toMatch(/packbench: interrupted: nothing was written to .*interrupted\.stl\n$/);
    expect(readdirSync(t.dir).filter((f) => f.startsWith('interrupted.stl'))).toEqual(['interrupted.stl']);
    expect(readFileSync(out, 'utf8')).toBe('older export');
  });

  it('draws its progress lines no wider than the terminal, so that each one overwrites the last (a wrapped line stayed behind at every update)', async () => {
    const file = writeJson('narrow.json', smallSpec('a run with a name long enough to fill a narrow terminal'));
    const lines: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => { if (text.startsWith('\r')) lines.push(text); }, stderrIsTTY: true, stderrColumns: 60 };
    expect(await main(['--data', t.dir, 'run', file], io)).toBe(0);
    expect(lines.length).toBeGreaterThan(0);
    const visible = lines.map((l) => l.replace(/^\r/, '').replace(/\x1b\[K$/, ''));
    expect(visible.filter((l) => l.length > 59)).toEqual([]);
    // Cut, not dropped: the bar and the percentage lead, the end gives way.
    expect(visible.some((l) => /^\[[#-]{30}\] +\d+% .*…$/.test(l))).toBe(true);
  });

  // SIGHUP: the terminal it ran in was closed (a window, an ssh connection that dropped).
  it.each(['SIGTERM', 'SIGHUP'] as const)('`run` stopped by %s (kill, timeout; a closed terminal) cancels its batch as Ctrl-C does, instead of leaving it queued for the app to run', async (signal) => {
    const name = signal.toLowerCase();
    const file = writeJson(`${name}.json`, smallSpec(name, { reboundProbability: { $sweep: [0.1, 0.3, 0.5] } }));
    let sent = false;
    const io = {
      stdout: () => {},
      stderr: (text: string) => {
        // The first progress bar drawn: the batch is under way.
        if (!sent && text.startsWith('\r[')) {
          sent = true;
          process.emit(signal);
        }
      },
      stderrIsTTY: true,
    };
    const code = await main(['--data', t.dir, 'run', file], io);
    expect(sent).toBe(true);
    // Interrupted, as `queue run` and the exports say (it was 1, as for a run that failed).
    expect(code).toBe(130);
    const left = JSON.parse((await cli('--json', 'runs', 'list', '--text', name)).stdout).rows.map((r: { status: string }) => r.status);
    expect(left).toHaveLength(3);
    expect(left).not.toContain('queued');
    expect(left).toContain('cancelled');
  });

  it('spawned: Ctrl-C of `run SWEEP 2>&1 | tee LOG` cancels its runs though its output has no reader left (a closed terminal too), instead of crashing with a run left to the app', async () => {
    const file = writeJson('tee.json', smallSpec('tee', { box: { size: [8, 8, 8], resolution: 10 }, reboundProbability: { $sweep: [0.1, 0.3, 0.5] } }));
    const child = spawn(process.execPath, [bin, '--data', t.dir, 'run', file], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    const closed = new Promise<number | null>((done) => child.on('close', done));
    const statuses = async () => JSON.parse((await cli('--json', 'runs', 'list', '--text', 'tee')).stdout).rows.map((r: { status: string }) => r.status);
    while (!(await statuses()).includes('running')) await new Promise((r) => setTimeout(r, 100));
    // Ctrl-C reaches the whole pipeline: tee ends first, and every later write of the command fails (EPIPE; EIO for a closed terminal).
    child.stderr!.destroy();
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    const left = await statuses();
    expect(left).toHaveLength(3);
    expect(left.filter((s: string) => s !== 'done' && s !== 'cancelled')).toEqual([]);
  });

  it('Ctrl-C while `run` queues its sweep cancels the sweep, instead of leaving it queued for the app to run', async () => {
    // The queue announces a large sweep's runs over turns of the event loop after storing them
    // (9,300 runs: 0.76 s): a Ctrl-C then ended the process with the whole sweep queued.
    const file = writeJson('ctrl-c-queueing.json', smallSpec('ctrl-c-queueing', { reboundProbability: { $sweep: { from: 0.1, to: 0.5, steps: 20 } } }));
    const add = JobQueue.prototype.add;
    const spy = vi.spyOn(JobQueue.prototype, 'add').mockImplementation(async function (this: JobQueue, ...args: Parameters<JobQueue['add']>) {
      const added = await add.apply(this, args);
      process.emit('SIGINT');
      return added;
    });
    // The queue's states told from the Ctrl-C on.
    const emit = EventBus.prototype.emit;
    const states: QueueState[] = [];
    const told = vi.spyOn(EventBus.prototype, 'emit').mockImplementation(function (this: EventBus, ...args: Parameters<EventBus['emit']>) {
      if (spy.mock.calls.length && args[0] === 'queue.updated') states.push(args[1] as QueueState);
      emit.apply(this, args);
    });
    try {
      const code = await main(['--data', t.dir, 'run', file], { stdout: () => {}, stderr: () => {}, stderrIsTTY: false });
      expect(code).toBe(130);
    } finally {
      spy.mockRestore();
      told.mockRestore();
    }
    const left = JSON.parse((await cli('--json', 'runs', 'list', '--text', 'ctrl-c-queueing')).stdout).rows.map((r: { status: string }) => r.status);
    expect(left).toEqual(Array(20).fill('cancelled'));
    // Cancelled at once: the queue's state was told after each run, counting down 19, 18, ... (9,300 runs: 4.8 s of CPU).
    expect(states.filter((q) => q.queued > 0 && q.queued < 20)).toEqual([]);
  });

  it('Ctrl-C while `run` works through its sweep draws a bar for the runs that started, not a line for each run cancelled before its start', async () => {
    // A Ctrl-C of a 9,300-run sweep drew 9,299 lines '[------] 0% cancelled' on the terminal before its summary.
    const file = writeJson('ctrl-c-bars.json', smallSpec('ctrl-c-bars', { reboundProbability: { $sweep: { from: 0.1, to: 0.5, steps: 20 } } }));
    const told = ctrlCAtFirstStart();
    let stderr = '';
    const own = tempDir('packbench-cli-bars-'); // its 20 runs kept out of the folder the other tests list
    try {
      expect(await main(['--data', own.dir, 'run', file], { stdout: () => {}, stderr: (x) => void (stderr += x), stderrIsTTY: true })).toBe(130);
    } finally {
      told.mockRestore();
    }
    const rows: RunSummary[] = JSON.parse((await cliIn(own.dir, '--json', 'runs', 'list')).stdout).rows;
    own.cleanup();
    expect(rows.filter((r) => r.status === 'cancelled').length).toBeGreaterThanOrEqual(19);
    // One last bar for each run that started, and none for the others.
    const ended = stderr.split('\n').filter((line) => /% (cancelled|done|failed) /.test(line));
    expect(ended).toHaveLength(rows.filter((r) => r.startedAt !== null).length);
  });

  it('`run` of a big sweep sums its runs up (counts by status, the failed ones up to a limit) instead of a line per run; `runs list --batch` lists them', async () => {
    // A Ctrl-C at the first start of a 25-run sweep: its runs end cancelled (one maybe done).
    const file = writeJson('big-sweep.json', smallSpec('big sweep', { reboundProbability: { $sweep: { from: 0.1, to: 0.5, steps: 25 } } }));
    const told = ctrlCAtFirstStart();
    let stdout = '';
    const own = tempDir('packbench-cli-big-sweep-'); // its runs kept out of the folder the other tests list
    try {
      expect(await main(['--data', own.dir, 'run', file], { stdout: (x) => void (stdout += x), stderr: () => {}, stderrIsTTY: false })).toBe(130);
      const batchId = /^25 runs in batch (\w+): /.exec(stdout)?.[1];
      expect(batchId, stdout).toBeDefined();
      const rows: RunSummary[] = JSON.parse((await cliIn(own.dir, '--json', 'runs', 'list', '--batch', batchId!, '--limit', '100')).stdout).rows;
      expect(rows).toHaveLength(25);
      const count = (status: string) => rows.filter((r) => r.status === status).length;
      expect(count('done') + count('cancelled')).toBe(25);
      expect(stdout).toBe(`25 runs in batch ${batchId}: ${[['done', count('done')], ['cancelled', count('cancelled')]].filter(([, n]) => n).map(([s, n]) => `${n} ${s}`).join(', ')}\n`);
    } finally {
      told.mockRestore();
      own.cleanup();
    }
  });

  it('the summary of a big batch names its failed runs up to a limit, and how to list the others; a small batch has a line per run', () => {
    const outcome = (i: number, status: RunOutcome['status']): RunOutcome => ({ id: `r${i}`, name: status === 'deleted' ? '' : `point ${i}`, status, error: status === 'failed' ? `boom ${i}` : status === 'deleted' ? 'deleted while it ran' : null });
    const runs = Array.from({ length: RUN_LINES + 1 }, (_, i) => outcome(i, i < FAILED_LINES + 2 ? 'failed' : i === FAILED_LINES + 2 ? 'deleted' : i % 2 ? 'cancelled' : 'done'));
    expect(batchSummary(runs, 'b1').split('\n')).toEqual([
      `${RUN_LINES + 1} runs in batch b1: 4 done, ${FAILED_LINES + 2} failed, 4 cancelled, 1 deleted`,
      ...runs.slice(0, FAILED_LINES).map((r) => `failed    ${r.id} ${r.name} (${r.error})`),
      '... and 3 more: `packbench runs list --batch b1 --status failed --limit 10000` lists the failed ones, --json the summary of every run',
    ]);
    const few = runs.slice(FAILED_LINES, FAILED_LINES + 4);
    expect(batchSummary(few, 'b1').split('\n')).toEqual(['failed    r10 point 10 (boom 10)', 'failed    r11 point 11 (boom 11)', 'deleted   r12 (deleted while it ran)', 'cancelled r13 point 13']);
  });

  it('Ctrl-C of `queue run` after `runs stop`: the run ends done as stopped, with its results, counted, instead of going back to the queue; exit 0, nothing left', async () => {
    const t2 = tempDir('packbench-cli-stop-');
    try {
      // About 15 s of CPU to its end: stopped within a second or two.
      const file = join(t2.dir, 'long.json');
      writeFileSync(file, JSON.stringify(smallSpec('long', { box: { size: [16, 16, 16], resolution: 20 }, analysis: { enabled: false } })));
      const id = JSON.parse((await cliIn(t2.dir, '--json', 'queue', 'add', file)).stdout).runIds[0];
      let stdout = '', stderr = '';
      const working = main(['--data', t2.dir, 'queue', 'run'], { stdout: (x) => void (stdout += x), stderr: (x) => void (stderr += x), stderrIsTTY: false });
      while (JSON.parse((await cliIn(t2.dir, '--json', 'runs', 'show', id)).stdout).status !== 'running') await new Promise((r) => setTimeout(r, 50));
      // Beside it (another terminal; a process of its own, as opening the folder here would take this one's run for a crashed one's): stop and keep, then the user's Ctrl-C.
      const stop = spawnSync(process.execPath, [bin, '--data', t2.dir, 'runs', 'stop', id], { cwd: root, encoding: 'utf8', timeout: 120_000 });
      expect(stop.status, stop.stderr).toBe(0);
      process.emit('SIGINT');
      // Its one run ended done and nothing went back to the queue: not 1 (a run failed), nor 130 (work left).
      expect(await working).toBe(0);
      const r = JSON.parse((await cliIn(t2.dir, '--json', 'runs', 'show', id)).stdout);
      expect([r.status, r.metrics.stopReason]).toEqual(['done', 'stopped']);
      expect(r.artifacts.map((a: { name: string }) => a.name)).toContain('particles');
      // It said why it waited, and counts the run.
      expect(stderr).toContain(`stopping: running runs go back to the queue; first, up to 10 s for ${id} to end as stopped, with results`);
      expect(stderr).toContain(`done      ${id} long`);
      expect(stdout).toBe('1 run(s) finished: 1 done\n');
    } finally {
      t2.cleanup();
    }
  });

  it("draws a sphere import's progress on a terminal as a run's: parsing, then analysing, each to 100 %", async () => {
    const t2 = tempDir();
    try {
      writeFileSync(join(t2.dir, 'stack.csv'), cubicSpheresCsv());
      let stderr = '';
      const io = { stdout: () => {}, stderr: (text: string) => void (stderr += text), stderrIsTTY: true };
      expect(await main(['--data', t2.dir, 'import', 'spheres', join(t2.dir, 'stack.csv'), '--name', 'Drawn'], io)).toBe(0);
      const lines = stderr.split('\r').filter(Boolean).map((l) => l.replace('\x1b[K', ''));
      expect(lines[0]).toBe('[------------------------------]   0% parsing Drawn');
      expect(lines).toContain('[##############################] 100% parsing Drawn');
      expect(lines).toContain('[------------------------------]   0% analysing Drawn');
      expect(lines.at(-1)).toBe('[##############################] 100% analysing Drawn\n');
    } finally {
      t2.cleanup();
    }
  });

  it('imports a sphere CSV as an analysed run, and meshes and raw volumes as shapes', async () => {
    writeFileSync(join(t.dir, 'stack.csv'), cubicSpheresCsv());
    const sp = await cli('--json', 'import', 'spheres', join(t.dir, 'stack.csv'), '--name', 'Cubic stack', '--box', '3,3,4');
    expect(sp.stderr).toBe('');
    expect(sp.code).toBe(0);
    const run = JSON.parse(sp.stdout);
    expect(run).toMatchObject({ engine: 'spheres', status: 'done', metrics: { particles: 27 } });
    expect(run.metrics.coordinationMean).toBeGreaterThan(4);
    const shown = JSON.parse((await cli('--json', 'runs', 'show', run.runId)).stdout);
    expect(shown).toMatchObject({ name: 'Cubic stack', params: { box: [3, 3, 4] } });
    const out = join(t.dir, 'stack-out.csv');
    expect((await cli('runs', 'export', run.runId, '--format', 'csv', '--out', out)).code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('x,y,z,r,type,id,coordination');
    // Periodic sides: x,y by default (as stored), none or x,y,z when asked; the edge spheres of the
    // stack lose their neighbours across the sides without them, and gain those across z with z.
    expect(shown.params.analysis).toMatchObject({ periodic: [true, true, false] });
    const sides = async (periodic: string) => JSON.parse((await cli('--json', 'import', 'spheres', join(t.dir, 'stack.csv'), '--box', '3,3,3', '--periodic', periodic)).stdout);
    const [open, bed, all] = [await sides('none'), await sides('x,y'), await sides('x,y,z')];
    expect(JSON.parse((await cli('--json', 'runs', 'show', open.runId)).stdout).params.analysis).toMatchObject({ periodic: [false, false, false] });
    expect(open.metrics.coordinationMean).toBeLessThan(bed.metrics.coordinationMean);
    expect(bed.metrics.coordinationMean).toBeLessThan(all.metrics.coordinationMean);
    const before = JSON.parse((await cli('--json', 'runs', 'list')).stdout).total;
    for (const wrong of ['xy', 'x', 'none,x', '']) {
      const r = await cli('import', 'spheres', join(t.dir, 'stack.csv'), '--periodic', wrong);
      expect(r.code, wrong).toBe(2);
      expect(r.stderr, wrong).toMatch(/--periodic must be one of 'x,y', 'none', 'x,y,z'/);
    }
    expect(JSON.parse((await cli('--json', 'runs', 'list')).stdout).total).toBe(before);
    writeFileSync(join(t.dir, 'bad.csv'), 'x,y,z,r\n1,2,3,-1\n');
    const bad = await cli('import', 'spheres', join(t.dir, 'bad.csv'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 2: radius r must be > 0/);

    writeFileSync(join(t.dir, 'box.stl'), asciiBox(2, 1, 0.5));
    const mesh = await cli('--json', 'import', 'shape', join(t.dir, 'box.stl'), '--resolution', '10');
    expect(mesh.code).toBe(0);
    expect(JSON.parse(mesh.stdout)).toMatchObject({ shape: { name: 'box', kind: 'voxels', params: { dims: [20, 10, 5] } }, voxelCount: 1000, triangles: 12 });
    const human = await cli('import', 'shape', join(t.dir, 'box.stl'), '--voxels-across', '8', '--name', 'Brick');
    expect(human.stdout).toMatch(/^imported shape 'Brick' \(.+\): 8x4x2 voxels, 64 solid/);
    const noRes = await cli('import', 'shape', join(t.dir, 'box.stl'));
    expect(noRes.code).toBe(2);
    expect(noRes.stderr).toMatch(/exactly one of --resolution and --voxels-across/);

    // A raw volume as `runs export --format raw` writes it (with FILE.raw.json) comes back as a shape.
    const rawFile = join(t.dir, 'labels.raw');
    expect((await cli('runs', 'export', runId, '--format', 'raw', '--out', rawFile)).code).toBe(0);
    const raw = await cli('--json', 'import', 'shape', rawFile);
    expect(raw.stderr).toBe('');
    const shape = JSON.parse(raw.stdout);
    expect(shape.shape.params.dims).toEqual([96, 96, 96]);
    expect(shape.resolution).toBe(16);
    expect((await cli('import', 'shape', rawFile, '--resolution', '3')).code).toBe(2);
  });

  it('lists and shows a read-only data folder; commands that write say so in one line', async (ctx) => {
    const restore = makeReadOnly(t.dir);
    if (!restore) return ctx.skip();
    try {
      const list = await cli('--json', 'runs', 'list');
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout).rows.map((r: { id: string }) => r.id)).toContain(runId);
      const show = await cli('--json', 'runs', 'show', runId);
      expect(show.code).toBe(0);
      expect(JSON.parse(show.stdout).id).toBe(runId);
      expect((await cli('queue', 'list')).code).toBe(0);
      expect((await cli('engines')).code).toBe(0);
      const add = await cli('queue', 'add', example);
      expect(add.code).toBe(3);
      noStack(add);
      expect(add.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      restore();
    }
  });

  it("a command that writes on a full disk says the disk is full, not that the folder is read-only; exit 3, nothing stored", async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip();
    try {
      const spec = writeJson('full-disk.json', smallSpec('full disk'));
      expect((await cliIn(disk.dir, 'queue', 'add', spec)).code).toBe(0);
      try {
        writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(8 << 20));
      } catch {
        // the disk is full now: what this test wants
      }
      // Opened read-only for it, the folder refused the write as read-only (SQLITE_READONLY): the user looked at permissions.
      for (const args of [['queue', 'add', spec], ['run', spec]]) {
        const r = await cliIn(disk.dir, '--json', ...args);
        expect(r.code).toBe(3);
        expect(JSON.parse(r.stdout).error.message).toMatch(/^the data folder cannot be written \(the disk of the data folder is full( or failing)? \(SQLITE_\w+\)\): nothing was stored; make it writable or free space, then try again$/);
        noStack(r);
      }
      expect(JSON.parse((await cliIn(disk.dir, '--json', 'runs', 'list')).stdout).total).toBe(1);
    } finally {
      disk.cleanup();
    }
  });

  it('runs rm on a disk filled to the last byte deletes the run, freeing the space its files took', async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip();
    try {
      const s = openServices({ dataDir: disk.dir });
      const runWith = (name: string, bytes: number) => {
        const [id] = s.store.insertRuns([{ name, engine: 'voxel', spec: { engine: 'voxel', name, seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
        s.store.finishRun(id, { status: 'done', metrics: { phi: 0.6 } });
        mkdirSync(s.queue.runDir(id), { recursive: true });
        writeFileSync(join(s.queue.runDir(id), 'labels.raw'), Buffer.alloc(bytes, 1));
        return id;
      };
      const small = runWith('small', 1), id = runWith('big', 2 << 20);
      await s.close();
      try {
        writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(8 << 20, 1));
      } catch {
        // the disk is full now: what this test wants
      }
      const free = () => statfsSync(disk.dir).bavail * statfsSync(disk.dir).bsize;
      expect(free()).toBe(0);
      // The folder opened read-only (SQLite had no room for its shared-memory file): rm was refused with
      // 'free space, then try again', and PackBench could not free the space its own runs take.
      const tooSmall = await cliIn(disk.dir, 'runs', 'rm', small);
      expect(tooSmall.code).toBe(3);
      expect(tooSmall.stderr).toMatch(/^packbench: the files of run \w+ were deleted, but its record cannot be removed yet \(the disk of the data folder is full[^\n]*\): it goes when PackBench next opens the folder with space free; free space, then run `packbench runs rm \w+` to remove it now\n$/m);
      expect(JSON.parse((await cliIn(disk.dir, '--json', 'runs', 'list')).stdout).total).toBe(2);
      const r = await cliIn(disk.dir, 'runs', 'rm', id);
      expect(r).toMatchObject({ code: 0, stdout: `deleted ${id}\n` });
      expect(r.stderr).toMatch(/^the disk of the data folder is full: the files of run \w+ were deleted first, to make room for removing its record\n/);
      expect(free()).toBeGreaterThan(3 << 19); // its 2 MiB, less what the database took to remove its row
      // The small run's removal went on when the folder opened for writing.
      expect(JSON.parse((await cliIn(disk.dir, '--json', 'runs', 'list')).stdout).total).toBe(0);
      expect(readdirSync(join(disk.dir, 'runs'))).toEqual(['.removing']);
      expect(readdirSync(join(disk.dir, 'runs', '.removing'))).toEqual([]);
    } finally {
      disk.cleanup();
    }
  });

  it('Ctrl-C of `queue run` while a run\'s outcome waits for room on a full disk exits 130, not 0: the run is not stored and runs again', async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip();
    const finishRun = RunStore.prototype.finishRun;
    // Another program fills the disk as the run ends, before its outcome is stored.
    const spy = vi.spyOn(RunStore.prototype, 'finishRun').mockImplementation(function (this: RunStore, ...args: Parameters<RunStore['finishRun']>) {
      try {
        writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(8 << 20, 1));
      } catch {
        // the disk is full now
      }
      return finishRun.apply(this, args);
    });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const id = JSON.parse((await cliIn(disk.dir, '--json', 'queue', 'add', writeJson('outcome-waits.json', smallSpec('outcome waits')))).stdout).runIds[0];
      let stderr = '';
      const working = main(['--data', disk.dir, 'queue', 'run'], { stdout: () => {}, stderr: (x) => void (stderr += x), stderrIsTTY: false });
      await vi.waitUntil(() => quiet.mock.calls.some(([line]) => String(line).includes(`the outcome of run ${id} cannot be stored now`)), { timeout: 60_000, interval: 20 });
      process.emit('SIGINT');
      // It exited 0, as if every run had ended done, its outcome lost (its run left to run again).
      expect(await working).toBe(130);
      expect(stderr).toContain(`the outcome of run ${id} could not be stored`);
      spy.mockRestore();
      rmSync(join(disk.dir, 'filler'));
      const next = openServices({ dataDir: disk.dir });
      await next.close();
      expect(next.recovered).toEqual([id]);
    } finally {
      spy.mockRestore();
      quiet.mockRestore();
      disk.cleanup();
    }
  });

  it('queue run on a read-only folder with queued runs exits 3 saying why, instead of retrying its first run forever', async (ctx) => {
    const folder = tempDir('packbench-cli-ro-');
    try {
      const add = await cliIn(folder.dir, '--json', 'queue', 'add', writeJson('ro-queued.json', smallSpec('waits')));
      expect(add.code).toBe(0);
      const [id] = JSON.parse(add.stdout).runIds;
      const restore = makeReadOnly(folder.dir);
      if (!restore) return ctx.skip();
      try {
        const r = await cliIn(folder.dir, '--json', 'queue', 'run');
        expect(r.code).toBe(3);
        expect(JSON.parse(r.stdout).error.message).toMatch(/cannot be written .*no queued run can start/);
        expect((await cliIn(folder.dir, 'queue', 'list')).stdout).toContain(id);
      } finally {
        restore();
      }
    } finally {
      folder.cleanup();
    }
  });

  it('queue list shows runs in start order; a sweep survives a SIGKILL of a spawned `queue run`, and finishes after restart', async () => {
    const spec = smallSpec('sweep', { reboundProbability: { $sweep: [0.1, 0.3, 0.5] } });
    const file = writeJson('sweep.json', spec);
    const high = writeJson('high.json', smallSpec('urgent'));
    const added = JSON.parse((await cli('--json', 'queue', 'add', file)).stdout);
    expect(added.runIds).toHaveLength(3);
    const urgent = JSON.parse((await cli('--json', 'queue', 'add', high, '--priority', '5')).stdout).runIds[0];
    const queued = JSON.parse((await cli('--json', 'queue', 'list')).stdout);
    expect(queued.map((r: { id: string }) => r.id)).toEqual([urgent, ...added.runIds]);
    expect((await cli('runs', 'rm', urgent)).code).toBe(0);

    // Start working through the queue, and kill the process as soon as the first run is running.
    const child = spawn(process.execPath, [bin, '--data', t.dir, 'queue', 'run', '--concurrency', '1'], { cwd: root, stdio: 'ignore' });
    const store = new RunStore(join(t.dir, 'packbench.db'));
    try {
      for (let i = 0; i < 1200 && store.getSummary(added.runIds[0])!.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(store.getSummary(added.runIds[0])!.status).toBe('running');
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      store.close();
    }

    // Read-only commands show the killed run as the next writer's recovery will leave it: queued,
    // not 'running' for good (they showed 'running' until a command that writes re-queued it).
    const killed = added.runIds[0];
    const listed = JSON.parse((await cli('--json', 'queue', 'list')).stdout) as { id: string; status: string }[];
    expect(listed.map((r) => [r.id, r.status])).toEqual(added.runIds.map((id: string) => [id, 'queued']));
    const shown = JSON.parse((await cli('--json', 'runs', 'show', killed)).stdout);
    expect(shown).toMatchObject({ status: 'queued', startedAt: null });
    expect(shown.log.at(-1)).toMatch(/^interrupted: the process running it has ended/);
    expect(JSON.parse((await cli('--json', 'runs', 'list', '--status', 'running')).stdout).total).toBe(0);
    expect(JSON.parse((await cli('--json', 'runs', 'list', '--status', 'queued')).stdout).total).toBe(3);
    // Without writing: the database still says 'running'.
    const untouched = new RunStore(join(t.dir, 'packbench.db'));
    expect(untouched.getSummary(killed)!.status).toBe('running');
    untouched.close();

    const again = await cli('--json', 'queue', 'run');
    expect(again.stderr).toMatch(/re-queued 1 run/);
    expect(again.code).toBe(0);
    const runs = await Promise.all(added.runIds.map(async (id: string) => JSON.parse((await cli('--json', 'runs', 'show', id)).stdout)));
    expect(runs.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'done']);
    expect(runs[0].attempts).toBe(2);
    expect(runs[0].log.join('\n')).toMatch(/interrupted/);
    expect(new Set(runs.map((r: { seed: number }) => r.seed)).size).toBe(3);
  });

  it('`run SWEEP` beside a host on the same folder: runs its own runs, waits for the ones the host took, reports all', async () => {
    const t2 = tempDir('packbench-cli-host-');
    const host = openServices({ dataDir: t2.dir, autoStart: true, concurrency: 1 });
    try {
      const file = join(t2.dir, 'sweep.json');
      writeFileSync(file, JSON.stringify(smallSpec('beside', { reboundProbability: { $sweep: [0.1, 0.2, 0.3, 0.4] } })));
      // The runs the host itself took: those its own store claimed (its run.updated events also tell
      // the runs the CLI runs, since the host follows the folder's other processes).
      const claim = vi.spyOn(host.store, 'claim');
      const hostStarted = () => new Set(claim.mock.calls.filter((_, i) => claim.mock.results[i].value === true).map(([id]) => id));
      // As soon as the CLI has queued its runs, the host looks (as its 2 s poll would) and takes one.
      const nudge = setInterval(() => {
        if (host.store.countUnfinished().queued > 0) {
          host.queue.resume();
          clearInterval(nudge);
        }
      }, 10);
      const r = await cliIn(t2.dir, '--json', 'run', file, '--concurrency', '1');
      clearInterval(nudge);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.runs.map((x: { status: string }) => x.status)).toEqual(['done', 'done', 'done', 'done']);
      // The host took some while the CLI worked through the others.
      expect(hostStarted().size).toBeGreaterThanOrEqual(1);
      expect(hostStarted().size).toBeLessThan(4);
    } finally {
      await host.close();
      t2.cleanup();
    }
  });

  it('queue pause and queue resume pause the queue kept in the data folder: a host on it follows, a host started later too', async () => {
    const t2 = tempDir('packbench-cli-pause-');
    const file = join(t2.dir, 'one.json');
    writeFileSync(file, JSON.stringify(smallSpec('paused')));
    try {
      const paused = await cliIn(t2.dir, '--json', 'queue', 'pause');
      expect(paused.code, paused.stderr).toBe(0);
      expect(JSON.parse(paused.stdout)).toEqual({ paused: true, queued: 0 });
      expect((await cliIn(t2.dir, 'queue', 'add', file)).code).toBe(0);
      // The list says why its queued run waits; --json stays the list of runs.
      expect((await cliIn(t2.dir, 'queue', 'list')).stdout).toMatch(/^queue paused: .*`packbench queue resume`.*\nqueued /);
      expect(JSON.parse((await cliIn(t2.dir, '--json', 'queue', 'list')).stdout)).toHaveLength(1);
      // A host started now takes up the pause: the queued run waits. (It looks at the folder every
      // 100 ms here, the app's 2 s otherwise.)
      const host = openServices({ dataDir: t2.dir, autoStart: true, concurrency: 1, pollMs: 100 });
      try {
        expect(host.queue.state()).toMatchObject({ paused: true, queued: 1 });
        const resumed = await cliIn(t2.dir, 'queue', 'resume');
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stdout).toMatch(/^queue resumed: .*1 queued run/);
        // The host follows at its next look (its poll) and runs it.
        await host.queue.waitFor(host.store.listRuns({ offset: 0, limit: 1 }).rows.map((r) => r.id));
        expect(host.queue.state().paused).toBe(false);
        expect(host.store.listRuns({ offset: 0, limit: 1, filter: { status: ['done'] } }).total).toBe(1);
        // Paused while the host is open: it follows too.
        expect((await cliIn(t2.dir, 'queue', 'pause')).stdout).toMatch(/^queue paused: /);
        await vi.waitFor(() => expect(host.queue.state().paused).toBe(true), { timeout: 5000, interval: 100 });
      } finally {
        await host.close();
      }
    } finally {
      t2.cleanup();
    }
  });

  it('queue list --json --with-state says whether the queue is paused, an empty one too, beside its runs; --json alone stays the bare list', async () => {
    const t2 = tempDir('packbench-cli-state-');
    try {
      const list = async (...more: string[]) => {
        const r = await cliIn(t2.dir, '--json', 'queue', 'list', ...more);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout);
      };
      expect(await list('--with-state')).toEqual({ paused: false, waiting: null, runs: [] });
      expect((await cliIn(t2.dir, 'queue', 'pause')).code).toBe(0);
      expect(await list('--with-state')).toEqual({ paused: true, waiting: null, runs: [] });
      expect((await cliIn(t2.dir, 'queue', 'add', writeJson('state.json', smallSpec('state')))).code).toBe(0);
      const bare = await list();
      expect(bare).toMatchObject([{ status: 'queued', name: 'state' }]);
      expect(await list('--with-state')).toEqual({ paused: true, waiting: null, runs: bare });
      expect((await cliIn(t2.dir, 'queue', 'resume')).code).toBe(0);
      expect(await list('--with-state')).toEqual({ paused: false, waiting: null, runs: bare });
    } finally {
      t2.cleanup();
    }
  });

  it('spawned: serve says it re-queued the runs a crash interrupted, as the other commands do', async () => {
    const t2 = tempDir('packbench-cli-serve-');
    try {
      const added = JSON.parse((await cliIn(t2.dir, '--json', 'queue', 'add', writeJson('crashed.json', smallSpec('crashed')))).stdout);
      expect((await cliIn(t2.dir, 'queue', 'pause')).code).toBe(0); // the host then runs nothing
      // Left 'running' by a process of this machine that has ended.
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const store = new RunStore(join(t2.dir, 'packbench.db'));
      expect(store.claim(added.runIds[0], { owner: `${hostname()}:${gone}`, host: null, threads: 1, appVersion: 'test' })).toBe(true);
      store.close();
      const webRoot = join(t2.dir, 'web');
      mkdirSync(webRoot);
      writeFileSync(join(webRoot, 'index.html'), '<!doctype html>');
      const child = spawn(process.execPath, [bin, '--data', t2.dir, 'serve', '--web-root', webRoot], { cwd: root });
      let stdout = '', stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((done) => child.once('exit', done));
      await new Promise<void>((up) => child.stdout.on('data', (d) => (stdout += d).includes('PackBench web host:') && up()));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/^re-queued 1 run\(s\) interrupted by an earlier crash$/m);
    } finally {
      t2.cleanup();
    }
  });

  it('says who has a run left running on another machine (or this one under an earlier hostname) and how to end it', async () => {
    const t2 = tempDir('packbench-cli-elsewhere-');
    try {
      const id = JSON.parse((await cliIn(t2.dir, '--json', 'queue', 'add', writeJson('elsewhere.json', smallSpec('elsewhere')))).stdout).runIds[0];
      // It showed 'running' for good, saying nothing of where or what to do.
      const store = new RunStore(join(t2.dir, 'packbench.db'));
      expect(store.claim(id, { owner: 'old-name:4242:00000000-0000-4000-8000-000000000000', host: null, threads: 1, appVersion: 'test' })).toBe(true);
      store.close();
      const who = `runs in process 4242 on old-name, not this machine`, end = `\`packbench runs cancel ${id}\` ends it`;
      const show = (await cliIn(t2.dir, 'runs', 'show', id)).stdout;
      expect(show).toContain(who);
      expect(show).toContain(end);
      expect((await cliIn(t2.dir, 'runs', 'list')).stdout).toContain(`run ${id} ${who}`);
      expect((await cliIn(t2.dir, 'queue', 'list')).stdout).toContain(end);
      expect(JSON.parse((await cliIn(t2.dir, '--json', 'runs', 'show', id)).stdout).runner).toEqual({ host: 'old-name', pid: 4242, state: 'elsewhere' });
      // Its checkpoint (up to a whole packing matrix) stayed for good: no process here takes the run up to clear it.
      mkdirSync(join(t2.dir, 'runs', id), { recursive: true });
      writeFileSync(join(t2.dir, 'runs', id, CHECKPOINT_FILE), 'a packing so far');
      expect((await cliIn(t2.dir, 'runs', 'cancel', id)).code).toBe(0);
      expect(JSON.parse((await cliIn(t2.dir, '--json', 'runs', 'show', id)).stdout).status).toBe('cancelled');
      expect(readdirSync(join(t2.dir, 'runs', id))).toEqual([]);
    } finally {
      t2.cleanup();
    }
  });

  it('deletes a run with its folder', async () => {
    expect((await cli('runs', 'rm', runId)).code).toBe(0);
    expect((await cli('runs', 'show', runId)).code).toBe(2);
    expect(existsSync(join(t.dir, 'runs', runId))).toBe(false);
  });

  it('`run` reports a run deleted while it ran (runs rm beside it) and exits 1, instead of crashing on its missing record', async () => {
    const file = writeJson('long.json', smallSpec('long', { box: { size: [10, 10, 10], resolution: 16 } }));
    const running = cli('--json', 'run', file);
    // Another command line on the same folder deletes it as soon as it runs.
    let id = '';
    for (let k = 0; k < 600 && !id; k++) {
      await new Promise((done) => setTimeout(done, 50));
      id = JSON.parse((await cli('--json', 'runs', 'list', '--status', 'running')).stdout).rows[0]?.id ?? '';
    }
    expect(id).not.toBe('');
    expect((await cli('runs', 'rm', id)).code).toBe(0);
    const r = await running;
    noStack(r);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ runId: id, status: 'deleted', error: expect.stringMatching(/deleted while it ran/) });
    expect(existsSync(join(t.dir, 'runs', id))).toBe(false);
  });

  it("runs show says the unit of a metric that applies to the run: a 2D stacking run's regionVolume is an area", async () => {
    const d = tempDir('packbench-unit-');
    try {
      const store = new RunStore(join(d.dir, 'packbench.db'));
      const spec = { engine: 'stacking', name: 'disks', seed: 1, params: { dim: 2 } };
      const [id] = store.insertRuns([{ name: 'disks', engine: 'stacking', spec, params: { dim: 2 }, seed: 1, priority: 0, batchId: null, status: 'paused' }]);
      store.finishRun(id, { status: 'done', metrics: { regionVolume: 4 }, series: [], artifacts: [], wallSeconds: 1 });
      store.close();
      // It said 'length units³ (length units² in 2D)'.
      expect((await cliIn(d.dir, 'runs', 'show', id)).stdout).toContain('\n  regionVolume: 4 length units²\n');
    } finally {
      d.cleanup();
    }
  });

  it('a database of a newer schema version is named in one line, without a stack, by read-only and writing commands', async () => {
    const d = tempDir('packbench-schema-');
    try {
      const store = new RunStore(join(d.dir, 'packbench.db'));
      store.db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
      store.close();
      for (const args of [['queue', 'list'], ['runs', 'list']]) {
        const r = await cliIn(d.dir, ...args);
        noStack(r);
        expect(r.code).toBe(3);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr.trim()).toMatch(new RegExp(`schema version ${SCHEMA_VERSION + 1} is newer than this PackBench \\(${SCHEMA_VERSION}\\); update PackBench$`));
      }
    } finally {
      d.cleanup();
    }
  });

  it("a database an older PackBench wrote is migrated by the first command after an update, one that only reads too; in a folder that cannot be written it is named in one line", async () => {
    // The last migration rewound (it tolerates columns that are there): the folder as the previous
    // version left it. `runs list` refused it, telling the user to run a command that writes.
    const d = tempDir('packbench-schema-');
    try {
      const store = new RunStore(join(d.dir, 'packbench.db'));
      store.db.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
      store.close();
      // Where a read-only folder cannot be made here (makeReadOnly: null), the rest still runs.
      const restore = makeReadOnly(d.dir);
      if (restore) {
        try {
          const r = await cliIn(d.dir, 'runs', 'list');
          noStack(r);
          expect(r.code).toBe(3);
          expect(r.stderr.trim().split('\n')).toHaveLength(1);
          expect(r.stderr.trim()).toMatch(new RegExp(`schema version ${SCHEMA_VERSION - 1} is older than this PackBench's \\(${SCHEMA_VERSION}\\) and can be migrated only where the data folder can be written: .* \\(migrating it failed here: `));
        } finally {
          restore();
        }
      }
      for (const args of [['runs', 'list'], ['queue', 'list']]) {
        const r = await cliIn(d.dir, ...args);
        expect(r.code, r.stderr).toBe(0);
      }
      const after = new RunStore(join(d.dir, 'packbench.db'), { readOnly: true });
      expect(after.schemaVersion).toBe(SCHEMA_VERSION);
      after.close();
    } finally {
      d.cleanup();
    }
  });

  it('a data folder moved elsewhere keeps its runs whole: artifacts are read from where the folder is now', async () => {
    const from = tempDir('packbench-moved-from-'), to = tempDir('packbench-moved-to-');
    try {
      const csv = join(from.dir, 'cubic.csv');
      writeFileSync(csv, cubicSpheresCsv());
      const imported = await cliIn(from.dir, '--json', 'import', 'spheres', csv);
      expect(imported.code, imported.stderr).toBe(0);
      const { runId: id } = JSON.parse(imported.stdout);
      cpSync(from.dir, to.dir, { recursive: true });
      from.cleanup(); // the old place is gone (moved to a new disk, or copied to a colleague's machine)
      const show = JSON.parse((await cliIn(to.dir, '--json', 'runs', 'show', id)).stdout);
      for (const a of show.artifacts) expect(a.path.startsWith(join(to.dir, 'runs', id))).toBe(true);
      const out = join(to.dir, 'moved.csv');
      const exported = await cliIn(to.dir, 'runs', 'export', id, '--format', 'csv', '--out', out);
      expect(exported.code, exported.stderr).toBe(0);
      expect(readFileSync(out, 'utf8').split('\n')).toHaveLength(27 + 2);
    } finally {
      from.cleanup();
      to.cleanup();
    }
  });

  it('queue list shows a queue longer than 10,000 runs whole, the run that starts next first', async () => {
    const d = tempDir('packbench-long-queue-');
    try {
      const sweep = writeJson('ten-thousand.json', smallSpec('many', { reboundProbability: { $sweep: { from: 0, to: 1, steps: 10_000 } } }));
      expect((await cliIn(d.dir, 'queue', 'add', sweep)).code).toBe(0);
      const urgent = JSON.parse((await cliIn(d.dir, '--json', 'queue', 'add', writeJson('urgent.json', smallSpec('urgent')), '--priority', '5')).stdout).runIds[0];
      const queued = JSON.parse((await cliIn(d.dir, '--json', 'queue', 'list')).stdout);
      expect(queued).toHaveLength(10_001);
      expect(queued[0].id).toBe(urgent);
    } finally {
      d.cleanup();
    }
  });
});

describe('packbench runs pause / resume / rerun', () => {
  const d = tempDir('packbench-cli-pause-');
  afterAll(() => d.cleanup());
  const queued = async (name: string): Promise<string> => JSON.parse((await cliIn(d.dir, '--json', 'queue', 'add', writeJson(`${name}.json`, smallSpec(name)))).stdout).runIds[0];
  const show = async (x: string) => JSON.parse((await cliIn(d.dir, '--json', 'runs', 'show', x)).stdout);
  const total = async () => JSON.parse((await cliIn(d.dir, '--json', 'runs', 'list')).stdout).total;

  it('pause: a queued run waits, paused (0, its summary with --json); a paused one again: 3 naming why; an unknown id: 2', async () => {
    const id = await queued('to-pause');
    const paused = await cliIn(d.dir, '--json', 'runs', 'pause', id);
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ id, status: 'paused' });
    const again = await cliIn(d.dir, 'runs', 'pause', id);
    expect([again.code, again.stderr]).toEqual([3, `packbench: run ${id} is paused; only queued or running runs can be paused\n`]);
    expect((await cliIn(d.dir, 'runs', 'pause', 'nope')).code).toBe(2);
  });

  it('resume: a paused run that had not started is queued again (0); a run not paused: 3 naming why', async () => {
    const id = await queued('to-resume');
    expect((await cliIn(d.dir, 'runs', 'pause', id)).code).toBe(0);
    const resumed = await cliIn(d.dir, 'runs', 'resume', id);
    expect([resumed.code, resumed.stdout]).toEqual([0, `resumed ${id}: queued\n`]);
    expect(JSON.parse((await cliIn(d.dir, '--json', 'runs', 'show', id)).stdout).status).toBe('queued');
    const again = await cliIn(d.dir, 'runs', 'resume', id);
    expect([again.code, again.stderr]).toEqual([3, `packbench: run ${id} is queued, not paused\n`]);
  });

  it('rerun: queues a new run of the same spec and seed (0, its id with --json); an unknown id: 2', async () => {
    const id = await queued('to-rerun');
    const rerun = await cliIn(d.dir, '--json', 'runs', 'rerun', id);
    expect(rerun.code).toBe(0);
    const [copy] = JSON.parse(rerun.stdout).runIds;
    expect(copy).not.toBe(id);
    const [a, b] = [await show(id), await show(copy)];
    expect(b).toMatchObject({ status: 'queued', name: a.name, seed: a.seed, params: a.params });
    expect((await cliIn(d.dir, 'runs', 'rerun', 'nope')).code).toBe(2);
  });

  it('replicates: a spec whose seed is a sweep queues every params point at every seed, each run at the seed itself; validate counts them; a replicate re-runs at its seed', async () => {
    const spec = { ...smallSpec('replicates', { reboundProbability: { $sweep: [0.1, 0.3] } }), seed: { $sweep: [3, 8] } };
    const file = writeJson('replicates.json', spec);
    expect((await cliIn(d.dir, 'validate', file)).stdout).toBe('valid: 4 run(s)\n');
    const added = JSON.parse((await cliIn(d.dir, '--json', 'queue', 'add', file)).stdout);
    const runs = await Promise.all(added.runIds.map(show));
    expect(runs.map((r) => [r.name, r.seed])).toEqual([
      ['replicates [reboundProbability=0.1, seed=3]', 3],
      ['replicates [reboundProbability=0.1, seed=8]', 8],
      ['replicates [reboundProbability=0.3, seed=3]', 3],
      ['replicates [reboundProbability=0.3, seed=8]', 8],
    ]);
    const again = JSON.parse((await cliIn(d.dir, '--json', 'runs', 'rerun', runs[1].id)).stdout).runIds[0];
    expect(await show(again)).toMatchObject({ name: runs[1].name, seed: 8, params: runs[1].params, batchId: null });
    // That replicate is queued still: a second run of its point stays outside its batch, saying why.
    const twice = await cliIn(d.dir, 'runs', 'rerun', runs[1].id);
    expect(twice.stdout).toMatch(new RegExp(`^queued \\w+: a re-run of ${runs[1].id} \\(not in its batch: the batch has a run of this point done or still to run\\)\n$`));
    // Cancelled, run again unchanged: it fills its place in the batch; with a new seed it is a new experiment.
    expect((await cliIn(d.dir, 'runs', 'cancel', runs[1].id)).code).toBe(0);
    const reseeded = await cliIn(d.dir, 'runs', 'rerun', runs[1].id, '--seed', '9');
    expect(reseeded.stdout).toContain(`: a re-run of ${runs[1].id} (not in its batch: its values changed, so it is a new experiment)\n`);
    const refill = await cliIn(d.dir, '--json', 'runs', 'rerun', runs[1].id);
    expect(JSON.parse(refill.stdout)).toMatchObject({ batchId: added.batchId, outside: null });
    expect(await show(JSON.parse(refill.stdout).runIds[0])).toMatchObject({ batchId: added.batchId, seed: 8, sweep: runs[1].sweep });
    // A seed out of range in the sweep: exit 2 naming the value's place and the range, nothing stored.
    const before = await total();
    const bad = await cliIn(d.dir, 'queue', 'add', writeJson('bad-replicates.json', { ...spec, seed: { $sweep: [1, 2.5] } }));
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('seed.$sweep.1: must be a whole number in [0, 4294967295], got 2.5')]);
    // A seed twice would be the same run twice: exit 2 naming the repeat, nothing stored.
    const repeated = await cliIn(d.dir, 'queue', 'add', writeJson('twice-replicates.json', { ...spec, seed: { $sweep: [3, 8, 3] } }));
    expect([repeated.code, repeated.stderr]).toEqual([2, expect.stringContaining('seed.$sweep.2: repeats seed 3 (seed.$sweep.0); each seed of a sweep must differ')]);
    expect(await total()).toBe(before);
  });

  it('rerun --seed --set: queues the run with the new seed and values laid over its spec (a list element by its index); --json as runs.rerun answers', async () => {
    const id = await queued('to-change');
    const r = await cliIn(d.dir, '--json', 'runs', 'rerun', id, '--seed', '7', '--set', 'params.box.resolution=12', '--set', 'params.box.size.2=5', '--set', 'params.reboundProbability=.5');
    expect([r.code, r.stderr]).toEqual([0, '']);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({ batchId: null, runIds: [expect.any(String)], warnings: [], outside: null, memoryBytes: expect.any(Number), threadsPerRun: 1, memoryBudgetBytes: expect.any(Number) });
    const [a, b] = [await show(id), await show(out.runIds[0])];
    // The spec's other fields (the mixture, the box's other sides) are the run's; its name says the fields changed.
    expect(b).toMatchObject({ status: 'queued', name: `${a.name} [box.resolution=12, box.size.2=5, reboundProbability=0.5]`, seed: 7, params: { ...a.params, box: { ...a.params.box, size: [4, 4, 5], resolution: 12 }, reboundProbability: 0.5 } });
  });

  it('rerun --set of a value out of range, of a field that does not exist, over the memory budget or outside params: exit 2 naming it (and the range), nothing stored', async () => {
    const id = await queued('to-refuse');
    const before = await total();
    const bad = await cliIn(d.dir, 'runs', 'rerun', id, '--set', 'params.box.resolution=0');
    expect([bad.code, bad.stderr]).toEqual([2, `packbench: cannot re-run ${id}: invalid spec:\n  --set params.box.resolution: must be in (0, 1000], got 0\n`]);
    const unknown = await cliIn(d.dir, 'runs', 'rerun', id, '--set', 'params.box.resolutoin=12');
    expect([unknown.code, unknown.stderr]).toEqual([2, `packbench: cannot re-run ${id}: invalid spec:\n  --set params.box.resolutoin: unknown field 'resolutoin' (did you mean 'resolution'?)\n`]);
    const huge = await cliIn(d.dir, 'runs', 'rerun', id, '--set', 'params.box.size=[6000,6000,6000]');
    expect([huge.code, huge.stderr]).toEqual([2, expect.stringMatching(/^packbench: cannot re-run \w+: invalid spec:\n {2}params \(with --set\): the run needs about .* more than the memory budget/)]);
    const outside = await cliIn(d.dir, 'runs', 'rerun', id, '--set', 'box.resolution=12');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/argument 'box\.resolution=12' is invalid\. write params\.FIELD=VALUE/);
    expect(await total()).toBe(before);
  });

  it('rerun --set switching a size law: the old law\'s field is named as the run\'s, and null removes it', async () => {
    const id = await queued('to-switch');
    const normal = ['--set', 'params.mixture.types.0.size.law=normal', '--set', 'params.mixture.types.0.size.mean=1', '--set', 'params.mixture.types.0.size.sd=0.1'];
    const kept = await cliIn(d.dir, 'runs', 'rerun', id, ...normal);
    expect([kept.code, kept.stderr]).toEqual([2, expect.stringContaining(`\n  params.mixture.types.0.size.value: unknown field 'value'; known fields: law, mean, sd (the value of run ${id}, not overridden: override it, or remove it with null)\n`)]);
    const r = await cliIn(d.dir, '--json', 'runs', 'rerun', id, ...normal, '--set', 'params.mixture.types.0.size.value=null');
    expect(r.code, r.stderr).toBe(0);
    expect((await show(JSON.parse(r.stdout).runIds[0])).params.mixture.types[0].size).toEqual({ law: 'normal', mean: 1, sd: 0.1 });
  });

  it('rerun --set of a field with no effect: a warning on stderr naming it, exit 0, queued', async () => {
    const id = await queued('to-warn');
    const r = await cliIn(d.dir, 'runs', 'rerun', id, '--set', 'params.analysis.enabled=false', '--set', 'params.analysis.poreBins=10');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: --set params\.analysis\.poreBins: has no effect with analysis\.enabled false/);
    expect(r.stdout).toMatch(new RegExp(`^queued \\w+: a re-run of ${id}\n$`));
  });
});
