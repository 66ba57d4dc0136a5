import { describe, it, expect } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import SliceView from '../../renderer/src/workspaces/inspector/SliceView.vue';
import { inspected, inspectorPath } from '../../renderer/src/stores/inspected';
import { makeRun } from './fakeApi';
import { mountInspectorAt } from './mountInspector';
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

describe('InspectorWorkspace', () => {
  it('without a run id lists recent runs and opens one', async () => {
    installRunApi();
    const { w, router } = await mountInspectorAt('/inspector');
    expect(w.text()).toContain('No run open');
    await w.get('[data-testid="open-run-r1"]').trigger('click');
    await flushPromises();
    expect(router.currentRoute.value.path).toBe('/inspector/r1');
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
    expect(w.text()).toMatch(/void 3[0-9.]+ %/); // 6 of 16 labels are 0
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
    expect(legend.text()).toContain('the range needs min below max');
    // another quantity starts from its own range
    await w.get('[data-testid="colour-by"]').setValue('height');
    expect((w.get('[data-testid="colour-min"]').element as HTMLInputElement).value).toBe('');
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
