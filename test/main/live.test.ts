/**
 * A running run seen while it runs: the voxel engine publishes the particles so far and its live
 * series (EngineContext.publish, table meta.series), runs.particles and runs.series return them, and
 * `runs show` prints progress, phase, elapsed time and the time left.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { remainingSeconds } from '../../main/api';
import { openServices } from '../../main/services/services';
import { defaultRegistry } from '../../main/services/engines';
import { LIVE_TABLE_FILE } from '../../main/workers/protocol';
import { afterEachTest, cliIn, fixtureServices } from './helpers';

const { later, dir } = afterEachTest();

/**
 * A duration as `runs show` prints it. Which form a run shows depends on the machine's pace: the
 * counter below, 20 s of steps on a quiet machine, showed 'about 1 min 11 s left' on a loaded one.
 */
const DURATION = String.raw`(\d+ s|\d+ min \d+ s|\d+ h \d+ min)`;

/** The progress line of `runs show` for a run in the given phase. */
function progressLine(phase: string, left: string): RegExp {
  return new RegExp(String.raw`^ {2}progress \d+\.\d %, phase ${phase}, ${DURATION} elapsed, ${left}$`, 'm');
}

async function until<T>(get: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const v = await get();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a running voxel packing seen live', () => {
  it('publishes the particles so far and the bed height and solid fraction against seconds; both go when it ends', async () => {
    const data = dir('packbench-live-');
    const s = openServices({ dataDir: data, registry: defaultRegistry(), autoStart: true, concurrency: 1 });
    later(() => s.close());
    // A box that takes minutes to fill: it is cancelled once seen. (A 16-unit box filled in 7 s on a
    // quiet machine, sometimes before its live series had two points.)
    const side = 32;
    const spec = { engine: 'voxel', name: 'live', seed: 2, params: { box: { size: [side, side, side], resolution: 16 }, analysis: { enabled: false }, labelVolume: 'off' } };
    const id = (await s.dispatch('runs.enqueue', { spec })).runIds[0];
    // Points every second, published every few seconds: wait for a curve of at least two points.
    const series = await until(() => s.dispatch('runs.series', { id }), (v) => (v[0]?.x.length ?? 0) >= 2, 'two points of the live series');
    expect(series.map((x) => x.name)).toEqual(['bed height (live)', 'solid fraction (live)']);
    const [height, fraction] = series;
    expect(height.xLabel).toBe('seconds since the packing started');
    expect(fraction.x).toEqual(height.x);
    expect(fraction.x[1]).toBeGreaterThan(fraction.x[0]);
    expect(fraction.y[fraction.y.length - 1]).toBeGreaterThan(0);
    expect(fraction.y[fraction.y.length - 1]).toBeLessThan(1);
    expect(height.y[height.y.length - 1]).toBeGreaterThanOrEqual(0);

    const live = await s.dispatch('runs.particles', { id, limit: 100_000 });
    expect(live.meta.live).toBe(true);
    expect(live.meta.series).toBeUndefined();
    expect(live.meta.particleTable).toMatchObject({ centre: ['x', 'y', 'z'] });
    expect(live.count).toBeGreaterThan(0);
    expect(live.columns.x.length).toBe(live.count);
    // Centres in the box (x and y periodic: a centre may lie within a voxel or so past an edge).
    for (const c of ['x', 'y'] as const) for (const v of live.columns[c]) expect(v > -0.5 && v < side + 0.5).toBe(true);
    for (const v of live.columns.z) expect(v > 0 && v < side).toBe(true);

    // The command line: progress, phase, elapsed and the time left at the pace so far.
    const shown = await cliIn(data, 'runs', 'show', id);
    expect(shown.stdout).toMatch(progressLine('packing', `(about ${DURATION} left|time left unknown)`));
    expect(shown.stdout).toMatch(/^ {2}particles \d+, active \d+, steps \d+, solidFraction [\d.e-]+, bedHeight [\d.e-]+$/m);

    // When the run ends its live table goes, and its stored series replace the live ones.
    await s.dispatch('runs.cancel', { id });
    await s.queue.waitFor([id]);
    expect(existsSync(join(s.queue.runDir(id), LIVE_TABLE_FILE))).toBe(false);
    expect((await s.dispatch('runs.series', { id })).map((x) => x.name)).not.toContain('bed height (live)');
  }, 180_000);
});

describe('`runs show` of a running run', () => {
  it('prints how far it is, its phase, the time since it started and about how long is left', async () => {
    const data = dir('packbench-eta-');
    const s = fixtureServices(data, { autoStart: true });
    later(() => s.close());
    const id = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'slow', seed: 1, params: { steps: 2000, stepMs: 10 } } })).runIds[0];
    // The time left is given once the phase has worked ETA_AFTER_SECONDS (its first moments say little of its pace).
    await until(() => s.dispatch('runs.get', { id }), (r) => remainingSeconds(r, Date.now()) !== null, 'a time left');
    const shown = await cliIn(data, 'runs', 'show', id);
    expect(shown.stdout).toMatch(progressLine('counting', `about ${DURATION} left`));
    const json = JSON.parse((await cliIn(data, '--json', 'runs', 'show', id)).stdout);
    const { done, total, paceSeconds, paceDone } = json.progress;
    expect(json.elapsedSeconds).toBeGreaterThan(0);
    // The time left at the pace since a recent report (RunProgress.paceSeconds): its elapsed × (total − done) / its done.
    expect(json.etaSeconds).toBeCloseTo(((json.elapsedSeconds - paceSeconds) * (total - done)) / (done - paceDone), 6);
    await s.dispatch('runs.cancel', { id });
    await s.queue.waitFor([id]);
    const ended = await cliIn(data, 'runs', 'show', id);
    expect(ended.stdout).not.toMatch(/^ {2}progress /m);
  }, 60_000);
});
