/**
 * Playback in the inspector: a run with a table of frames gets a time slider, play/pause and speed;
 * frames are read one at a time (runs.frame) and coloured on their own range or the final table's; a table's
 * container (box or cylinder) sets the view's box; a running run shows its latest published state.
 * Generic: nothing here names an engine, the fake run's artifacts only declare frames.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { containerBounds, containerOf, frameAt, frameTableOf } from '../../renderer/src/workspaces/inspector/playback';
import type { ParticleTableSpec } from '../../core/common/engine';
import { mapColour } from '../../renderer/src/scene/colormap';
import { dispatchShortcut } from '../../renderer/src/stores/shortcuts';
import { makeRun } from './fakeApi';
import { mountInspectorAt } from './mountInspector';

/** The 3D scene, as far as these tests look: the particle it draws highlighted, as particleCloud keeps it (a new set of particles clears it); a click picks particle 1. */
const drawn = vi.hoisted(() => ({ highlighted: -1, colours: new Float32Array(0) as Float32Array<ArrayBufferLike>, cameras: [] as string[] }));
vi.mock('../../renderer/src/scene/inspectorScene', () => ({
  createInspectorScene: () => {
    const calls: Record<string, (...a: unknown[]) => unknown> = {
      setParticles: (_p, colours) => { drawn.highlighted = -1; drawn.colours = colours as Float32Array<ArrayBufferLike>; },
      setColours: (colours) => { drawn.colours = colours as Float32Array<ArrayBufferLike>; },
      highlight: (i) => { drawn.highlighted = i as number; },
      pick: () => ({ kind: 'sphere', index: 1 }),
      camera: (p) => { drawn.cameras.push(p as string); },
    };
    return new Proxy({}, { get: (_, k) => calls[k as string] ?? (() => undefined) });
  },
}));

/** The figure drawn (its options) and the files downloaded, by name. */
const saved = vi.hoisted(() => ({ titles: [] as string[], files: [] as string[] }));
vi.mock('../../renderer/src/scene/figure3d', () => ({ drawFigure: (_ctx: unknown, o: { title: string }) => { saved.titles.push(o.title); } }));
vi.mock('../../renderer/src/components/figure', async (original) => ({
  ...(await original<typeof import('../../renderer/src/components/figure')>()),
  downloadBlob: (_b: Blob, name: string) => { saved.files.push(name); },
}));

const spec: ParticleTableSpec = {
  name: 'particles', centre: ['x', 'y', 'z'], size: [{ column: 'r', is: 'radius' }], glyph: { kind: 'disk-xy' }, id: 'id',
  quantities: [{ column: 'speed', label: 'Speed', unit: 'mm/s' }, { column: 'impacts', label: 'Impacts' }],
};
const container = { shape: 'box', min: [0, 0, 0], max: [100, 80, 0], moves: 'y' };

/** Frame k of 3: two balls, the first one's speed k * 10, impacts k; with `balls` > 2, ball i >= 2 at rest in a row, its speed i. */
function frame(k: number, balls = 2) {
  const more = (f: (i: number) => number) => Array.from({ length: balls - 2 }, (_, j) => f(j + 2));
  return {
    x: Float32Array.of(10 + k, 50, ...more((i) => i)), y: Float32Array.of(20, 30 + k, ...more(() => 70)), z: new Float32Array(balls), r: new Float32Array(balls).fill(5),
    speed: Float32Array.of(k * 10, 5, ...more((i) => i)), impacts: Uint32Array.of(k, 0, ...more(() => 0)), id: Uint32Array.from({ length: balls }, (_, i) => i), time: new Float64Array(balls).fill(k / 2),
  };
}

/**
 * `endTime`: the final table's time (meta.time), after the last frame's (1) when the frames' interval does
 * not divide the run's duration; the final table is then the state at that time (the first ball's speed endTime * 20).
 */
