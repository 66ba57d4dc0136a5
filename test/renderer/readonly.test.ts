/**
 * A data folder opened read-only (app.info readOnlyBecause): the shell says so in a banner with the
 * reason, and what would write (enqueue, presets, queue actions, delete, imports, shape edits) is
 * disabled with that reason instead of failing call by call.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { reactive, ref } from 'vue';
import { z } from 'zod';
import type { Shape } from '../../main/api';
import { installFakeApi, makeRun, settle } from './fakeApi';
import App from '../../renderer/src/App.vue';
import { routes } from '../../renderer/src/router';
import { status } from '../../renderer/src/stores/status';
import RunComposer from '../../renderer/src/workspaces/batch/RunComposer.vue';
import QueueTable from '../../renderer/src/workspaces/batch/QueueTable.vue';
import HistoryWorkspace from '../../renderer/src/workspaces/history/HistoryWorkspace.vue';
import ShapeLibrary from '../../renderer/src/workspaces/editor/ShapeLibrary.vue';
import ShapeEditor from '../../renderer/src/workspaces/editor/ShapeEditor.vue';
import SchemaField from '../../renderer/src/workspaces/batch/SchemaField.vue';
import type { JsonSchema } from '../../renderer/src/workspaces/batch/schema';
import { stackingParamsSchema } from '../../core/stacking/params';

vi.mock('uplot', () => ({ default: class { static paths = {}; destroy() {} setSize() {} } }));

const WHY = "EROFS: read-only file system, mkdir '/data/pb/runs' (EROFS)";
const INFO = { version: '0.1.0', dataDir: '/data/pb', cores: 2, totalMemoryBytes: 1 << 30, platform: 'linux', electron: false, fullDisk: false, recoveredRuns: 0 };

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
  status.info = null;
});

const router = () => createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div/>' } }] });

async function mounted(component: unknown, props: Record<string, unknown> = {}): Promise<VueWrapper> {
  const w = mount(component as never, { props: props as never, global: { plugins: [router()], stubs: { PlotPanel: true } }, attachTo: document.body });
  wrappers.push(w);
  await settle(10);
  return w;
}

/** Disabled, with the read-only reason as its title (the reason beside Enqueue says it too). */
function disabledBecauseReadOnly(w: VueWrapper, testId: string): void {
  const b = w.find(`[data-testid="${testId}"]`);
  expect(b.exists(), testId).toBe(true);
  expect(b.attributes('disabled'), testId).toBeDefined();
  expect(b.attributes('title'), testId).toBe(`The data folder is read-only: ${WHY}`);
}

