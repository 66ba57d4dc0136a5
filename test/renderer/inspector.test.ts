import { describe, it, expect } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import SliceView from '../../renderer/src/workspaces/inspector/SliceView.vue';
import { inspected, inspectorPath } from '../../renderer/src/stores/inspected';
import { installFakeApi, makeRun } from './fakeApi';
import { mountInspectorAt } from './mountInspector';
import { typeKeys } from './numberKeys';
import { voxelEngine } from '../../core/voxel/index';
import { stackingEngine } from '../../core/stacking/index';

/** A finished voxel run of 3 particles in a 4 x 4 x 4 voxel volume (voxel size 0.5). */
function installRunApi(): { calls: { method: string; params: Record<string, unknown> }[] } {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const summary = makeRun(1, { engine: 'voxel', name: 'plates' });
  window.packbench = {
    async call(method: string, params: Record<string, unknown>) {
      calls.push({ method, params });
      switch (method) {
        case 'runs.list': return { total: 1, rows: [summary] };
        case 'runs.get': return params.id === 'r9'
          ? { ...summary, id: 'r9', engine: 'stacking', spec: { engine: 'stacking', name: 'spheres', seed: 1, params: {} }, params: {}, counters: {}, log: [], appVersion: '0.1.0', host: null, threads: 1, attempts: 1 }
          : { ...summary, id: params.id, spec: { engine: 'voxel', name: 'plates', seed: 1, params: {} }, params: {}, counters: {}, log: [], appVersion: '0.1.0', host: null, threads: 1, attempts: 1 };
        case 'runs.series': return [
          { name: 'particles', xLabel: 'time step', yLabel: 'particles', kind: 'line', x: Float64Array.of(0, 1), y: Float64Array.of(0, 3) },
          { name: 'porosity profile', xLabel: 'z', yLabel: 'porosity', kind: 'line', x: Float64Array.of(0, 1), y: Float64Array.of(0.4, 0.5) },
        ];
        case 'runs.artifacts': return [
          { id: 1, kind: 'table', name: 'particles', path: '/x', bytes: 1, checksum: '', meta: {} },
          { id: 2, kind: 'volume', name: 'labels', path: '/y', bytes: 1, checksum: '', meta: { dims: [4, 4, 4], voxelSize: 0.5 } },
        ];
        case 'runs.particles': return params.id === 'r9' ? {
          total: 2, count: 2, meta: { classNames: ['coarse', 'fine'], particleTable: stackingEngine.particleTable },
          columns: { x: Float64Array.of(0.5, 1), y: Float64Array.of(0.5, 1), z: Float64Array.of(0.5, 1), r: Float64Array.of(0.4, 0.2), class: Int32Array.of(0, 1), coordination: Int32Array.of(1, 1) },
        } : {
          total: 3, count: 3, meta: { box: [2, 2, 2], types: ['plate', 'sphere'], particleTable: voxelEngine.particleTable },
          columns: { id: Int32Array.of(0, 1, 2), type: Int32Array.of(0, 1, 0), x: Float64Array.of(0.5, 1, 1.5), y: Float64Array.of(0.5, 1, 1.5), z: Float64Array.of(0.25, 0.75, 1.25), size: Float64Array.of(0.5, 0.5, 0.5), rx: Int16Array.of(0, 30, 90), ry: Int16Array.of(0, 0, 0), rz: Int16Array.of(0, 0, 0), bodyTilt: Float32Array.of(0, 30, 90) },
        };
        case 'runs.slice': {
          const w = 4, h = 4;
          return { axis: params.axis, index: params.index, width: w, height: h, labels: Uint32Array.from({ length: w * h }, (_, i) => (i % 3)) };
        }
        default: throw new Error(`unexpected call ${method}`);
      }
    },
    on: () => () => {},
  } as never;
  return { calls };
}

/**
 * A running voxel run: no artifacts yet, a published table of `count` particles (runs.particles,
 * meta.live) and its live series of `points` points (runs.series, from the table's meta.series).
 */
