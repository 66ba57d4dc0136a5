/**
 * Reads a run's particle table through the declaration its engine wrote with it
 * (meta.particleTable, core/common/engine.ts ParticleTableSpec): centres, size, glyph, category and
 * the quantities to colour by. The result is what the 3D view needs and what it can colour by.
 */
import type { ParticleTableSpec } from '../../../../core/common/engine';
import { UNITS } from '../../../../core/common/units';
import { categorical, idColour, mapColour, type ContinuousMap } from '../../scene/colormap';

type Column = ArrayLike<number>;

/** One way to colour the particles: by a column (continuous or categorical), by height, or by id. */
export interface Colouring {
  key: string;
  label: string;
  unit: string;
  kind: 'range' | 'categories' | 'ids';
  values: Column;
}

export interface ParticleColumns {
  count: number;
  x: Column;
  y: Column;
  z: Column;
  /** Radius of the sphere (or bounding sphere); null when the table has none of its size columns. */
  radius: Column | null;
  /** The size column used and what it holds, shown in the view's legend. */
  sizeFrom: ParticleTableSpec['size'][number] | null;
  glyph: ParticleTableSpec['glyph'];
  /** Surface normals of tangent-disk glyphs. */
  normal: [Column, Column, Column] | null;
  /** Each particle's id (its row in the full table). */
  id: Column | null;
  /** The category column (type, class), when the table has one: the pick panel names its value. */
  categoryColumn: string | null;
  /** Names of the categories of the category column, by index ([] when the table has none). */
  categoryNames: string[];
  /** The colourings this table supports, in menu order. */
  colourings: Colouring[];
  /** The unit of its lengths: the table's meta.units (a ball mill's 'mm'), else 'length units'. */
  lengthUnit: string;
  /** The unit of each column that has one (centres and sizes: lengthUnit; quantities: their own), for the pick panel. */
  units: Record<string, string>;
}

/** Resolves the declared columns, or throws an error naming what is missing. */
export function resolveParticleColumns(columns: Record<string, Column>, count: number, meta: Record<string, unknown>): ParticleColumns {
  const spec = meta.particleTable as ParticleTableSpec | undefined;
  if (!spec || !Array.isArray(spec.centre)) {
    throw new Error(`this particle table does not declare its columns (meta.particleTable); it has: ${Object.keys(columns).join(', ') || 'no columns'}`);
  }
  const [x, y, z] = spec.centre.map((c) => columns[c]);
  if (!x || !y || !z) {
    throw new Error(`particle table lacks its centre columns (${spec.centre.join(', ')}); it has: ${Object.keys(columns).join(', ') || 'no columns'}`);
  }
  const sizeFrom = spec.size.find((s) => columns[s.column] !== undefined) ?? null;
  let radius: Column | null = null;
  if (sizeFrom?.is === 'radius') radius = columns[sizeFrom.column];
  else if (sizeFrom) radius = Float32Array.from(columns[sizeFrom.column], (d) => d * 0.5);
  const normal = spec.glyph.kind === 'tangent-disk' ? (spec.glyph.normal.map((c) => columns[c]) as [Column, Column, Column]) : null;
  if (normal && normal.some((c) => !c)) throw new Error(`particle table lacks its normal columns (${(spec.glyph as { normal: string[] }).normal.join(', ')})`);
  const id = spec.id ? (columns[spec.id] ?? null) : null;

  const lengthUnit = typeof meta.units === 'string' && meta.units ? meta.units : UNITS.length;
  const colourings: Colouring[] = [];
  const cat = spec.category && columns[spec.category.column] ? spec.category : null;
  if (cat) colourings.push({ key: cat.column, label: cat.label, unit: '', kind: 'categories', values: columns[cat.column] });
  // Height is along z, but for disks in the x-y plane (2D runs: the vertical is y, z is the same for all).
  const up = spec.glyph.kind === 'disk-xy' ? 1 : 2;
  colourings.push({ key: 'height', label: `Height (${spec.centre[up]})`, unit: lengthUnit, kind: 'range', values: up === 1 ? y : z });
  for (const q of spec.quantities) {
    const values = columns[q.column];
    if (values) colourings.push({ key: q.column, label: q.label, unit: q.unit ?? '', kind: q.categorical ? 'categories' : 'range', values });
  }
  colourings.push({ key: 'id', label: 'Particle id', unit: '', kind: 'ids', values: id ?? Uint32Array.from({ length: count }, (_, i) => i) });
  const names = cat?.namesFrom ? meta[cat.namesFrom] : undefined;
  const categoryNames = Array.isArray(names) ? names.map(String) : [];
  const units: Record<string, string> = {};
  for (const c of [...spec.centre, ...spec.size.map((s) => s.column)]) units[c] = lengthUnit;
  for (const q of spec.quantities) if (q.unit) units[q.column] = q.unit;
  return { count, x, y, z, radius, sizeFrom, glyph: spec.glyph, normal, id, categoryColumn: cat?.column ?? null, categoryNames, colourings, lengthUnit, units };
}

