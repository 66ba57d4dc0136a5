/**
 * The inspector kept alive across workspaces (as App.vue keeps it): a run deleted elsewhere, and a
 * view replaced by the run picker and opened again.
 */
import { describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { installFakeApi, makeRun } from './fakeApi';
import InspectorWorkspace from '../../renderer/src/workspaces/inspector/InspectorWorkspace.vue';

/** Each scene made, with its canvas and whether it was disposed; its other calls do nothing. */
const scenes = vi.hoisted(() => [] as { canvas: HTMLCanvasElement; disposed: boolean }[]);
vi.mock('../../renderer/src/scene/inspectorScene', () => ({
  createInspectorScene: (canvas: HTMLCanvasElement) => {
    const made = { canvas, disposed: false };
    scenes.push(made);
    return new Proxy(made, {
      get: (t, k) => (k === 'dispose' ? () => { t.disposed = true; } : k in t ? t[k as keyof typeof t] : () => undefined),
    });
  },
}));
vi.mock('uplot', () => ({ default: class { static paths = {}; destroy() {} setSize() {} } }));

async function mountApp() {
  const api = installFakeApi([makeRun(1, { engine: 'voxel', name: 'one' }), makeRun(2, { engine: 'voxel', name: 'two' })]);
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
    w.unmount();
    expect(scenes[1].disposed).toBe(true);
  });
});
