import { describe, expect, it } from 'vitest';
import { TextBytes } from '../../../core/io/decimal';
import { Random } from '../../../core/common/random';
import type { ColumnTable } from '../../../core/common/engine';
import { tableToCsv } from '../../../core/io/csv';
import { dumpRows } from '../../../core/io/lammps';

/** The reference: the shortest toPrecision(p) that Math.fround reads back, as String writes that number. */
function shortestByPrecision(v: number): string {
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  throw new Error(`no decimal of at most 9 digits reads back to ${v}`);
}

const out = new TextBytes(4);
const float32Text = (v: number): string => { out.clear(); out.float32(v); return out.toString(); };

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

  it('writes dump and CSV rows of random values, edge values among them, as String and the shortest toPrecision do', () => {
    const rng = new Random(5);
    const n = 3000;
    const edges = [0, -0, 1.4e-45, -1.4e-45, 1.1754942e-38, 1.1754942e-39, 3.4028235e38, -3.4028235e38, 1e-14, 9.99e-15, 1e22, 1e23, 16777216, 16777218, -16777219, 0.1, -0.5, 123456.789, NaN, Infinity, -Infinity];
    const bits = new Uint32Array(1), bitValue = new Float32Array(bits.buffer);
    // Each column: an edge value in 1 of 5 rows, else random bits (any magnitude) or a position in a 60-unit box.
    const values = (): number[] => Array.from({ length: n }, (_, i) => {
      if (rng.next() < 0.2) return edges[i % edges.length];
      bits[0] = rng.nextU32();
      return rng.next() < 0.5 ? bitValue[0] : rng.next() * 60;
    });
    const columns = {
      x: Float32Array.from(values()), y: Float64Array.from(values()), z: Float32Array.from(values()),
      r: Float32Array.from(values()), speed: Float32Array.from(values()), impacts: Uint32Array.from({ length: n }, () => rng.nextU32()),
      type: Uint16Array.from({ length: n }, (_, i) => i % 3),
    };
    const table: ColumnTable = { kind: 'table', name: 'frame', columns };
    const text = (column: ArrayLike<number>, i: number): string => {
      const v = column[i];
      return column instanceof Float32Array && Number.isFinite(v) ? shortestByPrecision(v) : String(v);
    };
    const dump = new TextBytes(16);
    dumpRows(dump, table, columns.r, 0, n, 'type', ['speed', 'impacts']);
    const dumpLines = Array.from({ length: n }, (_, i) => [i + 1, columns.type[i] + 1, ...[columns.x, columns.y, columns.z, columns.r, columns.speed, columns.impacts].map((c) => text(c, i))].join(' '));
    expect(dump.toString()).toBe(dumpLines.join('\n') + '\n');
    const csv = new TextBytes(16);
    tableToCsv(csv, table);
    // NaN, a value a particle does not have, is an empty CSV field.
    const csvLines = Array.from({ length: n }, (_, i) => [columns.x, columns.y, columns.z, columns.r, columns.type, columns.speed, columns.impacts].map((c) => (Number.isNaN(c[i]) ? '' : text(c, i))).join(','));
    expect(csv.toString()).toBe(['x,y,z,r,type,speed,impacts', ...csvLines].join('\n') + '\n');
  });
});
