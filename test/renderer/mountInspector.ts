/**
 * The inspector as the app shows it, for component tests: InspectorWorkspace behind a router at
 * `path` (/inspector or /inspector/<run id>), loaded. PlotPanel (uPlot wants a real canvas) is a
 * stub that shows its title, so tests can read which plots there are and in what order, and holds
 * its first series' number of points in data-points.
 */
import { flushPromises, mount } from '@vue/test-utils';
import { createRouter, createMemoryHistory } from 'vue-router';
import InspectorWorkspace from '../../renderer/src/workspaces/inspector/InspectorWorkspace.vue';

export async function mountInspectorAt(path: string) {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/inspector/:runId?', component: InspectorWorkspace, props: true }] });
  await router.push(path);
  const w = mount({ template: '<router-view />' }, { global: { plugins: [router], stubs: { PlotPanel: { props: ['title', 'series'], template: '<div class="plot-stub" :data-points="series[0].x.length">{{ title }}</div>' } } }, attachTo: document.body });
  await flushPromises();
  await flushPromises();
  return { w, router };
}
