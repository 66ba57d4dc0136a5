/**
 * The web host: serves the built renderer (out/web) and the same API as the Electron preload over
 * a WebSocket, so the whole app runs in a browser (and is tested in Chromium without Electron).
 *
 * Security: listens on 127.0.0.1 only; every API access (WebSocket, download route) needs the
 * random token printed with the URL; Host and Origin must be this host (no DNS rebinding, no
 * cross-site WebSocket); a strict Content-Security-Policy on every page.
 *
 * Faults: nothing a client sends may stop the host. Socket errors are handled per connection; a
 * frame over the size limit or a malformed one closes only its connection; a chunked message over
 * the limit (main/wire.ts) is refused with an error reply to its call; a client that stops reading
 * is cut off once maxBufferedBytes wait for it, and once the unread bytes of all clients together
 * pass maxBufferedTotalBytes, the one furthest behind is dropped. A connection that closes (a closed
 * tab, a dropped socket) aborts the signal of its calls: an export under way stops where it is; a
 * renderer may also abort one call it gave a callId ({ t: 'abort', callId }, main/calls.ts).
 *
 * Memory: what clients send is bounded in all, not only per connection: the messages arriving (in
 * chunks) and the calls being answered, on every connection together, hold at most maxInboundBytes
 * (a call counts its message, and at least CALL_BYTES); past it a call is answered 'unavailable'.
 * A chunked message counts its whole length from its first chunk, and is dropped (its call answered
 * 'unavailable') when not complete maxChunkedMessageMs later, so that one never finished holds nothing for good.
 * A message of more than MAX_PARAMS_VALUES JSON values is refused before it is parsed. Before the
 * token is checked a connection holds only its request head (Node's 16 KiB, until headersTimeout):
 * an upgrade with a wrong token is answered 401 and closed without reading a frame. At most
 * maxConnections sockets are held; later ones are closed at once, so that sockets opened without the
 * token cannot take the file descriptors the host needs for its runs and database.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError, isMethodName, MAX_PARAMS_DEPTH, MAX_PARAMS_VALUES, paramsTooDeep, unknownMethod } from '../api';
import type { Services } from '../services/services';
import { exportHeaders, MAX_API_EXPORT_BYTES, withExport } from '../services/handlers';
import { nextTurn } from '../services/turns';
import { chunkTransfer, decodeMessage, FrameAssembler, MAX_FRAME_BYTES, MessageTooDeep, messageFrames, TransferRefused, type CallMessage, type ClientMessage, type HostMessage } from '../wire';
import { contentSecurityPolicy } from '../security';
import { ClientCalls } from '../calls';

export interface HostOptions {
  services: Services;
  /** Folder of the built renderer (index.html + assets); default out/web of the project. */
  webRoot?: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string;
  /** Largest message a client may send (in chunks); default 512 MiB, about the longest string V8 makes. */
  maxMessageBytes?: number;
  /** Bytes of client messages held at once over all connections (arriving, or being answered); default 1 GiB. */
  maxInboundBytes?: number;
  /**
   * A chunked message not complete this long after its first chunk is dropped and its call answered
   * 'unavailable'; default 120 s (a sender writes the chunks one after another: 512 MiB cross
   * localhost in seconds).
   */
  maxChunkedMessageMs?: number;
  /**
   * Sockets held at once (a browser tab takes one WebSocket and up to 6 HTTP connections); more are
   * closed as they come; default 256, a quarter of the usual 1024 file descriptors.
   */
  maxConnections?: number;
  /** A download whose client takes no bytes for this long is dropped; default 60 s. */
  downloadIdleMs?: number;
  /** A WebSocket client with more than this many bytes sent to it and not yet read is cut off; default 512 MiB. */
  maxBufferedBytes?: number;
  /** Past this many bytes sent and not read by all clients together, the one furthest behind is dropped; default 1 GiB. */
  maxBufferedTotalBytes?: number;
}

