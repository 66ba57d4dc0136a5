import { afterAll, afterEach, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTable } from '../../core/io/container';
import { main } from '../../main/cli';
import { defaultRegistry } from '../../main/services/engines';
import type { RunSummary } from '../../main/api';
import { openServices, type Services, type ServicesOptions } from '../../main/services/services';
import { fixtureRegistry } from './fixtures/registry';

/** The error a call's promise rejects with (ApiError's fields); fails the test if the call was accepted. */
export async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; issues?: { path: string; message: string }[] }> {
  try {
    await p;
  } catch (err) {
    return err as never;
  }
  throw new Error('the call was accepted');
}

/** The first run.updated event whose run meets `pred`. */
export function until(s: Services, pred: (r: RunSummary) => boolean): Promise<RunSummary> {
  return new Promise((resolve) => {
    const off = s.events.on('run.updated', (r) => {
      if (pred(r)) {
        off();
        resolve(r);
      }
    });
  });
}

/** A temp data directory, removed by the returned cleanup. */
export function tempDir(prefix = 'packbench-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Undo after each test, for a test file's top level: `later(fn)` runs fn once the current test ends
 * (newest first, so services close before their folder goes); `dir()` is a temp folder removed then.
 */
export function afterEachTest(): { later: (undo: () => void | Promise<void>) => void; dir: (prefix?: string) => string } {
  const undos: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const undo of undos.splice(0).reverse()) await undo();
  });
  return {
    later: (undo) => void undos.push(undo),
    dir: (prefix) => {
      const t = tempDir(prefix);
      undos.push(t.cleanup);
      return t.dir;
    },
  };
}

/**
 * Services over a temp data dir with the fixture engine. The queue looks at the folder for other
 * processes' changes every 100 ms (the app's 2 s made the tests of two processes wait seconds each).
 */
export function fixtureServices(dataDir: string, o: Partial<ServicesOptions> = {}): Services {
  return openServices({ dataDir, registry: fixtureRegistry(), concurrency: 1, progressIntervalMs: 20, pollMs: 100, ...o });
}

/**
 * Services with the real engines (one run at a time) over a temp data folder, for the tests of one
 * file: call at its top level; they are closed and the folder removed after its tests.
 */
export function engineServicesForFile(): { s: Services; dir: string } {
  const t = tempDir();
  const s = openServices({ dataDir: t.dir, registry: defaultRegistry(), concurrency: 1 });
  afterAll(async () => {
    await s.close();
    t.cleanup();
  });
  return { s, dir: t.dir };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One `packbench` command line in this process on the data folder `data`: exit code and output. */
export async function cliIn(data: string, ...args: string[]): Promise<CliResult> {
  let stdout = '', stderr = '';
  const code = await main(['--data', data, ...args], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), stderrIsTTY: false });
  return { code, stdout, stderr };
}

/**
 * Runs resources/examples/<name>.json with `packbench run --json` in a temp data folder, as a user
 * does; checks it is a spec of `engine` that exits 0 with status done. Its spec and the run's output
 * (parsed JSON, read field by field by each test).
 */
export async function runExample(name: string, engine: string) {
  const file = new URL(`../../resources/examples/${name}.json`, import.meta.url).pathname;
  const spec = JSON.parse(readFileSync(file, 'utf8'));
  expect(spec.engine).toBe(engine);
  const data = tempDir();
  try {
    const r = await cliIn(data.dir, 'run', file, '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('done');
    return { spec, out };
  } finally {
    data.cleanup();
  }
}

/**
 * A done run of the counter engine holding one particle table of `rows` rows (x = i mod m, y = 3i
 * mod m, z = 7i mod m, r = 0.5), written to `dir`: for the tests of large reads and exports.
 */
export function largeTableRun(s: Services, dir: string, name: string, rows: number, m: number): string {
  const path = join(dir, `${name}.pbt`);
  const column = (k: number) => Float64Array.from({ length: rows }, (_, i) => (i * k) % m);
  writeFileSync(path, encodeTable({ kind: 'table', name: 'particles', columns: { x: column(1), y: column(3), z: column(7), r: new Float64Array(rows).fill(0.5) }, meta: {} }));
  const [id] = s.store.insertRuns([{ name, engine: 'counter', spec: { engine: 'counter', name, seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
  s.store.finishRun(id, { status: 'done', metrics: {}, series: [], artifacts: [{ kind: 'table', name: 'particles', path, bytes: statSync(path).size, checksum: '', meta: {} }], wallSeconds: 1 });
  return id;
}
