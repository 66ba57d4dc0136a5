/**
 * The ball mill through the services and the CLI, as a user runs it: its cross-field checks refuse
 * a spec at enqueue time, 2D and 3D runs go through the generic worker with their table
 * declarations, series and trajectories, and its examples run with `packbench run` (the elastic one
 * keeping its energy).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PARTICLE_TABLE, PARTICLE_TABLE_2D } from '../../core/ballmill/index';
import { main } from '../../main/cli';
import { cliIn, engineServicesForFile, runExample, tempDir } from './helpers';

const { s, dir } = engineServicesForFile();

describe('ball mill engine in the services', () => {
  it('refuses a spec its check fails, naming the field, before storing it', async () => {
    await expect(s.dispatch('runs.enqueue', { spec: { engine: 'ballmill', name: 'bad', params: { dim: 3, balls: { count: 100, solidFraction: 0.6 } } } }))
      .rejects.toMatchObject({ code: 'invalid', issues: [{ path: 'spec.params.balls.solidFraction', message: expect.stringMatching(/at most 0\.5 in 3D/) }] });
    expect((await s.dispatch('runs.list', {})).total).toBe(0);
  });

  it('runs 2D and 3D specs in the generic worker: tables declare disks and spheres, with series and trajectories', async () => {
    const base = { duration: 0.5, output: { frameRate: 20 } };
    const { runIds } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'ballmill', name: '2D', seed: 3, params: { ...base, dim: 2, balls: { count: 40, radius: { law: 'uniform', min: 2, max: 6 } }, vial: { width: 100, height: 100 } } },
    });
    const { runIds: ids3 } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'ballmill', name: '3D', seed: 3, params: { ...base, dim: 3, cdo: 'hashedGrid', balls: { count: 60, radius: { law: 'fixed', value: 4 } }, vial: { width: 60, height: 80 } } },
    });
    s.queue.start();
    await s.queue.waitFor([...runIds, ...ids3]);
    for (const [id, spec] of [[runIds[0], PARTICLE_TABLE_2D], [ids3[0], PARTICLE_TABLE]] as const) {
      const run = await s.dispatch('runs.get', { id });
      expect(run.status, run.error ?? '').toBe('done');
      expect(run.metrics.stopReason).toBe('duration');
      expect(run.metrics.collisions as number).toBeGreaterThan(0);
      const particles = await s.dispatch('runs.particles', { id });
      expect(particles.meta.particleTable).toEqual(spec);
      expect(Object.keys(particles.columns).sort()).toEqual(['id', 'impacts', 'r', 'speed', 'x', 'y', 'z']);
      const series = await s.dispatch('runs.series', { id });
      expect(series.map((x) => x.name)).toEqual(['impact energy', 'collision frequency per ball', 'energy']);
      const artifacts = await s.dispatch('runs.artifacts', { id });
      expect(artifacts.map((a) => a.name).sort()).toEqual(['particles', 'trajectories']);
    }
    const disks = await s.dispatch('runs.particles', { id: runIds[0] });
    expect(Array.from(disks.columns.z as ArrayLike<number>).every((v) => v === 0)).toBe(true);
    expect(disks.meta.container).toEqual({ shape: 'box', min: [0, 0, 0], max: [100, 100, 0], moves: 'y' });

    // Frames: 0.5 s at 20 frames/s is 11 frames of 40 rows; the last one is the final table.
    const last = await s.dispatch('runs.frame', { id: runIds[0], table: 'trajectories', index: 10 });
    expect([last.index, last.frames, last.time]).toEqual([10, 11, 0.5]);
    expect(Object.keys(last.columns).sort()).toEqual(['id', 'impacts', 'r', 'speed', 'time', 'x', 'y', 'z']);
    expect(last.meta.particleTable).toEqual(PARTICLE_TABLE_2D);
    for (const c of ['x', 'y', 'r', 'speed', 'impacts']) {
      const f = last.columns[c] as ArrayLike<number>, p = disks.columns[c] as ArrayLike<number>;
      expect(f.length).toBe(40);
      for (let i = 0; i < 40; i++) expect(Math.abs(f[i] - p[i])).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(p[i])));
    }
    const first = await s.dispatch('runs.frame', { id: runIds[0], table: 'trajectories', index: 0 });
    expect(first.time).toBe(0);
    expect(Array.from(first.columns.impacts as ArrayLike<number>).every((v) => v === 0)).toBe(true);
    await expect(s.dispatch('runs.frame', { id: runIds[0], table: 'trajectories', index: 11 })).rejects.toMatchObject({ code: 'invalid' });
    await expect(s.dispatch('runs.frame', { id: runIds[0], table: 'particles', index: 0 })).rejects.toMatchObject({ code: 'invalid' });
  });

  it("exports its trajectories as a multi-frame LAMMPS dump, and refuses a run without them naming output.frameRate", async () => {
    const params = (frameRate: number) => ({ dim: 3, duration: 0.2, balls: { count: 6, radius: { law: 'fixed', value: 4 } }, vial: { width: 60, height: 80 }, output: { frameRate } });
    const [withFrames] = (await s.dispatch('runs.enqueue', { spec: { engine: 'ballmill', name: 'frames', seed: 4, params: params(20) } })).runIds;
    const [without] = (await s.dispatch('runs.enqueue', { spec: { engine: 'ballmill', name: 'no frames', seed: 4, params: params(0) } })).runIds;
    s.queue.start();
    await s.queue.waitFor([withFrames, without]);
    const dump = await s.dispatch('runs.export', { id: withFrames, format: 'lammps-trajectory' });
    expect(dump.fileName).toMatch(/\.trajectories\.dump$/);
    const text = new TextDecoder().decode(dump.bytes);
    // 0.2 s at 20 frames/s: 5 frames of 6 balls, each led by its time.
    expect(text.match(/^ITEM: TIMESTEP$/gm)).toHaveLength(5);
    expect([...text.matchAll(/^ITEM: TIME\n(.*)$/gm)].map((m) => Number(m[1]))).toEqual([0, 0.05, 0.1, 0.15, 0.2]);
    expect(text.match(/^ITEM: NUMBER OF ATOMS\n6$/gm)).toHaveLength(5);
    await expect(s.dispatch('runs.export', { id: without, format: 'lammps-trajectory' })).rejects.toMatchObject({
      code: 'conflict', message: `cannot export run ${without} as lammps-trajectory: run ${without} has no trajectories artifact, which format 'lammps-trajectory' needs (ball mill runs make it when output.frameRate > 0)`,
    });
  });

  it('a running run shows its latest published state; the live table goes when the run ends', async () => {
    const { runIds } = await s.dispatch('runs.enqueue', {
      spec: { engine: 'ballmill', name: 'long', seed: 1, params: { dim: 2, duration: 600, balls: { count: 200, radius: { law: 'fixed', value: 3 } }, output: { frameRate: 0 } } },
    });
    s.queue.start();
    let live: Awaited<ReturnType<typeof s.dispatch<'runs.particles'>>> | null = null;
    for (let k = 0; k < 300 && !live; k++) {
      await new Promise((r) => setTimeout(r, 100));
      const run = await s.dispatch('runs.get', { id: runIds[0] });
      if (run.status !== 'running') continue;
      try {
        const p = await s.dispatch('runs.particles', { id: runIds[0] });
        if (p.meta.live === true) live = p;
      } catch { /* nothing published yet */ }
    }
    expect(live, 'no live table within 30 s').not.toBeNull();
    expect(live!.count).toBe(200);
    expect(live!.meta.particleTable).toEqual(PARTICLE_TABLE_2D);
    expect(live!.meta.time as number).toBeGreaterThan(0);
    // Its series so far, from its latest published table: the energy against time grows while it
    // runs, and the impact energy histogram with it (not the per-ball frequency: see liveSeries).
    let sofar: Awaited<ReturnType<typeof s.dispatch<'runs.series'>>> = [];
    for (let k = 0; k < 300 && (sofar.find((x) => x.name === 'energy')?.x.length ?? 0) < 2; k++) {
      await new Promise((r) => setTimeout(r, 100));
      sofar = await s.dispatch('runs.series', { id: runIds[0] });
    }
    expect(sofar.map((x) => x.name)).toEqual(['impact energy', 'energy']);
    const growing = sofar[1];
    expect(growing.x.length, 'no two points of the energy within 30 s').toBeGreaterThanOrEqual(2);
    expect(growing.y.length).toBe(growing.x.length);
    expect(growing.x[0]).toBe(0);
    for (let i = 1; i < growing.x.length; i++) expect(growing.x[i]).toBeGreaterThan(growing.x[i - 1]);
    for (const e of growing.y) expect(e).toBeGreaterThan(0);
    expect(growing.x.at(-1)!).toBeLessThan(600);
    // `queue list` beside it (another process on the folder) says in which phase it is, how far and about how long is left.
    const listed = await cliIn(dir, 'queue', 'list');
    expect(listed.stdout).toMatch(/^running .* ballmill long \(simulating \d+\.\d %, (about \d+ (s|min \d+ s|h \d+ min) left|time left unknown)\)$/m);
    // `runs show` gives its live counters with their units, as it gives the metrics of a finished run.
    expect((await cliIn(dir, 'runs', 'show', runIds[0])).stdout).toMatch(/^  simulatedSeconds \d+(\.\d+)? s, collisions \d+, events \d+$/m);
    await s.dispatch('runs.cancel', { id: runIds[0] });
    await s.queue.waitFor(runIds);
    expect(existsSync(join(dir, 'runs', runIds[0], 'live-particles.pbt'))).toBe(false);
    // The cancelled run keeps its row with what it simulated: metrics to where it stopped, and its series.
    const run = await s.dispatch('runs.get', { id: runIds[0] });
    expect([run.status, run.metrics.stopReason, run.error]).toEqual(['cancelled', 'cancelled', null]);
    expect(run.metrics.simulatedSeconds as number).toBeGreaterThan(0);
    expect(run.metrics.simulatedSeconds as number).toBeLessThan(600);
    const energy = (await s.dispatch('runs.series', { id: runIds[0] })).find((x) => x.name === 'energy')!;
    expect(energy.x.at(-1)).toBe(run.metrics.simulatedSeconds);
  });
});

