import { describe, it, expect, beforeEach } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import type { Shape } from '../../main/api';
import EditorWorkspace, { editorMixture } from '../../renderer/src/workspaces/editor/EditorWorkspace.vue';
import { surfaceSchema, validateShape } from '../../renderer/src/workspaces/editor/shapeForm';

/** An in-memory shape library: the calls made, and the saved shapes. */
function installShapeApi(): { calls: { method: string; params: Record<string, unknown> }[]; shapes: Shape[] } {
  const now = '2026-01-01T00:00:00.000Z';
  const shapes: Shape[] = [{ id: 'b-sphere', name: 'Sphere', kind: 'sphere', params: { kind: 'sphere' }, voxelisation: null, builtin: true, createdAt: now, updatedAt: now }];
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  let next = 1;
  window.packbench = {
    async call(method: string, params: Record<string, unknown>) {
      calls.push({ method, params: JSON.parse(JSON.stringify(params)) });
      switch (method) {
        case 'shapes.list': return structuredClone(shapes);
        case 'shapes.create': {
          const shape = params.shape as { kind: string };
          const s: Shape = { id: `u${next++}`, name: String(params.name), kind: shape.kind, params: shape, voxelisation: null, builtin: false, createdAt: now, updatedAt: now };
          shapes.push(s);
          return s;
        }
        case 'shapes.update': {
          const s = shapes.find((x) => x.id === params.id)!;
          s.params = JSON.parse(JSON.stringify(params.shape));
          return s;
        }
        case 'shapes.preview':
          return { dims: [20, 20, 5], solidCount: 900, shellCount: 500, reducedShellCount: 250, solid: new Int32Array(0), shell: new Int32Array(0), reducedShell: new Int32Array(0) };
        default: throw new Error(`unexpected call ${method}`);
      }
    },
    on: () => () => {},
  } as never;
  return { calls, shapes };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('implicit shapes in the particle editor', () => {
  beforeEach(() => {
    editorMixture.types = [];
  });

  it('the form is the surface schema; messages sit at nested paths, cross-field ones too', () => {
    expect(surfaceSchema('sphere')).toBeNull();
    const s = surfaceSchema('implicit')!;
    expect((s.oneOf ?? s.anyOf)!.length).toBe(5);
    expect(validateShape({ kind: 'implicit', surface: { kind: 'blobby', threshold: 0.5, blobs: [{ radius: Number.NaN }] } })).toEqual({ 'surface.blobs.0.radius': 'enter a number in (0, 1000000]' });
    expect(validateShape({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 2 } })).toEqual({ 'surface.minorRadius': 'must be less than majorRadius = 1 (a ring torus), got 2' });
    expect(validateShape({ kind: 'implicit', surface: { kind: 'blobby', threshold: 3, blobs: [{}] } })['surface.threshold']).toContain('never reaches the threshold 3');
    expect(validateShape({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.3 } })).toEqual({});
  });

  it('creates an implicit shape, edits its surface in the form, refuses a bad one, saves it as a voxel shape', async () => {
    const { calls, shapes } = installShapeApi();
    const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/editor', component: EditorWorkspace }] });
    await router.push('/editor');
    const w = mount(EditorWorkspace, { global: { plugins: [router], stubs: { PlotPanel: true } }, attachTo: document.body });
    await flushPromises();
    await w.get('[data-testid="new-shape-kind"]').setValue('implicit');
    await w.get('[data-testid="new-shape"]').trigger('click');
    await flushPromises();
    expect(calls.find((c) => c.method === 'shapes.create')!.params).toEqual({ name: 'My implicit surface', shape: { kind: 'implicit', surface: { kind: 'sphere', radius: 1 } } });
    // The particle preview is the first view of an implicit shape (no WebGL here: it says so).
    expect(w.get('[data-testid="preview-mode-particles"]').attributes('aria-checked')).toBe('true');
    expect(w.get('[data-testid="shape-save"]').text()).toBe('Save as voxel shape');

    // A torus from the variant select, with a tube thicker than its ring: named at the field.
    const variant = w.get('[data-testid="field-surface-variant"]');
    const torus = variant.findAll('option').findIndex((o) => o.text() === 'torus');
    await variant.setValue(String(torus));
    await w.get('[data-testid="field-surface.minorRadius"]').setValue('1.5');
    await flushPromises();
    expect(w.text()).toContain('must be less than majorRadius = 1 (a ring torus), got 1.5');
    expect(w.get('[data-testid="shape-save"]').attributes('disabled')).toBeDefined();
    await wait(260);
    await flushPromises();
    expect(w.get('[data-testid="count-solid"]').text()).toBe('–'); // no counts for a bad surface

    await w.get('[data-testid="field-surface.minorRadius"]').setValue('0.3');
    await wait(260);
    await flushPromises();
    expect(w.get('[data-testid="count-solid"]').text()).toBe('900');
    const previewed = calls.filter((c) => c.method === 'shapes.preview').at(-1)!;
    expect(previewed.params.shape).toEqual({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.3 } });
    await w.get('[data-testid="shape-save"]').trigger('click');
    await flushPromises();
    expect(calls.find((c) => c.method === 'shapes.update')!.params.shape).toEqual({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.3 } });
    expect(shapes.at(-1)!.params).toEqual({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.3 } });
    w.unmount();
  });
});
