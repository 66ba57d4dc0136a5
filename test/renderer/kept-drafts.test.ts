/**
 * Drafts kept across a reload (renderer/src/stores/keptDrafts.ts): numbers as typed (NaN, Infinity)
 * come back as typed, a draft is its data folder's only, and the particle editor restores a mixture
 * whose shape has left the library with the type kept and a shape to choose, at its row.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { z } from 'zod';
import type { Shape } from '../../main/api';
import { draftKeeper, draftKey, typedNumber } from '../../renderer/src/stores/keptDrafts';
import { toasts } from '../../renderer/src/stores/toasts';
import EditorWorkspace, { editorMixture } from '../../renderer/src/workspaces/editor/EditorWorkspace.vue';

const now = '2026-01-01T00:00:00.000Z';
const SPHERE: Shape = { id: 'b-sphere', name: 'Sphere', kind: 'sphere', params: { kind: 'sphere' }, voxelisation: null, builtin: true, createdAt: now, updatedAt: now };

/** The services of data folder `dataDir`: app.info, and a library of one sphere for the editor. */
function installApi(dataDir: string): void {
  window.packbench = {
    async call(method: string) {
      switch (method) {
        case 'app.info': return { version: '0.1.0', dataDir, cores: 2, totalMemoryBytes: 1 << 30, platform: 'linux', electron: false, readOnlyBecause: null, recoveredRuns: 0 };
        case 'shapes.list': return [SPHERE];
        case 'shapes.preview': return { dims: [1, 1, 1], solidCount: 1, shellCount: 1, reducedShellCount: 1, solid: new Int32Array(0), shell: new Int32Array(0), reducedShell: new Int32Array(0) };
        default: throw new Error(`unexpected call ${method}`);
      }
    },
    on: () => () => {},
  } as never;
}

const typed = z.object({ size: typedNumber, limit: typedNumber, unset: z.null(), list: z.array(typedNumber) });

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  toasts.splice(0);
});

/** Each tab's sessionStorage (the browser gives each its own; the page here has one), by tab name. */
const tabs = new Map<string, Record<string, string>>();
let currentTab = '';
/** Makes tab `tab`'s sessionStorage the page's, keeping the current tab's aside. */
function switchTo(tab: string): void {
  if (currentTab) tabs.set(currentTab, Object.fromEntries(Object.keys(sessionStorage).map((k) => [k, sessionStorage.getItem(k)!])));
  sessionStorage.clear();
  for (const [k, v] of Object.entries(tabs.get(tab) ?? {})) sessionStorage.setItem(k, v);
  currentTab = tab;
}

describe('a kept draft', () => {
  it('comes back as typed: an empty box (NaN) and an overflow (Infinity) stay what they were, not null', async () => {
    installApi('/data/lab');
    const keeper = (await draftKeeper('test', 'test form', typed))!;
    keeper.keep({ size: Number.NaN, limit: Number.POSITIVE_INFINITY, unset: null, list: [1, Number.NaN] });
    keeper.flush();
    const kept = (await draftKeeper('test', 'test form', typed))!.take();
    expect(kept?.value).toEqual({ size: Number.NaN, limit: Number.POSITIVE_INFINITY, unset: null, list: [1, Number.NaN] });
  });

  it('is its data folder\'s only', async () => {
    installApi('/data/lab');
    const keeper = (await draftKeeper('test', 'test form', typed))!;
    keeper.keep({ size: 1, limit: 2, unset: null, list: [] });
    keeper.flush();
    expect(localStorage.getItem(draftKey('test', '/data/lab'))).not.toBeNull();
    installApi('/data/other');
    expect((await draftKeeper('test', 'test form', typed))!.take()).toBeNull();
  });

  it('is dropped with a notice when it no longer reads, and is not given', async () => {
    installApi('/data/lab');
    localStorage.setItem(draftKey('test', '/data/lab'), '{"savedAt":"2026-01-01T00:00:00.000Z","value":{"size":"12"}');
    expect((await draftKeeper('test', 'test form', typed))!.take()).toBeNull();
    expect(toasts.map((t) => t.text)).toEqual([expect.stringMatching(/^The test form kept as a draft no longer reads \(.*JSON.*\) and was dropped$/)]);
    expect(localStorage.getItem(draftKey('test', '/data/lab'))).toBeNull();
  });
});