function installLiveApi(): { calls: string[]; state: { count: number; points: number } } {
  const calls: string[] = [];
  const state = { count: 2, points: 2 };
  const summary = makeRun(2, { engine: 'voxel', name: 'growing', status: 'running', finishedAt: null, wallSeconds: null, progress: { done: 300, total: 1000, phase: 'packing', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } });
  const line = (name: string, yLabel: string) => ({ name, xLabel: 'seconds since the packing started', yLabel, kind: 'line', x: Float64Array.from({ length: state.points }, (_, i) => i), y: Float64Array.from({ length: state.points }, (_, i) => i / 10) });
  window.packbench = {
    async call(method: string) {
      calls.push(method);
      switch (method) {
        case 'runs.list': return { total: 1, rows: [summary] };
        case 'runs.get': return { ...summary, spec: { engine: 'voxel', name: 'growing', seed: 1, params: {} }, params: {}, counters: {}, log: [], appVersion: '0.1.0', host: null, threads: 1, attempts: 1 };
        case 'runs.artifacts': return [];
        case 'runs.series': return [line('bed height (live)', 'length units'), line('solid fraction (live)', 'solid volume / box volume')];
        case 'runs.particles': {
          const n = state.count;
          return {
            total: n, count: n, meta: { box: [2, 2, 2], types: ['sphere'], particleTable: voxelEngine.particleTable, live: true },
            columns: { id: Uint32Array.from({ length: n }, (_, i) => i), type: new Uint16Array(n), x: new Float64Array(n).fill(1), y: new Float64Array(n).fill(1), z: Float64Array.from({ length: n }, (_, i) => 0.5 + i / n), size: new Float64Array(n).fill(0.5), rx: new Int16Array(n), ry: new Int16Array(n), rz: new Int16Array(n) },
          };
        }
        default: throw new Error(`unexpected call ${method}`);
      }
    },
    on: () => () => {},
  } as never;
  return { calls, state };
}