export interface Host {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

/**
 * Requests one connection may have waiting for their answers; past it the connection is closed.
 * Node parses pipelined requests and starts each answer while the ones before it wait for the
 * client: one connection (no token needed) that sent GET requests and read nothing made the host
 * hold the start of each answer, 2.4 GB in 10 s. A browser sends one request at a time.
 */
const MAX_PIPELINED_REQUESTS = 8;

/** A frame longer than this closes its connection (clients send at most MAX_FRAME_BYTES). */
const MAX_PAYLOAD_BYTES = 2 * MAX_FRAME_BYTES;

/**
 * What a call counts against maxInboundBytes at least, however small its message: a call waiting for
 * its turn (an export behind others) holds about 2 kB of params, promises and closures (50,000
 * waiting runs.export calls of 104 bytes each: 98 MiB of heap), 20 times its message.
 */
const CALL_BYTES = 4096;

/** Room for one reply as big as runs.export sends (MAX_API_EXPORT_BYTES) in flight, and as much again. */
const DEFAULT_MAX_BUFFERED_BYTES = 2 * MAX_API_EXPORT_BYTES;

/**
 * The close code of a client cut off for not reading: 1013 "try again later", so that the renderer's
 * bridge reconnects (a tab the browser froze for a while comes back) where 1008 would make it give up.
 */
const BEHIND_CLOSE_CODE = 1013;

export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../out/web', import.meta.url));

function sameToken(a: string | null, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startHost(o: HostOptions): Promise<Host> {
  const { services } = o;
  const token = o.token ?? randomBytes(24).toString('base64url');
  const webRoot = resolve(o.webRoot ?? DEFAULT_WEB_ROOT);
  if (!existsSync(join(webRoot, 'index.html'))) {
    throw new Error(`no built renderer at ${webRoot}: run \`npm run build:web\` first`);
  }
  const downloadIdleMs = o.downloadIdleMs ?? 60_000;
  let port = 0;
  // On port 80 a browser sends Host and Origin without the port (HTTP's default).
  const allowedHosts = () => ['127.0.0.1', 'localhost'].flatMap((name) => (port === 80 ? [name, `${name}:80`] : [`${name}:${port}`]));
  const allowedOrigins = () => allowedHosts().map((h) => `http://${h}`);

  // Requests of each connection not yet answered in full: see MAX_PIPELINED_REQUESTS.
  const waitingRequests = new WeakMap<object, number>();
  const server = createServer((req, res) => {
    res.on('error', () => res.destroy());
    const connection = req.socket;
    const waiting = (waitingRequests.get(connection) ?? 0) + 1;
    waitingRequests.set(connection, waiting);
    res.once('close', () => waitingRequests.set(connection, (waitingRequests.get(connection) ?? 1) - 1));
    if (waiting > MAX_PIPELINED_REQUESTS) {
      // Requests parsed from the same bytes still come after the close: said once.
      if (!connection.destroyed) console.warn(`web host: connection closed: more than ${MAX_PIPELINED_REQUESTS} requests sent on it and not answered in full (limit MAX_PIPELINED_REQUESTS); a browser sends one at a time`);
      connection.destroy();
      return;
    }
    handleHttp(req, res).catch((err) => {
      if (res.headersSent) {
        res.destroy(); // a download that broke off: the client sees a truncated transfer
        return;
      }
      const status = err instanceof ApiError ? httpStatus(err) : 500;
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(err instanceof Error ? err.message : String(err));
    });
  });

  // At 1024 descriptors, 1,000 half-sent request heads made the host stop answering its own app.
  server.maxConnections = o.maxConnections ?? 256;

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!allowedHosts().includes(req.headers.host ?? '')) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('wrong Host header');
      return;
    }
    const url = parseUrl(req.url ?? '/', `http://${req.headers.host}`);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const download = url.pathname.match(/^\/api\/runs\/([^/]+)\/export$/);
    if (download) {
      const origin = req.headers.origin;
      if (origin !== undefined && !allowedOrigins().includes(origin)) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('wrong Origin header');
        return;
      }
      if (!sameToken(url.searchParams.get('token'), token)) throw new ApiError('unauthorized', 'missing or wrong token');
      const format = url.searchParams.get('format') ?? '';
      const id = decodeComponent(download[1]);
      const headers = (fileName: string, mime: string) => ({
        'content-type': mime,
        'content-disposition': `attachment; filename="${fileName.replace(/"/g, '')}"`,
        'cache-control': 'no-store',
      });
      if (req.method === 'HEAD') {
        // The same checks and names as the download, without making the export (it may take minutes).
        const { fileName, mime } = exportHeaders(services, id, format);
        res.writeHead(200, headers(fileName, mime)).end();
        return;
      }
      // A download cancelled while it waits for its turn or is being made (the browser's cancel, a closed tab) is not made further.
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      await withExport(services, id, format, async (path, fileName, mime) => {
        res.writeHead(200, { ...headers(fileName, mime), 'content-length': statSync(path).size });
        // A client that stops reading (a paused browser download) would hold the export's turn and
        // file for good: after downloadIdleMs without a byte taken, the download is dropped.
        res.setTimeout(downloadIdleMs, () => res.destroy());
        // Settles also when the client goes away mid-download, so the export's slot and files are freed.
        await pipeline(createReadStream(path), res);
      }, gone.signal);
      return;
    }
    if (url.pathname.startsWith('/api/')) throw new ApiError('not_found', `no route ${url.pathname}`);
    // Static files of the built renderer; the router uses hash history, so '/' is the only page.
    const rel = url.pathname === '/' ? 'index.html' : decodeComponent(url.pathname).replace(/^\/+/, '');
    const file = normalize(join(webRoot, rel));
    if (!file.startsWith(webRoot + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const headers: Record<string, string | number> = {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': extname(file) === '.html' ? 'no-store' : 'max-age=3600',
    };
    if (extname(file) === '.html') {
      headers['content-security-policy'] = contentSecurityPolicy([`ws://${req.headers.host}`]);
      headers['x-frame-options'] = 'DENY';
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else await pipeline(createReadStream(file), res);
  }

  // ------------------------------------------------------------------ WebSocket API
  const maxMessageBytes = o.maxMessageBytes ?? 512 << 20;
  const maxInboundBytes = o.maxInboundBytes ?? 1 << 30;
  const maxChunkedMessageMs = o.maxChunkedMessageMs ?? 120_000;
  const maxBufferedBytes = o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  // Two clients as far behind as one may be: two tabs each taking a runs.export reply of 256 MiB are not cut off.
  const maxBufferedTotalBytes = o.maxBufferedTotalBytes ?? 2 * maxBufferedBytes;
  // The host's share of maxInboundBytes: the chunks of each connection's incomplete messages, and the calls being answered.
  const assemblers = new Set<FrameAssembler>();
  let answering = 0;
  const inboundRoom = () => {
    let room = maxInboundBytes - answering;
    for (const a of assemblers) room -= a.holding;
    return room;
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    let ok = false;
    try {
      const url = new URL(req.url ?? '/', 'http://host.invalid');
      const origin = req.headers.origin;
      ok =
        url.pathname === '/api/ws' &&
        allowedHosts().includes(req.headers.host ?? '') &&
        (origin === undefined || allowedOrigins().includes(origin)) &&
        sameToken(url.searchParams.get('token'), token);
    } catch {
      ok = false; // a request line that is not a URL
    }
    if (!ok) {
      // Closed once the answer is written (as ws does for a handshake it refuses): end() alone only
      // half-closed it, and a client that never closed its side held it, and its place among the
      // maxConnections, for good: maxConnections such sockets (no token needed) shut the app out.
      socket.once('finish', () => socket.destroy());
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws));
  });

  /**
   * False when `ws` was dropped for the unread bytes of all clients: past maxBufferedTotalBytes the
   * client furthest behind is terminated, not closed, since a close frame would wait behind its unread
   * bytes and hold them 30 s more (the renderer's bridge reconnects after either).
   */
  function withinBufferedTotal(ws: WebSocket): boolean {
    let unread = 0;
    let furthest = ws;
    for (const c of wss.clients) {
      unread += c.bufferedAmount;
      if (c.bufferedAmount > furthest.bufferedAmount) furthest = c;
    }
    if (unread <= maxBufferedTotalBytes) return true;
    console.warn(`web host: clients too far behind: ${unread} bytes sent and not read in all (limit ${maxBufferedTotalBytes}); the one with ${furthest.bufferedAmount} dropped`);
    furthest.terminate();
    return furthest !== ws;
  }

  function serveSocket(ws: WebSocket): void {
    let transfers = 0;
    // Messages go out in order, one after another; a message of many frames (an export's 256 MiB is
    // 64) a frame a turn, so that its copying does not hold every other client and call meanwhile.
    let sending = Promise.resolve();
    const send = (m: HostMessage, what: string) => {
      sending = sending.then(() => sendFrames(m)).catch((err: unknown) => {
        console.error(`web host: cannot send ${what}:`, err);
        // A reply that cannot be encoded (a refusal quoting a 140 MB field name is past the longest
        // string V8 makes) is replaced, in its place, by one saying so: else its call waited for good.
        if (m.t === 'event') return;
        const error = new ApiError('internal', `the reply to ${m.t === 'result' ? what.replace(/^the result of /, '') : `call ${m.id}`} cannot be sent: ${err instanceof Error ? err.message : String(err)}`);
        return sendFrames({ t: 'error', id: m.id, error: error.toData() }).catch((again: unknown) => console.error('web host: cannot send an error reply:', again));
      });
    };
    const sendFrames = async (m: HostMessage) => {
      if (ws.readyState !== ws.OPEN) return;
      // ws keeps in memory whatever the client has not read yet: a client that stops reading (and
      // keeps calling, or just gets events) would grow it without end. Past the limit it is cut off;
      // the close frame waits behind what is buffered, and ws drops the socket 30 s later unanswered.
      if (ws.bufferedAmount > maxBufferedBytes) {
        const reason = `client too far behind: ${ws.bufferedAmount} bytes sent and not read (limit ${maxBufferedBytes})`;
        console.warn(`web host: ${reason}; connection closed`);
        ws.close(BEHIND_CLOSE_CODE, reason);
        return;
      }
      if (!withinBufferedTotal(ws)) return;
      let first = true;
      for (const frame of messageFrames(m, ++transfers)) {
        if (!first) {
          await nextTurn();
          if (ws.readyState !== ws.OPEN) return; // gone meanwhile: the rest is not made
        }
        first = false;
        ws.send(frame);
      }
    };
    const reply = (id: number, err: unknown) => {
      const e = err instanceof ApiError ? err : new ApiError('internal', err instanceof Error ? err.message : String(err));
      send({ t: 'error', id, error: e.toData() }, 'an error reply');
    };
    const off = services.events.onAny((event, payload) => send({ t: 'event', event, payload }, event));
    // Protocol errors (a frame over maxPayload, a malformed frame) arrive here; ws then closes the connection.
    ws.on('error', (err) => console.error(`web host: connection closed: ${err.message}`));
    const chunks = new FrameAssembler(maxMessageBytes, inboundRoom, maxInboundBytes);
    assemblers.add(chunks);
    // A chunked message counts its whole length against maxInboundBytes from its first chunk: one a
    // client never finished (25 bytes sent, 512 MiB counted) held it for good, and every client's
    // calls were answered 'unavailable' until that connection closed. Past maxChunkedMessageMs it goes.
    let expiry: ReturnType<typeof setTimeout> | null = null;
    const watchChunks = () => {
      const oldest = chunks.oldestStart;
      if (expiry || oldest === null) return;
      expiry = setTimeout(() => {
        expiry = null;
        for (const transfer of chunks.expire(performance.now() - maxChunkedMessageMs)) {
          reply(transfer, new ApiError('unavailable', `chunked message not complete ${maxChunkedMessageMs} ms after its first chunk (limit maxChunkedMessageMs): dropped; send it again`));
        }
        watchChunks();
      }, Math.max(0, oldest + maxChunkedMessageMs - performance.now()));
    };
    // Aborted when the connection closes (a closed tab, a dropped socket): its calls under way that
    // can be abandoned (an export) stop, instead of running to their end for a reply nobody reads.
    const gone = new AbortController();
    // Its calls the renderer may abort one by one ({ t: 'abort', callId }), as the app's IPC does.
    const calls = new ClientCalls(gone.signal);
    ws.on('close', () => {
      off();
      assemblers.delete(chunks); // its incomplete messages are dropped with it
      if (expiry) clearTimeout(expiry);
      gone.abort();
    });
    ws.on('message', (data, isBinary) => {
      let msg: CallMessage;
      let bytes: Uint8Array | null = null;
      let transfer: number | null = null;
      try {
        if (!isBinary) throw new Error('expected a binary message');
        const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        const frame = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        transfer = chunkTransfer(frame);
        bytes = chunks.push(frame);
        if (!bytes) return watchChunks();
        // The call's params nest one level below the message ({ t, id, method, params }).
        const decoded = decodeMessage(bytes, MAX_PARAMS_VALUES, MAX_PARAMS_DEPTH + 1) as ClientMessage;
        // An abort answers nothing itself (its call rejects, cancelled); a malformed one is a malformed message.
        if (decoded?.t === 'abort') return calls.abort(decoded.callId);
        if (decoded?.t !== 'call' || typeof decoded.id !== 'number') throw new Error('expected { t: "call", id, method, params, callId? } or { t: "abort", callId }');
        msg = decoded;
      } catch (err) {
        const message = err instanceof Error ? err.message : 'bad message';
        if (err instanceof TransferRefused) reply(err.transfer, new ApiError(err.busy ? 'unavailable' : 'invalid', message));
        // A message too deep that otherwise decodes answers its call; the connection stays.
        else if (err instanceof MessageTooDeep && err.id !== null) reply(err.id, paramsTooDeep());
        // A chunked message has its call's id in every frame: its refusal answers the call.
        else if (transfer !== null && bytes) reply(transfer, new ApiError('invalid', message));
        else ws.close(1003, closeReason(message));
        return;
      }
      // A chunked message's bytes were counted while they arrived; a whole one's are counted here.
      const cost = Math.max(bytes.byteLength, CALL_BYTES);
      const room = inboundRoom();
      if (cost > room) {
        reply(msg.id, new ApiError('unavailable', `message of ${cost} bytes does not fit in the ${Math.max(0, room)} bytes the host has left for messages (limit ${maxInboundBytes}): others are arriving or being answered; try again when they finish`));
        return;
      }
      answering += cost;
      void answer(msg).finally(() => (answering -= cost));
    });
    async function answer(msg: CallMessage): Promise<void> {
      try {
        if (!isMethodName(msg.method)) throw unknownMethod(msg.method);
        const method = msg.method;
        send({ t: 'result', id: msg.id, result: await calls.run(msg.callId, method, (signal) => services.dispatch(method, msg.params, signal)) }, `the result of ${method}`);
      } catch (err) {
        reply(msg.id, err);
      }
    }
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(o.port ?? 0, '127.0.0.1', () => ok());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((done) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * The message cut to the 123 bytes of UTF-8 a close frame's reason may hold: ws throws past it, and
 * the messages quote what the client sent (100 characters of 'é' are 200 bytes).
 */
function closeReason(message: string): string {
  let reason = message.slice(0, 123);
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/** A request target that is no URL ('http://[::1') is the client's error (400), not ours. */
function parseUrl(target: string, base: string): URL {
  try {
    return new URL(target, base);
  } catch {
    throw new ApiError('invalid', `malformed request target '${target.slice(0, 200)}'`);
  }
}

/** decodeURIComponent whose malformed escapes are the client's error (400), not ours. */
function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ApiError('invalid', `malformed percent-escape in '${text.slice(0, 200)}'`);
  }
}

function httpStatus(e: ApiError): number {
  return { invalid: 400, unauthorized: 401, not_found: 404, conflict: 409, too_large: 413, unavailable: 503, internal: 500, cancelled: 499 }[e.code];
}
