/**
 * The browser's bridge to the web host (renderer/src/bridge/client.ts) reading what a host sends,
 * over a stand-in socket that answers each call with the bytes a test gives.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_HOST_MESSAGE_DEPTH, MAX_PARAMS_DEPTH } from '../../main/api';
import { decodeMessage, encodeMessage } from '../../main/wire';
import { createWsApi } from '../../renderer/src/bridge/client';

/** A whole message whose JSON is `json` as written (encodeMessage recurses, so a deep one is written as text). */
function rawMessage(json: string): Uint8Array {
  const text = new TextEncoder().encode(json);
  const bytes = new Uint8Array(4 + text.length);
  new DataView(bytes.buffer).setUint32(0, text.length, true);
  bytes.set(text, 4);
  return bytes;
}

/** A socket that opens at once and answers each call (by its id) with answer(id); what its handlers throw is kept, as a browser reports it. */
function socketAnswering(answer: (id: number) => Uint8Array) {
  const thrown: unknown[] = [];
  class AnsweringSocket {
    binaryType = '';
    onopen: (() => void) | null = null;
    onmessage: ((ev: { data: ArrayBuffer }) => void) | null = null;
    onclose: ((ev: { code: number }) => void) | null = null;
    constructor() {
      queueMicrotask(() => this.onopen?.());
    }
    send(frame: Uint8Array) {
      const { id } = decodeMessage(frame) as { id: number };
      const reply = answer(id);
      queueMicrotask(() => {
        try {
          this.onmessage?.({ data: reply.slice().buffer });
        } catch (err) {
          thrown.push(err);
        }
      });
    }
    close() {}
  }
  return { WebSocketImpl: AnsweringSocket as unknown as typeof WebSocket, thrown };
}

/** What a call's promise settled with, or 'no answer' once the socket's messages so far are handled. */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  return Promise.race([call.then((v) => ({ result: v }), (err: unknown) => err), new Promise((r) => setTimeout(() => r('no answer'), 0))]);
}

afterEach(() => vi.restoreAllMocks());

describe('the bridge reads what the host sends', () => {
  it('fails a call whose reply nests deeper than MAX_HOST_MESSAGE_DEPTH, instead of overflowing its decoder and leaving the call waiting', async () => {
    // 100,000 levels: the reviver (it recurses) overflowed the stack inside the socket's handler.
    const levels = 100_000;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { WebSocketImpl, thrown } = socketAnswering((id) => rawMessage(`{"v":{"t":"result","id":${id},"result":${'['.repeat(levels)}${']'.repeat(levels)}},"b":[]}`));
    const api = createWsApi('ws://host.invalid/api/ws', WebSocketImpl);
    expect(await outcome(api.call('runs.metricNames', {}))).toMatchObject({
      code: 'internal',
      message: `the host's reply is nested deeper than ${MAX_HOST_MESSAGE_DEPTH} levels (lists and objects within each other); it was not read`,
    });
    expect(thrown).toEqual([]);
    expect(errors).toHaveBeenCalledWith(`PackBench host message not read: message nested deeper than ${MAX_HOST_MESSAGE_DEPTH} levels`);
    api.close();
  });

  it('reads a reply that holds params as deep as the API takes them, inside its records', async () => {
    // runs.list's { runs: [{ spec: { params } }] } around params of MAX_PARAMS_DEPTH levels.
    let params: unknown = 1;
    for (let i = 0; i < MAX_PARAMS_DEPTH; i++) params = [params];
    const result = { runs: [{ spec: { engine: 'voxel', params } }] };
    const { WebSocketImpl } = socketAnswering((id) => encodeMessage({ t: 'result', id, result }));
    const api = createWsApi('ws://host.invalid/api/ws', WebSocketImpl);
    expect(await outcome(api.call('runs.list', {}))).toEqual({ result });
    api.close();
  });

  it('after close(), connects no more and fails calls at once: the ones waiting for a connection and any later one', async () => {
    // A reconnect scheduled before close() opened a socket after it (sending the waiting calls), and
    // a call made after close() waited for good.
    vi.useFakeTimers();
    try {
      let sockets = 0;
      class RefusedSocket {
        binaryType = '';
        onopen: (() => void) | null = null;
        onmessage: ((ev: { data: ArrayBuffer }) => void) | null = null;
        onclose: ((ev: { code: number }) => void) | null = null;
        constructor() {
          sockets++;
          queueMicrotask(() => this.onclose?.({ code: 1006 })); // the host is not there (yet)
        }
        send() {}
        close() {}
      }
      const api = createWsApi('ws://host.invalid/api/ws', RefusedSocket as unknown as typeof WebSocket);
      await vi.advanceTimersByTimeAsync(0); // refused: a reconnect is scheduled
      const waiting = api.call('app.info', {}).catch((err: unknown) => err);
      api.close();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(sockets).toBe(1);
      const message = 'the connection to the PackBench host was closed by this page';
      expect(await waiting).toMatchObject({ code: 'unavailable', message: `app.info: ${message}` });
      expect(await outcome(api.call('runs.list', {}))).toMatchObject({ code: 'unavailable', message: `runs.list: ${message}` });
    } finally {
      vi.useRealTimers();
    }
  });
});
