import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CHECKPOINT_FILE, loadCheckpoint, removeCheckpoint, saveCheckpoint } from '../../main/workers/checkpoint';
import { RunStore } from '../../main/services/store';
import { LIVE_TABLE_FILE } from '../../main/workers/protocol';
import { afterEachTest, cliIn } from './helpers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'packbench.mjs');
const { dir, later } = afterEachTest();
const folder = () => dir('packbench-checkpoint-');

describe('checkpoint files (main/workers/checkpoint.ts)', () => {
  it('a checkpoint reads back as saved, every array type; a temporary file left over is ignored; remove clears both', () => {
    const dir = folder();
    expect(loadCheckpoint(dir)).toBeNull();
    const arrays = {
      f64: Float64Array.of(1.5, -2, Math.PI), i32: Int32Array.of(-7, 8), u32: Uint32Array.of(4e9), i16: Int16Array.of(-3), u16: Uint16Array.of(65535), u8: Uint8Array.of(1, 2, 3, 4, 5), f32: Float32Array.of(0.25), empty: new Int32Array(0),
    };
    saveCheckpoint(dir, { meta: { step: 12, nested: { a: [1, 'x'] } }, arrays });
    // A kill during a later save leaves a torn temporary file: the real one still reads back.
    writeFileSync(join(dir, `${CHECKPOINT_FILE}.tmp`), 'PBCHECK1 torn');
    const back = loadCheckpoint(dir)!;
    expect(back.meta).toEqual({ step: 12, nested: { a: [1, 'x'] } });
    expect(Object.keys(back.arrays)).toEqual(Object.keys(arrays));
    for (const [name, a] of Object.entries(arrays)) {
      expect(back.arrays[name].constructor).toBe(a.constructor);
      expect(Array.from(back.arrays[name])).toEqual(Array.from(a));
    }
    removeCheckpoint(dir);
    expect(existsSync(join(dir, CHECKPOINT_FILE)) || existsSync(join(dir, `${CHECKPOINT_FILE}.tmp`))).toBe(false);
  });

  it('kill -9 during a save leaves the previous checkpoint, whole', async () => {
    const writer = join(root, 'test', 'main', 'fixtures', 'checkpoint-writer.ts');
    // Four writers at once, each in its own folder: each waits mostly on starting node with tsx, and on the disk.
    const seen = await Promise.all([0, 1, 2, 3].map(async (round) => {
      const dir = folder();
      const child = spawn(process.execPath, ['--import', 'tsx', writer, dir], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      later(() => void child.kill('SIGKILL')); // the other writers, when one round fails
      // Each save writes 32 MiB: kill at a moment after a few saves, most likely in the middle of one.
      let saves = 0;
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          saves += d.toString().split('\n').filter(Boolean).length;
          if (saves >= 2 + round) setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 7 * round);
        });
      });
      await new Promise((r) => child.once('exit', r));
      const c = loadCheckpoint(dir)!;
      const k = c.meta.k as number;
      expect(k).toBeGreaterThanOrEqual(1);
      expect((c.arrays.big as Int32Array).every((v) => v === k)).toBe(true);
      expect((c.arrays.small as Float64Array).every((v) => v === k / 2)).toBe(true);
      expect(Array.from(c.arrays.tail)).toEqual([k & 255, 1, 2]);
      return k;
    }));
    expect(Math.max(...seen)).toBeGreaterThan(1);
  }, 120_000);
});

