/**
 * The binary-safe message codec of the WebSocket API (web host ↔ browser bridge): JSON for the
 * structure, typed arrays as raw bytes after it, so a 200,000-particle table crosses without a
 * text detour and arrives as the same typed arrays Electron's structured clone would give.
 *
 *   bytes 0..3   uint32 LE: length J of the JSON part
 *   bytes 4..    J bytes of UTF-8 JSON; typed arrays replaced by { "$typed": ctor, "$i": index }
 *   then         each array's bytes, starting on 8-byte boundaries, in index order; the JSON's
 *                top level is { "v": value, "b": [[byteOffset, byteLength], ...] }
 *
 * A message longer than MAX_FRAME_BYTES (a sphere CSV, a voxel shape, a particle table) travels as
 * chunk frames, so that no WebSocket frame comes near the host's size limit:
 *
 *   bytes 0..3   uint32 LE 0xFFFFFFFF (no whole message has a 4 GiB JSON part)
 *   bytes 4..7   uint32 LE transfer id (client to host: the call's id, so a refusal can answer it)
 *   bytes 8..11  uint32 LE chunk index, 12..15 chunk count; 16..23 float64 LE total message bytes
 *   then         the chunk's share of the message bytes, in index order
 *
 * Shared by main/host and renderer/src/bridge: no Node, no DOM.
 */

const CTORS = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
} as const;
type CtorName = keyof typeof CTORS;
type Typed = InstanceType<(typeof CTORS)[CtorName]>;

function ctorName(v: ArrayBufferView): CtorName | null {
  for (const name of Object.keys(CTORS) as CtorName[]) if (v instanceof CTORS[name]) return name;
  return null;
}

export function encodeMessage(value: unknown): Uint8Array {
  return wholeMessage(messageParts(value));
}

/** A message's bytes as the parts that are not padding: the preamble, the JSON, each array (at its place). */
type Part = { at: number; bytes: Uint8Array };

/** The parts of a message and its length in bytes, laid out as encodeMessage writes them, without copying the arrays. */
function messageParts(value: unknown): { parts: Part[]; bytes: number } {
  const arrays: Typed[] = [];
  const json = JSON.stringify({ v: value }, function (_key, v: unknown) {
    if (ArrayBuffer.isView(v)) {
      const name = ctorName(v);
      if (!name) throw new TypeError(`cannot send a ${Object.prototype.toString.call(v)} over the API`);
      arrays.push(v as Typed);
      return { $typed: name, $i: arrays.length - 1 };
    }
    return v;
  });
  // Lay out the buffers first so the JSON can carry their offsets (relative to the data start).
  const layout: [number, number][] = [];
  let offset = 0;
  for (const a of arrays) {
    layout.push([offset, a.byteLength]);
    offset += Math.ceil(a.byteLength / 8) * 8;
  }
  const text = new TextEncoder().encode(json.slice(0, -1) + `,"b":${JSON.stringify(layout)}}`);
  const dataStart = Math.ceil((4 + text.length) / 8) * 8;
  const preamble = new Uint8Array(4);
  new DataView(preamble.buffer).setUint32(0, text.length, true);
  const parts: Part[] = [{ at: 0, bytes: preamble }, { at: 4, bytes: text }];
  arrays.forEach((a, i) => parts.push({ at: dataStart + layout[i][0], bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) }));
  return { parts, bytes: dataStart + offset };
}

function wholeMessage({ parts, bytes }: { parts: Part[]; bytes: number }): Uint8Array {
  const out = new Uint8Array(bytes);
  copyRange(parts, 0, bytes, out, 0);
  return out;
}

/** Copies bytes [from, to) of the message made of `parts` into `out` at `into` (padding stays as `out` has it: zero). */
function copyRange(parts: Part[], from: number, to: number, out: Uint8Array, into: number): void {
  for (const { at, bytes } of parts) {
    const start = Math.max(from, at), end = Math.min(to, at + bytes.byteLength);
    if (start < end) out.set(bytes.subarray(start - at, end - at), into + start - from);
  }
}

/**
 * The values of a JSON text, counted by the commas, '[' and '{' outside its strings (a value with
 * none of them is one); stops counting past `max`. Strings are skipped to their closing quote by
 * indexOf, so that a long one (a sphere CSV) is passed over at memchr speed.
 */