function installApi(status: 'done' | 'running' = 'done', balls = 2, endTime?: number) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const summary = makeRun(1, { engine: 'mill', name: 'shaken', status });
  window.packbench = {
    async call(method: string, params: Record<string, unknown>) {
      calls.push({ method, params });
      switch (method) {
        case 'runs.get': return { ...summary, spec: { engine: 'mill', name: 'shaken', seed: 1, params: {} }, params: {}, counters: {}, log: [], appVersion: '0.1.0', host: null, threads: 1, attempts: 1 };
        case 'runs.series': return [];
        case 'runs.artifacts': return status === 'running' ? [] : [
          { id: 1, kind: 'table', name: 'particles', path: '/p', bytes: 1, checksum: '', meta: {} },
          { id: 2, kind: 'table', name: 'frames', path: '/f', bytes: 1, checksum: '', meta: { frames: 3, frameRows: balls, frameTimes: [0, 0.5, 1], frameOffsets: [0, 4, 0] } },
        ];
        case 'runs.particles': return {
          total: balls, count: balls, columns: frame(endTime === undefined ? 2 : endTime * 2, balls),
          meta: { particleTable: spec, units: 'mm', container, containerOffset: 0, ...(status === 'running' ? { live: true, time: 0.75 } : {}), ...(endTime === undefined ? {} : { time: endTime }) },
        };
        case 'runs.frame': return { index: params.index, frames: 3, time: Number(params.index) / 2, offset: [0, 4, 0][Number(params.index)], columns: frame(Number(params.index), balls), meta: { particleTable: spec, units: 'mm', container, frames: 3, frameRows: balls } };
        default: throw new Error(`unexpected call ${method}`);
      }
    },
    on: () => () => {},
  } as never;
  return { calls };
}

afterEach(() => vi.useRealTimers());

