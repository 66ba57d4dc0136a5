import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTable } from '../../core/io/container';
import type { ColumnTable, EngineResult } from '../../core/common/engine';
import { ballmillEngine, ballmillParamsSchema } from '../../core/ballmill/index';
import { EXPORT_FORMATS, exportFormatList, exportRun, FormatNotApplicable, lackingData, type ExportableRun } from '../../main/services/exports';

/** One frame of a multi-frame LAMMPS dump, read here without the writer's code. */
interface DumpFrame {
  time: number;
  step: number;
  flags: string;
  bounds: [number, number][];
  columns: string[];
  atoms: number[][];
}

/** Reads every frame: ITEM: TIME, TIMESTEP, NUMBER OF ATOMS, BOX BOUNDS, ATOMS, in that order, and nothing else. */
function readDumpFrames(text: string): DumpFrame[] {
  const lines = text.split('\n');
  expect(lines.pop()).toBe(''); // ends with a line end
  const frames: DumpFrame[] = [];
  let k = 0;
  const take = (item: string) => {
    if (!lines[k].startsWith(`ITEM: ${item}`)) throw new Error(`line ${k + 1}: expected 'ITEM: ${item}', read '${lines[k]}'`);
    return lines[k++].slice(`ITEM: ${item}`.length).trim();
  };
  while (k < lines.length) {
    take('TIME');
    const time = Number(lines[k++]);
    take('TIMESTEP');
    const step = Number(lines[k++]);
    take('NUMBER OF ATOMS');
    const n = Number(lines[k++]);
    const flags = take('BOX BOUNDS');
    const bounds = [0, 1, 2].map(() => lines[k++].split(' ').map(Number) as [number, number]);
    const columns = take('ATOMS').split(' ');
    const atoms = lines.slice(k, k + n).map((l) => l.split(' ').map(Number));
    k += n;
    frames.push({ time, step, flags, bounds, columns, atoms });
  }
  return frames;
}

/** The value a stored column holds, as the text written reads back into its type. */
const asStored = (col: ArrayLike<number>, v: number) => (col instanceof Float32Array ? Math.fround(v) : v);