describe('a read-only data folder', () => {
  it('is named in a banner with the reason app.info gives', async () => {
    const api = installFakeApi();
    const realCall = api.call;
    api.call = (async (method: string, params: unknown) =>
      method === 'app.info' ? { ...INFO, readOnlyBecause: WHY } : realCall(method as never, params as never)) as typeof api.call;
    const r = createRouter({ history: createMemoryHistory(), routes });
    await r.push('/history');
    const w = mount(App, { global: { plugins: [r] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    const banner = w.find('[data-testid="readonly-banner"]');
    expect(banner.text()).toContain('Read-only data folder.');
    expect(banner.text()).toContain('nothing can be queued, imported, saved or deleted');
    expect(banner.text()).toContain(`Why: ${WHY}`);
  });

  it('shows no banner when the folder can be written', async () => {
    installFakeApi(); // app.info: readOnlyBecause null
    const r = createRouter({ history: createMemoryHistory(), routes });
    await r.push('/history');
    status.info = { ...INFO, readOnlyBecause: null };
    const w = mount(App, { global: { plugins: [r] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    expect(w.find('[data-testid="readonly-banner"]').exists()).toBe(false);
  });

  it('disables Enqueue and presets in the batch form, with the reason beside Enqueue', async () => {
    installFakeApi();
    status.info = { ...INFO, readOnlyBecause: WHY };
    const w = await mounted(RunComposer);
    disabledBecauseReadOnly(w, 'preset-save');
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    expect(w.find('[data-testid="enqueue-reason"]').text()).toBe(`The data folder is read-only: ${WHY}`);
    // The same form in a folder that can be written enqueues.
    status.info = { ...INFO, readOnlyBecause: null };
    await settle(10);
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeUndefined();
  });

  it("disables saving a gradation preset in the batch form's gradation editor", async () => {
    installFakeApi();
    status.info = { ...INFO, readOnlyBecause: WHY };
    const schema = z.toJSONSchema(stackingParamsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const w = mount(SchemaField, {
      props: { schema, root: schema, parent: reactive({ params: stackingParamsSchema.parse({}) }), k: 'params', path: '', errors: {} },
      global: { provide: { composerEngine: ref('stacking') } },
      attachTo: document.body,
    });
    wrappers.push(w);
    await settle();
    disabledBecauseReadOnly(w, 'field-gradation-preset-save');
  });

  it("disables the queue's run actions", async () => {
    installFakeApi([makeRun(1, { status: 'queued' }), makeRun(2, { status: 'paused' }), makeRun(3, { status: 'failed' })]);
    status.info = { ...INFO, readOnlyBecause: WHY };
    const w = await mounted(QueueTable);
    for (const id of ['pause-r1', 'cancel-r1', 'resume-r2', 'stop-r2', 'rerun-r3']) disabledBecauseReadOnly(w, id);
  });

  it('disables delete and sphere import in History; exports stay', async () => {
    installFakeApi(Array.from({ length: 3 }, (_, i) => makeRun(i)));
    status.info = { ...INFO, readOnlyBecause: WHY };
    const w = await mounted(HistoryWorkspace);
    await w.find('[data-testid="history-row-r2"]').trigger('click');
    disabledBecauseReadOnly(w, 'history-delete');
    disabledBecauseReadOnly(w, 'history-import-spheres');
    expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeUndefined();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete' }));
    await settle(1);
    expect(w.find('[data-testid="history-confirm-delete"]').exists()).toBe(false);
  });

  it("keeps History's delete on a full disk, where it frees space: says the files go first, and what became of the records", async () => {
    const FULL = 'the disk of the data folder is full or failing (SQLITE_IOERR_SHMSIZE)';
    const api = installFakeApi(Array.from({ length: 3 }, (_, i) => makeRun(i)));
    const realCall = api.call;
    // As the services answer: the files went; the record too once that made room (handlers.ts deleteRun).
    let room = false;
    api.call = (async (method: string, params: unknown) => {
      const r = await realCall(method as never, params as never);
      return method === 'runs.delete' ? { filesFirst: true, recordLeft: room ? null : FULL } : r;
    }) as typeof api.call;
    status.info = { ...INFO, readOnlyBecause: FULL, fullDisk: true };
    const w = await mounted(HistoryWorkspace);
    const remove = async (id: string) => {
      await w.find(`[data-testid="history-row-${id}"]`).trigger('click');
      const button = w.find('[data-testid="history-delete"]');
      // It was disabled as on a read-only folder: the user of the app could not free the space PackBench's runs take.
      expect(button.attributes('disabled')).toBeUndefined();
      expect(button.attributes('title')).toBe('The disk of the data folder is full: a delete frees the space the runs take, their files first');
      await button.trigger('click');
      expect(w.find('[data-testid="history-confirm-delete"]').text()).toContain('The disk of the data folder is full: the files go first, freeing their space.');
      await w.find('[data-testid="history-delete-confirm"]').trigger('click');
      await settle(10);
      return w.find('[data-testid="history-delete-note"]').text();
    };
    expect(w.find('[data-testid="history-import-spheres"]').attributes('disabled')).toBeDefined();
    expect(await remove('r2')).toBe(
      'The disk of the data folder is full: the files of “run 2” were deleted first, to make room for removing its record, but that was not enough room: it stays listed, without files, until PackBench next opens the folder with space free. Delete more runs, or free space on that disk.×',
    );
    room = true;
    expect(await remove('r1')).toBe(
      'The disk of the data folder was full: the files of “run 1” were deleted first, to make room for removing its record, which made room, and the run is gone. The folder stays read-only until PackBench opens it again: restart the app or the web host to queue or import runs.×',
    );
    await w.find('[data-testid="history-delete-note"] button').trigger('click');
    expect(w.find('[data-testid="history-delete-note"]').exists()).toBe(false);
  });

  it('says in the banner that runs can be deleted to free space on a full disk', async () => {
    installFakeApi();
    const r = createRouter({ history: createMemoryHistory(), routes });
    await r.push('/history');
    status.info = { ...INFO, readOnlyBecause: 'the disk of the data folder is full (ENOSPC)', fullDisk: true };
    const w = mount(App, { global: { plugins: [r] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    expect(w.find('[data-testid="readonly-banner"]').text()).toContain('Runs can be listed, inspected, compared and exported, and deleted in History to free space; nothing can be queued, imported or saved.');
  });

  it('disables new, import, duplicate, rename, delete and save of shapes', async () => {
    const now = '2026-01-01T00:00:00.000Z';
    const own: Shape = { id: 'u1', name: 'Mine', kind: 'sphere', params: { kind: 'sphere' }, voxelisation: null, builtin: false, createdAt: now, updatedAt: now };
    window.packbench = {
      call: async (method: string) => {
        if (method === 'shapes.preview') return { dims: [4, 4, 4], solidCount: 33, shellCount: 30, reducedShellCount: 20, solid: new Int32Array(0), shell: new Int32Array(0), reducedShell: new Int32Array(0) };
        throw new Error(`unexpected call ${method}`);
      },
      on: () => () => {},
    } as never;
    status.info = { ...INFO, readOnlyBecause: WHY };
    const library = await mounted(ShapeLibrary, { shapes: [own], selectedId: 'u1', busy: false });
    for (const id of ['new-shape', 'import-shape', 'shape-duplicate', 'shape-rename', 'shape-delete']) disabledBecauseReadOnly(library, id);
    const editor = await mounted(ShapeEditor, { shape: own });
    await editor.find('[data-testid="preview-size"]').setValue('2');
    await settle(10);
    disabledBecauseReadOnly(editor, 'shape-save');
  });
});
