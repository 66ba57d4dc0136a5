import { describe, it, expect } from 'vitest';
import { mount } from '@vue/test-utils';
import { createRouter, createMemoryHistory } from 'vue-router';
import InspectorWorkspace from '../../renderer/src/workspaces/inspector/InspectorWorkspace.vue';

describe('InspectorWorkspace', () => {
  it('tells the user how to open a run when no run id is given', async () => {
    const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/inspector/:runId?', component: InspectorWorkspace }] });
    await router.push('/inspector');
    const w = mount(InspectorWorkspace, { global: { plugins: [router] } });
    expect(w.text()).toContain('Open a run');
  });
});
