/**
 * The `packbench` CLI end to end, as a user runs it: a child process on a temp data directory,
 * the real voxel engine on the small example spec.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunStore } from '../../main/services/store';
import { tempDir } from './helpers';
import { asciiBox, cubicSpheresCsv } from './fixtures/imports';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'packbench.mjs');
const example = join(root, 'resources', 'examples', 'voxel-spheres.json');
const t = tempDir('packbench-cli-');
afterAll(() => t.cleanup());

function cli(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, '--data', t.dir, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('packbench CLI', () => {
  let runId = '';

  it('runs the example spec to the end and prints one JSON object', () => {
    const r = cli('--json', 'run', example);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ engine: 'voxel', status: 'done' });
    expect(Object.keys(out).sort()).toEqual(['engine', 'metrics', 'runId', 'status', 'wallSeconds']);
    expect(out.metrics.particles).toBeGreaterThan(50);
    expect(out.wallSeconds).toBeGreaterThan(0);
    runId = out.runId;
  });

  it('lists, shows and exports the run', () => {
    const list = JSON.parse(cli('--json', 'runs', 'list').stdout);
    expect(list.total).toBe(1);
    expect(list.rows[0].id).toBe(runId);
    const show = JSON.parse(cli('--json', 'runs', 'show', runId).stdout);
    expect(show.artifacts.map((a: { kind: string; name: string }) => `${a.kind} ${a.name}`)).toEqual(['table particles', 'volume labels', 'volume heightmap']);
    expect(show.metrics.porosity).toBeGreaterThan(0);
    expect(show.params.box.resolution).toBe(16);
    const file = join(t.dir, 'out.json');
    const exp = cli('runs', 'export', runId, '--format', 'json', '--out', file);
    expect(exp.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).metrics.particles).toBe(show.metrics.particles);
    const bad = cli('runs', 'export', runId, '--format', 'nope', '--out', file);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown format 'nope'; allowed: .*json/);
  });

  it('rejects a bad spec naming the field and its allowed range, before running anything', () => {
    const spec = JSON.parse(readFileSync(example, 'utf8'));
    spec.params.box.resolution = -3;
    spec.seed = 'x';
    const file = join(t.dir, 'bad.json');
    writeFileSync(file, JSON.stringify(spec));
    const r = cli('run', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/seed: /);
    spec.seed = 1;
    writeFileSync(file, JSON.stringify(spec));
    const r2 = cli('run', file);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/params\.box\.resolution: .*/);
    expect(JSON.parse(cli('--json', 'runs', 'list').stdout).total).toBe(1);
  });

  it('imports a sphere CSV as an analysed run, and meshes and raw volumes as shapes', () => {
    writeFileSync(join(t.dir, 'stack.csv'), cubicSpheresCsv());
    const sp = cli('--json', 'import', 'spheres', join(t.dir, 'stack.csv'), '--name', 'Cubic stack', '--box', '3,3,4');
    expect(sp.stderr).toBe('');
    expect(sp.code).toBe(0);
    const run = JSON.parse(sp.stdout);
    expect(run).toMatchObject({ engine: 'spheres', status: 'done', metrics: { particles: 27 } });
    expect(run.metrics.coordinationMean).toBeGreaterThan(4);
    const shown = JSON.parse(cli('--json', 'runs', 'show', run.runId).stdout);
    expect(shown).toMatchObject({ name: 'Cubic stack', params: { box: [3, 3, 4] } });
    const out = join(t.dir, 'stack-out.csv');
    expect(cli('runs', 'export', run.runId, '--format', 'csv', '--out', out).code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('x,y,z,r,type');
    writeFileSync(join(t.dir, 'bad.csv'), 'x,y,z,r\n1,2,3,-1\n');
    const bad = cli('import', 'spheres', join(t.dir, 'bad.csv'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 2: radius r must be > 0/);

    writeFileSync(join(t.dir, 'box.stl'), asciiBox(2, 1, 0.5));
    const mesh = cli('--json', 'import', 'shape', join(t.dir, 'box.stl'), '--resolution', '10');
    expect(mesh.code).toBe(0);
    expect(JSON.parse(mesh.stdout)).toMatchObject({ shape: { name: 'box', kind: 'voxels', params: { dims: [20, 10, 5] } }, voxelCount: 1000, triangles: 12 });
    const human = cli('import', 'shape', join(t.dir, 'box.stl'), '--voxels-across', '8', '--name', 'Brick');
    expect(human.stdout).toMatch(/^imported shape 'Brick' \(.+\): 8x4x2 voxels, 64 solid/);
    const noRes = cli('import', 'shape', join(t.dir, 'box.stl'));
    expect(noRes.code).toBe(2);
    expect(noRes.stderr).toMatch(/exactly one of --resolution and --voxels-across/);

    // A raw volume as `runs export --format raw` writes it (with FILE.raw.json) comes back as a shape.
    const rawFile = join(t.dir, 'labels.raw');
    expect(cli('runs', 'export', runId, '--format', 'raw', '--out', rawFile).code).toBe(0);
    const raw = cli('--json', 'import', 'shape', rawFile);
    expect(raw.stderr).toBe('');
    const shape = JSON.parse(raw.stdout);
    expect(shape.shape.params.dims).toEqual([96, 96, 96]);
    expect(shape.resolution).toBe(16);
    expect(cli('import', 'shape', rawFile, '--resolution', '3').code).toBe(2);
    const names = JSON.parse(cli('--json', 'runs', 'list').stdout).rows.map((r: { engine: string }) => r.engine).sort();
    expect(names).toEqual(['spheres', 'voxel']);
  });

  it('queues a sweep, survives a SIGKILL of `queue run` mid-run, and finishes after restart', async () => {
    const spec = JSON.parse(readFileSync(example, 'utf8'));
    spec.name = 'sweep';
    spec.params.reboundProbability = { $sweep: [0.1, 0.3, 0.5] };
    const file = join(t.dir, 'sweep.json');
    writeFileSync(file, JSON.stringify(spec));
    const added = JSON.parse(cli('--json', 'queue', 'add', file).stdout);
    expect(added.runIds).toHaveLength(3);
    const queued = JSON.parse(cli('--json', 'queue', 'list').stdout);
    expect(queued.map((r: { status: string }) => r.status)).toEqual(['queued', 'queued', 'queued']);

    // Start working through the queue, and kill the process as soon as the first run is running.
    const child = spawn(process.execPath, [bin, '--data', t.dir, 'queue', 'run', '--concurrency', '1'], { cwd: root, stdio: 'ignore' });
    const store = new RunStore(join(t.dir, 'packbench.db'));
    try {
      for (let i = 0; i < 600 && store.getSummary(added.runIds[0])!.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(store.getSummary(added.runIds[0])!.status).toBe('running');
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      store.close();
    }

    const again = cli('--json', 'queue', 'run');
    expect(again.stderr).toMatch(/re-queued 1 run/);
    expect(again.code).toBe(0);
    const runs = added.runIds.map((id: string) => JSON.parse(cli('--json', 'runs', 'show', id).stdout));
    expect(runs.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'done']);
    expect(runs[0].attempts).toBe(2);
    expect(runs[0].log.join('\n')).toMatch(/interrupted/);
    expect(new Set(runs.map((r: { seed: number }) => r.seed)).size).toBe(3);
  });

  it('deletes a run with its folder', () => {
    expect(cli('runs', 'rm', runId).code).toBe(0);
    expect(cli('runs', 'show', runId).code).toBe(2);
  });
});