describe('drafts of two tabs of one host', () => {
  const draft = (size: number) => ({ size, limit: 1, unset: null, list: [] });
  const page = async () => (await draftKeeper('test', 'test form', typed))!;

  it("each keeps its own: typing in one does not change what a reload of the other shows; a new tab takes the last closed tab's", async () => {
    // Before, one localStorage key for both: tab A's reload showed what tab B typed last.
    installApi('/data/lab');
    tabs.clear();
    currentTab = '';
    switchTo('A');
    const a = await page();
    a.keep(draft(1));
    a.flush();
    switchTo('B');
    const b = await page();
    // A new tab starts from the draft kept last, then keeps its own.
    expect(b.take()?.value).toEqual(draft(1));
    b.keep(draft(2));
    b.flush();
    switchTo('A');
    a.keep(draft(3));
    a.flush();
    switchTo('B');
    expect((await page()).take()?.value).toEqual(draft(2)); // B reloaded: its own, not A's
    switchTo('A');
    expect((await page()).take()?.value).toEqual(draft(3)); // A reloaded: its own
    // B is closed last: the next new tab (or the app started again) takes B's.
    switchTo('B');
    window.dispatchEvent(new Event('pagehide'));
    switchTo('C');
    expect((await page()).take()?.value).toEqual(draft(2));
  });

  it("a draft discarded in one tab leaves the one another tab kept since; one's own, taken or kept, is forgotten for a new tab too", async () => {
    installApi('/data/lab');
    tabs.clear();
    currentTab = '';
    switchTo('A');
    const a = await page();
    a.keep(draft(1));
    a.flush();
    switchTo('B');
    const b = await page();
    b.keep(draft(2));
    b.flush();
    // Discard in A (keep(null): the form is back to its defaults). Before, it removed B's from localStorage too.
    switchTo('A');
    a.keep(null);
    a.flush();
    switchTo('C');
    const c = await page();
    expect(c.take()?.value).toEqual(draft(2));
    // C took B's and discards it: that one is C's now, and a new tab no longer brings it back.
    c.keep(null);
    c.flush();
    switchTo('D');
    expect((await page()).take()).toBeNull();
  });
});

describe("the particle editor's kept mixture", () => {
  it('keeps a type whose shape left the library, with its size and fraction, asks for a shape and sends nothing', async () => {
    installApi('/data/lab');
    editorMixture.types = [];
    const value = { basis: 'volume', types: [{ shapeId: 'b-sphere', size: { law: 'fixed', value: 2 }, fraction: 3 }, { shapeId: 'u-deleted', size: { law: 'uniform', min: 1, max: 4 }, fraction: 1 }] };
    localStorage.setItem(draftKey('mixture', '/data/lab'), JSON.stringify({ savedAt: now, value }));
    const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/editor', component: EditorWorkspace }] });
    await router.push('/editor');
    const w = mount(EditorWorkspace, { global: { plugins: [router], stubs: { PlotPanel: true } }, attachTo: document.body });
    await flushPromises();
    expect(w.get('[data-testid="mixture-restored"]').text()).toContain('One type needs a shape: theirs is no longer in the library.');
    expect(editorMixture).toEqual(value);
    // Said at the row, and not sent: sending threw (mixtureToVoxelParams), and nothing was said.
    expect(w.get('[data-testid="mixture-type-1"]').text()).toContain('shape: no longer in the library, choose another');
    expect(w.get('[data-testid="mixture-send"]').attributes('disabled')).toBeDefined();
    await w.get('[data-testid="mixture-discard-draft"]').trigger('click');
    expect(w.find('[data-testid="mixture-restored"]').exists()).toBe(false);
    expect(editorMixture).toEqual({ basis: 'number', types: [{ shapeId: 'b-sphere', size: { law: 'fixed', value: 1 }, fraction: 1 }] });
    w.unmount();
    await flushPromises();
    expect(localStorage.getItem(draftKey('mixture', '/data/lab'))).toBeNull();
  });
});