describe('InspectorWorkspace', () => {
  it('a run that does not exist says so at the run picker, not in an empty inspector that speaks of its data', async () => {
    installFakeApi([makeRun(1, { engine: 'voxel', name: 'plates' })]);
    const { w } = await mountInspectorAt('/inspector/gone');
    expect(w.get('[role="alert"]').text()).toBe('no run gone');
    expect(w.find('[data-testid="open-run-r1"]').exists()).toBe(true);
    expect(w.text()).not.toContain('This run has no');
    expect(w.find('[data-testid="inspector-canvas"]').exists()).toBe(false);
    // The Inspector link does not reopen it.
    expect(inspected.runId).toBe('');
    w.unmount();
  });

  it('a running voxel run shows the particles so far and its live bed height and solid fraction, both refreshed while it runs', async () => {
    const api = installLiveApi();
    const { w } = await mountInspectorAt('/inspector/r2');
    expect(w.get('[data-testid="inspector-count"]').text()).toBe('2 particles');
    // A published table without a time (the voxel engine's) says only that it is the latest state.
    expect(w.get('[data-testid="live-time"]').text()).toBe('latest state');
    expect(w.findAll('.plot-stub').map((p) => `${p.text()}: ${p.attributes('data-points')}`)).toEqual(['solid fraction (live): 2', 'bed height (live): 2']);
    expect(w.text()).toContain('A label volume to slice, when the run writes one, comes when it finishes.');
    // The run goes on: more particles published, longer curves.
    api.state.count = 5;
    api.state.points = 4;
    await new Promise((r) => setTimeout(r, 4300));
    await flushPromises();
    expect(w.get('[data-testid="inspector-count"]').text()).toBe('5 particles');
    expect(w.findAll('.plot-stub').map((p) => `${p.text()}: ${p.attributes('data-points')}`)).toEqual(['solid fraction (live): 4', 'bed height (live): 4']);
    expect(api.calls.filter((c) => c === 'runs.series').length).toBeGreaterThanOrEqual(2);
    w.unmount();
  }, 15_000);

  it('a failed run shows its error and the end of its log, where its particles would be', async () => {
    const api = installFakeApi([makeRun(1, { engine: 'voxel', name: 'too small', status: 'failed', error: 'box.size.0: 0.1 is 2 voxels; at least 8', metrics: {} })]);
    api.artifacts.r1 = [];
    api.noSeries.add('r1');
    api.logs.r1 = [...Array.from({ length: 30 }, (_, i) => `line ${i}`), 'Error: box.size.0: 0.1 is 2 voxels; at least 8'];
    const { w } = await mountInspectorAt('/inspector/r1');
    const failure = w.get('[data-testid="run-failure"]');
    expect(failure.text()).toContain('This run failed: box.size.0: 0.1 is 2 voxels; at least 8');
    expect(failure.get('pre').text().split('\n')).toEqual([...Array.from({ length: 19 }, (_, i) => `line ${i + 11}`), 'Error: box.size.0: 0.1 is 2 voxels; at least 8']);
    expect(w.text()).not.toContain('This run has no particle table');
    // It never will have series or particles to colour: said so, no 'yet' and no empty select.
    expect(w.get('[data-testid="series-none"]').text()).toBe('No series: the run failed.');
    expect(w.find('[data-testid="colour-by"]').exists()).toBe(false);
    expect(w.get('[data-testid="colour-none"]').text()).toBe('Nothing to colour: the run failed.');
    w.unmount();
  });

  it('without a run id lists recent runs and opens one', async () => {
    installRunApi();
    const { w, router } = await mountInspectorAt('/inspector');
    expect(w.text()).toContain('No run open');
    await w.get('[data-testid="open-run-r1"]').trigger('click');
    await flushPromises();
    expect(router.currentRoute.value.path).toBe('/inspector/r1');
    w.unmount();
  });

  it("keeps a clipping box side whose field is emptied or unreadable, instead of moving it to 0, and says so", async () => {
    installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="clip-toggle"]').setValue(true);
    const xMin = w.get('input[aria-label="x min"]');
    await xMin.setValue('0.5');
    await xMin.trigger('change');
    expect((xMin.element as HTMLInputElement).value).toBe('0.5');
    await xMin.setValue(''); // input, then change, as a user leaving the emptied box
    await flushPromises();
    expect((xMin.element as HTMLInputElement).value).toBe('0.5');
    // Said at the field, with what the side stays at, as for a side typed with a decimal comma ('0,4' reads '04').
    expect(w.get('[data-testid="clip-error"]').text()).toBe('x min: enter a number (a decimal point: 0.4); it stays 0.5');
    await typeKeys(xMin.element as HTMLInputElement, '0,4');
    await flushPromises();
    expect((xMin.element as HTMLInputElement).value).toBe('0.5');
    expect(w.get('[data-testid="clip-error"]').text()).toBe('x min: enter a number (a decimal point: 0.4); it stays 0.5');
    await typeKeys(xMin.element as HTMLInputElement, '0.25');
    await flushPromises();
    expect(w.find('[data-testid="clip-error"]').exists()).toBe(false);
    w.unmount();
  });

  it('names the clipping box axis whose sides cross, with the run\'s box along it, and marks only its fields', async () => {
    installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="clip-toggle"]').setValue(true);
    const xMax = (w.get('input[aria-label="x max"]').element as HTMLInputElement).value;
    const xMin = w.get('input[aria-label="x min"]');
    await xMin.setValue('9');
    await xMin.trigger('change');
    await flushPromises();
    expect(w.get('[data-testid="clip-error"]').text()).toBe(`x: min 9 must be below max ${xMax} (the box spans 0 to ${xMax})`);
    const invalid = w.findAll('.clip input').filter((i) => i.attributes('aria-invalid') === 'true').map((i) => i.attributes('aria-label'));
    expect(invalid).toEqual(['x min', 'x max']);
    w.unmount();
  });

  it('loads a run: particle count, colourings the table supports, slice at mid-height, series ordered by kind', async () => {
    const { calls } = installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    expect(w.get('[data-testid="inspector-run-name"]').text()).toBe('plates');
    expect(w.get('[data-testid="inspector-count"]').text()).toContain('3');
    const options = w.findAll('[data-testid="colour-by"] option').map((o) => o.attributes('value'));
    expect(options).toEqual(['type', 'height', 'bodyTilt', 'id']);
    expect(w.get('[data-testid="legend"]').text()).toContain('plate');
    // the slice starts through the bed: at the mean particle centre, z = 0.75 (voxel 1 of size 0.5)
    expect(calls.find((c) => c.method === 'runs.slice')!.params).toEqual({ id: 'r1', axis: 'z', index: 1 });
    expect(w.find('[data-testid="slice-canvas"]').exists()).toBe(true);
    // Where the slice lies, in the app's name of the unit, single spaced ('0.750  units', 'x → , y ↑' before).
    expect(w.findAll('[data-testid="slice-caption"] > span').map((s) => s.text())).toEqual(['z = voxel 1 (0.750 length units)', 'x →, y ↑ · 4 × 4 voxels', expect.stringMatching(/^void 3[0-9.]+ %$/)]); // 6 of 16 labels are 0
    // porosity profile before the progress curve
    expect(w.findAll('.plot-stub').map((p) => p.text())).toEqual(['porosity profile', 'particles']);

    await w.get('[data-testid="slice-axis"]').setValue('x');
    await flushPromises();
    expect(calls.filter((c) => c.method === 'runs.slice').at(-1)!.params).toMatchObject({ axis: 'x' });

    await w.get('[data-testid="colour-by"]').setValue('height');
    expect(w.get('[data-testid="legend"]').text()).toContain('0.25');
    w.unmount();
  });

  it('keeps the colouring from run to run of one engine, another engine\'s run starts with its own first quantity', async () => {
    installRunApi();
    const { w, router } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="colour-by"]').setValue('height');
    await router.push('/inspector/r2');
    await flushPromises();
    expect((w.get('[data-testid="colour-by"]').element as HTMLSelectElement).value).toBe('height');
    await router.push('/inspector/r9');
    await flushPromises();
    expect((w.get('[data-testid="colour-by"]').element as HTMLSelectElement).value).toBe('class');
    w.unmount();
  });

  it('names the picked particle\'s type, not only its index', async () => {
    installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    w.findComponent(SliceView).vm.$emit('pick', 1);
    await flushPromises();
    expect(w.get('[data-testid="record-type"]').text()).toBe('sphere (1)');
    expect(w.get('[data-testid="record-x"]').text()).toBe('1');
    w.unmount();
  });

  it('colours by a chosen map and range: the legend shows them, an inverted range is named', async () => {
    installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="colour-by"]').setValue('bodyTilt');
    expect(w.get('[data-testid="legend"]').text()).toContain('° from z');
    expect((w.get('[data-testid="colour-min"]').element as HTMLInputElement).placeholder).toBe('0');
    expect((w.get('[data-testid="colour-max"]').element as HTMLInputElement).placeholder).toBe('90');
    await w.get('[data-testid="colour-map"]').setValue('cividis');
    await w.get('[data-testid="colour-min"]').setValue('10');
    await w.get('[data-testid="colour-max"]').setValue('45');
    await flushPromises();
    const legend = w.get('[data-testid="legend"]');
    expect(legend.find('.ends').text()).toMatch(/^10.*45$/);
    // the bar is cividis: it starts dark blue (0 32 81)
    expect(legend.get('[data-testid="legend-bar"]').attributes('style')).toContain('rgb(0 32 81)');
    await w.get('[data-testid="colour-max"]').setValue('5');
    expect(legend.text()).toContain('min 10 must be below max 5');
    // An end left empty is named by its automatic value.
    await w.get('[data-testid="colour-max"]').setValue('');
    await w.get('[data-testid="colour-min"]').setValue('95');
    expect(legend.text()).toContain('min 95 must be below max 90 (automatic)');
    // another quantity starts from its own range
    await w.get('[data-testid="colour-by"]').setValue('height');
    expect((w.get('[data-testid="colour-min"]').element as HTMLInputElement).value).toBe('');
    w.unmount();
  });

  it("a colour range end or a figure size typed with a decimal comma ('0,4') is refused at the field, not read as 4", async () => {
    installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    await w.get('[data-testid="colour-by"]').setValue('bodyTilt');
    const legend = w.get('[data-testid="legend"]');
    const min = w.get('[data-testid="colour-min"]');
    await typeKeys(min.element as HTMLInputElement, '0,4');
    await flushPromises();
    expect(min.attributes('aria-invalid')).toBe('true');
    expect(legend.text()).toContain('colour range min: enter a number (a decimal point: 0.4); the automatic range is shown');
    expect(legend.find('.ends').text()).toMatch(/^0.*90$/);
    await typeKeys(min.element as HTMLInputElement, '10');
    await flushPromises();
    expect(legend.find('.ends').text()).toMatch(/^10.*90$/);
    // happy-dom has no WebGL, so the 3D view and the figure button are off; the figure's fields are what is under test.
    (w.get('[data-testid="figure-toggle"]').element as HTMLButtonElement).disabled = false;
    await w.get('[data-testid="figure-toggle"]').trigger('click');
    const width = w.get('[data-testid="figure-width"]');
    await typeKeys(width.element as HTMLInputElement, '1,6');
    expect(width.attributes('aria-invalid')).toBe('true');
    expect(w.get('[data-testid="figure-options"]').text()).toContain('width: a whole number of pixels in [200, 4096]');
    expect(w.get('[data-testid="figure-save"]').attributes('disabled')).toBeDefined();
    w.unmount();
  });

  it('remembers the open run for the app\'s Inspector link', async () => {
    inspected.runId = '';
    installRunApi();
    const { w } = await mountInspectorAt('/inspector/r1');
    expect(inspected.runId).toBe('r1');
    expect(inspectorPath()).toBe('/inspector/r1');
    w.unmount();
  });
});
