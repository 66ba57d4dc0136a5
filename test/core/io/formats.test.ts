import { describe, expect, it } from 'vitest';
import type { ColumnTable } from '../../../core/common/engine';
import { decodeTiffStack, tiffLayout } from '../../../core/io/tiff';
import { decodeVti, vtiHead, vtiTail } from '../../../core/io/vti';
import { labelBytes, labelDtype, type LabelDtype } from '../../../core/io/labels';
import { parseRawHeader, rawSidecar, rawToSolidBits } from '../../../core/io/raw';
import { dumpHead, dumpRadius, dumpRows, parseDump, wrapIntoBox } from '../../../core/io/lammps';
import { TextBytes } from '../../../core/io/decimal';

const dims: [number, number, number] = [5, 4, 3];
const labels = Uint32Array.from({ length: 60 }, (_, i) => (i * 7919) % 13);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** The same bytes as a Node Buffer 3 bytes into a larger allocation of 0xff (what readFileSync can give). */
function inBuffer(bytes: Uint8Array): Buffer {
  const big = Buffer.alloc(bytes.length + 11, 0xff);
  big.set(bytes, 3);
  return big.subarray(3, 3 + bytes.length);
}

/** Pixel bytes written slice by slice, as the exporter streams them. */
function slabs(values: Uint32Array, dtype: LabelDtype): Uint8Array[] {
  const scratch = new Uint8Array(20 * 4);
  return [0, 1, 2].map((z) => labelBytes(values.subarray(z * 20, (z + 1) * 20), dtype, scratch).slice());
}

describe('TIFF stack', () => {
  for (const dtype of ['uint16', 'uint32'] as const) {
    for (const contiguousOnly of [false, true]) {
      it(`round-trips ${dtype} labels with ${contiguousOnly ? 'one IFD (ImageJ large-stack form)' : 'one IFD per page'}`, () => {
        const values = dtype === 'uint32' ? labels.map((l) => l * 100000) : labels;
        const layout = tiffLayout(dims, 0.025, dtype, { unit: 'mm', contiguousOnly });
        const file = concat([layout.head, ...slabs(values, dtype), layout.tail]);
        expect(layout.dataOffset % 2).toBe(0);
        const back = decodeTiffStack(file);
        expect(back.dims).toEqual(dims);
        expect(back.bitsPerSample).toBe(dtype === 'uint16' ? 16 : 32);
        expect(Array.from(back.labels)).toEqual(Array.from(values));
        expect(back.description).toContain('images=3');
        expect(back.description).toContain('unit=mm');
        expect(back.description).toContain('spacing=0.025');
        expect(Array.from(decodeTiffStack(inBuffer(file)).labels)).toEqual(Array.from(values));
      });
    }
  }
  it("gives ResolutionUnit as ImageJ does: none for mm or 'unit' (TIFF's default would be inch), cm and inch as such", () => {
    const unitOf = (unit: string) => {
      const head = tiffLayout(dims, 0.025, 'uint16', { unit }).head;
      const v = new DataView(head.buffer, head.byteOffset, head.byteLength);
      const ifd = v.getUint32(4, true);
      for (let k = 0; k < v.getUint16(ifd, true); k++) if (v.getUint16(ifd + 2 + 12 * k, true) === 296) return v.getUint16(ifd + 2 + 12 * k + 8, true);
      return undefined;
    };
    expect([unitOf('mm'), unitOf('unit'), unitOf('cm'), unitOf('inch')]).toEqual([1, 1, 3, 2]);
  });

  it('gives XResolution (pixels per unit) so that 1 / XResolution is the voxel size, small or large', () => {
    const pixelSize = (voxelSize: number) => {
      const head = tiffLayout(dims, voxelSize, 'uint16', { unit: 'unit' }).head;
      const v = new DataView(head.buffer, head.byteOffset, head.byteLength);
      const ifd = v.getUint32(4, true);
      for (let k = 0; k < v.getUint16(ifd, true); k++) {
        const e = ifd + 2 + 12 * k;
        if (v.getUint16(e, true) === 282) { const at = v.getUint32(e + 8, true); return v.getUint32(at + 4, true) / v.getUint32(at, true); }
      }
      return NaN;
    };
    // A surface sampling's voxel (2.94 / 64), a coarse voxel in micrometres, a fine one in metres, whole ones.
    for (const size of [0.0459375, 1500, 2.5e-6, 0.025, 1, 16]) expect(Math.abs(pixelSize(size) / size - 1)).toBeLessThan(1e-9);
  });

  it('chooses 16-bit labels when they fit', () => {
    expect(labelDtype(65535)).toBe('uint16');
    expect(labelDtype(65536)).toBe('uint32');
  });
});