function countJsonValues(json: Uint8Array, max: number): number {
  let values = 1;
  for (let i = 0; i < json.length && values <= max; ) {
    const c = json[i++];
    if (c === 0x22) {
      for (;;) {
        const quote = json.indexOf(0x22, i);
        if (quote < 0) return values; // unterminated: JSON.parse says so
        let escapes = 0;
        while (json[quote - 1 - escapes] === 0x5c) escapes++;
        i = quote + 1;
        if (escapes % 2 === 0) break;
      }
    } else if (c === 0x2c || c === 0x5b || c === 0x7b) values++;
  }
  return values;
}

/**
 * The value of one message. `maxDepth` bounds how deep its lists and objects nest (MessageTooDeep).
 * `maxValues` bounds its JSON values, checked before parsing: a value is
 * tens of bytes once parsed (an empty object about 70, and as much again for its revived copy), so
 * that 3 bytes of '{},' each made a 200 MB message into 6 GB of objects and minutes of parsing.
 */
export function decodeMessage(bytes: Uint8Array, maxValues = Infinity, maxDepth = Infinity): unknown {
  if (bytes.byteLength < 4) throw new Error('message is shorter than its 4-byte preamble');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(0, true);
  if (4 + jsonLength > bytes.byteLength) throw new Error('message JSON is truncated');
  if (maxValues < Infinity && countJsonValues(bytes.subarray(4, 4 + jsonLength), maxValues) > maxValues) {
    throw new Error(`message of more than ${maxValues} JSON values (lists and objects of its params); send bulk data as text or typed arrays`);
  }
  const dataStart = Math.ceil((4 + jsonLength) / 8) * 8;
  const { v: value, b: layout } = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + jsonLength))) as { v: unknown; b: [number, number][] };
  // JSON.parse keeps its own stack; revive recurses on ours, which ~2,000 levels overflowed.
  if (walkLimitPassed(value, maxDepth)) throw new MessageTooDeep(maxDepth, (value as { id?: unknown } | null)?.id);
  // Replace placeholders with copies (aligned, independent of the frame). The encoder names each
  // array once, so the copies together fit in the message: a placeholder named many times (or
  // overlapping ones) would make a few megabytes of message into gigabytes of copies.
  let copied = 0;
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive);
    if (v && typeof v === 'object') {
      if ('$typed' in v && '$i' in v) {
        const { $typed, $i } = v as { $typed: CtorName; $i: number };
        const ctor = Object.hasOwn(CTORS, $typed) ? CTORS[$typed] : undefined; // not an inherited 'constructor'
        const [off, len] = layout[$i] ?? [];
        // Offsets and lengths are whole bytes within this message's data: a negative one read the bytes before it.
        const whole = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
        if (!ctor || !whole(off) || !whole(len) || dataStart + off + len > bytes.byteLength) throw new Error(`message array ${$i} is malformed`);
        copied += len;
        if (dataStart + copied > bytes.byteLength) throw new Error(`message arrays take more bytes than the message holds (at array ${$i})`);
        const start = bytes.byteOffset + dataStart + off;
        return new ctor(bytes.buffer.slice(start, start + len) as ArrayBuffer);
      }
      // fromEntries defines each key as an own field: assigning a '__proto__' key set the object's prototype instead.
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revive(x)]));
    }
    return v;
  };
  return revive(value);
}

/** A message nested deeper than decodeMessage's maxDepth; `id`: the id of the call it carries (so a refusal can answer it), else null. */
export class MessageTooDeep extends Error {
  readonly id: number | null;
  constructor(readonly maxDepth: number, id: unknown) {
    super(`message nested deeper than ${maxDepth} levels`);
    this.id = typeof id === 'number' ? id : null;
  }
}

/**
 * The first limit a walk of `value` as a tree (the schemas, the sweep search, the reviver all walk
 * so) passes: 'depth' when lists and objects nest more than `maxDepth` levels (a number is 0, [] 1,
 * [[]] 2), 'values' when the walk would meet more than `maxValues` values (each list, object and
 * entry); null when it passes neither. A value held in several places, as a structured clone keeps
 * it, counts at each: [x, x] nested 40 times is 40 lists in memory but 2^40 values to such a walk,
 * which held the app's main process for good. Level by level without recursion (a value too deep
 * for a recursive walk is told apart first), stopping at the first limit passed, so that it meets at
 * most maxValues values. Typed arrays are leaves; a value that holds itself passes any maxDepth.
 */
