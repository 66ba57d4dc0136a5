/**
 * LAMMPS text dump of a particle table (OVITO, LIGGGHTS, LAMMPS read_dump):
 *
 *   ITEM: TIMESTEP / ITEM: NUMBER OF ATOMS / ITEM: BOX BOUNDS pp pp ff / ITEM: ATOMS id type x y z radius ...
 *
 * A multi-frame dump (an animation in OVITO) is these blocks one after another, each led by
 * ITEM: TIME when DumpOptions.time is given (main/services/exports.ts writes a ball mill's trajectories).
 *
 * LAMMPS ids and types start at 1, so id = row + 1 and type = the table's category + 1 (its `type`
 * column, or the column its declaration names: a stacking's size `class`). Spheres carry their
 * radius; voxel particles half the equivalent diameter of the voxels they hold (the same function
 * and count as the particle table's equivalentDiameter: core/analysis/sizes.ts) and their
 * rotation angles rx ry rz as extra columns.
 */
import type { ColumnTable } from '../common/engine';
import { voxelEquivalentDiameters } from '../analysis/sizes';
import { rowCount } from './csv';
import { splitLines } from './lines';
import { isFloat32, type TextBytes } from './decimal';

export interface DumpOptions {
  /** Upper bounds of the box along x, y, z. */
  box: readonly [number, number, number];
  /** Lower bounds (default the origin): a ball mill's vial where it is at the end of the run. */
  lo?: readonly [number, number, number];
  periodic: readonly [boolean, boolean, boolean];
  /** Voxels per length unit, to turn a voxel count into a volume. */
  resolution?: number;
  timestep?: number;
  /** Simulated time of the frame, written as ITEM: TIME before ITEM: TIMESTEP (as LAMMPS's `dump_modify time yes`; OVITO reads it as the attribute Time). */
  time?: number;
  /** Per-atom columns after radius (default: the rotations rx ry rz the table has). */
  columns?: readonly string[];
  /** NUMBER OF ATOMS (default the table's rows; a table written in blocks of rows has more than its first). */
  atoms?: number;
}

/** The rotation angles of voxel particles: the extra columns of a dump by default. */
const ROTATIONS = ['rx', 'ry', 'rz'];
const rotationsOf = (table: ColumnTable) => ROTATIONS.filter((c) => c in table.columns);

/** Radius column of the dump: r itself (a float32 r stays float32, written with its own digits), or the equivalent radius of voxel particles (voxels held). */
export function dumpRadius(table: ColumnTable, resolution?: number): Float64Array | Float32Array {
  const { r, voxels, size } = table.columns;
  if (r) return r instanceof Float32Array ? Float32Array.from(r) : Float64Array.from(r);
  if (voxels && resolution) return voxelEquivalentDiameters(voxels, 1 / resolution).map((d) => d / 2);
  if (size) {
    // A loop, not Float64Array.from with a function (core/io/frame.ts inOwnCoordinates says why).
    const radius = new Float64Array(size.length);
    for (let i = 0; i < size.length; i++) radius[i] = size[i] / 2;
    return radius;
  }
  throw new Error(`table '${table.name}' has no r, voxels (with a resolution) or size column to give a radius`);
}

export function dumpHead(table: ColumnTable, opts: DumpOptions): string {
  const b = (p: boolean) => (p ? 'pp' : 'ff');
  const extra = opts.columns ?? rotationsOf(table);
  return [
    ...(opts.time === undefined ? [] : ['ITEM: TIME', String(opts.time)]),
    'ITEM: TIMESTEP', String(opts.timestep ?? 0),
    'ITEM: NUMBER OF ATOMS', String(opts.atoms ?? rowCount(table)),
    `ITEM: BOX BOUNDS ${b(opts.periodic[0])} ${b(opts.periodic[1])} ${b(opts.periodic[2])}`,
    ...[0, 1, 2].map((a) => `${opts.lo?.[a] ?? 0} ${opts.box[a]}`),
    `ITEM: ATOMS id type x y z radius${extra.map((c) => ' ' + c).join('')}`,
  ].join('\n') + '\n';
}

/**
 * The table with its centres wrapped into [lo, hi) along its periodic axes (the others as they are):
 * a voxel particle's centre, its reference voxel plus the shape's centre offset, can lie just
 * outside the box, and LAMMPS and OVITO expect every atom of a periodic box inside it.
 */
