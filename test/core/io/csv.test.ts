import { describe, expect, it } from 'vitest';
import { csvColumns, parseSphereCsv, sphereCsvToTable, tableToCsv } from '../../../core/io/csv';
import type { ColumnTable } from '../../../core/common/engine';
import { TextBytes } from '../../../core/io/decimal';
import { resolveParticleColumns } from '../../../renderer/src/workspaces/inspector/particleColumns';

/** tableToCsv's text of the whole table. */
function csvText(t: ColumnTable): string {
  const out = new TextBytes();
  tableToCsv(out, t);
  return out.toString();
}

describe('particle csv', () => {
  it('writes all columns of a non-sphere table in order', () => {
    const t: ColumnTable = { kind: 'table', name: 'particles', columns: { id: Uint32Array.of(0, 1), rx: Int16Array.of(-90, 45) } };
    expect(csvColumns(t)).toEqual(['id', 'rx']);
    expect(csvText(t)).toBe('id,rx\n0,-90\n1,45\n');
  });

  it('writes a sphere table as x,y,z,r,type first, then its other columns in table order', () => {
    const one = Float64Array.of(1);
    const t: ColumnTable = { kind: 'table', name: 'particles', columns: { class: Uint8Array.of(2), r: one, x: one, y: one, z: one, speed: Float32Array.of(0.5) } };
    expect(csvText(t)).toBe('x,y,z,r,class,speed\n1,1,1,1,2,0.5\n');
    expect(csvColumns({ ...t, columns: { ...t.columns, type: Uint16Array.of(3) } })).toEqual(['x', 'y', 'z', 'r', 'type', 'class', 'speed']);
  });

  it("writes the category a sphere table declares (a stacking's size class) as its type, which the import reads back", () => {
    const one = Float64Array.of(1, 2);
    const stacking: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { x: one, y: one, z: one, r: Float64Array.of(0.5, 0.25), class: Uint8Array.of(2, 1), coordination: Uint8Array.of(1, 1) },
      meta: { particleTable: { name: 'particles', centre: ['x', 'y', 'z'], size: [{ column: 'r', is: 'radius' }], glyph: { kind: 'sphere' }, category: { column: 'class', label: 'Size class' }, quantities: [] } },
    };
    expect(csvText(stacking)).toBe('x,y,z,r,type,coordination\n1,1,1,0.5,2,1\n2,2,2,0.25,1,1\n');
    expect(Array.from(sphereCsvToTable(csvText(stacking)).columns.type)).toEqual([2, 1]);
  });

  it('writes float32 columns with their own shortest digits and float64 columns as they are', () => {
    const t: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { id: Uint32Array.of(0, 1), principalTilt: Float32Array.of(80.74466, 1 / 3), size: Float64Array.of(Math.fround(80.74466), 0.1) },
    };
    expect(csvText(t)).toBe('id,principalTilt,size\n0,80.74466,80.74465942382812\n1,0.33333334,0.1\n');
  });

  it("writes a value a particle does not have (NaN: a sphere's principal tilt) as an empty field, not 'NaN'", () => {
    const t: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { id: Uint32Array.of(0, 1), principalTilt: Float32Array.of(NaN, 45.5), size: Float64Array.of(1, NaN) },
    };
    expect(csvText(t)).toBe('id,principalTilt,size\n0,,1\n1,45.5,\n');
  });

  it('reads CR (classic Mac), LF, CRLF and mixed line ends, numbering lines as an editor does', () => {
    for (const breaks of [['\r'], ['\n'], ['\r\n'], ['\r', '\r\n', '\n']]) {
      let k = 0;
      const text = 'x,y,z,r,type\n1,2,3,0.5,1\n\n2,2,2,0.25,0\n'.replace(/\n/g, () => breaks[k++ % breaks.length]);
      const t = sphereCsvToTable(text);
      expect(Array.from(t.columns.x)).toEqual([1, 2]);
      expect(Array.from(t.columns.type)).toEqual([1, 0]);
      expect(Array.from(parseSphereCsv(text).lineNumbers)).toEqual([1, 2, 4]);
      expect(() => sphereCsvToTable(text.replace('0.25', 'abc'))).toThrow(/^sphere CSV line 4: column 'r' is 'abc'/);
    }
    expect(() => sphereCsvToTable('x,y,z\r1,2,3\r')).toThrow(/^sphere CSV header 'x,y,z' lacks column 'r'/);
  });

  it('round-trips awkward doubles exactly', () => {
    const x = Float64Array.of(0.1 + 0.2, 1e-300, -123456.789, 2 ** 52 + 1);
    const t: ColumnTable = { kind: 'table', name: 's', columns: { x, y: x, z: x, r: Float64Array.of(1, 2, 3, 4) } };
    const back = sphereCsvToTable(csvText(t));
    expect(Array.from(back.columns.x)).toEqual(Array.from(x));
  });

  it('imports a CSV without a type column without one (classes unknown), not with type 0 for every sphere', () => {
    // A stacking CSV exported before its class was written as type (932332b) has it as 'class'.
    const t = sphereCsvToTable('x,y,z,r,class\n1,1,1,0.5,2\n2,2,2,0.5,1\n');
    expect(Object.keys(t.columns).sort()).toEqual(['id', 'r', 'x', 'y', 'z']);
    // The inspector offers no colouring by type, and the CSV export writes none.
    expect(resolveParticleColumns(t.columns, 2, t.meta!).colourings.map((c) => c.key)).toEqual(['height', 'id']);
    expect(csvText(t)).toBe('x,y,z,r,id\n1,1,1,0.5,0\n2,2,2,0.5,1\n');
    expect(Array.from(sphereCsvToTable('x,y,z,r,type\n1,1,1,0.5,0\n').columns.type)).toEqual([0]);
  });

  it("reads quoted fields: R's write.csv (quoted names, a row-name column) and Excel's quoted text", () => {
    const r = sphereCsvToTable('"","x","y","z","r"\n"1",0.5,1,1.5,0.25\n"2",2,2,2,0.5\n');
    expect(Array.from(r.columns.x)).toEqual([0.5, 2]);
    expect(Array.from(r.columns.r)).toEqual([0.25, 0.5]);
    const excel = sphereCsvToTable('x,y,z,r,label\n1,2,3,0.5,"grain, ""large"""\n');
    expect(Array.from(excel.columns.z)).toEqual([3]);
    expect(() => sphereCsvToTable('x,y,z,r\n1,2,3,"0,5"\n')).toThrow(/line 2: column 'r' is '0,5', expected a finite number/);
    // Excel quotes a cell with a line break and keeps the break: one sphere a line cannot hold it, say so (not "line 3: column 'x' is 'b'").
    expect(() => sphereCsvToTable('x,y,z,r,label\n1,1,1,0.5,"a\nb"\n2,2,2,0.5,c\n')).toThrow(/^sphere CSV line 2: a quoted field is not closed on its line \(a line break inside quotes\?\); each sphere must be on one line$/);
  });

  it('rejects missing columns, non-numbers and bad radii naming line and column', () => {
    expect(() => sphereCsvToTable('x,y,z\n1,2,3\n')).toThrow(/lacks column 'r'/);
    expect(() => sphereCsvToTable('x;y;z;r\n1;2;3;0,5\n')).toThrow(/header 'x;y;z;r' is separated by ';': fields must be separated by commas/);
    expect(() => sphereCsvToTable('x\ty\tz\tr\n1\t2\t3\t0.5\n')).toThrow(/is separated by tabs: fields must be separated by commas/);
    expect(() => sphereCsvToTable('x,y,z,r\n1,2,abc,3\n')).toThrow(/line 2: column 'z' is 'abc'/);
    for (const literal of ['0x10', '0b11', '0O7']) expect(() => sphereCsvToTable(`x,y,z,r\n1,${literal},1,3\n`)).toThrow(`line 2: column 'y' is '${literal}', expected a finite number`);
    expect(Array.from(sphereCsvToTable('x,y,z,r\n1e2,-0,100,3E-1\n').columns.x)).toEqual([100]);
    expect(() => sphereCsvToTable('x,y,z,r\n1,2,3,-1\n')).toThrow(/line 2: radius r must be > 0/);
    expect(() => sphereCsvToTable('x,y,z,r,type\n1,2,3,1,1.5\n')).toThrow(/type must be an integer/);
    expect(() => sphereCsvToTable('')).toThrow(/empty/);
    // Decimal commas: '1,5,2,5,3,5,0,5' read as x = 1, y = 5, z = 2, r = 5 unless a row wider than the header is refused.
    expect(() => sphereCsvToTable('x,y,z,r\n1,5,2,5,3,5,0,5\n')).toThrow(/line 2 has 8 fields, the header 4 \(x,y,z,r\); decimal commas\?/);
    expect(sphereCsvToTable('x,y,z,r,\n1,2,3,1,\n').columns.r[0]).toBe(1); // a trailing comma on every line is fine
    // Line numbers are the file's, comments and blank lines counted.
    expect(() => sphereCsvToTable('# exported\nx,y,z,r\n\n1,2,3,1\n1,2,3,0\n')).toThrow(/line 5: radius r must be > 0/);
  });

  it('quotes at most 60 characters of the file in an error, control characters as ?', () => {
    // A one-line file (or a binary one) quoted its whole first line: 20 MB of message on a 20 MB file.
    const message = (text: string) => { try { sphereCsvToTable(text); } catch (e) { return (e as Error).message; } return ''; };
    const long = message('a'.repeat(1e6));
    expect(long).toBe(`sphere CSV header '${'a'.repeat(57)}…' lacks column 'x' (needs x,y,z,r and optionally type)`);
    expect(message('x,y,z,r\n1,2,3,' + '9'.repeat(5000) + 'x\n')).toMatch(/^sphere CSV line 2: column 'r' is '9{57}…', expected a finite number$/);
    expect(message('\u0000\u0001PK\u0003\u0004,b\n')).toBe("sphere CSV header '??PK??,b' lacks column 'x' (needs x,y,z,r and optionally type)");
  });
});
