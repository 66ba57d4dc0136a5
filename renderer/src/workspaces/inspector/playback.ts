/**
 * Playing a run back: what the inspector reads from a run's artifacts and table meta
 * (core/common/engine.ts, "Table meta") to offer a time slider and draw a container. Generic: any
 * engine whose run has a table of frames gets playback, any table with a container gets its outline.
 */
import type { Bounds, Container } from '../../scene/viewer';

/** A run's table of frames: its name, frame count and the simulated time and container offset of each frame. */
export interface FrameTable {
  table: string;
  count: number;
  times: number[];
  offsets: number[];
}

/** Playback speeds offered, in simulated seconds per wall second. */
export const PLAYBACK_SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4] as const;

/** The first table artifact holding frames (meta.frames > 0), or null. */
export function frameTableOf(artifacts: { kind: string; name: string; meta: Record<string, unknown> }[]): FrameTable | null {
  const a = artifacts.find((x) => x.kind === 'table' && Number(x.meta.frames) > 0);
  if (!a) return null;
  const count = Number(a.meta.frames);
  const times = Array.isArray(a.meta.frameTimes) ? a.meta.frameTimes.map(Number) : Array.from({ length: count }, (_, k) => k);
  const offsets = Array.isArray(a.meta.frameOffsets) ? a.meta.frameOffsets.map(Number) : new Array<number>(count).fill(0);
  return { table: a.name, count, times, offsets };
}

/** Index of the last frame at or before simulated time t (0 before the first). */
export function frameAt(times: readonly number[], t: number): number {
  let lo = 0, hi = times.length - 1;
  if (hi < 0 || t <= times[0]) return 0;
  if (t >= times[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

/** The container a table's meta declares (and the axis it moves along), or null. */
export function containerOf(meta: Record<string, unknown>): { container: Container; moves: 0 | 1 | 2 } | null {
  const c = meta.container as Record<string, unknown> | undefined;
  if (!c || typeof c !== 'object') return null;
  const moves = ({ x: 0, y: 1, z: 2 } as const)[String(c.moves) as 'x' | 'y' | 'z'] ?? 2;
  const nums = (v: unknown, n: number) => (Array.isArray(v) && v.length === n && v.every((x) => Number.isFinite(Number(x))) ? v.map(Number) : null);
  if (c.shape === 'box') {
    const min = nums(c.min, 3), max = nums(c.max, 3);
    return min && max ? { container: { shape: 'box', min: min as Bounds['min'], max: max as Bounds['max'] }, moves } : null;
  }
  if (c.shape === 'cylinder') {
    const centre = nums(c.centre, 2), radius = Number(c.radius), min = Number(c.min), max = Number(c.max);
    if (!centre || !(radius > 0) || !Number.isFinite(min) || !(max > min)) return null;
    return { container: { shape: 'cylinder', centre: centre as [number, number], radius, min, max }, moves };
  }
  return null;
}

/** The box around a container. */
export function containerBounds(c: Container): Bounds {
  if (c.shape === 'box') return { min: [...c.min], max: [...c.max] };
  const [x, y] = c.centre;
  return { min: [x - c.radius, y - c.radius, c.min], max: [x + c.radius, y + c.radius, c.max] };
}
