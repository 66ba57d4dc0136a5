/**
 * The preload of the PackBench window (sandboxed, context-isolated): exposes exactly PackbenchApi
 * as window.packbench and nothing else. Failed calls reject with { code, message, issues } as the
 * browser bridge's ApiError does.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { EventName, Events, MethodName, Methods, PackbenchApi } from './api';
import { CALL_CHANNEL, EVENT_CHANNEL, type CallEnvelope } from './ipc';

const api: PackbenchApi = {
  async call<M extends MethodName>(method: M, params: Methods[M]['params']): Promise<Methods[M]['result']> {
    const r = (await ipcRenderer.invoke(CALL_CHANNEL, method, params)) as CallEnvelope;
    if (r.ok) return r.result as Methods[M]['result'];
    throw r.error;
  },
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void {
    const forward = (_e: IpcRendererEvent, name: string, payload: Events[E]) => {
      if (name === event) listener(payload);
    };
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => ipcRenderer.removeListener(EVENT_CHANNEL, forward);
  },
};

contextBridge.exposeInMainWorld('packbench', api);
