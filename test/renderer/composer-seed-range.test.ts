/**
 * The batch form's seed range is the API's (main/api.ts), not a copy: a copy kept in the form would
 * go on accepting, and offering in the field's max, seeds the API refuses once the two differ. The
 * API's range is narrowed here (to [0, 99]) so that a copy shows.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { installFakeApi, settle } from './fakeApi';
import RunComposer from '../../renderer/src/workspaces/batch/RunComposer.vue';

vi.mock('../../main/api', async (importOriginal) => {
  const api = await importOriginal<typeof import('../../main/api')>();
  return { ...api, MAX_SEED: 99, SEED_RANGE: 'a whole number in [0, 99]', seedSchema: api.seedSchema.max(99) };
});

let w: VueWrapper | undefined;
afterEach(() => w?.unmount());

it("takes the seed's range from the API: its max, its check and its message", async () => {
  installFakeApi();
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div/>' } }] });
  w = mount(RunComposer, { global: { plugins: [router] }, attachTo: document.body });
  await settle();
  const seed = w.get('[data-testid="run-seed"]');
  expect(seed.attributes('max')).toBe('99');
  await seed.setValue('100');
  await settle();
  expect(w.get('[data-testid="run-seed"]').attributes('aria-invalid')).toBe('true');
  expect(w.text()).toContain('must be a whole number in [0, 99]');
});