let dir: string;
const base: Omit<ExportableRun, 'artifacts'> = { id: 'm1', name: 'mill', engine: 'ballmill', params: {}, metrics: {}, series: [] };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pb-traj-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function millRun(dim: 2 | 3, frameRate: number): { run: ExportableRun; traj?: ColumnTable } {
  const params = ballmillParamsSchema.parse({
    dim, duration: 0.12, balls: { count: 7, radius: { law: 'fixed', value: 3 } },
    vial: { width: 60, height: 80, amplitude: 10, frequency: 15 }, output: { frameRate },
  });
  const res = ballmillEngine.run(params, { seed: 3, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
  const artifacts: ExportableRun['artifacts'] = [];
  let traj: ColumnTable | undefined;
  for (const a of res.artifacts) {
    if (a.kind !== 'table') continue;
    const path = join(dir, `${dim}-${frameRate}-${a.name}.pbt`);
    writeFileSync(path, encodeTable(a));
    artifacts.push({ kind: 'table', name: a.name, path });
    if (a.name !== 'particles') traj = a;
  }
  return { run: { ...base, id: `m${dim}f${frameRate}`, artifacts }, traj };
}

describe("the 'lammps-trajectory' export (a ball mill's trajectories as a multi-frame LAMMPS dump)", () => {
  it('is listed with the trajectories it needs', () => {
    expect(exportFormatList().find((f) => f.id === 'lammps-trajectory')).toMatchObject({ needs: 'trajectory', extension: 'dump', appliesTo: expect.stringContaining('output.frameRate > 0') });
  });

  it('writes every frame: its time, index, the vial where it is then, and every ball as stored', async () => {
    for (const dim of [2, 3] as const) {
      const { run, traj } = millRun(dim, 100);
      expect(traj).toBeDefined();
      const meta = traj!.meta!;
      const frames = meta.frames as number, n = meta.frameRows as number;
      expect(frames).toBeGreaterThan(5);
      expect(n).toBe(7);
      const out = join(dir, `traj${dim}.dump`);
      const progress: number[] = [];
      await exportRun(run, 'lammps-trajectory', out, (f) => progress.push(f));
      expect(progress.at(-1)).toBe(1);
      const dump = readDumpFrames(readFileSync(out, 'utf8'));
      expect(dump).toHaveLength(frames);
      const times = meta.frameTimes as number[], offsets = meta.frameOffsets as number[];
      const { x, y, z, r, speed, impacts } = traj!.columns;
      // The vial moves during the run: a box that did not follow it would fail below.
      expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(1);
      dump.forEach((frame, f) => {
        expect(frame.step).toBe(f);
        expect(frame.time).toBe(times[f]);
        expect(frame.flags).toBe('ff ff ff');
        expect(frame.columns).toEqual(['id', 'type', 'x', 'y', 'z', 'radius', 'speed', 'impacts']);
        expect(frame.atoms).toHaveLength(n);
        // Lab frame: the vial's walls are where it is at this frame (2D: y up, 3D: z up, 80 tall).
        const up = dim === 2 ? 1 : 2;
        expect(frame.bounds[up][0]).toBeCloseTo(offsets[f], 9);
        expect(frame.bounds[up][1]).toBeCloseTo(80 + offsets[f], 9);
        frame.atoms.forEach((a, i) => {
          const row = f * n + i;
          expect(a[0]).toBe(i + 1); // one id per ball in every frame, so OVITO follows it
          expect(a[1]).toBe(1);
          expect([asStored(x, a[2]), asStored(y, a[3]), asStored(z, a[4]), asStored(r, a[5])]).toEqual([x[row], y[row], z[row], r[row]]);
          expect([asStored(speed, a[6]), a[7]]).toEqual([speed[row], impacts[row]]);
          for (let c = 0; c < 3; c++) {
            expect(a[2 + c]).toBeGreaterThanOrEqual(frame.bounds[c][0]);
            expect(a[2 + c]).toBeLessThanOrEqual(frame.bounds[c][1]);
          }
        });
      });
    }
  });

  it('streams a table larger than one block, and a frame larger than one chunk, frame by frame', async () => {
    // Synthetic tables of frames: 6,000 frames of 12 rows (blocks of whole frames: 5,461 frames of 65,536 rows at most) and 2 frames of 66,000 rows (a frame in chunks).
    for (const [frames, n] of [[6_000, 12], [2, 66_000]]) {
      const rows = frames * n;
      const x = Float32Array.from({ length: rows }, (_, k) => (k % 977) / 7), y = Float32Array.from({ length: rows }, (_, k) => (k % 13) * 0.1), z = new Float32Array(rows).fill(0.5);
      const table: ColumnTable = {
        kind: 'table', name: 'trajectories',
        columns: { time: new Float64Array(rows), id: Uint32Array.from({ length: rows }, (_, k) => k % n), x, y, z, r: new Float32Array(rows).fill(0.25), speed: new Float32Array(rows), impacts: Uint32Array.from({ length: rows }, (_, k) => Math.floor(k / n)) },
        meta: { frames, frameRows: n, frameTimes: Array.from({ length: frames }, (_, f) => f / 100), frameOffsets: new Array(frames).fill(0), container: { shape: 'box', min: [0, 0, 0], max: [150, 2, 1] } },
      };
      const path = join(dir, `big${n}.pbt`);
      writeFileSync(path, encodeTable(table));
      const out = join(dir, `big${n}.dump`);
      await exportRun({ ...base, artifacts: [{ kind: 'table', name: 'trajectories', path }] }, 'lammps-trajectory', out);
      const dump = readDumpFrames(readFileSync(out, 'utf8'));
      expect(dump).toHaveLength(frames);
      for (const f of [0, 1, Math.floor(frames / 2), frames - 1]) {
        expect(dump[f].time).toBe(f / 100);
        expect(dump[f].atoms).toHaveLength(n);
        for (const i of [0, n - 1]) {
          const a = dump[f].atoms[i], row = f * n + i;
          expect([a[0], Math.fround(a[2]), Math.fround(a[3]), a[7]]).toEqual([i + 1, x[row], y[row], f]);
        }
      }
    }
  });

  it('refuses a run without trajectories (output.frameRate 0), naming the parameter that makes them', async () => {
    const { run, traj } = millRun(3, 0);
    expect(traj).toBeUndefined();
    const spec = EXPORT_FORMATS.find((f) => f.id === 'lammps-trajectory')!;
    const message = `run ${run.id} has no trajectories artifact, which format 'lammps-trajectory' needs (ball mill runs make it when output.frameRate > 0)`;
    expect(lackingData(run, spec)).toBe(message);
    const refusal = exportRun(run, 'lammps-trajectory', join(dir, 'none.dump'));
    await expect(refusal).rejects.toThrow(message);
    await expect(refusal).rejects.toBeInstanceOf(FormatNotApplicable);
  });
});

describe("the 'trajectory-csv' export (a ball mill's trajectories as CSV)", () => {
  // A researcher reading the trajectories into pandas or R had only the LAMMPS dump, which those do
  // not read, and the particle table's CSV: the end state alone.
  it('is listed with the trajectories it needs, its units in its title', () => {
    expect(exportFormatList().find((f) => f.id === 'trajectory-csv')).toMatchObject({
      needs: 'trajectory', extension: 'csv', appliesTo: expect.stringContaining('output.frameRate > 0'),
      label: expect.stringMatching(/x, y, z, r \(mm\), time \(s\), id, speed \(mm\/s\), impacts/),
    });
  });

  it('writes a row per ball per frame, frame after frame, every value as stored', async () => {
    for (const dim of [2, 3] as const) {
      const { run, traj } = millRun(dim, 100);
      const meta = traj!.meta!;
      const frames = meta.frames as number, n = meta.frameRows as number;
      const out = join(dir, `traj${dim}.csv`);
      const progress: number[] = [];
      await exportRun(run, 'trajectory-csv', out, (f) => progress.push(f));
      expect(progress.at(-1)).toBe(1);
      const lines = readFileSync(out, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      const head = lines[0].split(',');
      expect([...head].sort()).toEqual(['id', 'impacts', 'r', 'speed', 'time', 'x', 'y', 'z']);
      expect(lines.length - 1).toBe(frames * n);
      const times = meta.frameTimes as number[];
      lines.slice(1).forEach((line, row) => {
        const v = Object.fromEntries(line.split(',').map((t, c) => [head[c], Number(t)]));
        const f = Math.floor(row / n), i = row % n;
        expect([v.time, v.id]).toEqual([times[f], i]);
        for (const c of ['x', 'y', 'z', 'r', 'speed', 'impacts']) expect(asStored(traj!.columns[c], v[c])).toBe(traj!.columns[c][row]);
      });
    }
  });

  it('refuses a run without trajectories (output.frameRate 0), naming the parameter that makes them', async () => {
    const { run } = millRun(2, 0);
    const message = `run ${run.id} has no trajectories artifact, which format 'trajectory-csv' needs (ball mill runs make it when output.frameRate > 0)`;
    const refusal = exportRun(run, 'trajectory-csv', join(dir, 'none.csv'));
    await expect(refusal).rejects.toThrow(message);
    await expect(refusal).rejects.toBeInstanceOf(FormatNotApplicable);
  });
});