describe('an interrupted voxel run resumes from its checkpoint', () => {
  // The run packs for about 2.5 s on an idle machine, 1 s of it after the first checkpoint (10 x 10 x 4
  // got too quick for these tests with the phases).
  const spec = { engine: 'voxel', name: 'resume', seed: 3, params: { box: { size: [16, 16, 4], resolution: 20 }, analysis: { enabled: false } } };

  /** Writes the spec into `data` and returns its path. */
  function specIn(data: string): string {
    const file = join(data, 'spec.json');
    writeFileSync(file, JSON.stringify(spec));
    return file;
  }

  /**
   * The spec queued in `data` and `queue run` started on it in a child process (a checkpoint every
   * second, on `threads` threads), once the run's first checkpoint is written: a run finished before
   * it fails here, not hangs. The child is killed when the test ends, if it has not ended.
   */
  async function queueRunToCheckpoint(data: string, threads = 1): Promise<{ id: string; child: ChildProcess; exited: Promise<unknown>; checkpoint: string }> {
    const id: string = JSON.parse((await cliIn(data, '--json', 'queue', 'add', specIn(data))).stdout).runIds[0];
    const child = spawn(process.execPath, [bin, '--data', data, 'queue', 'run', '--checkpoint-seconds', '1', '--threads', String(threads)], { cwd: root, stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    later(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    const checkpoint = join(data, 'runs', id, CHECKPOINT_FILE);
    for (let i = 0; i < 2400 && !existsSync(checkpoint) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(checkpoint), 'a checkpoint was written before the run ended').toBe(true);
    return { id, child, exited, checkpoint };
  }

  it('kill -9 of `queue run` on 2 threads, then `queue run` again on 1: the run resumes (resumedFromStep) to the packing of an uninterrupted run', async () => {
    const interrupted = folder(), plain = folder();
    // The uninterrupted run to compare with, meanwhile (in this process, in a folder of its own).
    const uninterrupted = cliIn(plain, '--json', 'run', specIn(plain));
    later(() => uninterrupted.then(() => undefined, () => undefined)); // before its folder goes, when the test fails
    // Resumed on another thread count than it packed on (the app's threads per run, then the CLI's
    // default): the packing does not depend on it, so the checkpoint is used.
    const { id, child, exited, checkpoint } = await queueRunToCheckpoint(interrupted, 2);
    // Killed once the run has gone on a little past its checkpoint.
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGKILL');
    await exited;
    const store = new RunStore(join(interrupted, 'packbench.db'));
    expect(store.getSummary(id)!.status).toBe('running');
    expect(store.getRun(id)!.threads).toBe(2);
    store.close();
    const again = await cliIn(interrupted, '--json', 'queue', 'run', '--checkpoint-seconds', '1');
    expect(again.code).toBe(0);
    const resumed = JSON.parse((await cliIn(interrupted, '--json', 'runs', 'show', id)).stdout);
    expect(resumed.status).toBe('done');
    expect(resumed.metrics.resumedFromStep, resumed.log.join('\n')).toBeGreaterThan(0);
    expect(resumed.log.join('\n')).toMatch(/resumed from the checkpoint at time step/);
    expect(resumed.threads).toBe(1);
    expect(existsSync(checkpoint)).toBe(false);

    const whole = JSON.parse((await uninterrupted).stdout);
    expect(whole.metrics.resumedFromStep).toBe(0);
    for (const m of ['particles', 'steps', 'moveAttempts', 'acceptedMoves', 'voxelChecks', 'bedSolidFraction', 'overlapVoxels']) {
      expect(resumed.metrics[m], m).toBe(whole.metrics[m]);
    }
    // The particle tables are the same, byte for byte.
    const table = (r: { artifacts: { name: string; path: string }[] }) => readFileSync(r.artifacts.find((a) => a.name === 'particles')!.path);
    const wholeRun = JSON.parse((await cliIn(plain, '--json', 'runs', 'show', whole.runId)).stdout);
    expect(table(resumed).equals(table(wholeRun))).toBe(true);
  }, 300_000);

  it('Ctrl-C (or SIGTERM) of `queue run` keeps the checkpoint (exit 130: the run back in the queue): the run resumes from it, as after kill -9, not from its beginning', async () => {
    const data = folder();
    const { id, child, exited, checkpoint } = await queueRunToCheckpoint(data);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(existsSync(checkpoint)).toBe(true);
    expect((await cliIn(data, '--json', 'queue', 'run', '--checkpoint-seconds', '1')).code).toBe(0);
    const resumed = JSON.parse((await cliIn(data, '--json', 'runs', 'show', id)).stdout);
    expect(resumed.status).toBe('done');
    // It said 'the app closed' of a `queue run` in a terminal.
    expect(resumed.log.join('\n')).toMatch(/interrupted: `packbench queue run` was stopped \(SIGINT: Ctrl-C\); re-queued to resume from its last checkpoint[^]*resumed from the checkpoint at time step/);
    expect(resumed.metrics.resumedFromStep).toBeGreaterThan(0);
  }, 300_000);

  it('kill -9 after the run wrote its results but before they could be stored (another process held the lock): the run resumes from its checkpoint, not from its beginning', async () => {
    const data = folder();
    const { id, child, exited, checkpoint } = await queueRunToCheckpoint(data);
    const other = new Database(join(data, 'packbench.db'));
    other.exec('BEGIN EXCLUSIVE');
    try {
      // Its results written, and its live table gone: the worker has handed them over, and the outcome waits for the lock.
      const runDir = join(data, 'runs', id);
      for (let i = 0; i < 2400 && !(existsSync(join(runDir, 'particles.pbt')) && !existsSync(join(runDir, LIVE_TABLE_FILE))); i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      child.kill('SIGKILL');
      await exited;
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    // The worker removed the checkpoint as it handed over its results: the run started again from its beginning.
    expect(existsSync(checkpoint)).toBe(true);
    expect((await cliIn(data, '--json', 'queue', 'run', '--checkpoint-seconds', '1')).code).toBe(0);
    const resumed = JSON.parse((await cliIn(data, '--json', 'runs', 'show', id)).stdout);
    expect(resumed.status).toBe('done');
    expect(resumed.metrics.resumedFromStep).toBeGreaterThan(0);
    expect(existsSync(checkpoint)).toBe(false);
  }, 300_000);
});
