/**
 * The shape library: built-in shapes (written at start-up with fixed ids, cannot be deleted or
 * renamed) and the user's shapes, validated by core/voxel's shapeSchema.
 */
import { quantiseSize, sampleHalfExtents, shapeIssues, shapeSchema, voxeliseShape, type Shape as VoxelShape } from '../../core/voxel/shapes';
import { ApiError, invalidMessage, parseStrict, PREVIEW_MAX_VOXELS_ACROSS, type Methods, type Shape, type ShapeVoxelisation } from '../api';
import type { RunStore } from './store';

export const BUILTIN_SHAPES: { id: string; name: string; params: VoxelShape }[] = [
  { id: 'builtin-sphere', name: 'Sphere', params: { kind: 'sphere' } },
  { id: 'builtin-ellipsoid', name: 'Ellipsoid 1:0.6:0.6', params: { kind: 'ellipsoid', b: 0.6, c: 0.6 } },
  { id: 'builtin-cube', name: 'Cube', params: { kind: 'cuboid', b: 1, c: 1 } },
  { id: 'builtin-cylinder', name: 'Cylinder L/D 2', params: { kind: 'cylinder', length: 2 } },
  { id: 'builtin-plate', name: 'Hexagonal plate (kaolin-like)', params: { kind: 'hexagonalPlate', thickness: 0.15 } },
  { id: 'builtin-superellipsoid', name: 'Superellipsoid (rounded box)', params: { kind: 'superellipsoid', b: 1, c: 1, e1: 0.3, e2: 0.3 } },
];

/** A shape checked strictly by its schema (unknown fields too) and its cross-field checks (shapeIssues), or ApiError('invalid'). */
export function parseShape(shape: unknown, path = 'shape'): VoxelShape {
  const parsed = parseStrict(shapeSchema, shape, path) as VoxelShape;
  const issues = shapeIssues(parsed, path);
  if (issues.length > 0) throw new ApiError('invalid', invalidMessage(issues), issues);
  return parsed;
}

export class ShapeLibrary {
  constructor(private readonly store: RunStore) {}

  /** Writes the built-ins (idempotent; keeps them current with this version). */
  installBuiltins(): void {
    this.store.transaction(() => {
      for (const b of BUILTIN_SHAPES) this.store.putShape({ id: b.id, name: b.name, params: b.params, builtin: true });
    });
  }

  list(): Shape[] {
    return this.store.listShapes();
  }

  private mustGet(id: string): Shape {
    const s = this.store.getShape(id);
    if (!s) throw new ApiError('not_found', `no shape with id '${id}'`);
    return s;
  }

  create(name: string, shape: unknown, voxelisation?: ShapeVoxelisation): Shape {
    return this.store.putShape({ name, params: parseShape(shape), voxelisation });
  }

  update(id: string, name?: string, shape?: unknown, voxelisation?: ShapeVoxelisation): Shape {
    const s = this.mustGet(id);
    if (s.builtin) throw new ApiError('conflict', `'${s.name}' is a built-in shape; duplicate it to change it`);
    const params = shape === undefined ? (s.params as VoxelShape) : parseShape(shape);
    return this.store.putShape({ id, name: name ?? s.name, params, voxelisation });
  }

  duplicate(id: string, name?: string): Shape {
    const s = this.mustGet(id);
    return this.store.putShape({ name: name ?? `${s.name} (copy)`, params: s.params as VoxelShape, voxelisation: s.voxelisation ?? undefined });
  }

  delete(id: string): void {
    const s = this.mustGet(id);
    if (s.builtin) throw new ApiError('conflict', `'${s.name}' is a built-in shape and cannot be deleted`);
    this.store.deleteShape(id);
  }
}

/**
 * Most voxels a preview samples: the box of a shape 400 voxels across. A shape longer than its size
 * (a cylinder of length 50 diameters) samples a box that many times longer, which the limit across
 * alone let through: 400 voxels across, it would have sampled 3.2 billion voxels (some 60 GB).
 */
export const PREVIEW_MAX_SAMPLED_VOXELS = sampledVoxels({ kind: 'cuboid', b: 1, c: 1 }, PREVIEW_MAX_VOXELS_ACROSS);

/**
 * Voxels in the box the voxeliser samples for `shape` at `sizeVoxels` (core/voxel sampleHalfExtents);
 * for an implicit shape at most the cube of its size (its longest side is scaled to the size). Its
 * exact box needs the surface's bounds (solidBounds: 5-7 s for a blobby object of 256 blobs, on
 * every preview the editor asks for), which the voxeliser finds in the preview's worker, off the
 * thread that serves the app.
 */
function sampledVoxels(shape: VoxelShape, sizeVoxels: number): number {
  const box: VoxelShape = shape.kind === 'implicit' ? { kind: 'cuboid', b: 1, c: 1 } : shape;
  return sampleHalfExtents(box, sizeVoxels).reduce((n, h) => n * (2 * h + 1), 1);
}

/** A preview's shape, checked, and its size within the preview's limits; or ApiError('invalid') naming the field. */
export function checkPreview(shape: unknown, size: number, resolution: number): VoxelShape {
  const parsed = parseShape(shape);
  const voxelsAcross = size * resolution;
  if (voxelsAcross > PREVIEW_MAX_VOXELS_ACROSS) {
    throw new ApiError('invalid', `size × resolution = ${voxelsAcross.toFixed(0)} voxels across; the preview allows at most ${PREVIEW_MAX_VOXELS_ACROSS}`, [
      { path: 'resolution', message: `size × resolution must be at most ${PREVIEW_MAX_VOXELS_ACROSS} voxels (is ${voxelsAcross.toFixed(0)})` },
    ]);
  }
  const sampled = sampledVoxels(parsed, quantiseSize(size, resolution));
  if (sampled > PREVIEW_MAX_SAMPLED_VOXELS) {
    const message = `this shape samples ${sampled.toExponential(2)} voxels at ${voxelsAcross.toFixed(0)} voxels across; the preview allows at most ${PREVIEW_MAX_SAMPLED_VOXELS.toExponential(2)} (a shape ${PREVIEW_MAX_VOXELS_ACROSS} voxels across): lower the resolution`;
    throw new ApiError('invalid', message, [{ path: 'resolution', message }]);
  }
  return parsed;
}

/**
 * About the bytes a preview allocates, 20 a voxel of the box it samples: the voxeliser keeps byte
 * maps of that box and of the shape's bounds and 12-byte coordinates of the solid and shell voxels;
 * measured 10 (a sphere) to 16 (a cube) bytes a sampled voxel at 200 voxels across.
 */
export function previewBytes(shape: VoxelShape, size: number, resolution: number): number {
  return 20 * sampledVoxels(shape, quantiseSize(size, resolution));
}

/** The voxels of a checked shape (checkPreview) as the editor draws them: solid, shell and reduced shell. */
export function shapePreview(shape: VoxelShape, size: number, resolution: number, reductionThreshold?: number): Methods['shapes.preview']['result'] {
  const v = voxeliseShape(shape, size, resolution, reductionThreshold);
  return {
    dims: v.dims,
    solidCount: v.solid.length / 3,
    shellCount: v.shell.length / 3,
    reducedShellCount: v.reducedShell.length / 3,
    solid: v.solid,
    shell: v.shell,
    reducedShell: v.reducedShell,
  };
}