describe('inspector playback', () => {
  it('reads frames and containers from any table that declares them', () => {
    const ft = frameTableOf([{ kind: 'table', name: 'particles', meta: {} }, { kind: 'table', name: 'frames', meta: { frames: 3, frameTimes: [0, 0.5, 1], frameOffsets: [0, 4, 0] } }]);
    expect(ft).toEqual({ table: 'frames', count: 3, times: [0, 0.5, 1], offsets: [0, 4, 0] });
    expect(frameTableOf([{ kind: 'table', name: 'particles', meta: {} }])).toBeNull();
    expect([frameAt([0, 0.5, 1], -1), frameAt([0, 0.5, 1], 0.49), frameAt([0, 0.5, 1], 0.5), frameAt([0, 0.5, 1], 7)]).toEqual([0, 0, 1, 2]);
    const cyl = containerOf({ container: { shape: 'cylinder', axis: 'z', centre: [5, 5], radius: 5, min: 0, max: 12, moves: 'z' } })!;
    expect(cyl.moves).toBe(2);
    expect(containerBounds(cyl.container)).toEqual({ min: [0, 0, 0], max: [10, 10, 12] });
    expect(containerOf({ container: { shape: 'cylinder', centre: [5], radius: 5, min: 0, max: 1 } })).toBeNull();
    expect(containerOf({})).toBeNull();
  });

  it('a run with frames gets a time slider; scrubbing shows that frame, coloured on its own range or the final table\'s', async () => {
    const { calls } = installApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    expect(w.get('[data-testid="time-label"]').text()).toBe('t = 1.000 / 1.000 s');
    expect((w.get('[data-testid="time-slider"]').element as HTMLInputElement).max).toBe('2');
    await w.get('[data-testid="colour-by"]').setValue('speed');
    await w.get('[data-testid="time-slider"]').setValue('0');
    await flushPromises();
    expect(calls.filter((c) => c.method === 'runs.frame').map((c) => c.params)).toEqual([{ id: 'r1', table: 'frames', index: 0 }]);
    expect(w.get('[data-testid="time-label"]').text()).toBe('t = 0.000 / 1.000 s');
    const ends = () => w.get('[data-testid="legend"]').find('.ends').text();
    const hints = () => [w.get('[data-testid="colour-min"]').attributes('placeholder'), w.get('[data-testid="colour-max"]').attributes('placeholder')];
    // Frame 0 has speeds 0 and 5: by default the frame's own range, its two balls at the two ends of the map.
    expect(w.get<HTMLSelectElement>('[data-testid="colour-scale"]').element.value).toBe('frame');
    expect(ends()).toMatch(/^0.*5$/);
    expect(hints()).toEqual(['0', '5']);
    expect(Array.from(drawn.colours.subarray(0, 3))).not.toEqual(Array.from(drawn.colours.subarray(4, 7)));
    // The final table's range (5 to 20) in every frame: the legend, the range fields' hints and an end left empty.
    await w.get('[data-testid="colour-scale"]').setValue('final');
    await flushPromises();
    expect(ends()).toMatch(/^5.*20$/);
    expect(hints()).toEqual(['5', '20']);
    // Both balls at or under the bottom end: one colour.
    expect(Array.from(drawn.colours.subarray(0, 3))).toEqual(Array.from(drawn.colours.subarray(4, 7)));
    await w.get('[data-testid="colour-max"]').setValue('15');
    await flushPromises();
    expect(ends()).toMatch(/^5.*15$/);
    w.unmount();
  });

  it("the fixed range is the run's end's, named so, when the run ends after its last frame", async () => {
    // Frames at 0, 0.5 and 1 s of a 1.5 s run: the first ball's speed 20 at the last frame, 30 at the end.
    // The option read 'range: last frame, fixed' over the end state's range, 5 to 30.
    installApi('done', 2, 1.5);
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="colour-by"]').setValue('speed');
    await w.get('[data-testid="time-slider"]').setValue('0');
    await w.get('[data-testid="colour-scale"]').setValue('final');
    await flushPromises();
    expect(w.get('[data-testid="legend"]').find('.ends').text()).toMatch(/^5.*30$/);
    expect(w.get('[data-testid="colour-scale"] option[value="final"]').text()).toBe('range: end of run, fixed');
    w.unmount();
  });

  it('impacts, which accumulate, spread over the map at an early frame on its own range', async () => {
    installApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="colour-by"]').setValue('impacts');
    // Frame 1: impacts 1 and 0 (the final table's: 2 and 0).
    await w.get('[data-testid="time-slider"]').setValue('1');
    await flushPromises();
    expect(w.get('[data-testid="legend"]').find('.ends').text()).toMatch(/^0.*1$/);
    const [top, bottom] = [new Float32Array(3), new Float32Array(3)];
    mapColour('viridis', 1, top, 0, 1);
    mapColour('viridis', 0, bottom, 0, 1);
    expect([drawn.colours.subarray(0, 3), drawn.colours.subarray(4, 7)]).toEqual([top, bottom]);
    w.unmount();
  });

  it('the run opened and its last frame (the same state) are coloured on one scale', async () => {
    // 100 balls, speeds 2 to 99 besides 5 and 20: the 2nd to 98th percentile (3 to 98) is narrower than min to max.
    installApi('done', 100);
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="colour-by"]').setValue('speed');
    const ends = () => w.get('[data-testid="legend"]').find('.ends').text();
    const opened = ends();
    await w.get('[data-testid="time-slider"]').setValue('2');
    await flushPromises();
    expect(w.get('[data-testid="time-label"]').text()).toBe('t = 1.000 / 1.000 s');
    expect(ends()).toBe(opened);
    expect(opened).toMatch(/^3.*98$/);
    w.unmount();
  });

  it('a 2D run (its box flat along z) can be clipped: z min = max is its plane, not crossed sides', async () => {
    installApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="clip-toggle"]').setValue(true);
    expect((w.get('input[aria-label="z max"]').element as HTMLInputElement).value).toBe('0');
    expect(w.find('[data-testid="clip-error"]').exists()).toBe(false);
    expect(w.findAll('.clip input').filter((i) => i.attributes('aria-invalid') === 'true')).toEqual([]);
    await w.get('input[aria-label="x max"]').setValue('50');
    await flushPromises();
    expect(w.find('[data-testid="clip-error"]').exists()).toBe(false);
    await w.get('input[aria-label="z min"]').setValue('1');
    await flushPromises();
    expect(w.get('[data-testid="clip-error"]').text()).toBe('z: min 1 must be below max 0 (the box spans 0 to 0)');
    w.unmount();
  });

  it('a 2D run (disks in the x-y plane) offers no front or side view, which would show it edge on as a line', async () => {
    installApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    drawn.cameras = [];
    expect([w.get('[data-testid="camera-front"]').attributes('disabled'), w.get('[data-testid="camera-side"]').attributes('disabled')]).toEqual(['', '']);
    expect(w.get('[data-testid="camera-front"]').attributes('title')).toContain('seen from the front or the side it is a line');
    for (const key of ['1', '2', '3']) dispatchShortcut(new KeyboardEvent('keydown', { key }));
    expect(drawn.cameras).toEqual(['top']);
    w.unmount();
  });

  it('the picked particle stays drawn white on every frame, as its record follows it', async () => {
    installApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    const canvas = w.get('[data-testid="inspector-canvas"]');
    await canvas.trigger('pointerdown', { clientX: 5, clientY: 5 });
    await canvas.trigger('pointerup', { clientX: 5, clientY: 5 });
    await flushPromises();
    expect(drawn.highlighted).toBe(1);
    await w.get('[data-testid="time-slider"]').setValue('0');
    await flushPromises();
    expect(w.get('[data-testid="record-y"]').text()).toBe('30');
    // Each value is named with its unit: centres and sizes in the table's length unit, quantities in their own.
    expect(['x', 'r', 'speed', 'impacts'].map((k) => w.get(`[data-testid="record-head-${k}"]`).text())).toEqual(['xmm', 'rmm', 'speedmm/s', 'impacts']);
    expect(drawn.highlighted).toBe(1);
    w.unmount();
  });

  it('a run that ended after its last frame opens at its end time; ← steps back to the last frame, → and End stay', async () => {
    // Frames at 0, 0.5 and 1 s of a 1.2 s run: it said 't = 1.000 / 1.000 s' over the state at 1.2 s,
    // and → (Next frame) drew the state at 1 s, earlier, under the same label.
    const { calls } = installApi('done', 2, 1.2);
    const { w } = await mountInspectorAt('/inspector/r1');
    const label = () => w.get('[data-testid="time-label"]').text();
    expect(label()).toBe('t = 1.200 / 1.200 s');
    expect((w.get('[data-testid="time-slider"]').element as HTMLInputElement).value).toBe('2');
    const frames = () => calls.filter((c) => c.method === 'runs.frame').map((c) => c.params.index);
    for (const key of ['ArrowRight', 'End']) {
      dispatchShortcut(new KeyboardEvent('keydown', { key }));
      await flushPromises();
      expect([label(), frames()], key).toEqual(['t = 1.200 / 1.200 s', []]);
    }
    await w.get('[data-testid="frame-back"]').trigger('click');
    await flushPromises();
    expect([label(), frames()]).toEqual(['t = 1.000 / 1.200 s', [2]]);
    w.unmount();
  });

  it('a figure of a frame says its time, in its title and file name', async () => {
    installApi();
    // happy-dom has no 2D canvas to draw a figure on: one that draws nothing, and encodes to an empty PNG.
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue({} as never);
    vi.spyOn(HTMLCanvasElement.prototype, 'toBlob').mockImplementation((done) => done(new Blob([])));
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="time-slider"]').setValue('1');
    await flushPromises();
    await w.get('[data-testid="figure-toggle"]').trigger('click');
    await w.get('[data-testid="figure-save"]').trigger('click');
    await flushPromises();
    expect(saved.titles.at(-1)).toBe('shaken, t = 0.500 s');
    expect(saved.files.at(-1)).toBe('shaken-r1-t0.500s-figure.png');
    vi.restoreAllMocks();
    w.unmount();
  });

  it('plays from the start at the chosen speed and stops at the last frame', async () => {
    const { calls } = installApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="playback-speed"]').setValue('4');
    vi.useFakeTimers({ toFake: ['requestAnimationFrame', 'cancelAnimationFrame', 'performance'] });
    await w.get('[data-testid="play"]').trigger('click');
    await flushPromises();
    expect(w.get('[data-testid="play"]').attributes('aria-label')).toBe('Pause');
    for (let k = 0; k < 30; k++) {
      vi.advanceTimersByTime(20);
      await flushPromises();
    }
    const asked = calls.filter((c) => c.method === 'runs.frame').map((c) => c.params.index);
    expect(asked[0]).toBe(0);
    expect(asked.at(-1)).toBe(2);
    expect([...asked].sort()).toEqual(asked); // forwards only
    expect(w.get('[data-testid="play"]').attributes('aria-label')).toBe('Play');
    expect(w.get('[data-testid="time-label"]').text()).toBe('t = 1.000 / 1.000 s');
    w.unmount();
  });

  it('a running run shows the latest state its engine published, without a slider', async () => {
    installApi('running');
    const { w } = await mountInspectorAt('/inspector/r1');
    expect(w.find('[data-testid="playback"]').exists()).toBe(false);
    expect(w.get('[data-testid="live-time"]').text()).toBe('latest state, t = 0.750 s');
    expect(w.get('[data-testid="inspector-count"]').text()).toContain('2');
    w.unmount();
  });
});
