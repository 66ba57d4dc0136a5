import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeFrames, encodeMessage, FrameAssembler, MessageTooDeep, TransferRefused, walkLimitPassed } from '../../main/wire';

describe('WebSocket message codec', () => {
  it('round-trips nested values with typed arrays of every kind, including unaligned views', () => {
    const backing = new Uint8Array(64).map((_, i) => i);
    const value = {
      t: 'result',
      id: 7,
      result: {
        name: 'ünïcode ✓',
        nothing: null,
        list: [1, 'two', { x: Float64Array.of(0.1, -2, Number.MAX_VALUE) }],
        columns: {
          f32: Float32Array.of(1.5, 2.5),
          i32: Int32Array.of(-1, 2 ** 31 - 1),
          u32: Uint32Array.of(2 ** 32 - 1),
          i16: Int16Array.of(-32768),
          u16: Uint16Array.of(65535),
          i8: Int8Array.of(-128),
          u8: backing.subarray(3, 8), // a view at an odd offset
        },
        empty: new Float64Array(0),
      },
    };
    const back = decodeMessage(encodeMessage(value)) as typeof value;
    expect(back).toEqual(value);
    expect(back.result.columns.u8).toBeInstanceOf(Uint8Array);
    expect([...back.result.columns.u8]).toEqual([3, 4, 5, 6, 7]);
    expect((back.result.list[2] as { x: Float64Array }).x).toBeInstanceOf(Float64Array);
  });

  it('decodes from a frame that is itself a view into a larger buffer', () => {
    const frame = encodeMessage({ a: Float64Array.of(1, 2, 3) });
    const bigger = new Uint8Array(frame.length + 5);
    bigger.set(frame, 5);
    expect(decodeMessage(bigger.subarray(5))).toEqual({ a: Float64Array.of(1, 2, 3) });
  });

  it("keeps a '__proto__' key as a field of its object, as JSON.parse does, not as the object's prototype", () => {
    const value = JSON.parse('{"params": {"__proto__": {"box": {"resolution": 5}}}}');
    const back = decodeMessage(encodeMessage(value)) as { params: Record<string, unknown> };
    expect(Object.keys(back.params)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(back.params)).toBe(Object.prototype);
    expect((back.params as { box?: unknown }).box).toBeUndefined();
  });

  it('rejects truncated frames', () => {
    const frame = encodeMessage({ a: Float64Array.of(1, 2, 3) });
    expect(() => decodeMessage(frame.subarray(0, 2))).toThrow(/preamble/);
    expect(() => decodeMessage(frame.subarray(0, frame.length - 8))).toThrow(/malformed/);
  });

  it("refuses an array placed outside its message's data (a negative or fractional offset or length), instead of reading the bytes around it", () => {
    /** A message whose one array the layout `b` places; the frame sits after 16 bytes of something else. */
    const crafted = (b: unknown) => {
      const text = new TextEncoder().encode(JSON.stringify({ v: { a: { $typed: 'Uint8Array', $i: 0 } }, b }));
      const dataStart = Math.ceil((4 + text.length) / 8) * 8;
      const buffer = new Uint8Array(16 + dataStart + 8).fill(7, 0, 16); // the bytes before: not the message's
      new DataView(buffer.buffer).setUint32(16, text.length, true);
      buffer.set(text, 20);
      return buffer.subarray(16);
    };
    expect(decodeMessage(crafted([[0, 8]]))).toEqual({ a: new Uint8Array(8) });
    for (const b of [[[-16, 16]], [[0, -8]], [[0.5, 4]], [[0, 2.5]], [['0', 8]], [[null, 8]]]) {
      expect(() => decodeMessage(crafted(b)), JSON.stringify(b)).toThrow(/message array 0 is malformed/);
    }
  });

  it("refuses a placeholder whose $typed names no typed array ('constructor' gave the bare ArrayBuffer)", () => {
    for (const typed of ['constructor', '__proto__', 'toString']) {
      const text = new TextEncoder().encode(JSON.stringify({ v: { a: { $typed: typed, $i: 0 } }, b: [[0, 8]] }));
      const frame = new Uint8Array(Math.ceil((4 + text.length) / 8) * 8 + 8);
      new DataView(frame.buffer).setUint32(0, text.length, true);
      frame.set(text, 4);
      expect(() => decodeMessage(frame), typed).toThrow(/message array 0 is malformed/);
    }
  });

  it('refuses placeholders that take more bytes than the message holds (one array named many times, or overlapping ones)', () => {
    /** A message of one 1 MiB array that `placeholders` name with the layout `b`. */
    const crafted = (placeholders: number[], b: [number, number][]) => {
      const text = new TextEncoder().encode(JSON.stringify({ v: { a: placeholders.map(($i) => ({ $typed: 'Uint8Array', $i })) }, b }));
      const dataStart = Math.ceil((4 + text.length) / 8) * 8;
      const frame = new Uint8Array(dataStart + (1 << 20));
      new DataView(frame.buffer).setUint32(0, text.length, true);
      frame.set(text, 4);
      return frame;
    };
    const whole = crafted([0, 1], [[0, 1 << 19], [1 << 19, 1 << 19]]);
    expect((decodeMessage(whole) as { a: Uint8Array[] }).a.map((x) => x.byteLength)).toEqual([1 << 19, 1 << 19]);
    // Each was a copy of its bytes: 64 names of one array made 64 MiB of a 1 MiB message.
    expect(() => decodeMessage(crafted(Array(64).fill(0), [[0, 1 << 20]]))).toThrow(/more bytes than the message holds/);
    expect(() => decodeMessage(crafted([0, 1], [[0, 1 << 20], [0, 1 << 20]]))).toThrow(/more bytes than the message holds/);
  });

  it('splits long messages into chunk frames and puts them back together', () => {
    const value = { t: 'call', id: 9, params: { table: Float64Array.from({ length: 5000 }, (_, i) => i / 7), text: 'é'.repeat(3000) } };
    const frames = encodeFrames(value, 9, 4096);
    expect(frames.length).toBeGreaterThan(10);
    expect(Math.max(...frames.map((f) => f.byteLength))).toBeLessThanOrEqual(4096);
    const assembler = new FrameAssembler();
    const out = frames.map((f) => assembler.push(f));
    expect(out.slice(0, -1).every((x) => x === null)).toBe(true);
    expect(decodeMessage(out.at(-1)!)).toEqual(value);
    // A short message is its own frame.
    expect(encodeFrames({ a: 1 }, 1, 4096)).toHaveLength(1);
    expect(assembler.push(encodeFrames({ a: 1 }, 1)[0])).toEqual(encodeMessage({ a: 1 }));
  });

  it('makes each chunk frame straight from the JSON and the arrays: their bodies are the bytes of encodeMessage, padding and all', () => {
    const value = { t: 'result', id: 3, result: { a: Uint8Array.from({ length: 13 }, (_, i) => i + 1), b: Float64Array.from({ length: 7 }, (_, i) => -i / 3), c: Int16Array.of(-1, 2, -3, 4, -5), text: 'ü'.repeat(40) } };
    const frames = encodeFrames(value, 7, 64);
    expect(frames.length).toBeGreaterThan(5);
    const bodies = frames.map((f) => f.subarray(24));
    expect(Buffer.concat(bodies)).toEqual(Buffer.from(encodeMessage(value)));
  });

  it('refuses a transfer over the limit or out of order by its id, drops its rest, and goes on', () => {
    const assembler = new FrameAssembler(10_000);
    const big = encodeFrames({ s: 'x'.repeat(20_000) }, 3, 4096);
    expect(() => assembler.push(big[0])).toThrow(TransferRefused);
    try {
      assembler.push(big[0]);
    } catch (err) {
      expect((err as TransferRefused).transfer).toBe(3);
      expect((err as Error).message).toMatch(/over the limit of 10000 bytes/);
    }
    for (const f of big.slice(1)) expect(assembler.push(f)).toBeNull();

    const frames = encodeFrames({ s: 'y'.repeat(6000) }, 4, 4096);
    expect(() => assembler.push(frames[1])).toThrow(/malformed/);
    const again = encodeFrames({ s: 'z'.repeat(6000) }, 5, 4096);
    expect(decodeMessage(again.map((f) => assembler.push(f)).at(-1)!)).toEqual({ s: 'z'.repeat(6000) });
  });

  it('counts JSON values outside strings only: commas, brackets and escaped quotes inside text do not count', () => {
    // {"v":{"csv":…,"q":…,"list":[1,2,3]},"b":[]}: 10 (each '{', '[' and ',' outside strings, and one).
    const value = { csv: 'x,y,z,r\n1,2,3,[{4}]\n'.repeat(10_000), q: 'say \\"a, b\\" [', list: [1, 2, 3] };
    expect(decodeMessage(encodeMessage(value), 10)).toEqual(value);
    expect(() => decodeMessage(encodeMessage({ ...value, list: [1, 2, 3, 4] }), 10)).toThrow(/^message of more than 10 JSON values/);
  });
  it('refuses a message nested deeper than maxDepth before reviving it (its reviver recurses), with the id of its call', () => {
    expect([walkLimitPassed(1, 0), walkLimitPassed([], 0), walkLimitPassed({ a: [[]] }, 3), walkLimitPassed({ a: [[]] }, 2)]).toEqual([null, 'depth', null, 'depth']);
    expect(walkLimitPassed({ a: new Float64Array(4) }, 1)).toBe(null); // a typed array is a leaf
    // Values as a walk meets them: { a: [1, 2] } is 4; a list held twice counts twice.
    const list = [1, 2];
    expect([walkLimitPassed({ a: list }, 9, 4), walkLimitPassed({ a: list }, 9, 3), walkLimitPassed([list, list], 9, 7), walkLimitPassed([list, list], 9, 6)]).toEqual([null, 'values', null, 'values']);
    const deep = 5_000; // the reviver overflowed from about 2,000
    const json = new TextEncoder().encode(`{"v":{"t":"call","id":7,"params":${'['.repeat(deep)}${']'.repeat(deep)}},"b":[]}`);
    const message = new Uint8Array(4 + json.length);
    new DataView(message.buffer).setUint32(0, json.length, true);
    message.set(json, 4);
    const err = (() => {
      try {
        decodeMessage(message, Infinity, 65);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(MessageTooDeep);
    expect(err).toMatchObject({ id: 7, message: 'message nested deeper than 65 levels' });
  });
});
