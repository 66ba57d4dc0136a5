/**
 * The editor's mixture as the voxel engine's `mixture` params (core/voxel/params.ts): each type
 * carries its shape inline (the engine runs without the shape library), named after the shape.
 */
import type { Shape } from '../../../../main/api';
import type { Mixture } from './mixture';

export function mixtureToVoxelParams(m: Mixture, shapes: Map<string, Shape>): Record<string, unknown> {
  return {
    mixture: {
      basis: m.basis,
      types: m.types.map((t) => {
        const s = shapes.get(t.shapeId);
        if (!s) throw new Error(`mixture type uses shape '${t.shapeId}', which is not in the library`);
        return { name: s.name, shape: { ...s.params, kind: s.kind }, size: JSON.parse(JSON.stringify(t.size)) as unknown, fraction: t.fraction };
      }),
    },
  };
}