export function walkLimitPassed(value: unknown, maxDepth: number, maxValues = Infinity): 'depth' | 'values' | null {
  let level: object[] = [];
  const add = (v: unknown) => {
    if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)) level.push(v);
  };
  add(value);
  let values = 1;
  for (let depth = 0; level.length > 0; depth++) {
    if (depth === maxDepth) return 'depth';
    const parents = level;
    level = [];
    for (const p of parents) {
      // A list's entries by index: Object.values made a copy of each (a third of the time).
      if (Array.isArray(p)) {
        if ((values += p.length) > maxValues) return 'values';
        for (let i = 0; i < p.length; i++) add(p[i]);
      } else {
        const entries = Object.values(p);
        if ((values += entries.length) > maxValues) return 'values';
        for (const v of entries) add(v);
      }
    }
  }
  return null;
}

/** Longest frame a sender writes; longer messages are split into chunk frames. */
export const MAX_FRAME_BYTES = 4 << 20;
const CHUNK_MARK = 0xffffffff;
const CHUNK_HEADER_BYTES = 24;
/**
 * Chunked messages a receiver holds at once (incomplete, or refused with their rest still to drop):
 * a sender writes the chunks of a message one after another, so it has one at a time. Without a
 * bound, 20,000 first chunks of 1-byte messages (500 kB) held the web host's loop 25 s, each summing the others.
 */
const MAX_TRANSFERS = 64;

/** The frames of one message: the message itself when it fits in maxFrame bytes, else its chunks. */
export function encodeFrames(value: unknown, transfer: number, maxFrame = MAX_FRAME_BYTES): Uint8Array[] {
  return [...messageFrames(value, transfer, maxFrame)];
}

/**
 * encodeFrames one frame at a time, each copied straight from the message's JSON and arrays: a
 * message of hundreds of MB (an export's bytes, a particle table) is never laid out whole (it was
 * copied twice, whole then into its chunks: 150-210 ms for 150 MB), and a sender can let other work
 * through between frames.
 */
export function* messageFrames(value: unknown, transfer: number, maxFrame = MAX_FRAME_BYTES): Generator<Uint8Array, void, void> {
  const message = messageParts(value), { parts, bytes } = message;
  if (bytes <= maxFrame) {
    yield wholeMessage(message);
    return;
  }
  const body = maxFrame - CHUNK_HEADER_BYTES;
  const count = Math.ceil(bytes / body);
  for (let i = 0; i < count; i++) {
    const from = i * body, to = Math.min(bytes, from + body);
    const frame = new Uint8Array(CHUNK_HEADER_BYTES + to - from);
    const view = new DataView(frame.buffer);
    view.setUint32(0, CHUNK_MARK, true);
    view.setUint32(4, transfer >>> 0, true);
    view.setUint32(8, i, true);
    view.setUint32(12, count, true);
    view.setFloat64(16, bytes, true);
    copyRange(parts, from, to, frame, CHUNK_HEADER_BYTES);
    yield frame;
  }
}

/** A chunked message the receiver will not take; `transfer` is its id (the call id from a client). */
export class TransferRefused extends Error {
  /** busy: refused for the messages the receiver holds already, not for its own size or form (try again later). */
  constructor(message: string, readonly transfer: number, readonly busy = false) {
    super(message);
  }
}

/** The transfer id of a chunk frame; null for a whole message. */
export function chunkTransfer(frame: Uint8Array): number | null {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  return frame.byteLength >= CHUNK_HEADER_BYTES && view.getUint32(0, true) === CHUNK_MARK ? view.getUint32(4, true) : null;
}

/**
 * Puts chunked messages back together (one per connection). `push` gives the whole message bytes of
 * a frame that completes one, null while a transfer is incomplete, and throws TransferRefused for a
 * transfer over the size limit or out of order (its later chunks are then dropped quietly), and an
 * Error past MAX_TRANSFERS messages at once.
 */
export class FrameAssembler {
  /** `started`: performance.now() at its first chunk. */
  private readonly open = new Map<number, { bytes: Uint8Array; count: number; next: number; filled: number; started: number }>();
  private readonly dropped = new Set<number>();

