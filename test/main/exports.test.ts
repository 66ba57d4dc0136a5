import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTable } from '../../core/io/container';
import { sphereCsvToTable } from '../../core/io/csv';
import type { ColumnTable } from '../../core/common/engine';
import { EXPORT_FORMATS, exportRun, type ExportableRun } from '../../main/services/exports';

let dir: string;
let run: ExportableRun;
const spheres: ColumnTable = {
  kind: 'table',
  name: 'spheres',
  columns: {
    id: Uint32Array.of(0, 1, 2),
    type: Uint16Array.of(0, 1, 0),
    x: Float64Array.of(0.5, 1.25, 2.125),
    y: Float64Array.of(1, 2, 3),
    z: Float64Array.of(0.1, 0.2, 1 / 3),
    r: Float64Array.of(0.5, 0.25, 0.125),
  },
  meta: { box: [4, 4, 4], periodic: [true, true, false] },
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pb-export-'));
  writeFileSync(join(dir, 'spheres.pbt'), encodeTable(spheres));
  run = {
    id: 'r1',
    name: 'test run',
    engine: 'stacking',
    params: { n: 3 },
    metrics: { porosity: 0.4 },
    series: [{ name: 'g(r)', xLabel: 'r', yLabel: 'g', kind: 'line', x: Float64Array.of(1, 2), y: Float64Array.of(0.5, 1) }],
    artifacts: [{ kind: 'table', name: 'spheres', path: join(dir, 'spheres.pbt') }],
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('exportRun', () => {
  it('writes json with params, metrics and series', async () => {
    const out = join(dir, 'r.json');
    const res = await exportRun(run, 'json', out);
    const back = JSON.parse(readFileSync(out, 'utf8'));
    expect(res.bytes).toBe(readFileSync(out).length);
    expect(back.params).toEqual({ n: 3 });
    expect(back.metrics).toEqual({ porosity: 0.4 });
    expect(back.series[0]).toMatchObject({ name: 'g(r)', x: [1, 2], y: [0.5, 1] });
  });

  it('writes the sphere table as x,y,z,r,type csv that reads back exactly', async () => {
    const out = join(dir, 's.csv');
    const fractions: number[] = [];
    await exportRun(run, 'csv', out, (f) => fractions.push(f));
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toBe('x,y,z,r,type');
    const back = sphereCsvToTable(text);
    for (const c of ['x', 'y', 'z', 'r', 'type']) expect(Array.from(back.columns[c])).toEqual(Array.from(spheres.columns[c]));
    expect(fractions.at(-1)).toBe(1);
  });

  it('writes series as long-form csv', async () => {
    const out = join(dir, 'series.csv');
    await exportRun(run, 'series-csv', out);
    expect(readFileSync(out, 'utf8')).toBe('series,x_label,y_label,x,y\ng(r),r,g,1,0.5\ng(r),r,g,2,1\n');
  });

  it('rejects an unknown format listing the allowed ones', async () => {
    await expect(exportRun(run, 'xlsx', join(dir, 'x'))).rejects.toThrow(/unknown export format 'xlsx'; allowed: .*json.*csv/);
    expect(EXPORT_FORMATS.map((f) => f.id)).toContain('csv');
  });

  it('says which artifact is missing', async () => {
    const bare = { ...run, artifacts: [] };
    await expect(exportRun(bare, 'csv', join(dir, 'y.csv'))).rejects.toThrow(/has no particle table artifact, which format 'csv' needs/);
  });
});
