/**
 * Reads a run's particle table (runs.particles columns) whatever engine wrote it: engines name
 * their columns as their papers do, so each quantity is looked up under its usual names. The
 * result is what the 3D view needs (centres, radii) and the per-particle values it can colour by.
 */
import { categorical, idColour, viridis } from '../../scene/colormap';

type Column = ArrayLike<number>;

export type ColourBy = 'type' | 'height' | 'orientation' | 'coordination' | 'id';

export const COLOUR_BY_LABELS: Record<ColourBy, string> = {
  type: 'Particle type',
  height: 'Height (z)',
  orientation: 'Orientation angle (tilt)',
  coordination: 'Coordination number',
  id: 'Particle id',
};

export interface ParticleColumns {
  count: number;
  x: Column;
  y: Column;
  z: Column;
  /** Radius of the bounding sphere (or the sphere itself); null when the table has no size column. */
  radius: Column | null;
  id: Column | null;
  type: Column | null;
  orientation: Column | null;
  coordination: Column | null;
  /** Name under which each quantity was found, shown in the picked-particle record. */
  names: Partial<Record<'x' | 'y' | 'z' | 'radius' | 'diameter' | 'id' | 'type' | 'orientation' | 'coordination', string>>;
}

const ALIASES = {
  x: ['x', 'cx', 'centreX', 'centerX'],
  y: ['y', 'cy', 'centreY', 'centerY'],
  z: ['z', 'cz', 'centreZ', 'centerZ'],
  radius: ['radius', 'r'],
  // equivalentDiameter (same volume) before size (the voxel engine's characteristic size, e.g. a
  // plate's diameter across corners, which overstates non-spherical particles)
  diameter: ['equivalentDiameter', 'diameter', 'd', 'size'],
  id: ['id', 'particleId', 'label'],
  type: ['type', 'typeIndex', 'shapeIndex', 'shape'],
  orientation: ['orientation', 'orientationAngle', 'principalTilt', 'bodyTilt', 'theta', 'tilt', 'angle'],
  coordination: ['coordination', 'coordinationNumber', 'contacts', 'cn'],
} as const;

function find(columns: Record<string, Column>, names: readonly string[]): [string, Column] | null {
  for (const n of names) if (columns[n] !== undefined) return [n, columns[n]];
  const lower = new Map(Object.keys(columns).map((k) => [k.toLowerCase(), k]));
  for (const n of names) {
    const k = lower.get(n.toLowerCase());
    if (k !== undefined) return [k, columns[k]];
  }
  return null;
}

/** Resolves the columns, or throws an error naming what is missing (a table without centres). */
export function resolveParticleColumns(columns: Record<string, Column>, count: number): ParticleColumns {
  const x = find(columns, ALIASES.x);
  const y = find(columns, ALIASES.y);
  const z = find(columns, ALIASES.z);
  if (!x || !y || !z) {
    throw new Error(`particle table has no centre columns (x, y, z); it has: ${Object.keys(columns).join(', ') || 'no columns'}`);
  }
  const names: ParticleColumns['names'] = { x: x[0], y: y[0], z: z[0] };
  let radius: Column | null = null;
  const r = find(columns, ALIASES.radius);
  if (r) {
    radius = r[1];
    names.radius = r[0];
  } else {
    const d = find(columns, ALIASES.diameter);
    if (d) {
      const half = new Float32Array(count);
      for (let i = 0; i < count; i++) half[i] = d[1][i] * 0.5;
      radius = half;
      names.diameter = d[0];
    }
  }
  const pick = (key: 'id' | 'type' | 'orientation' | 'coordination'): Column | null => {
    const f = find(columns, ALIASES[key]);
    if (!f) return null;
    names[key] = f[0];
    return f[1];
  };
  let orientation = pick('orientation');
  const rx = find(columns, ['rx']);
  const ry = find(columns, ['ry']);
  if (!orientation && rx && ry) {
    // Rotation about x, then y, then z (the voxel engine's order) tilts the particle's own z axis
    // to cos(tilt) = cos(rx) cos(ry); z rotation does not change it. Tilt in degrees, 0..90.
    const tilt = new Float32Array(count);
    const k = Math.PI / 180;
    for (let i = 0; i < count; i++) tilt[i] = Math.acos(Math.min(1, Math.abs(Math.cos(rx[1][i] * k) * Math.cos(ry[1][i] * k)))) / k;
    orientation = tilt;
    names.orientation = `tilt of the z axis from ${rx[0]}, ${ry[0]}`;
  }
  return { count, x: x[1], y: y[1], z: z[1], radius, id: pick('id'), type: pick('type'), orientation, coordination: pick('coordination'), names };
}

/** The colourings this table supports, in menu order. Height and id always work. */
export function colourModes(p: ParticleColumns): ColourBy[] {
  const modes: ColourBy[] = [];
  if (p.type) modes.push('type');
  modes.push('height');
  if (p.orientation) modes.push('orientation');
  if (p.coordination) modes.push('coordination');
  modes.push('id');
  return modes;
}

/** What the legend shows: a continuous range or the list of categories present. */
export type Legend = { kind: 'range'; min: number; max: number } | { kind: 'categories'; values: number[] } | { kind: 'ids' };

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

/**
 * Fills `out` (RGBA per particle, 0..1) with the colour of each particle under `mode`.
 * Falls back to height when the table lacks the requested column.
 */
export function computeColours(p: ParticleColumns, mode: ColourBy, out: Float32Array): Legend {
  const n = p.count;
  if (out.length < n * 4) throw new Error(`colour buffer holds ${out.length / 4} particles, need ${n}`);
  for (let i = 0; i < n; i++) out[i * 4 + 3] = 1;
  if (mode === 'type' && p.type) {
    const seen = new Set<number>();
    for (let i = 0; i < n; i++) {
      const t = p.type[i];
      seen.add(t);
      categorical(t, out, i * 4, 1);
    }
    return { kind: 'categories', values: [...seen].sort((a, b) => a - b) };
  }
  if (mode === 'id') {
    for (let i = 0; i < n; i++) idColour(p.id ? p.id[i] : i, out, i * 4, 1);
    return { kind: 'ids' };
  }
  const values = mode === 'orientation' && p.orientation ? p.orientation : mode === 'coordination' && p.coordination ? p.coordination : p.z;
  const [lo, hi] = range(values, n);
  const span = hi > lo ? hi - lo : 1;
  for (let i = 0; i < n; i++) viridis((values[i] - lo) / span, out, i * 4, 1);
  return { kind: 'range', min: lo, max: hi };
}

/** The record of particle i: every column's value, for the pick panel. */
export function particleRecord(columns: Record<string, Column>, i: number): [string, number][] {
  return Object.keys(columns).map((k) => [k, columns[k][i]] as [string, number]);
}