  /**
   * maxMessageBytes bounds one message and all incomplete ones of the connection together; `room`
   * says how many bytes the receiver can take in all (the web host's, over all its connections), and
   * `roomLimit` is that total, to quote.
   */
  constructor(private readonly maxMessageBytes = Number.MAX_SAFE_INTEGER, private readonly room = () => Infinity, private readonly roomLimit = Infinity) {}

  /** Bytes of the incomplete messages (allocated whole at their first chunk). */
  get holding(): number {
    let bytes = 0;
    for (const t of this.open.values()) bytes += t.bytes.byteLength;
    return bytes;
  }

  push(frame: Uint8Array): Uint8Array | null {
    const transfer = chunkTransfer(frame);
    if (transfer === null) return frame;
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const index = view.getUint32(8, true), count = view.getUint32(12, true);
    const total = view.getFloat64(16, true);
    const part = frame.subarray(CHUNK_HEADER_BYTES);
    if (this.dropped.has(transfer)) {
      if (index === count - 1) this.dropped.delete(transfer);
      return null;
    }
    let t = this.open.get(transfer);
    if (!t) {
      // Not a TransferRefused: the connection that does this is closed, with what it holds.
      if (this.open.size + this.dropped.size >= MAX_TRANSFERS) throw new Error(`more than ${MAX_TRANSFERS} chunked messages arriving at once; a sender sends the chunks of one after another`);
      const inFlight = this.holding;
      if (index !== 0 || !Number.isInteger(total) || total <= 0 || count < 2) return this.refuse(transfer, index, count, 'chunked message is malformed (no first chunk, or a bad total length)');
      if (total > this.maxMessageBytes - inFlight) {
        return this.refuse(transfer, index, count, `message of ${total} bytes is over the limit of ${this.maxMessageBytes} bytes${inFlight ? ` (with ${inFlight} bytes of other messages still arriving)` : ''}`);
      }
      const room = this.room();
      if (total > room) {
        const message = `message of ${total} bytes does not fit in the ${Math.max(0, room)} bytes the host has left for messages (limit ${this.roomLimit}): others are arriving or being answered; try again when they finish`;
        return this.refuse(transfer, index, count, message, true);
      }
      t = { bytes: new Uint8Array(total), count, next: 0, filled: 0, started: performance.now() };
      this.open.set(transfer, t);
    }
    if (index !== t.next || count !== t.count || t.filled + part.byteLength > t.bytes.byteLength) {
      this.open.delete(transfer);
      return this.refuse(transfer, index, count, `chunk ${index} of ${count} arrived out of order or overflows the message`);
    }
    t.bytes.set(part, t.filled);
    t.filled += part.byteLength;
    t.next++;
    if (t.next < t.count) return null;
    this.open.delete(transfer);
    if (t.filled !== t.bytes.byteLength) throw new TransferRefused(`chunked message ended at ${t.filled} of ${t.bytes.byteLength} bytes`, transfer);
    return t.bytes;
  }

  /** performance.now() at the first chunk of the oldest incomplete message; null when none is. */
  get oldestStart(): number | null {
    let oldest: number | null = null;
    for (const t of this.open.values()) if (oldest === null || t.started < oldest) oldest = t.started;
    return oldest;
  }

  /**
   * Drops the incomplete messages whose first chunk came before `startedBefore` (performance.now()
   * time) and gives their transfer ids; their later chunks are dropped quietly. A message counts its
   * whole length from its first chunk on: one never finished held that much for good.
   */
  expire(startedBefore: number): number[] {
    const expired: number[] = [];
    for (const [transfer, t] of this.open) {
      if (t.started >= startedBefore) continue;
      this.open.delete(transfer);
      this.dropped.add(transfer);
      expired.push(transfer);
    }
    return expired;
  }

  private refuse(transfer: number, index: number, count: number, message: string, busy = false): never {
    if (index < count - 1) this.dropped.add(transfer);
    throw new TransferRefused(message, transfer, busy);
  }
}

/** Client → host: a call (`callId`: the renderer's, for a call it may abort), or the abort of one. */
export type ClientMessage = CallMessage | { t: 'abort'; callId: number };
export type CallMessage = { t: 'call'; id: number; method: string; params: unknown; callId?: number };
/** Host → client. */
export type HostMessage =
  | { t: 'result'; id: number; result: unknown }
  | { t: 'error'; id: number; error: { code: string; message: string; issues?: { path: string; message: string }[] } }
  | { t: 'event'; event: string; payload: unknown };