describe('VTK ImageData', () => {
  it('round-trips labels, extent and spacing', () => {
    for (const dtype of ['uint16', 'uint32'] as const) {
      const file = concat([vtiHead(dims, 0.5, dtype), ...slabs(labels, dtype), vtiTail()]);
      const text = new TextDecoder('latin1').decode(file);
      expect(text).toContain('WholeExtent="0 5 0 4 0 3"');
      expect(text.trimEnd().endsWith('</VTKFile>')).toBe(true);
      const back = decodeVti(file);
      expect(back.dims).toEqual(dims);
      expect(back.voxelSize).toBe(0.5);
      expect(Array.from(back.labels)).toEqual(Array.from(labels));
      expect(Array.from(decodeVti(inBuffer(file)).labels)).toEqual(Array.from(labels));
    }
  });
});

describe('raw with JSON header', () => {
  it('round-trips a header and reads solid bits from every sample type', () => {
    const text = rawSidecar({ dims, dtype: 'uint16', byteOrder: 'little', headerBytes: 0, voxelSize: 0.1 });
    expect(JSON.parse(text).numpy).toBe("np.fromfile(path, '<u2', offset=0).reshape(3, 4, 5)");
    const header = parseRawHeader(text, 120);
    expect(header.dims).toEqual(dims);
    const data = concat(slabs(labels, 'uint16'));
    const bits = rawToSolidBits(data, header);
    for (let i = 0; i < 60; i++) expect((bits[i >> 3] >> (i & 7)) & 1).toBe(labels[i] ? 1 : 0);
    const big = new Uint8Array(4 + 60 * 4);
    const view = new DataView(big.buffer);
    labels.forEach((l, i) => view.setFloat32(4 + 4 * i, l * 0.5, false));
    const bitsBig = rawToSolidBits(big, parseRawHeader(JSON.stringify({ dims, dtype: 'float32', byteOrder: 'big', headerBytes: 4 }), big.length));
    expect(Array.from(bitsBig)).toEqual(Array.from(bits));
  });

  it('names the bad header field and a short data file', () => {
    expect(() => parseRawHeader('{"dims":[1,2],"dtype":"uint8"}')).toThrow(/raw header field 'dims'/);
    expect(() => parseRawHeader('{"dims":[1,2,3],"dtype":"int64"}')).toThrow(/raw header field 'dtype'/);
    expect(() => parseRawHeader('{"dims":[10,10,10],"dtype":"uint16"}', 100)).toThrow(/raw data has 100 bytes, but the header \(dims 10x10x10, uint16, headerBytes 0\) needs 2000/);
    // A misspelt field is refused, not replaced by its default (a voxel size of 1).
    expect(() => parseRawHeader('{"dims":[1,1,1],"dtype":"uint8","voxel_size":0.05}')).toThrow(/raw header has unknown field 'voxel_size'; allowed: dims, dtype, byteOrder, headerBytes, voxelSize, unit/);
    // The notes the raw export writes (layout, numpy, run, labels) read back.
    expect(parseRawHeader(rawSidecar({ dims: [1, 1, 1], dtype: 'uint8', byteOrder: 'little', headerBytes: 0, voxelSize: 0.5 }, { run: 'r1', labels: 'label = particle index + 1, 0 = void' })).voxelSize).toBe(0.5);
    expect(() => parseRawHeader('nope')).toThrow(/not valid JSON/);
    // A hand-edited header: the place of the slip as an editor shows it, line and column.
    expect(() => parseRawHeader('\uFEFF{\n  "dims": [2, 2, 2],\n  "dtype": "uint8"\n  "voxelSize": 1\n}')).toThrow(/^raw header is not valid JSON at line 4, column 3: /);
    // A header saved with a byte-order mark (Windows Notepad's 'UTF-8 with BOM') reads like any other.
    expect(parseRawHeader('\uFEFF{"dims":[2,3,4],"dtype":"uint8","voxelSize":0.25}').dims).toEqual([2, 3, 4]);
  });
});

