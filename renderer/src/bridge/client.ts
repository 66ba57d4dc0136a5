/**
 * PackbenchApi over a WebSocket: what window.packbench is in a browser talking to the web host
 * (main/host/server.ts). Calls made while the socket (re)connects wait for it; calls in flight when
 * it drops reject with code 'unavailable'; it reconnects with a growing delay and keeps listeners;
 * after close() it connects no more and every call not answered fails (unavailable).
 * Long messages go both ways in chunk frames (main/wire.ts).
 */
import { ApiError, cancelled, MAX_HOST_MESSAGE_DEPTH, type ApiErrorData, type EventName, type Events, type MethodName, type Methods, type PackbenchApi } from '../../../main/api';
import { decodeMessage, encodeFrames, encodeMessage, FrameAssembler, MessageTooDeep, type HostMessage } from '../../../main/wire';

export interface WsApi extends PackbenchApi {
  /** Resolves once connected (first time, or again after a drop). */
  ready(): Promise<void>;
  close(): void;
}

export function createWsApi(url: string, WebSocketImpl: typeof WebSocket = WebSocket): WsApi {
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const outbox: { id: number; frames: Uint8Array[]; method: string; callId?: number }[] = [];
  let nextId = 1;
  let socket: WebSocket | null = null;
  let open = false;
  let closed = false;
  let delay = 250;
  let readyWaiters: (() => void)[] = [];

  // After close() nothing connects again, and a call fails at once: a reconnect it had scheduled
  // opened a socket after all (and sent the calls waiting for it), and a later call waited for good.
  const closedError = (method: string) => new ApiError('unavailable', `${method}: the connection to the PackBench host was closed by this page`);

  const connect = () => {
    if (closed) return;
    const ws = new WebSocketImpl(url);
    ws.binaryType = 'arraybuffer';
    socket = ws;
    const chunks = new FrameAssembler();
    ws.onopen = () => {
      open = true;
      delay = 250;
      for (const m of outbox.splice(0)) for (const f of m.frames) ws.send(f);
      for (const w of readyWaiters.splice(0)) w();
    };
    ws.onmessage = (ev) => {
      const bytes = chunks.push(new Uint8Array(ev.data as ArrayBuffer));
      if (!bytes) return;
      let msg: HostMessage;
      try {
        msg = decodeMessage(bytes, Infinity, MAX_HOST_MESSAGE_DEPTH) as HostMessage;
      } catch (err) {
        // A reply nested deeper than the host makes them (a fault, or a host other than ours) overflowed
        // the decoder's stack, and its call waited for good: it fails that call; other messages go on.
        if (!(err instanceof MessageTooDeep)) throw err;
        console.error(`PackBench host message not read: ${err.message}`);
        if (err.id === null) return;
        pending.get(err.id)?.reject(new ApiError('internal', `the host's reply is nested deeper than ${err.maxDepth} levels (lists and objects within each other); it was not read`));
        pending.delete(err.id);
        return;
      }
      if (msg.t === 'event') {
        for (const l of listeners.get(msg.event) ?? []) l(msg.payload);
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.t === 'result') p.resolve(msg.result);
      else p.reject(ApiError.fromData(msg.error as ApiErrorData));
    };
    ws.onclose = (ev) => {
      const wasOpen = open;
      open = false;
      socket = null;
      // A connection refused outright (wrong token, host gone) also fails the calls waiting for it,
      // so that the UI can say so instead of hanging; later calls wait for the next attempt.
      const reason = wasOpen
        ? `connection to the PackBench host was lost (${ev.code})`
        : 'cannot connect to the PackBench host: the token in the page URL is wrong or missing, or the host has stopped';
      for (const m of wasOpen ? [] : outbox.splice(0)) {
        pending.get(m.id)?.reject(new ApiError('unavailable', reason));
        pending.delete(m.id);
      }
      for (const p of pending.values()) p.reject(new ApiError('unavailable', reason));
      pending.clear();
      if (ev.code === 1008 || closed) return;
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  };
  connect();

  return {
    call<M extends MethodName>(method: M, params: Methods[M]['params'], callId?: number): Promise<Methods[M]['result']> {
      if (closed) return Promise.reject(closedError(method));
      const id = nextId++;
      const frames = encodeFrames({ t: 'call', id, method, params, ...(callId === undefined ? {} : { callId }) }, id);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        if (open && socket) for (const f of frames) socket.send(f);
        else outbox.push({ id, frames, method, callId });
      });
    },
    abort(callId: number): void {
      // A call still waiting for the connection is not sent at all; one sent is aborted by the host, which answers it.
      const waiting = outbox.findIndex((m) => m.callId === callId);
      if (waiting >= 0) {
        const [m] = outbox.splice(waiting, 1);
        pending.get(m.id)?.reject(cancelled(m.method));
        pending.delete(m.id);
      } else if (open && socket) socket.send(encodeMessage({ t: 'abort', callId }));
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as (p: unknown) => void);
      return () => set.delete(listener as (p: unknown) => void);
    },
    ready: () => (open ? Promise.resolve() : new Promise<void>((r) => readyWaiters.push(r))),
    close() {
      closed = true;
      socket?.close();
      readyWaiters = [];
      for (const m of outbox.splice(0)) {
        pending.get(m.id)?.reject(closedError(m.method));
        pending.delete(m.id);
      }
    },
  };
}
