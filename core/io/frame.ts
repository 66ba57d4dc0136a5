/**
 * Where the frame of an artifact lies in the run's own coordinates, when it is not at the origin: a
 * surface sampling's table and solid are in the frame of the solid's box (positions = surface
 * coordinates minus meta.offset, core/surface/solid.ts sampleFrame). The exports and the tables the
 * services serve add it back, so that every reader sees positions in the surface's coordinates, the
 * box [0, meta.box] and the volume's voxel (0, 0, 0) corner moved to meta.offset.
 */
import type { ColumnTable } from '../common/engine';

export function frameOrigin(meta: Record<string, unknown> | undefined): [number, number, number] | undefined {
  const o = meta?.offset;
  return Array.isArray(o) && o.length === 3 && o.every((v) => typeof v === 'number' && Number.isFinite(v)) ? [o[0], o[1], o[2]] : undefined;
}

/** The table with its positions (x, y, z) in the run's own coordinates (frameOrigin added). */
export function inOwnCoordinates(table: ColumnTable): ColumnTable {
  const o = frameOrigin(table.meta);
  if (!o) return table;
  const columns = { ...table.columns };
  (['x', 'y', 'z'] as const).forEach((c, a) => {
    const col = table.columns[c];
    if (!col) return;
    // A loop, not Float64Array.from with a function: that takes 150-250 ms a million rows (the
    // exports run on the host's thread; a surface sampling has up to 10⁶ particles), this 4-7.
    const moved = new Float64Array(col.length), d = o[a];
    for (let i = 0; i < col.length; i++) moved[i] = col[i] + d;
    columns[c] = moved;
  });
  return { ...table, columns };
}