export function wrapIntoBox(table: ColumnTable, lo: readonly number[], hi: readonly number[], periodic: readonly boolean[]): ColumnTable {
  const columns = { ...table.columns };
  (['x', 'y', 'z'] as const).forEach((c, a) => {
    const col = table.columns[c];
    if (!col || !periodic[a]) return;
    const l = lo[a], h = hi[a], width = h - l;
    // A loop, not Float64Array.from with a function: 5-10 times faster (the export runs on the host's thread).
    const wrapped = new Float64Array(col.length);
    for (let i = 0; i < col.length; i++) {
      const v = col[i];
      if (v >= l && v < h) {
        wrapped[i] = v;
        continue;
      }
      const w = v - Math.floor((v - l) / width) * width;
      // Rounding can land a value just below lo on hi itself (-1e-18 + 3 is 3).
      wrapped[i] = w >= h ? l : w;
    }
    columns[c] = wrapped;
  });
  return { ...table, columns };
}

/**
 * Bounds widened along the wall (non-periodic) axes to hold every centre: LAMMPS loses the atoms
 * outside a fixed boundary. An open-top voxel packing keeps a particle whose reference voxel lies
 * below the box height, and its centre can lie just above it.
 */
export function boundsHoldingCentres(table: ColumnTable, lo: readonly number[], hi: readonly number[], periodic: readonly boolean[]): { lo: [number, number, number]; box: [number, number, number] } {
  const outLo: [number, number, number] = [lo[0], lo[1], lo[2]], outHi: [number, number, number] = [hi[0], hi[1], hi[2]];
  (['x', 'y', 'z'] as const).forEach((c, a) => {
    const col = table.columns[c];
    if (!col || periodic[a]) return;
    for (let i = 0; i < col.length; i++) {
      if (col[i] < outLo[a]) outLo[a] = col[i];
      if (col[i] > outHi[a]) outHi[a] = col[i];
    }
  });
  return { lo: outLo, box: outHi };
}

/**
 * Appends the atom lines of rows [start, end) to out (id = firstRow + row + 1: `table` a block of
 * rows of a larger one starting at its row firstRow); the LAMMPS type from column `typeColumn`
 * (0-based, absent: all 1); after the radius the `columns` given (default the rotations the table has).
 */
export function dumpRows(out: TextBytes, table: ColumnTable, radius: Float64Array | Float32Array, start: number, end: number, typeColumn = 'type', columns: readonly string[] = rotationsOf(table), firstRow = 0): void {
  const { x, y, z } = table.columns;
  const type = table.columns[typeColumn];
  if (!x || !y || !z) throw new Error(`table '${table.name}' lacks x, y or z, which a LAMMPS dump needs`);
  const values = [x, y, z, radius, ...columns.map((c) => {
    const col = table.columns[c];
    if (!col) throw new Error(`table '${table.name}' has no column '${c}' for the dump`);
    return col;
  })];
  const float32 = values.map(isFloat32);
  for (let i = start; i < end; i++) {
    out.integer(firstRow + i + 1);
    out.byte(32);
    out.integer((type ? type[i] : 0) + 1);
    for (let c = 0; c < values.length; c++) {
      out.byte(32);
      if (float32[c]) out.float32(values[c][i]);
      else out.number(values[c][i]);
    }
    out.byte(10);
  }
}

/** Parses a single-frame dump with id type x y z radius columns into a sphere table (type back to 0-based); lines end as lines.ts reads them (CR alone too). */
export function parseDump(text: string): { table: ColumnTable; box: [number, number, number]; periodic: [boolean, boolean, boolean] } {
  const lines = splitLines(text);
  const find = (item: string) => {
    const k = lines.findIndex((l) => l.startsWith(`ITEM: ${item}`));
    if (k < 0) throw new Error(`LAMMPS dump lacks 'ITEM: ${item}'`);
    return k;
  };
  const n = Number(lines[find('NUMBER OF ATOMS') + 1]);
  const bk = find('BOX BOUNDS');
  const flags = lines[bk].split(/\s+/).slice(3);
  const box = [1, 2, 3].map((k) => { const [lo, hi] = lines[bk + k].trim().split(/\s+/).map(Number); return hi - lo; }) as [number, number, number];
  const ak = find('ATOMS');
  const cols = lines[ak].split(/\s+/).slice(2);
  const idx = (c: string) => { const k = cols.indexOf(c); if (k < 0) throw new Error(`LAMMPS dump has no '${c}' column`); return k; };
  const [ix, iy, iz, ir, it] = ['x', 'y', 'z', 'radius', 'type'].map(idx);
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n), type = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const c = lines[ak + 1 + i].trim().split(/\s+/).map(Number);
    x[i] = c[ix]; y[i] = c[iy]; z[i] = c[iz]; r[i] = c[ir]; type[i] = c[it] - 1;
  }
  return {
    table: { kind: 'table', name: 'spheres', columns: { id: Uint32Array.from({ length: n }, (_, i) => i), type, x, y, z, r } },
    box,
    periodic: flags.map((f) => f === 'pp') as [boolean, boolean, boolean],
  };
}