describe('ball mill examples', () => {
  it.each(['ballmill-2d-seed', 'ballmill-3d', 'ballmill-elastic'])('%s runs with `packbench run`', async (name) => {
    const { spec, out } = await runExample(name, 'ballmill');
    expect(out.metrics.stopReason).toBe('duration');
    expect(out.metrics.simulatedSeconds).toBe(spec.params.duration);
    if (name === 'ballmill-elastic') {
      expect(out.metrics.relativeEnergyDrift).toBeLessThan(1e-9);
      expect(out.metrics.dissipatedEnergy).toBe(0);
    } else {
      expect(out.metrics.dissipatedEnergy).toBeGreaterThan(0);
    }
  });
});

describe('ball mill with `packbench run`', () => {
  it("prints a finished run's log: a run that stopped at its event budget says so, in the text and in --json; a failed one its error", async () => {
    const data = tempDir();
    try {
      const file = `${data.dir}/budget.json`;
      writeFileSync(file, JSON.stringify({ engine: 'ballmill', name: 'budget', seed: 1, params: { dim: 2, balls: { count: 20, radius: { law: 'fixed', value: 3 } }, vial: { width: 100, height: 100 }, duration: 5, maxEvents: 3000, output: { frameRate: 0 } } }));
      const text = await cliIn(data.dir, 'run', file);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/^done: budget .*\n[^]*\nlog:\n {2}stopped at [\d.e-]+ s of 5 s simulated: the event budget maxEvents = 3000 was used up; raise maxEvents/);
      // Each metric with the unit the engine declares.
      for (const line of [/\n {2}wallWork: [\d.e-]+ J\n/, /\n {2}simulatedSeconds: [\d.]+ s\n/, /\n {2}collisions: \d+\n/]) expect(text.stdout).toMatch(line);
      const json = JSON.parse((await cliIn(data.dir, '--json', 'run', file)).stdout);
      expect(json.metrics.stopReason).toBe('maxEvents');
      expect(json.log).toEqual([expect.stringMatching(/^stopped at .*maxEvents = 3000/)]);
      // A failed run: its error once, without the stack its log keeps (runs show prints that).
      writeFileSync(file, JSON.stringify({ engine: 'ballmill', name: 'drawn too large', seed: 104, params: { dim: 2, balls: { count: 4, radius: { law: 'uniform', min: 0.1, max: 10 }, solidFraction: 0.2 }, vial: { width: 100, height: 100 }, duration: 0.1 } }));
      const failed = await cliIn(data.dir, 'run', file);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/^failed: drawn too large .*\n {2}error: balls: the largest drawn ball has radius 25\.06 mm/);
      expect(failed.stdout).not.toMatch(/\n\s+at /);
    } finally {
      data.cleanup();
    }
  });

  it('on a terminal, the progress bar of a long run says about how long is left', async () => {
    const data = tempDir();
    try {
      const file = `${data.dir}/long.json`;
      // Some 20 s of wall time, ended by the user (Ctrl-C) once the bar gives a time left: the time
      // left is given once the phase has worked ETA_AFTER_SECONDS.
      writeFileSync(file, JSON.stringify({ engine: 'ballmill', name: 'long', seed: 1, params: { dim: 2, balls: { count: 100, radius: { law: 'uniform', min: 1, max: 10 } }, duration: 200, output: { frameRate: 0 } } }));
      let stderr = '', left = false;
      const stderrOf = (t: string) => {
        stderr += t;
        if (!left && /^\r\[[#-]{30}\] +\d+% simulating, about \d+ (s|min \d+ s) left long/.test(t)) {
          left = true;
          process.emit('SIGINT');
        }
      };
      expect(await main(['--data', data.dir, 'run', file], { stdout: () => {}, stderr: stderrOf, stderrIsTTY: true })).toBe(130);
      expect(left, stderr).toBe(true);
    } finally {
      data.cleanup();
    }
  });
});
