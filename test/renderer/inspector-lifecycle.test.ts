/**
 * The inspector kept alive across workspaces (as App.vue keeps it): a run deleted elsewhere, and a
 * view replaced by the run picker and opened again.
 */
import { describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { installFakeApi, makeRun } from './fakeApi';
import InspectorWorkspace from '../../renderer/src/workspaces/inspector/InspectorWorkspace.vue';
import { voxelEngine } from '../../core/voxel/index';

type Box = { min: number[]; max: number[] };
/** Each scene made: its canvas, whether it was disposed, and the boxes it framed the camera on; its other calls do nothing. */
const scenes = vi.hoisted(() => [] as { canvas: HTMLCanvasElement; disposed: boolean; framed: Box[] }[]);
vi.mock('../../renderer/src/scene/inspectorScene', () => ({
  createInspectorScene: (canvas: HTMLCanvasElement) => {
    const made = { canvas, disposed: false, framed: [] as Box[] };
    scenes.push(made);
    const calls: Record<string, (...a: unknown[]) => void> = {
      dispose: () => { made.disposed = true; },
      setBounds: (b, frame) => { if (frame) made.framed.push(b as Box); },
    };
    return new Proxy(made, { get: (t, k) => calls[k as string] ?? (k in t ? t[k as keyof typeof t] : () => undefined) });
  },
}));
vi.mock('uplot', () => ({ default: class { static paths = {}; destroy() {} setSize() {} } }));

/** Run r<n>'s particle table: one particle in a box n wide. */
function table(id: string) {
  const n = Number(id.slice(1));
  return { total: 1, count: 1, meta: { box: [n, n, n], particleTable: voxelEngine.particleTable }, columns: { id: Int32Array.of(0), type: Int32Array.of(0), x: Float64Array.of(0.5), y: Float64Array.of(0.5), z: Float64Array.of(0.5), size: Float64Array.of(0.5) } };
}

async function mountApp() {
  const api = installFakeApi([makeRun(1, { engine: 'voxel', name: 'one' }), makeRun(2, { engine: 'voxel', name: 'two' })]);
  const call = api.call.bind(api);
  api.call = (async (method: string, params: { id: string }) => (method === 'runs.particles' ? table(params.id) : call(method as never, params as never))) as typeof api.call;
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: '/inspector/:runId?', component: InspectorWorkspace, props: true },
      { path: '/history', component: { template: '<div>history</div>' } },
    ],
  });
  await router.push('/inspector/r1');
  const w = mount(
    { template: '<router-view v-slot="{ Component }"><keep-alive><component :is="Component" /></keep-alive></router-view>' },
    { global: { plugins: [router] }, attachTo: document.body },
  );
  await flushPromises();
  return { api, router, w };
}

describe('InspectorWorkspace kept alive', () => {
  it('a run deleted from the History leaves the user in the History', async () => {
    const { api, router, w } = await mountApp();
    await router.push('/history');
    await flushPromises();
    api.emit('run.deleted', { id: 'r1' });
    await flushPromises();
    expect(router.currentRoute.value.path).toBe('/history');
    // Deleted while in view: the inspector goes to its run picker.
    await router.push('/inspector/r2');
    await flushPromises();
    api.emit('run.deleted', { id: 'r2' });
    await flushPromises();
    expect(router.currentRoute.value.path).toBe('/inspector');
    w.unmount();
  });

  it('a run opened after the run picker replaced the view is drawn on the new canvas', async () => {
    scenes.length = 0;
    const { router, w } = await mountApp();
    expect(scenes.map((s) => s.canvas)).toEqual([w.get('[data-testid="inspector-canvas"]').element]);
    await router.push('/inspector');
    await flushPromises();
    expect(w.find('[data-testid="inspector-canvas"]').exists()).toBe(false);
    expect(scenes[0].disposed).toBe(true);
    await router.push('/inspector/r2');
    await flushPromises();
    const canvas = w.get('[data-testid="inspector-canvas"]').element;
    expect(scenes.length).toBe(2);
    expect(scenes[1].canvas).toBe(canvas);
    expect(scenes[1].disposed).toBe(false);
    // Framed on its own box, never on the last run's.
    expect(scenes[0].framed).toEqual([{ min: [0, 0, 0], max: [1, 1, 1] }]);
    expect(scenes[1].framed).toEqual([{ min: [0, 0, 0], max: [2, 2, 2] }]);
    w.unmount();
    expect(scenes[1].disposed).toBe(true);
  });
});
