import { describe, expect, it } from 'vitest';
import { cellText, float32Text } from '../../../core/io/decimal';
import { Random } from '../../../core/common/random';

/** The reference: the shortest toPrecision(p) that Math.fround reads back, as String writes that number. */
function shortestByPrecision(v: number): string {
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  throw new Error(`no decimal of at most 9 digits reads back to ${v}`);
}

describe('float32 text', () => {
  it('writes a float32 with the fewest digits that read back to it, not those of its double', () => {
    expect(float32Text(Math.fround(80.74466))).toBe('80.74466');
    expect(String(Math.fround(80.74466))).toBe('80.74465942382812');
    expect(float32Text(Math.fround(0.1))).toBe('0.1');
    expect(float32Text(Math.fround(1 / 3))).toBe('0.33333334');
    expect(float32Text(Math.fround(-490.984375))).toBe('-490.98438');
    expect(float32Text(Math.fround(1e-7))).toBe('1e-7');
    expect(float32Text(Math.fround(3.4e38))).toBe('3.4e+38');
    expect(float32Text(Math.fround(1.4e-45))).toBe('1e-45');
    expect(float32Text(45)).toBe('45');
    expect(float32Text(2 ** 24 + 2)).toBe('16777218');
    expect(float32Text(NaN)).toBe('NaN');
  });

  it('agrees with the shortest toPrecision on random float32 bit patterns of every magnitude', () => {
    const rng = new Random(11);
    const bits = new Uint32Array(1), value = new Float32Array(bits.buffer);
    const wrong: string[] = [];
    for (let i = 0; i < 20000; i++) {
      bits[0] = rng.nextU32();
      const v = value[0];
      if (!Number.isFinite(v)) continue;
      const text = float32Text(v);
      if (Math.fround(Number(text)) !== v || text !== shortestByPrecision(v)) wrong.push(`${v}: ${text}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives float32 columns float32Text and every other column String', () => {
    expect(cellText(new Float32Array(1))).toBe(float32Text);
    expect(cellText(new Float64Array(1))(Math.fround(0.1))).toBe('0.10000000149011612');
    expect(cellText(new Uint16Array(1))(7)).toBe('7');
  });
});