/** dumpRows' atom lines as text. */
function dumpText(...args: Parameters<typeof dumpRows> extends [TextBytes, ...infer Rest] ? Rest : never): string {
  const out = new TextBytes();
  dumpRows(out, ...args);
  return out.toString();
}

describe('LAMMPS dump', () => {
  it('round-trips a sphere table with 1-based ids and types', () => {
    const t: ColumnTable = {
      kind: 'table', name: 'spheres',
      columns: { type: Uint16Array.of(0, 2), x: Float64Array.of(0.1, 1 / 3), y: Float64Array.of(2, 3), z: Float64Array.of(0.5, 4), r: Float64Array.of(0.5, 0.25) },
    };
    const text = dumpHead(t, { box: [4, 5, 6], periodic: [true, true, false] }) + dumpText(t, dumpRadius(t), 0, 1) + dumpText(t, dumpRadius(t), 1, 2);
    expect(text).toContain('ITEM: BOX BOUNDS pp pp ff\n0 4\n0 5\n0 6\nITEM: ATOMS id type x y z radius\n1 1 0.1 2 0.5 0.5\n2 3 ');
    const back = parseDump(text);
    // Line ends as a Windows or classic-Mac editor saves them read the same.
    for (const end of ['\r\n', '\r']) expect(parseDump(text.replace(/\n/g, end))).toEqual(back);
    expect(back.box).toEqual([4, 5, 6]);
    expect(back.periodic).toEqual([true, true, false]);
    for (const c of ['type', 'x', 'y', 'z', 'r']) expect(Array.from(back.table.columns[c])).toEqual(Array.from(t.columns[c]));
  });

  it('gives voxel particles their equal-volume radius and rotation columns', () => {
    const t: ColumnTable = {
      kind: 'table', name: 'particles',
      columns: { x: Float64Array.of(1), y: Float64Array.of(1), z: Float64Array.of(1), voxels: Uint32Array.of(4189), rx: Int16Array.of(90), ry: Int16Array.of(0), rz: Int16Array.of(45) },
    };
    const r = dumpRadius(t, 20);
    expect(r[0]).toBeCloseTo(10 / 20, 3); // a radius-10-voxel sphere has ~4189 voxels
    expect(dumpHead(t, { box: [2, 2, 2], periodic: [true, true, false] })).toContain('radius rx ry rz');
    expect(dumpText(t, r, 0, 1).trim().split(' ').slice(-3)).toEqual(['90', '0', '45']);
    expect(() => dumpRadius({ kind: 'table', name: 'q', columns: { x: new Float64Array(1) } })).toThrow(/no r, voxels .* or size column/);
  });

  it('writes float32 columns with their own shortest digits', () => {
    const f = Float32Array.of(80.74466);
    const t: ColumnTable = { kind: 'table', name: 'frame', columns: { x: f, y: Float64Array.of(0.1), z: f, r: Float32Array.of(0.3) } };
    expect(dumpText(t, dumpRadius(t), 0, 1)).toBe('1 1 80.74466 0.1 80.74466 0.3\n');
  });

  it('wraps centres into [lo, hi) along periodic axes only', () => {
    const v = Float64Array.of(-1e-18, -0.25, 3, 7.5, 1);
    const t: ColumnTable = { kind: 'table', name: 'p', columns: { x: v, y: v, z: v } };
    const w = wrapIntoBox(t, [0, 1, 0], [3, 4, 3], [true, true, false]).columns;
    expect(Array.from(w.x)).toEqual([0, 2.75, 0, 1.5, 1]);
    expect(Array.from(w.y)).toEqual([3 - 1e-18, 2.75, 3, 1.5, 1]);
    expect(w.z).toBe(v);
  });
});
