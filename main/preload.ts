/**
 * The preload of the PackBench window (sandboxed, context-isolated): exposes exactly PackbenchApi
 * as window.packbench and nothing else. Failed calls reject with { code, message, issues } as the
 * browser bridge's ApiError does.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { EventName, Events, MethodName, Methods, PackbenchApi } from './api';
import { ABORT_CHANNEL, CALL_CHANNEL, EVENT_CHANNEL, type CallEnvelope } from './ipc';

/**
 * The renderer's listeners by event name, behind ONE listener on the IPC channel: the app holds
 * about a dozen at once (kept-alive workspaces, status bar), and one ipcRenderer listener each went
 * past EventEmitter's 10 with a 'possible memory leak' warning.
 */
const listeners = new Map<string, Set<(payload: unknown) => void>>();
ipcRenderer.on(EVENT_CHANNEL, (_e: IpcRendererEvent, name: string, payload: unknown) => {
  for (const listener of listeners.get(name) ?? []) listener(payload);
});

const api: PackbenchApi = {
  async call<M extends MethodName>(method: M, params: Methods[M]['params'], callId?: number): Promise<Methods[M]['result']> {
    const r = (await ipcRenderer.invoke(CALL_CHANNEL, method, params, callId)) as CallEnvelope;
    if (r.ok) return r.result as Methods[M]['result'];
    throw r.error;
  },
  abort(callId: number): void {
    // The call aborted answers for it (cancelled); the main side checks the id and answers a malformed one, unread here.
    void ipcRenderer.invoke(ABORT_CHANNEL, callId);
  },
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void {
    // A wrapper of its own, so that the same function added twice is called twice and removed once a time.
    const entry = (payload: unknown) => listener(payload as Events[E]);
    const forEvent = listeners.get(event) ?? new Set();
    listeners.set(event, forEvent.add(entry));
    return () => void forEvent.delete(entry);
  },
};

contextBridge.exposeInMainWorld('packbench', api);