/**
 * What the legend shows: a continuous range (the one coloured, and the automatic one, used when the
 * user chose none) with its map, or the list of categories present.
 */
export type Legend =
  | { kind: 'range'; min: number; max: number; autoMin: number; autoMax: number; map: ContinuousMap }
  | { kind: 'categories'; values: number[] }
  | { kind: 'ids' };

/**
 * How continuous quantities are coloured: the map, the user's range, and the automatic range used
 * without one (null: the data's min to max; for a run with frames the inspector passes the 2nd to
 * 98th percentile of the frame shown, or of the final table to colour every frame on one scale).
 */
export interface ColourOptions {
  map: ContinuousMap;
  range: [number, number] | null;
  auto?: [number, number] | null;
}

function range(c: Column, n: number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = c[i];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return n > 0 ? [lo, hi] : [0, 0];
}

/** Scratch for percentileRange, kept between calls: playback asks once a frame. */
let scratch = new Float64Array(0);

/** The k-th smallest of a[from..to] (inclusive), partially reordering a (Hoare's selection, middle pivot). */
function select(a: Float64Array, k: number, from: number, to: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i]; a[i] = a[j]; a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}

/**
 * The 2nd to 98th percentile of the first n values (ranks floor(0.02 (n - 1)) and ceil(0.98 (n - 1)) of
 * them sorted), or their min to max when those two are equal: a few fast balls would squeeze the rest
 * into one colour. Two selections in a reused buffer instead of a sort of a copy: the same values, in a
 * tenth of the time (the inspector asks once a frame; at 100,000 balls the sort took longer than a
 * frame at 60 Hz, see bench/renderer.ts).
 */
export function percentileRange(values: Column, n: number): [number, number] {
  if (n === 0) return [0, 0];
  if (scratch.length < n) scratch = new Float64Array(n);
  const a = scratch;
  for (let i = 0; i < n; i++) a[i] = values[i];
  const kLo = Math.floor(0.02 * (n - 1));
  const kHi = Math.ceil(0.98 * (n - 1));
  // The high rank first: the low one is then among a[0..kHi], which that selection left at or below it.
  const hi = select(a, kHi, 0, n - 1);
  const lo = select(a, kLo, 0, kHi);
  return hi > lo ? [lo, hi] : range(values, n);
}

/**
 * Fills `out` (RGBA per particle, 0..1) with the colour of each particle under the colouring
 * `key` (one of p.colourings; an unknown key colours by height). Continuous values outside the
 * chosen range take the colour of its nearest end.
 */
export function computeColours(p: ParticleColumns, key: string, out: Float32Array, options: ColourOptions = { map: 'viridis', range: null }): Legend {
  const n = p.count;
  if (out.length < n * 4) throw new Error(`colour buffer holds ${out.length / 4} particles, need ${n}`);
  for (let i = 0; i < n; i++) out[i * 4 + 3] = 1;
  const c = p.colourings.find((k) => k.key === key) ?? p.colourings.find((k) => k.key === 'height')!;
  if (c.kind === 'categories') {
    const seen = new Set<number>();
    for (let i = 0; i < n; i++) {
      const t = c.values[i];
      seen.add(t);
      categorical(t, out, i * 4, 1);
    }
    return { kind: 'categories', values: [...seen].sort((a, b) => a - b) };
  }
  if (c.kind === 'ids') {
    for (let i = 0; i < n; i++) idColour(c.values[i], out, i * 4, 1);
    return { kind: 'ids' };
  }
  const [autoMin, autoMax] = options.auto ?? range(c.values, n);
  const [lo, hi] = options.range ?? [autoMin, autoMax];
  const span = hi > lo ? hi - lo : 1;
  for (let i = 0; i < n; i++) mapColour(options.map, (c.values[i] - lo) / span, out, i * 4, 1);
  return { kind: 'range', min: lo, max: hi, autoMin, autoMax, map: options.map };
}

/** The record of particle i: every column's value, for the pick panel. */
export function particleRecord(columns: Record<string, Column>, i: number): [string, number][] {
  return Object.keys(columns).map((k) => [k, columns[k][i]] as [string, number]);
}
