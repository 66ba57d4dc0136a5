/**
 * The preload (main/preload.ts) with Electron replaced by a stand-in whose ipcRenderer is an
 * EventEmitter, as Electron's is: what it exposes, and how events reach the renderer's listeners.
 */
import { EventEmitter } from 'node:events';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ABORT_CHANNEL, CALL_CHANNEL, EVENT_CHANNEL } from '../../main/ipc';
import type { PackbenchApi } from '../../main/api';

const electron = vi.hoisted(() => ({ exposed: new Map<string, unknown>(), ipcRenderer: undefined as unknown as import('node:events').EventEmitter }));

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  electron.ipcRenderer = Object.assign(new Emitter(), { invoke: async () => ({ ok: true, result: {} }) });
  const module = { contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api) }, ipcRenderer: electron.ipcRenderer };
  return { ...module, default: module };
});

let api: PackbenchApi;
beforeAll(async () => {
  await import('../../main/preload');
  api = electron.exposed.get('packbench') as PackbenchApi;
});

describe('the preload', () => {
  it('exposes window.packbench (call, abort and on) and nothing else', () => {
    expect([...electron.exposed.keys()]).toEqual(['packbench']);
    expect(Object.keys(api).sort()).toEqual(['abort', 'call', 'on']);
  });

  it('passes a call its callId, and an abort of it on its own channel, for the main side to check', async () => {
    const invoke = vi.spyOn(electron.ipcRenderer as unknown as { invoke: (...args: unknown[]) => Promise<unknown> }, 'invoke');
    try {
      await api.call('app.info', {}, 3);
      api.abort(3);
      expect(invoke.mock.calls).toEqual([[CALL_CHANNEL, 'app.info', {}, 3], [ABORT_CHANNEL, 3]]);
    } finally {
      invoke.mockRestore();
    }
  });

  it("takes the app's event listeners without a listener-leak warning, each getting its event until it is removed", async () => {
    // The app's kept-alive workspaces and status bar hold about a dozen at once. Each took a listener
    // of its own on the one IPC channel: past EventEmitter's 10, a MaxListenersExceededWarning
    // ('possible EventEmitter memory leak') for listeners that were no leak.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const got: string[] = [];
    const offs = Array.from({ length: 12 }, (_, i) => api.on(i % 2 ? 'run.updated' : 'run.deleted', () => got.push(`${i}`)));
    await new Promise((r) => setTimeout(r, 10)); // warnings are emitted on the next tick
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);

    const ipc = electron.ipcRenderer as EventEmitter;
    ipc.emit(EVENT_CHANNEL, {}, 'run.deleted', { id: 'r1' });
    expect(got).toEqual(['0', '2', '4', '6', '8', '10']);
    got.length = 0;
    offs[2]();
    offs[3]();
    ipc.emit(EVENT_CHANNEL, {}, 'run.updated', {});
    ipc.emit(EVENT_CHANNEL, {}, 'run.deleted', { id: 'r2' });
    expect(got).toEqual(['1', '5', '7', '9', '11', '0', '4', '6', '8', '10']);
    for (const off of offs) off();
    got.length = 0;
    ipc.emit(EVENT_CHANNEL, {}, 'run.deleted', { id: 'r3' });
    expect(got).toEqual([]);
  });
});
