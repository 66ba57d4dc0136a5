import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTable, decodeTableInSteps, decodeVolume, encodeTable, encodeVolume } from '../../../core/io/container';
import type { ColumnTable, LabelVolume } from '../../../core/common/engine';

describe('artifact container', () => {
  it('round-trips a column table of mixed types', () => {
    const table: ColumnTable = {
      kind: 'table',
      name: 'particles',
      columns: {
        x: Float64Array.of(0.5, 1.25, 3),
        type: Uint16Array.of(0, 1, 0),
        voxels: Uint32Array.of(10, 20, 30),
        rx: Int16Array.of(-90, 0, 45),
      },
      meta: { unit: 'mm' },
    };
    const back = decodeTable(encodeTable(table));
    expect(back.name).toBe('particles');
    expect(back.meta).toEqual({ unit: 'mm' });
    for (const k of Object.keys(table.columns)) {
      expect(back.columns[k].constructor).toBe(table.columns[k].constructor);
      expect(Array.from(back.columns[k])).toEqual(Array.from(table.columns[k]));
    }
  });

  it('decodes a table in steps, its header one and at most stepBytes copied in each other, to the same table, checking every column before allocating one', () => {
    const table: ColumnTable = { kind: 'table', name: 'steps', columns: { x: Float64Array.from({ length: 100 }, (_, i) => i / 3), type: Uint16Array.from({ length: 100 }, (_, i) => i % 5) }, meta: { unit: 'mm' } };
    const bytes = encodeTable(table);
    const steps = decodeTableInSteps(bytes, 64);
    let count = 0, step = steps.next();
    for (; !step.done; step = steps.next()) count++;
    expect(step.value).toEqual(decodeTable(bytes));
    expect(Array.from(step.value.columns.x)).toEqual(Array.from(table.columns.x));
    expect(count).toBe(1 + Math.ceil(800 / 64) + Math.ceil(200 / 64)); // the header's, then the steps of each column; the last of each ends it
    // A column the file cannot hold is found before the first is allocated and copied.
    const truncated = bytes.subarray(0, bytes.length - 8);
    expect(() => decodeTableInSteps(truncated, 64).next()).toThrow("column 'type' is truncated");
  });

  it('round-trips a label volume and puts its data on an 8-byte boundary', () => {
    const labels = new Uint32Array(3 * 4 * 5).map((_, i) => i % 7);
    const vol: LabelVolume = { kind: 'volume', name: 'labels', dims: [3, 4, 5], voxelSize: 0.025, labels };
    const bytes = encodeVolume(vol);
    expect((bytes.length - labels.byteLength) % 8).toBe(0);
    const back = decodeVolume(bytes);
    expect(back.dims).toEqual([3, 4, 5]);
    expect(back.voxelSize).toBe(0.025);
    expect(Array.from(back.labels)).toEqual(Array.from(labels));
  });

  it('rejects a wrong magic and truncated data with clear errors', () => {
    const vol: LabelVolume = { kind: 'volume', name: 'l', dims: [2, 2, 2], voxelSize: 1, labels: new Uint32Array(8) };
    const bytes = encodeVolume(vol);
    expect(() => decodeTable(bytes)).toThrow(/magic is 'PBVOLUM1', expected 'PBTABLE1'/);
    expect(() => decodeVolume(bytes.subarray(0, bytes.length - 4))).toThrow(/truncated/);
  });

  it('names a damaged header (not JSON, or JSON of the wrong shape) instead of failing in a reader', () => {
    const table: ColumnTable = { kind: 'table', name: 't', columns: { x: Float64Array.of(1, 2) }, meta: {} };
    const bytes = encodeTable(table);
    const len = new DataView(bytes.buffer).getUint32(8, true);
    const json = new TextDecoder().decode(bytes.subarray(12, 12 + len));
    // The same header length, other text: a header is space-padded, so a shorter text fits.
    const withHeader = (text: string) => {
      const out = bytes.slice();
      out.set(new TextEncoder().encode(text.padEnd(len, ' ')), 12);
      return out;
    };
    expect(() => decodeTable(withHeader('{"rows": 2, "colu'))).toThrow(/^artifact header is damaged: its \d+ bytes are not JSON$/);
    expect(() => decodeTable(withHeader(json.replace('"columns"', '"kolumns"')))).toThrow(/^artifact header is damaged: columns: /);
    expect(() => decodeTable(withHeader(json.replace('"rows":2', '"rows":-2')))).toThrow(/^artifact header is damaged: rows: /);
    const vol = encodeVolume({ kind: 'volume', name: 'l', dims: [2, 2, 2], voxelSize: 1, labels: new Uint32Array(8) });
    const vlen = new DataView(vol.buffer).getUint32(8, true);
    const vjson = new TextDecoder().decode(vol.subarray(12, 12 + vlen));
    const damaged = vol.slice();
    damaged.set(new TextEncoder().encode(vjson.replace('"dims":[2,2,2]', '"dims":[2,2,0]')), 12);
    expect(() => decodeVolume(damaged)).toThrow(/^artifact header is damaged: dims.2: /);
    expect(decodeTable(withHeader(json)).columns.x).toEqual(Float64Array.of(1, 2)); // the untouched header still reads
  });

  it('decodes from Node Buffers: read from disk, and a view at an odd byteOffset of a larger allocation', () => {
    const table: ColumnTable = {
      kind: 'table',
      name: 'particles',
      columns: { x: Float64Array.of(0.5, -2, 7.25), id: Uint32Array.of(1, 2, 3), t: Uint16Array.of(4, 5, 6) },
    };
    const labels = Uint32Array.from({ length: 24 }, (_, i) => i * 1000 + 1);
    const vol: LabelVolume = { kind: 'volume', name: 'labels', dims: [2, 3, 4], voxelSize: 0.5, labels };
    const dir = mkdtempSync(join(tmpdir(), 'pb-container-'));
    try {
      writeFileSync(join(dir, 't.pbt'), encodeTable(table));
      writeFileSync(join(dir, 'v.pbv'), encodeVolume(vol));
      const fromDisk = [decodeTable(readFileSync(join(dir, 't.pbt'))), decodeVolume(readFileSync(join(dir, 'v.pbv')))] as const;
      // A Buffer 5 bytes into a larger one filled with 0xff: any read outside the view shows.
      const offset = (bytes: Uint8Array) => {
        const big = Buffer.alloc(bytes.length + 16, 0xff);
        big.set(bytes, 5);
        return big.subarray(5, 5 + bytes.length);
      };
      const fromView = [decodeTable(offset(encodeTable(table))), decodeVolume(offset(encodeVolume(vol)))] as const;
      for (const [t, v] of [fromDisk, fromView]) {
        for (const k of Object.keys(table.columns)) {
          expect(t.columns[k].constructor).toBe(table.columns[k].constructor);
          expect(Array.from(t.columns[k])).toEqual(Array.from(table.columns[k]));
          expect(t.columns[k].byteOffset).toBe(0);
        }
        expect(Array.from(v.labels)).toEqual(Array.from(labels));
        expect(v.labels.buffer.byteLength).toBe(labels.byteLength);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
