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
  const out = new Uint8Array(dataStart + offset);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 4);
  arrays.forEach((a, i) => out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), dataStart + layout[i][0]));
  return out;
}

export function decodeMessage(bytes: Uint8Array): unknown {
  if (bytes.byteLength < 4) throw new Error('message is shorter than its 4-byte preamble');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(0, true);
  if (4 + jsonLength > bytes.byteLength) throw new Error('message JSON is truncated');
  const dataStart = Math.ceil((4 + jsonLength) / 8) * 8;
  const { v: value, b: layout } = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + jsonLength))) as { v: unknown; b: [number, number][] };
  // Replace placeholders with copies (aligned, independent of the frame).
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive);
    if (v && typeof v === 'object') {
      if ('$typed' in v && '$i' in v) {
        const { $typed, $i } = v as { $typed: CtorName; $i: number };
        const ctor = CTORS[$typed];
        const [off, len] = layout[$i] ?? [];
        if (!ctor || off === undefined || dataStart + off + len > bytes.byteLength) throw new Error(`message array ${$i} is malformed`);
        const start = bytes.byteOffset + dataStart + off;
        return new ctor(bytes.buffer.slice(start, start + len) as ArrayBuffer);
      }
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = revive(x);
      return out;
    }
    return v;
  };
  return revive(value);
}

/** Client → host. */
export type ClientMessage = { t: 'call'; id: number; method: string; params: unknown };
/** Host → client. */
export type HostMessage =
  | { t: 'result'; id: number; result: unknown }
  | { t: 'error'; id: number; error: { code: string; message: string; issues?: { path: string; message: string }[] } }
  | { t: 'event'; event: string; payload: unknown };
