/**
 * The web host under faults, in Node (no browser): oversized, chunked and malformed frames, broken
 * requests, many heavy calls at once, a sibling runner killed with -9, a read-only runs folder.
 * After each, the host must still answer. The client is the renderer's own bridge over `ws`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, watch, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startHost, type Host } from '../../main/host/server';
import type { Services } from '../../main/services/services';
import { chunkTransfer, decodeMessage, encodeFrames, encodeMessage, MAX_FRAME_BYTES } from '../../main/wire';
import { createWsApi, type WsApi } from '../../renderer/src/bridge/client';
import { makeReadOnly } from './faults';
import { fixtureServices, largeTableRun, rejection, tempDir } from './helpers';

const t = tempDir('packbench-host-');
let services: Services;
let host: Host;
const clients: WsApi[] = [];

/** A client of the renderer's bridge (Node's `ws` behaves as a browser WebSocket here). */
function client(): WsApi {
  const api = createWsApi(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
  clients.push(api);
  return api;
}

/** A bare socket for frames the bridge would never send; resolves when open. */
function rawSocket(): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`);
  ws.on('error', () => {});
  return new Promise((ok) => ws.once('open', () => ok(ws)));
}

const closed = (ws: WebSocket) => new Promise<number>((ok) => ws.once('close', (code) => ok(code)));

function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers: { host: `127.0.0.1:${host.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const waitFor = async (what: string, ok: () => boolean, ms = 15_000) => {
  for (const t0 = Date.now(); !ok(); ) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** The host answers a fresh client. */
async function stillAnswers(): Promise<void> {
  const info = await client().call('app.info', {});
  expect(info.dataDir).toBe(t.dir);
}

/**
 * A second host on the same services that keeps what its `method` call ended with ('answered', or
 * the error), and a client socket open on it: for the calls of a client that goes.
 */
async function watchedHost(method: string): Promise<{ small: Host; ws: WebSocket; outcome: () => Promise<unknown> | undefined }> {
  let outcome: Promise<unknown> | undefined;
  const watched = { ...services, dispatch: ((m, params, signal) => {
    const call = services.dispatch(m, params, signal);
    if (m === method) outcome = call.then(() => 'answered', (err: unknown) => err);
    return call;
  }) as Services['dispatch'] };
  const small = await startHost({ services: watched, webRoot: join(t.dir, 'web') });
  const ws = new WebSocket(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`);
  ws.on('error', () => {});
  await new Promise((ok) => ws.once('open', ok));
  return { small, ws, outcome: () => outcome };
}

beforeAll(async () => {
  const webRoot = join(t.dir, 'web');
  mkdirSync(webRoot);
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><div id="app"></div>');
  services = fixtureServices(t.dir, { autoStart: true });
  host = await startHost({ services, webRoot, maxMessageBytes: 24 << 20, downloadIdleMs: 1000 });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await host?.close();
  await services?.close();
  t.cleanup();
});

describe('web host under faults', () => {
  it('closes only the connection of an oversized frame, and keeps answering', async () => {
    const ws = await rawSocket();
    const code = closed(ws);
    ws.send(new Uint8Array(2 * MAX_FRAME_BYTES + 1));
    expect(await code).toBe(1009);
    await stillAnswers();
  });

  it('survives malformed frames: text, garbage, a broken WebSocket frame', async () => {
    const text = await rawSocket();
    const textClosed = closed(text);
    text.send('hello');
    expect(await textClosed).toBe(1003);

    const garbage = await rawSocket();
    const garbageClosed = closed(garbage);
    garbage.send(Uint8Array.of(200, 0, 0, 0, 1, 2, 3)); // a JSON length past the end
    expect(await garbageClosed).toBe(1003);

    // A frame with a reserved opcode, written past the ws library onto the TCP socket.
    const broken = await rawSocket();
    const brokenClosed = closed(broken);
    (broken as unknown as { _socket: import('node:net').Socket })._socket.write(Buffer.from([0x83, 0x80, 1, 2, 3, 4]));
    expect(await brokenClosed).toBe(1002);
    await stillAnswers();
  });

  it('closes a malformed frame whose error quotes non-ASCII text with a reason cut to 123 bytes, and keeps answering', async () => {
    const ws = await rawSocket();
    const reason = new Promise<Buffer>((ok) => ws.once('close', (_code, r) => ok(r)));
    // The array index is quoted in the error: 100 two-byte characters made a 187-byte reason, and
    // ws throws past 123 bytes, out of the message handler: it ended the host's process.
    ws.send(encodeMessage({ t: 'call', id: 1, method: 'app.info', params: { x: { $typed: 'Uint8Array', $i: 'é'.repeat(100) } } }));
    const got = await reason;
    expect(got.byteLength).toBeLessThanOrEqual(123);
    expect(got.toString()).toMatch(/^message array é+$/);
    await stillAnswers();
  });

  it('closes a connection that starts more chunked messages at once than a sender has, and keeps answering', async () => {
    // Each incomplete message was kept, and each new one summed the bytes of all the others: 20,000
    // first chunks of 1-byte messages (500 kB sent) held the host's event loop 25 s, 40,000 for 110 s.
    const ws = await rawSocket();
    const outcome = new Promise<string>((ok) => {
      ws.once('close', (code, r) => ok(`${code} ${r.toString()}`));
      // A reply, not an event of this file's other tests' runs (under load one came first: 'answered').
      ws.on('message', (d: Buffer) => (decodeMessage(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)) as { t: string }).t !== 'event' && ok('answered'));
    });
    for (let transfer = 1; transfer <= 65; transfer++) {
      const first = new DataView(new ArrayBuffer(25));
      first.setUint32(0, 0xffffffff, true);
      first.setUint32(4, transfer, true);
      first.setUint32(12, 2, true); // chunk 0 of 2
      first.setFloat64(16, 1, true); // of a 1-byte message
      ws.send(first.buffer);
    }
    ws.send(encodeMessage({ t: 'call', id: 1, method: 'app.info', params: {} }));
    expect(await outcome).toBe('1003 more than 64 chunked messages arriving at once; a sender sends the chunks of one after another');
    await stillAnswers();
  });

  it('moves big messages in chunks both ways, and refuses one over the limit with an error reply', async () => {
    const api = client();
    // 20 MB of CSV-like text: five chunks up, its echo (the error message quotes nothing) small.
    const dims = 288;
    const bits = Buffer.alloc((dims ** 3) / 8, 0xff).toString('base64'); // 4 MiB of bits, 5.6 MB as text
    const shape = await api.call('shapes.create', { name: 'big block', shape: { kind: 'voxels', dims: [dims, dims, dims], bits } });
    const listed = (await api.call('shapes.list', {})).find((s) => s.id === shape.id)!;
    expect(listed.params.bits).toBe(bits);

    const tooBig = 'x'.repeat(30 << 20);
    const refused = await api.call('shapes.create', { name: tooBig, shape: { kind: 'sphere' } }).then(
      () => null,
      (err: { code: string; message: string }) => err,
    );
    expect(refused).toMatchObject({ code: 'invalid', message: expect.stringMatching(/over the limit of 25165824 bytes/) });
    // The same connection goes on.
    expect((await api.call('app.info', {})).dataDir).toBe(t.dir);
  });

  it('holds at most maxInboundBytes of client messages in all: those arriving on every connection and the calls being answered', async () => {
    // Per connection 6 MiB; in all 8 MiB. Before, each connection had its own limit and nothing
    // bounded them together, nor the calls decoded and waiting (an import waits for a heavy turn):
    // four connections each sending 400 MiB made the host hold 1 GB, and it went on growing.
    const small = await startHost({ services, webRoot: join(t.dir, 'web'), maxMessageBytes: 6 << 20, maxInboundBytes: 8 << 20 });
    let release!: () => void;
    const turns = new Promise<void>((r) => (release = r));
    const limiter = services.heavy;
    const held = Array.from({ length: limiter.slots }, () => limiter.run(() => turns));
    const run = limiter.run.bind(limiter);
    let asked = 0;
    limiter.run = (job) => (asked++, run(job));
    const a = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
    const b = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
    try {
      const raw = (n: number) => ({ fileName: 'grain.raw', header: '{}', bytes: new Uint8Array(n << 20) });
      // 5 MiB (in chunks), decoded and waiting for its heavy turn.
      const waiting = a.call('shapes.importRaw', raw(5)).catch((err: { code: string }) => err);
      await waitFor('the first call to wait for its turn', () => asked === 1);
      // 5 more MiB, from the other connection: over the 8 MiB in all.
      expect(await rejection(b.call('shapes.importRaw', raw(5)))).toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(/^message of \d+ bytes does not fit in the \d+ bytes the host has left for messages \(limit 8388608\)/),
      });
      // The other connection goes on with small calls.
      expect((await b.call('app.info', {})).dataDir).toBe(t.dir);
      release();
      expect(await waiting).toMatchObject({ code: 'invalid' }); // '{}' is no raw header: answered, and its bytes given back
      await expect(b.call('shapes.importRaw', raw(5))).rejects.toMatchObject({ code: 'invalid' });
    } finally {
      limiter.run = run;
      release();
      await Promise.all(held);
      a.close();
      b.close();
      await small.close();
    }
  });

  it('drops a chunked message not complete maxChunkedMessageMs after its first chunk, answering its call, so that it does not hold maxInboundBytes for good', async () => {
    // One first chunk (25 bytes) of a 6 MiB message counted 6 MiB of the 8 MiB in all until its
    // connection closed: every other client's larger call was answered 'unavailable' meanwhile.
    const small = await startHost({ services, webRoot: join(t.dir, 'web'), maxMessageBytes: 6 << 20, maxInboundBytes: 8 << 20, maxChunkedMessageMs: 800 });
    const stalled = new WebSocket(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`);
    stalled.on('error', () => {});
    const b = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
    try {
      // Both connected first: the call below reaches the host well within the 800 ms.
      await Promise.all([new Promise((ok) => stalled.once('open', ok)), b.ready()]);
      const replies: { t: string; id?: number; error?: { code: string; message: string } }[] = [];
      stalled.on('message', (d: Buffer) => replies.push(decodeMessage(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)) as (typeof replies)[number]));
      const first = new DataView(new ArrayBuffer(25));
      first.setUint32(0, 0xffffffff, true);
      first.setUint32(4, 7, true); // the call id
      first.setUint32(12, 2, true); // chunk 0 of 2
      first.setFloat64(16, 6 << 20, true); // of a 6 MiB message
      stalled.send(first.buffer);
      const raw = { fileName: 'grain.raw', header: '{}', bytes: new Uint8Array(5 << 20) };
      expect(await rejection(b.call('shapes.importRaw', raw))).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^message of \d+ bytes does not fit/) });
      await waitFor('the stalled call to be answered', () => replies.some((r) => r.t === 'error'), 3000);
      expect(replies.find((r) => r.t === 'error')).toMatchObject({
        id: 7,
        error: { code: 'unavailable', message: 'chunked message not complete 800 ms after its first chunk (limit maxChunkedMessageMs): dropped; send it again' },
      });
      // Its room is given back: the same call is taken now ('{}' is no raw header).
      expect(await rejection(b.call('shapes.importRaw', raw))).toMatchObject({ code: 'invalid' });
      // Its last chunk, arriving late, is dropped quietly; the connection goes on.
      const last = new DataView(new ArrayBuffer(25));
      last.setUint32(0, 0xffffffff, true);
      last.setUint32(4, 7, true);
      last.setUint32(8, 1, true);
      last.setUint32(12, 2, true);
      last.setFloat64(16, 6 << 20, true);
      stalled.send(last.buffer);
      stalled.send(encodeMessage({ t: 'call', id: 8, method: 'app.info', params: {} }));
      await waitFor('the next call to be answered', () => replies.some((r) => r.t === 'result'), 3000);
      expect(replies.filter((r) => r.t !== 'event').map((r) => `${r.t} ${r.id}`)).toEqual(['error 7', 'result 8']);
    } finally {
      stalled.terminate();
      b.close();
      await small.close();
    }
  });

  it('refuses a message of more JSON values than a call needs before parsing it (each is tens of bytes of memory)', async () => {
    // 1.1 million empty objects: 3.3 MB of JSON made about 200 MB of objects and seconds of parsing,
    // and a 200 MB message of them held the host's event loop for minutes at 6 GB.
    const values = Array.from({ length: 1_100_000 }, () => ({}));
    const api = client();
    expect(await rejection(api.call('runs.validate', { spec: { engine: 'counter', name: 'many', seed: 1, params: { values, pad: 'x'.repeat(2 << 20) } } }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^message of more than 1000000 JSON values/),
    });
    expect((await api.call('app.info', {})).dataDir).toBe(t.dir);
    // A whole frame (no call id is read from it): its connection is closed with the reason.
    const ws = await rawSocket();
    const reason = new Promise<string>((ok) => ws.once('close', (_code, r) => ok(r.toString())));
    ws.send(encodeMessage({ t: 'call', id: 1, method: 'app.info', params: { values } }));
    expect(await reason).toMatch(/^message of more than 1000000 JSON values/);
    await stillAnswers();
  });

  /**
   * A host whose shapes.list answers 2.8 MB (a 256³ voxel shape as text), counting the calls it has
   * answered, and clients that read nothing (a frozen tab): the set-up of the unread-bytes limits.
   */
  async function unreadBlockHost(limits: Pick<Parameters<typeof startHost>[0], 'maxBufferedBytes' | 'maxBufferedTotalBytes'>) {
    const dims = 256;
    const bits = Buffer.alloc((dims ** 3) / 8, 0xff).toString('base64');
    const block = await services.dispatch('shapes.create', { name: 'unread block', shape: { kind: 'voxels', dims: [dims, dims, dims], bits } });
    let answered = 0;
    const counted = { ...services, dispatch: (async (method, params) => {
      try {
        return await services.dispatch(method, params);
      } finally {
        answered++;
      }
    }) as Services['dispatch'] };
    const small = await startHost({ services: counted, webRoot: join(t.dir, 'web'), ...limits });
    return {
      answered: () => answered,
      frozenClient: async () => {
        const ws = new WebSocket(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`);
        ws.on('error', () => {});
        await new Promise((ok) => ws.once('open', ok));
        const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket;
        socket.pause();
        return { ws, socket };
      },
      close: async () => {
        await small.close();
        await services.dispatch('shapes.delete', { id: block.id });
      },
    };
  }

  it('cuts off a client that stops reading once its unread messages pass maxBufferedBytes, with the reason', async () => {
    const { answered, frozenClient, close } = await unreadBlockHost({ maxBufferedBytes: 8 << 20 });
    try {
      const { ws, socket } = await frozenClient();
      const calls = 40; // 110 MB of replies
      for (let id = 1; id <= calls; id++) ws.send(encodeMessage({ t: 'call', id, method: 'shapes.list', params: {} }));
      await waitFor('the calls to be answered', () => answered() === calls);
      await new Promise((r) => setTimeout(r, 50));
      let replies = 0;
      const close = new Promise<{ code: number; reason: string } | null>((ok) => {
        ws.once('close', (code, reason) => ok({ code, reason: reason.toString() }));
        ws.on('message', () => ++replies === calls && ok(null)); // every reply: the host kept them all
      });
      socket.resume();
      expect(await close).toMatchObject({ code: 1013, reason: expect.stringMatching(/^client too far behind: \d+ bytes sent and not read \(limit 8388608\)$/) });
      expect(replies).toBeLessThan(calls);
    } finally {
      await close();
    }
    await stillAnswers();
  });

  it('drops the client furthest behind once the unread bytes of all clients together pass maxBufferedTotalBytes', async () => {
    // Each client under its own limit (64 MiB), four together over 16 MiB: before, nothing bounded
    // them together, and n frozen tabs held n times the per-connection limit.
    const { answered, frozenClient, close } = await unreadBlockHost({ maxBufferedBytes: 64 << 20, maxBufferedTotalBytes: 16 << 20 });
    try {
      const sockets = await Promise.all(Array.from({ length: 4 }, frozenClient));
      const calls = 4; // 11 MB of replies each
      for (const { ws } of sockets) for (let id = 1; id <= calls; id++) ws.send(encodeMessage({ t: 'call', id, method: 'shapes.list', params: {} }));
      await waitFor('the calls to be answered', () => answered() === calls * sockets.length);
      await new Promise((r) => setTimeout(r, 50));
      const ends = sockets.map(({ ws, socket }) => {
        let replies = 0;
        const end = new Promise<'all' | 'dropped'>((ok) => {
          ws.on('message', () => ++replies === calls && ok('all'));
          ws.once('close', () => ok(replies === calls ? 'all' : 'dropped'));
        });
        socket.resume();
        return end;
      });
      const outcome = await Promise.all(ends);
      expect(outcome.filter((o) => o === 'dropped').length).toBeGreaterThanOrEqual(1);
    } finally {
      await close();
    }
    await stillAnswers();
  });

  it('holds at most maxConnections sockets, so that connections without the token cannot take every file descriptor', async () => {
    // At the usual 1024 descriptors, 1,000 sockets sending half a request head (no token needed, each
    // held until Node's headersTimeout) made the host stop answering its own app: runs.enqueue from a
    // connected client got no answer in 60 s.
    const small = await startHost({ services, webRoot: join(t.dir, 'web'), maxConnections: 4 });
    const api = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
    const sockets: import('node:net').Socket[] = [];
    try {
      await api.ready();
      let closed = 0;
      for (let i = 0; i < 5; i++) {
        const socket = connect(small.port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => {});
        socket.once('close', () => closed++);
        socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${small.port}\r\n`); // and nothing more
      }
      // The app's connection and three others are kept; two are closed at once.
      await waitFor('two sockets to be closed', () => closed >= 2);
      expect(closed).toBe(2);
      expect((await api.call('app.info', {})).dataDir).toBe(t.dir);
    } finally {
      for (const socket of sockets) socket.destroy();
      api.close();
      await small.close();
    }
  });

  it('closes a WebSocket upgrade it refuses (wrong token) once answered, so that clients keeping their side open cannot take every connection', async () => {
    // The 401 only half-closed the socket: a client that never closed its side (no token needed)
    // held it for good, and maxConnections of them shut out the app's own connection.
    const small = await startHost({ services, webRoot: join(t.dir, 'web'), maxConnections: 3 });
    const sockets: import('node:net').Socket[] = [];
    let api: WsApi | undefined;
    try {
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) {
        const socket = connect({ port: small.port, host: '127.0.0.1', allowHalfOpen: true });
        sockets.push(socket);
        let answer = '';
        socket.on('error', () => {});
        socket.on('data', (d: Buffer) => (answer += d.toString()));
        socket.once('end', () => answers.push(answer.split('\r\n')[0]));
        socket.write(`GET /api/ws?token=wrong HTTP/1.1\r\nhost: 127.0.0.1:${small.port}\r\nconnection: upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
      }
      await waitFor('the three refusals', () => answers.length === 3, 5000);
      expect(answers).toEqual(Array(3).fill('HTTP/1.1 401 Unauthorized'));
      // The three refused sockets still open on the client's side, the app connects and is answered.
      api = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
      const answer = api.call('app.info', {}).then((info) => info.dataDir, (err: Error) => err.message);
      expect(await Promise.race([answer, new Promise((r) => setTimeout(() => r('no answer in 5 s'), 5000))])).toBe(t.dir);
    } finally {
      for (const socket of sockets) socket.destroy();
      api?.close();
      await small.close();
    }
  });

  it('closes a connection with more than MAX_PIPELINED_REQUESTS requests waiting for their answers, so that a client reading none cannot fill the memory', async () => {
    // Each pipelined request's answer was started while the ones before it waited for a client that
    // read nothing: 100 kB of index.html each, 2.4 GB held after 10 s of such requests (no token needed).
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const socket = connect(host.port, '127.0.0.1');
    try {
      socket.on('error', () => {});
      const gone = new Promise((ok) => {
        socket.once('close', () => ok('closed'));
        setTimeout(() => ok('still open after 5 s'), 5000);
      });
      socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${host.port}\r\n\r\n`.repeat(50)); // and reads nothing
      expect(await gone).toBe('closed');
      expect(warn.mock.calls).toEqual([['web host: connection closed: more than 8 requests sent on it and not answered in full (limit MAX_PIPELINED_REQUESTS); a browser sends one at a time']]);
      await stillAnswers();
    } finally {
      socket.destroy();
      warn.mockRestore();
    }
  });

  it('abandons an export under way when its client has gone: the call ends there, its files go, nothing is sent or logged', async () => {
    // 600,000 rows: a CSV of seconds. Before, a closed tab's export ran to its end and its 30 MB
    // were read into memory for a socket that was gone, holding a heavy turn meanwhile.
    const id = largeTableRun(services, t.dir, 'abandoned', 600_000, 997);
    const { small, ws, outcome } = await watchedHost('runs.export');
    const errors = vi.spyOn(console, 'error');
    try {
      ws.send(encodeMessage({ t: 'call', id: 1, method: 'runs.export', params: { id, format: 'csv' } }));
      // Under way: its first rows are in its file.
      let folder = '';
      const written = () => {
        folder = readdirSync(t.dir).find((name) => name.startsWith('tmp-export-') && readdirSync(join(t.dir, name)).some((file) => statSync(join(t.dir, name, file)).size > 0)) ?? '';
        return folder !== '';
      };
      await waitFor('the export to write its first rows', written);
      ws.terminate(); // the tab dropped
      expect(await outcome()).toMatchObject({ code: 'unavailable', message: 'runs.export was abandoned: the client that asked has gone' });
      expect(existsSync(join(t.dir, folder))).toBe(false);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
      await small.close();
    }
    await stillAnswers();
  });

  it("stops checking a large sweep once its client has gone: the points after the close are not checked, nothing is logged", async () => {
    // 10,000 points (the most a sweep has) of the counter engine: before, a closed tab's check went
    // through every point (a voxel sweep's take seconds of the host's thread in turns, then its
    // workers' cross-field checks).
    const total = 10_000;
    const { small, ws, outcome } = await watchedHost('runs.validate');
    const real = services.registry.parseParams.bind(services.registry);
    const parse = vi.spyOn(services.registry, 'parseParams').mockImplementation((...args) => {
      if (parse.mock.calls.length === 1) ws.terminate(); // the tab dropped while its first point is checked
      return real(...args);
    });
    const errors = vi.spyOn(console, 'error');
    try {
      ws.send(encodeMessage({ t: 'call', id: 1, method: 'runs.validate', params: { spec: { engine: 'counter', name: 'sweep', params: { steps: { $sweep: { from: 1, to: total, steps: total } } } } } }));
      await waitFor('the check to begin', () => outcome() !== undefined);
      expect(await outcome()).toMatchObject({ code: 'unavailable', message: 'runs.validate was abandoned: the client that asked has gone' });
      expect(parse.mock.calls.length).toBeLessThan(total);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
      errors.mockRestore();
      await small.close();
    }
    await stillAnswers();
  });

  it('sends a large reply a frame a turn: a call answered meanwhile on another connection goes out between its frames', async () => {
    // Four frames of 4 MiB: before, every frame of a reply was made and handed to the socket in one
    // turn (a 256 MiB export copied twice, 150-300 ms of every client waiting).
    const big = new Uint8Array(3 * MAX_FRAME_BYTES).fill(7);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let waiting = 0;
    const gated = { ...services, dispatch: (async (method, params) => {
      waiting++;
      await gate;
      return method === 'runs.export' ? { fileName: 'big.bin', mime: 'application/octet-stream', bytes: big } : services.dispatch(method, params);
    }) as Services['dispatch'] };
    const small = await startHost({ services: gated, webRoot: join(t.dir, 'web') });
    const a = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
    const b = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
    // What the host sends once both calls wait: the reply's chunk frames, and app.info's answer.
    const sent: string[] = [];
    let recording = false;
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, ...args: Parameters<typeof send>) {
      const frame = args[0] as Uint8Array;
      if (recording) sent.push(chunkTransfer(frame) !== null ? 'chunk' : (decodeMessage(frame) as { t: string }).t);
      return send.apply(this, args);
    } as typeof send;
    try {
      const exported = a.call('runs.export', { id: 'any', format: 'json' });
      const info = b.call('app.info', {});
      await waitFor('both calls to wait in the host', () => waiting === 2);
      recording = true;
      release();
      expect((await exported).bytes.byteLength).toBe(big.byteLength);
      expect((await info).dataDir).toBe(t.dir);
      expect(sent.filter((s) => s === 'chunk')).toHaveLength(4);
      expect(sent.indexOf('result')).toBeGreaterThan(-1);
      expect(sent.indexOf('result')).toBeLessThan(sent.lastIndexOf('chunk'));
    } finally {
      WebSocket.prototype.send = send;
      a.close();
      b.close();
      await small.close();
    }
  });

  it('answers a call whose reply cannot be sent with an error saying so, instead of leaving it waiting for good', async () => {
    // A 140 MB unknown field name is quoted four times in its refusal: past the longest string V8
    // makes, the reply failed to encode, was only logged, and the call never ended. A value the
    // codec refuses (a DataView) stands for it here.
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const unsendable = { ...services, dispatch: ((method, params) => (method === 'runs.metricNames' ? Promise.resolve(new DataView(new ArrayBuffer(4))) : services.dispatch(method, params))) as Services['dispatch'] };
    const small = await startHost({ services: unsendable, webRoot: join(t.dir, 'web') });
    try {
      const api = createWsApi(`ws://127.0.0.1:${small.port}/api/ws?token=${small.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
      let outcome: unknown = 'no reply';
      const call = api.call('runs.metricNames', {}).catch((err: unknown) => (outcome = err));
      // Replies leave in order: once the next call is answered, the first one's has come.
      await api.call('app.info', {});
      expect(outcome).toMatchObject({ code: 'internal', message: 'the reply to runs.metricNames cannot be sent: cannot send a [object DataView] over the API' });
      await call;
      api.close();
      expect(errors).toHaveBeenCalledWith('web host: cannot send the result of runs.metricNames:', expect.any(TypeError));
    } finally {
      errors.mockRestore();
      await small.close();
    }
  });

  it('answers a call nested deeper than MAX_PARAMS_DEPTH with an error naming the limit, and keeps the connection', async () => {
    // 2,000 levels overflowed the stack of the message's reviver: the connection was closed with
    // "Maximum call stack size exceeded". Written as text: encodeMessage recurses too.
    const ws = await rawSocket();
    const replies: { t: string; id: number; error?: { code: string; message: string } }[] = [];
    ws.on('message', (d: Buffer) => replies.push(decodeMessage(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)) as (typeof replies)[number]));
    for (const [id, deep] of [[1, 2_000], [2, 100_000]]) {
      const json = Buffer.from(`{"v":{"t":"call","id":${id},"method":"runs.validate","params":{"spec":${'['.repeat(deep)}${']'.repeat(deep)}}},"b":[]}`);
      const preamble = Buffer.alloc(4);
      preamble.writeUInt32LE(json.length);
      ws.send(Buffer.concat([preamble, json]));
    }
    // In chunks: the call's id comes with its frames.
    let deep: unknown = [];
    for (let i = 0; i < 100; i++) deep = [deep];
    for (const f of encodeFrames({ t: 'call', id: 3, method: 'runs.validate', params: { spec: deep } }, 3, 256)) ws.send(f);
    ws.send(encodeMessage({ t: 'call', id: 4, method: 'app.info', params: {} }));
    await waitFor('four replies', () => replies.length === 4);
    for (const id of [1, 2, 3]) {
      expect(replies.find((m) => m.id === id)).toMatchObject({ t: 'error', error: { code: 'invalid', message: expect.stringMatching(/^params nested deeper than 64 levels/) } });
    }
    expect(replies.find((m) => m.id === 4)).toMatchObject({ t: 'result' });
    ws.close();
  });

  it('aborts one call of a client when its renderer says so: a sphere import stops mid-way, answers cancelled, stores nothing', async () => {
    // Before, no call could be aborted: History's Cancel closed its panel and the import went on to store its run.
    const rows = ['x,y,z,r'];
    for (let i = 0; i < 20_000; i++) rows.push(`${(i % 25) + 0.5},${(Math.floor(i / 25) % 25) + 0.5},${Math.floor(i / 625) + 0.5},0.5`);
    const api = client();
    const before = (await api.call('runs.list', {})).total;
    const progress: number[] = [];
    const off = api.on('import.progress', (p) => {
      if (p.name !== 'to cancel') return;
      progress.push(p.fraction);
      if (progress.length === 1) api.abort(7); // under way in its worker
    });
    try {
      const outcome = await rejection(api.call('runs.importSpheres', { name: 'to cancel', csv: rows.join('\n') }, 7));
      expect(outcome).toMatchObject({ code: 'cancelled', message: 'runs.importSpheres was cancelled' });
      expect(progress.length).toBeGreaterThan(0);
      expect((await api.call('runs.list', {})).total).toBe(before);
      expect((await api.call('runs.list', { filter: { text: 'to cancel' } })).total).toBe(0);
      // The same callId is free again; an abort of a call that has finished is ignored.
      expect((await api.call('app.info', {}, 7)).dataDir).toBe(t.dir);
      api.abort(7);
      expect((await api.call('app.info', {}, 7)).dataDir).toBe(t.dir);
      // A call still waiting for its connection is dropped by the client: never sent, cancelled.
      const fresh = client();
      const waiting = fresh.call('runs.importSpheres', { name: 'to cancel', csv: rows.join('\n') }, 1);
      fresh.abort(1);
      expect(await rejection(waiting)).toMatchObject({ code: 'cancelled', message: 'runs.importSpheres was cancelled' });
      await fresh.ready();
      expect((await fresh.call('runs.list', { filter: { text: 'to cancel' } })).total).toBe(0);
    } finally {
      off();
    }
  });

  it('abandons a call its renderer could abort once its socket closes mid-way: a sphere import under way is abandoned and stores nothing', async () => {
    // The call has a callId, so its signal is the socket's and its own together (main/calls.ts).
    const rows = ['x,y,z,r'];
    for (let i = 0; i < 20_000; i++) rows.push(`${(i % 25) + 0.5},${(Math.floor(i / 25) % 25) + 0.5},${Math.floor(i / 625) + 0.5},0.5`);
    const before = (await services.dispatch('runs.list', {})).total;
    const { small, ws, outcome } = await watchedHost('runs.importSpheres');
    const progress: number[] = [];
    const off = services.events.on('import.progress', (p) => {
      if (p.name !== 'socket closed') return;
      progress.push(p.fraction);
      if (progress.length === 1) ws.terminate(); // the tab dropped while its worker parses
    });
    try {
      ws.send(encodeMessage({ t: 'call', id: 1, method: 'runs.importSpheres', params: { name: 'socket closed', csv: rows.join('\n') }, callId: 3 }));
      await waitFor('the import to start', () => outcome() !== undefined);
      expect(await outcome()).toMatchObject({ code: 'unavailable', message: 'runs.importSpheres was abandoned: the client that asked has gone' });
      expect(progress.length).toBeGreaterThan(0);
      expect((await services.dispatch('runs.list', {})).total).toBe(before);
      expect((await services.dispatch('runs.list', { filter: { text: 'socket closed' } })).total).toBe(0);
    } finally {
      off();
      await small.close();
    }
    await stillAnswers();
  });

  it('refuses a malformed abort or callId without harm to the host: a bad callId answers its call, a bad abort closes only its connection', async () => {
    const ws = await rawSocket();
    const replies: { t: string; id: number; error?: { code: string; message: string } }[] = [];
    ws.on('message', (d: Buffer) => replies.push(decodeMessage(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)) as (typeof replies)[number]));
    ws.send(encodeMessage({ t: 'abort', callId: 99 })); // no call under way has it: ignored
    ws.send(encodeMessage({ t: 'call', id: 1, method: 'app.info', params: {}, callId: -1 }));
    ws.send(encodeMessage({ t: 'call', id: 2, method: 'app.info', params: {}, callId: 'x' }));
    ws.send(encodeMessage({ t: 'call', id: 3, method: 'app.info', params: {}, callId: 3 }));
    await waitFor('three replies', () => replies.length === 3);
    for (const id of [1, 2]) expect(replies.find((m) => m.id === id)).toMatchObject({ t: 'error', error: { code: 'invalid', message: expect.stringContaining('callId: must be a whole number') } });
    expect(replies.find((m) => m.id === 3)).toMatchObject({ t: 'result' });
    for (const callId of ['__proto__', 1.5, null, 0]) {
      const bad = await rawSocket();
      const code = closed(bad);
      bad.send(encodeMessage({ t: 'abort', callId }));
      expect(await code).toBe(1003);
    }
    const noId = await rawSocket();
    const code = closed(noId);
    noId.send(encodeMessage({ t: 'abort' }));
    expect(await code).toBe(1003);
    ws.close();
    await stillAnswers();
  });

  it('answers an undecodable call with an error naming it, not a crash', async () => {
    const ws = await rawSocket();
    const reply = new Promise<Buffer>((ok) => ws.once('message', (d) => ok(d as Buffer)));
    ws.send(encodeMessage({ t: 'call', id: 5, method: 'runs.get', params: { id: 42 } }));
    const msg = decodeMessage(new Uint8Array(await reply)) as { t: string; id: number; error: { code: string } };
    expect(msg).toMatchObject({ t: 'error', id: 5, error: { code: 'invalid' } });
    ws.close();
  });

  it('download route: checks Origin, gives 400 for malformed escapes, queues 20 STL exports two at a time', async () => {
    const api = client();
    const { runIds } = await api.call('runs.enqueue', { spec: { engine: 'counter', name: 'to export', seed: 1, params: { steps: 3, stepMs: 0, volume: true } } });
    await waitFor('the run to finish', () => services.store.getSummary(runIds[0])?.status === 'done');
    const path = `/api/runs/${runIds[0]}/export?format=stl-particles&token=${host.token}`;
    expect((await rawGet(path, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawGet(path, { origin: `http://127.0.0.1:${host.port}` })).status).toBe(200);
    expect((await rawGet(`/api/runs/%E0%A4%A/export?format=stl-particles&token=${host.token}`)).status).toBe(400);
    expect((await rawGet('/%E0%A4%A')).status).toBe(400);

    const limiter = services.heavy;
    const run = limiter.run.bind(limiter);
    let inFlight = 0, peak = 0, calls = 0;
    limiter.run = (job) => run(async () => {
      calls++;
      peak = Math.max(peak, ++inFlight);
      try {
        return await job();
      } finally {
        inFlight--;
      }
    });
    try {
      const results = await Promise.all(Array.from({ length: 20 }, () => rawGet(path)));
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    } finally {
      limiter.run = run;
    }
    expect(calls).toBe(20);
    expect(peak).toBe(limiter.slots);
    await stillAnswers();
  });

  it('download route: answers HEAD with the headers of the download without making the export', async () => {
    const api = client();
    const { runIds } = await api.call('runs.enqueue', { spec: { engine: 'counter', name: 'head', seed: 2, params: { steps: 2, stepMs: 0, volume: true } } });
    await waitFor('the run to finish', () => services.store.getSummary(runIds[0])?.status === 'done');
    const limiter = services.heavy;
    const run = limiter.run.bind(limiter);
    let exports = 0;
    limiter.run = (job) => (exports++, run(job));
    try {
      const ask = (method: string, query: string) =>
        new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
          const req = request({ method, host: '127.0.0.1', port: host.port, path: `/api/runs/${runIds[0]}/export?${query}&token=${host.token}`, headers: { host: `127.0.0.1:${host.port}` } }, (res) => {
            let body = '';
            res.setEncoding('latin1').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          });
          req.on('error', reject);
          req.end();
        });
      const head = await ask('HEAD', 'format=raw');
      expect(head.status).toBe(200);
      expect(head.headers).toMatchObject({ 'content-type': 'application/x-tar', 'content-disposition': `attachment; filename="head-${runIds[0]}.labels.raw.tar"` });
      expect(head.body).toBe('');
      expect((await ask('HEAD', 'format=nope')).status).toBe(400);
      // A format the run has no data for: the GET's 409, read from the run's artifact records.
      expect((await ask('HEAD', 'format=heightmap-tiff')).status).toBe(409);
      expect(exports).toBe(0);
      // The GET makes it, under the same name and type.
      const got = await ask('GET', 'format=raw');
      expect(got.status).toBe(200);
      expect(got.headers).toMatchObject({ 'content-type': head.headers['content-type'], 'content-disposition': head.headers['content-disposition'] });
      expect(got.body.length).toBe(Number(got.headers['content-length']));
      expect(exports).toBe(1);
      expect((await ask('GET', 'format=heightmap-tiff')).status).toBe(409);
    } finally {
      limiter.run = run;
    }
  });

  it('drops a download whose client stopped reading, so that it does not hold an export turn for good', async () => {
    const api = client();
    const { runIds } = await api.call('runs.enqueue', { spec: { engine: 'counter', name: 'big volume', seed: 5, params: { steps: 1, stepMs: 0, volume: true, volumeDepth: 150_000 } } });
    await waitFor('the run to finish', () => services.store.getSummary(runIds[0])?.status === 'done');
    // As many as there are turns: each asks for the 29 MB raw volume and reads nothing (a paused browser download).
    const stalled = Array.from({ length: services.heavy.slots }, () => {
      const socket = connect(host.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.pause();
      socket.write(`GET /api/runs/${runIds[0]}/export?format=raw&token=${host.token} HTTP/1.1\r\nhost: 127.0.0.1:${host.port}\r\n\r\n`);
      return socket;
    });
    try {
      // Each holds a turn from making its export (in a tmp-export folder) to the end of its download.
      await waitFor('the stalled downloads to take every turn', () => readdirSync(t.dir).filter((n) => n.startsWith('tmp-export-')).length === stalled.length);
      // Waited for the stalled ones for good before.
      const exported = await Promise.race([api.call('runs.export', { id: runIds[0], format: 'json' }), new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
      expect(exported?.fileName ?? 'no answer within 10 s').toMatch(/\.json$/);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });

  it('makes no export for a download whose client left while it waited for its turn', async () => {
    const api = client();
    const { runIds } = await api.call('runs.enqueue', { spec: { engine: 'counter', name: 'left', seed: 6, params: { steps: 1, stepMs: 0, volume: true, volumeDepth: 150_000 } } });
    await waitFor('the run to finish', () => services.store.getSummary(runIds[0])?.status === 'done');
    const get = (format: string) => {
      const socket = connect(host.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`GET /api/runs/${runIds[0]}/export?format=${format}&token=${host.token} HTTP/1.1\r\nhost: 127.0.0.1:${host.port}\r\n\r\n`);
      return socket;
    };
    const exportDirs = () => readdirSync(t.dir).filter((n) => n.startsWith('tmp-export-'));
    // Every turn held by a download that reads nothing (dropped after downloadIdleMs).
    const stalled = Array.from({ length: services.heavy.slots }, () => get('raw').pause());
    await waitFor('the stalled downloads to take every turn', () => exportDirs().length === stalled.length);
    const held = new Set(exportDirs());
    const made = new Set<string>(); // export folders made from here on
    const watcher = watch(t.dir, (_event, name) => name?.startsWith('tmp-export-') && !held.has(name) && made.add(name));
    try {
      // Three clicks on the download link, each cancelled in the browser while it waits.
      const left = ['raw', 'vti', 'json'].map(get);
      await new Promise((r) => setTimeout(r, 200));
      for (const socket of left) socket.destroy();
      // Queued behind them: once it is answered, their turns have come.
      const exported = await api.call('runs.export', { id: runIds[0], format: 'csv' });
      expect(exported.fileName).toMatch(/\.csv$/);
    } finally {
      watcher.close();
      for (const socket of stalled) socket.destroy();
    }
    expect(made.size).toBe(1); // runs.export's own
  });

  it('on port 80, takes the Host and Origin a browser sends there: without the port', async (ctx) => {
    const on80 = await startHost({ services, webRoot: join(t.dir, 'web'), port: 80 }).catch(() => null);
    if (!on80) return ctx.skip(); // port 80 taken, or not ours to bind
    try {
      const get = (host: string, origin?: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: 80, path: `/api/runs/none/export?format=json&token=${on80.token}`, headers: { host, ...(origin ? { origin } : {}) } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await get('127.0.0.1', 'http://127.0.0.1')).toBe(404); // no such run: past the Host, Origin and token checks
      expect(await get('localhost', 'http://localhost')).toBe(404);
      expect(await get('127.0.0.1:80')).toBe(404);
      expect(await get('evil.example')).toBe(421);
      const api = createWsApi(`ws://127.0.0.1/api/ws?token=${on80.token}`, WebSocket as unknown as typeof globalThis.WebSocket);
      try {
        expect((await api.call('app.info', {})).dataDir).toBe(t.dir);
      } finally {
        api.close(); // before its host goes: it would try to reconnect to a closed port
      }
    } finally {
      await on80.close();
    }
  });

  it('answers a request whose target is not a URL with 400, not 500', async () => {
    const statusLine = await new Promise<string>((resolve, reject) => {
      const socket = connect(host.port, '127.0.0.1');
      let text = '';
      socket.setEncoding('latin1').on('data', (c) => (text += c)).on('end', () => resolve(text.split('\r\n')[0])).on('error', reject);
      socket.end(`GET http://[::1 HTTP/1.1\r\nhost: 127.0.0.1:${host.port}\r\nconnection: close\r\n\r\n`);
    });
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    await stillAnswers();
  });

  it('re-queues within seconds the runs of a sibling runner killed with -9, and runs them', async () => {
    services.queue.pause();
    const { runIds } = await services.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'sibling', seed: 2, params: { steps: 3, stepMs: 0 } } });
    const sibling = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const origin = services.queue.origin(1);
      expect(services.store.claim(runIds[0], { ...origin, owner: `${hostname()}:${sibling.pid}` })).toBe(true);
      services.queue.resume();
      // While the sibling lives, its run is left alone (for five polls of the queue, 100 ms each here).
      await new Promise((r) => setTimeout(r, 500));
      expect(services.store.getSummary(runIds[0])!.status).toBe('running');
    } finally {
      sibling.kill('SIGKILL');
    }
    await new Promise((r) => sibling.once('exit', r));
    await waitFor('the host to re-queue and run it', () => services.store.getSummary(runIds[0])?.status === 'done', 10_000);
    expect(services.store.getRun(runIds[0])!.log.join('\n')).toMatch(/interrupted: the process running it ended/);
    await stillAnswers();
  });

  it('fails a run whose folder cannot be written, with the message, and goes on with the queue', async (ctx) => {
    const runs = join(t.dir, 'runs');
    const restore = makeReadOnly(runs);
    if (!restore) return ctx.skip();
    let failedId: string;
    try {
      const { runIds } = await services.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'read-only', seed: 3, params: { steps: 2, stepMs: 0 } } });
      failedId = runIds[0];
      await waitFor('the run to fail', () => services.store.getSummary(failedId)?.status === 'failed');
      await stillAnswers();
    } finally {
      restore();
    }
    expect(services.store.getSummary(failedId)!.error).toMatch(/^could not start: .*mkdir '.*runs/);
    const { runIds } = await services.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'after', seed: 4, params: { steps: 2, stepMs: 0 } } });
    await waitFor('the next run to finish', () => services.store.getSummary(runIds[0])?.status === 'done');
  });
});
