/**
 * The web host fuzzed over its WebSocket (seeded, the same frames every run): calls of every method
 * with params of the wrong types, unknown methods, malformed and truncated messages, chunk frames in
 * and out of order, text frames, from four connections at once. A connection a malformed frame closes
 * is opened again. Every call on a connection that stays open is answered, never as a fault of ours
 * ('internal'); the host's accounting of the bytes it holds comes back to nothing (a message of most
 * of maxInboundBytes still fits); a fresh client is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { METHOD_NAMES } from '../../main/api';
import { startHost, type Host } from '../../main/host/server';
import type { Services } from '../../main/services/services';
import { decodeMessage, encodeFrames, encodeMessage, FrameAssembler, type HostMessage } from '../../main/wire';
import { Random } from '../../core/common/random';
import { fixtureServices, tempDir } from './helpers';

const t = tempDir('packbench-host-fuzz-');
let services: Services;
let host: Host;
const MAX_INBOUND = 6 << 20;

beforeAll(async () => {
  mkdirSync(join(t.dir, 'web'));
  writeFileSync(join(t.dir, 'web', 'index.html'), '<!doctype html>');
  services = fixtureServices(t.dir);
  host = await startHost({ services, webRoot: join(t.dir, 'web'), maxInboundBytes: MAX_INBOUND });
});

afterAll(async () => {
  await host?.close();
  await services?.close();
  t.cleanup();
});

/** A connection that keeps the replies to its calls (by id) and whether the host closed it. */
interface Conn {
  ws: WebSocket;
  open: boolean;
  /** Ids of the well-formed calls sent and not answered yet. */
  waiting: Set<number>;
  replies: HostMessage[];
}

async function connect(): Promise<Conn> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`);
  const c: Conn = { ws, open: true, waiting: new Set(), replies: [] };
  const chunks = new FrameAssembler();
  ws.on('error', () => {});
  ws.on('message', (data: Buffer) => {
    const bytes = chunks.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (!bytes) return;
    const m = decodeMessage(bytes) as HostMessage;
    if (m.t === 'event') return;
    c.waiting.delete(m.id);
    c.replies.push(m);
  });
  ws.on('close', () => (c.open = false));
  await new Promise((ok) => ws.once('open', ok));
  return c;
}

describe('web host fuzz', () => {
  it('answers every call of a connection that stays open, never as a fault of ours, and stays up', async () => {
    const rnd = new Random(19);
    const int = (n: number) => rnd.nextU32() % n;
    const pick = <T,>(a: readonly T[]): T => a[int(a.length)];
    const atoms = [0, -1, 1.5, 2 ** 53, -1e308, '', 'x', 'voxel', '__proto__', 'constructor', 'é'.repeat(30), true, null, [], {}, new Uint8Array(3), new Float64Array(2)];
    const keys = ['id', 'name', 'spec', 'params', 'engine', 'shape', 'kind', 'limit', 'offset', 'filter', 'sort', 'format', 'bytes', 'csv', 'axis', 'index', 'size', '$sweep', '__proto__'];
    const value = (depth: number): unknown => {
      const r = int(6);
      if (depth > 3 || r < 3) return pick(atoms);
      if (r === 3) return Array.from({ length: int(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(keys), value(depth + 1)]));
    };
    const methods = [...METHOD_NAMES.filter((m) => m !== 'runs.delete' && m !== 'shapes.delete'), 'nope', '__proto__', 'constructor', 'toString'];
    const conns = await Promise.all([0, 1, 2, 3].map(() => connect()));
    let nextId = 1, calls = 0;
    for (let i = 0; i < 800; i++) {
      const k = int(conns.length);
      if (!conns[k].open) conns[k] = await connect();
      const c = conns[k];
      const id = nextId++;
      const call = { t: 'call', id, method: pick(methods), params: int(8) === 0 ? value(0) : Object.fromEntries(Array.from({ length: int(4) }, () => [pick(keys), value(1)])) };
      const kind = int(12);
      if (kind < 6) {
        // A call, whole or (with a small frame size) in chunks.
        c.waiting.add(id);
        for (const f of encodeFrames(call, id, int(2) ? 1 << 20 : 64)) c.ws.send(f);
        calls++;
      } else if (kind === 6) {
        c.ws.send(Uint8Array.from({ length: int(40) }, () => int(256))); // garbage
      } else if (kind === 7) {
        const m = encodeMessage(call);
        c.ws.send(m.subarray(0, int(m.length))); // truncated
      } else if (kind === 8) {
        // The chunks of a call, one missing, repeated or swapped: refused with an error reply, or dropped.
        const frames = encodeFrames(call, id, 48);
        const j = int(frames.length);
        const mangled = pick([frames.filter((_, x) => x !== j), [...frames.slice(0, j + 1), ...frames.slice(j)], frames.slice().reverse()]);
        for (const f of mangled) c.ws.send(f);
      } else if (kind === 9) {
        c.ws.send(encodeMessage(pick([{ t: 'call', id: 'x', method: 'app.info' }, { t: 'result', id }, null, [call], { ...call, id: -1 }, { ...call, id: 1.5 }])));
      } else if (kind === 10) {
        c.ws.send(JSON.stringify(call)); // text
      } else {
        // Nested deeper than the host's stack goes (written as text: encodeMessage recurses too).
        const deep = int(2) ? 100_000 : 50;
        const json = new TextEncoder().encode(`{"v":{"t":"call","id":${id},"method":"app.info","params":{"deep":${'['.repeat(deep)}${']'.repeat(deep)}}},"b":[]}`);
        c.ws.send(Buffer.concat([Uint8Array.of(json.length & 255, (json.length >> 8) & 255, json.length >> 16, 0), json]));
      }
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 0));
    }
    // Every call of a connection still open is answered; none as a fault of ours.
    for (const c of conns) {
      for (let tries = 0; c.open && c.waiting.size > 0 && tries < 600; tries++) await new Promise((r) => setTimeout(r, 25));
      if (c.open) expect([...c.waiting]).toEqual([]);
    }
    const replies = conns.flatMap((c) => c.replies);
    expect(replies.filter((m) => m.t === 'error' && m.error.code === 'internal').map((m) => m.t === 'error' && m.error.message)).toEqual([]);
    expect(calls).toBeGreaterThan(300);
    for (const c of conns) c.ws.close();
    // Nothing it held for the frames and calls is still counted: a message of most of maxInboundBytes
    // fits, once the calls of the connections closed meanwhile have ended.
    const last = await connect();
    const pad = 'x'.repeat(MAX_INBOUND - (64 << 10));
    let answer: HostMessage | undefined;
    for (let id = 1; id <= 100 && (answer === undefined || (answer.t === 'error' && answer.error.code === 'unavailable')); id++) {
      if (id > 1) await new Promise((r) => setTimeout(r, 100));
      for (const f of encodeFrames({ t: 'call', id, method: 'app.info', params: { pad } }, id)) last.ws.send(f);
      for (let tries = 0; last.replies.length < id && tries < 600; tries++) await new Promise((r) => setTimeout(r, 25));
      answer = last.replies[id - 1];
    }
    expect(answer).toMatchObject({ t: 'error', error: { code: 'invalid', issues: [{ path: 'pad' }] } });
    last.ws.close();
  }, 60_000);
});
