/**
 * The editor's mixture as the voxel engine's params (core/voxel/params.ts): each type carries its
 * shape inline (the engine runs without the shape library), named after the shape; and the
 * resolution and reduction threshold its shapes were designed at in the editor (saved with them),
 * so that the batch form packs them as they were previewed, and says so.
 */
import type { Shape } from '../../../../main/api';
import { UNITS } from '../../../../core/common/units';
import type { Mixture } from './mixture';

/** The size a shape was designed at in the editor (saved with it); 1 when it was never saved. */
export function designedSize(s: Shape | undefined): number {
  return s?.voxelisation?.size ?? 1;
}

/** What the particle editor sends to the batch manager: the params, and what the form says of them ("Prefilled …"). */
export interface VoxelDraft {
  params: Record<string, unknown>;
  origin: string;
}

const quoted = (s: Shape): string => `“${s.name}”`;

/**
 * The mixture's params, with box.resolution and reductionThreshold from its shapes' saved
 * voxelisations. One run has one of each: when the shapes were saved at different ones, the finest
 * resolution and the largest threshold (the most shell kept), so that no type is packed coarser or
 * with less of its shell than it was designed with. Shapes never saved (the built-ins) set nothing:
 * the form keeps its own, and says so.
 */
export function mixtureToVoxelDraft(m: Mixture, shapes: Map<string, Shape>): VoxelDraft {
  const used = [...new Set(m.types.map((t) => t.shapeId))].map((id) => {
    const s = shapes.get(id);
    if (!s) throw new Error(`mixture type uses shape '${id}', which is not in the library`);
    return s;
  });
  const mixture = {
    basis: m.basis,
    types: m.types.map((t) => {
      const s = shapes.get(t.shapeId)!;
      return { name: s.name, shape: { ...s.params, kind: s.kind }, size: JSON.parse(JSON.stringify(t.size)) as unknown, fraction: t.fraction };
    }),
  };
  const saved = used.filter((s) => s.voxelisation);
  if (!saved.length) {
    return { params: { mixture }, origin: 'from the particle editor (its shapes have no saved size and resolution: box.resolution and reductionThreshold are the form’s)' };
  }
  const resolution = Math.max(...saved.map((s) => s.voxelisation!.resolution));
  const reductionThreshold = Math.max(...saved.map((s) => s.voxelisation!.reductionThreshold));
  const values = (s: Shape): string => `${s.voxelisation!.resolution} ${UNITS.resolution}, threshold ${s.voxelisation!.reductionThreshold}`;
  const differ = new Set(saved.map(values)).size > 1;
  const from = differ
    ? `the finest resolution and the largest threshold saved with its shapes (${saved.map((s) => `${quoted(s)} ${values(s)}`).join('; ')})`
    : `as saved with ${saved.map(quoted).join(', ')}`;
  return {
    params: { box: { resolution }, reductionThreshold, mixture },
    origin: `from the particle editor: box.resolution ${resolution} ${UNITS.resolution} and reductionThreshold ${reductionThreshold}, ${from}`,
  };
}
