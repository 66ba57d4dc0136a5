/**
 * A run's artifact file damaged on disk (overwritten, cut short) is the file's fault, not the
 * services': every read site (runs.particles, runs.frame, runs.slice, runs.export) answers 'conflict'
 * naming the artifact's file, not 'internal', and a file cut short in its data is never read as zeros.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import { encodeTable } from '../../core/io/container';
import type { Services } from '../../main/services/services';
import { cliIn, fixtureServices, rejection, tempDir } from './helpers';

const t = tempDir('packbench-damaged-');
let s: Services;
afterAll(async () => {
  await s.close();
  t.cleanup();
});
beforeAll(() => {
  s = fixtureServices(t.dir, { autoStart: true });
});

async function finishedRun(): Promise<{ id: string; table: string; volume: string }> {
  const [id] = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'damaged', seed: 1, params: { steps: 2, stepMs: 0, volume: true } } })).runIds;
  await s.queue.waitFor([id]);
  const path = (kind: string) => s.store.artifacts(id).find((a) => a.kind === kind)!.path;
  return { id, table: path('table'), volume: path('volume') };
}

const escape = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('damaged artifact files', () => {
  it("answer 'conflict' naming the artifact and its path when the header is overwritten", async () => {
    const { id, table, volume } = await finishedRun();
    for (const path of [table, volume]) {
      const bytes = fs.readFileSync(path);
      bytes.fill(0x7b, 14, 30); // '{{{{': the JSON header is no longer the container's
      fs.writeFileSync(path, bytes);
    }
    const tableError = new RegExp(`the table 'particles' of this run is damaged \\(${escape(table)}\\): artifact header is damaged`);
    const volumeError = new RegExp(`the volume 'labels' of this run is damaged \\(${escape(volume)}\\): artifact header is damaged`);
    expect(await rejection(s.dispatch('runs.particles', { id }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(tableError) });
    expect(await rejection(s.dispatch('runs.frame', { id, table: 'particles', index: 0 }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(tableError) });
    expect(await rejection(s.dispatch('runs.slice', { id, axis: 'z', index: 0 }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(volumeError) });
    expect(await rejection(s.dispatch('runs.export', { id, format: 'csv' }))).toMatchObject({ code: 'conflict', message: expect.stringContaining(`table ${table} is damaged: artifact header is damaged`) });
    expect(await rejection(s.dispatch('runs.export', { id, format: 'vti' }))).toMatchObject({ code: 'conflict', message: expect.stringContaining(`volume ${volume} is damaged: artifact header is damaged`) });
  });

  it("answer 'conflict' for a file cut short in its data, instead of reading the missing bytes as zeros", async () => {
    const { id, table, volume } = await finishedRun();
    // The particles as a table of 2 frames of 3 rows (runs.frame reads one frame's rows of each column).
    const x = Float64Array.of(0, 1, 2, 3, 4, 5);
    fs.writeFileSync(table, encodeTable({ kind: 'table', name: 'particles', columns: { x, y: x, z: x, r: x }, meta: { frames: 2, frameRows: 3 } }));
    for (const path of [table, volume]) fs.truncateSync(path, fs.statSync(path).size - 40);
    const truncated = /is damaged \(.*\): artifact data is truncated: needs \d+ bytes, the file has \d+/;
    expect(await rejection(s.dispatch('runs.slice', { id, axis: 'z', index: 0 }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(truncated) });
    expect(await rejection(s.dispatch('runs.frame', { id, table: 'particles', index: 1 }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(truncated) });
    expect(await rejection(s.dispatch('runs.particles', { id }))).toMatchObject({ code: 'conflict', message: expect.stringMatching(/the table 'particles' of this run is damaged \(.*\): column '\w+' is truncated/) });
  });

  it("make the CLI's export exit 3 (the operation failed), not 2 (bad input), naming the file; a format the run lacks stays 2", async () => {
    const { id, table, volume } = await finishedRun();
    const out = `${t.dir}/out`;
    // A format this run has no data for is the user's choice to change: bad input.
    const lacking = await cliIn(t.dir, 'runs', 'export', id, '--format', 'heightmap-tiff', '--out', `${out}.tif`);
    expect(lacking).toMatchObject({ code: 2, stderr: expect.stringMatching(/^packbench: cannot export run \w+ as heightmap-tiff: run \w+ has no height map artifact/) });
    const bytes = fs.readFileSync(table);
    bytes.fill(0x7b, 14, 30);
    fs.writeFileSync(table, bytes);
    const damaged = await cliIn(t.dir, 'runs', 'export', id, '--format', 'csv', '--out', `${out}.csv`);
    expect(damaged).toMatchObject({ code: 3, stderr: expect.stringMatching(new RegExp(`^packbench: cannot export run ${id} as csv: table ${escape(table)} is damaged: artifact header is damaged`)) });
    // A missing artifact file was reported as the output that cannot be written.
    fs.rmSync(volume);
    const missing = await cliIn(t.dir, 'runs', 'export', id, '--format', 'vti', '--out', `${out}.vti`);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(new RegExp(`^packbench: cannot export run ${id} as vti: ENOENT: no such file or directory, open '${escape(volume)}'\n$`));
    expect(fs.readdirSync(t.dir).filter((f) => f.startsWith('out'))).toEqual([]);
  });
});
