/**
 * The shape parameter form is built from core/voxel's own shape schemas (one source of truth for
 * kinds, ranges, defaults, units and descriptions) and validated by them, so the editor accepts
 * exactly what the voxel engine accepts. Plain numbers become number fields; an implicit shape's
 * surface (primitives, blobs) is drawn by the schema-driven form of the batch manager (SchemaField).
 */
import { z } from 'zod';
import { shapeIssues, shapeKindSchemas } from '../../../../core/voxel/shapes';
import { rangeText as schemaRangeText, validate, type JsonSchema } from '../batch/schema';
import { voxelParamsSchema } from '../../../../core/voxel/params';

export type ShapeKind = keyof typeof shapeKindSchemas;

export const SHAPE_KIND_LABELS: Record<ShapeKind, string> = {
  sphere: 'Sphere',
  ellipsoid: 'Ellipsoid',
  cuboid: 'Cuboid',
  cylinder: 'Cylinder',
  hexagonalPlate: 'Hexagonal plate',
  superellipsoid: 'Superellipsoid',
  voxels: 'Imported voxels',
  implicit: 'Implicit surface',
};

/** Kinds the user can create from scratch (imported voxel maps come from a file). */
export const CREATABLE_KINDS: ShapeKind[] = ['sphere', 'ellipsoid', 'cuboid', 'cylinder', 'hexagonalPlate', 'superellipsoid', 'implicit'];

export interface NumberField {
  key: string;
  label: string;
  description: string;
  unit: string;
  min: number | null;
  max: number | null;
  /** true when min itself is not allowed (z.gt). */
  exclusiveMin: boolean;
  default: number | null;
}

interface JsonProp {
  type?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  default?: number;
  description?: string;
  unit?: string;
}

export function isShapeKind(k: string): k is ShapeKind {
  return Object.prototype.hasOwnProperty.call(shapeKindSchemas, k);
}

function numberField(key: string, p: JsonProp): NumberField {
  return {
    key,
    label: key,
    description: p.description ?? '',
    unit: p.unit ?? '',
    min: p.minimum ?? p.exclusiveMinimum ?? null,
    max: p.maximum ?? null,
    exclusiveMin: p.exclusiveMinimum !== undefined,
    default: p.default ?? null,
  };
}

/** Describes the number fields of a kind (not 'kind' itself, not the voxel map of imports). */
export function shapeFields(kind: ShapeKind): NumberField[] {
  const json = z.toJSONSchema(shapeKindSchemas[kind], { io: 'input' }) as { properties?: Record<string, JsonProp> };
  return Object.entries(json.properties ?? {})
    .filter(([key, p]) => key !== 'kind' && p.type === 'number')
    .map(([key, p]) => numberField(key, p));
}

/**
 * JSON Schema of a kind's implicit surface (its primitive, or its blobs with their parameters), for
 * the schema-driven form; null for the kinds without one.
 */
export function surfaceSchema(kind: ShapeKind): JsonSchema | null {
  const s = shapeKindSchemas[kind] as z.ZodObject;
  const field = s.shape.surface as z.ZodType | undefined;
  return field ? (z.toJSONSchema(field, { io: 'input' }) as JsonSchema) : null;
}

/**
 * The voxel engine's reductionThreshold parameter (default, range, unit, description), so that the
 * preview voxelises exactly as a run with default params would and accepts what a run accepts.
 */
export const reductionThresholdField: NumberField = numberField(
  'reductionThreshold',
  z.toJSONSchema(voxelParamsSchema.shape.reductionThreshold, { io: 'input' }) as JsonProp,
);

/** Message for a reduction threshold outside the engine's range ('' when it is allowed). */
export function reductionThresholdIssue(v: number): string {
  const f = reductionThresholdField;
  const ok = Number.isInteger(v) && (f.min === null || v >= f.min) && (f.max === null || v <= f.max);
  return ok ? '' : `reduction threshold must be a whole number in ${rangeText(f)}`;
}

/** The kind's description (what "size" means for it). */
export function shapeDescription(kind: ShapeKind): string {
  const meta = z.globalRegistry.get(shapeKindSchemas[kind]) as { description?: string } | undefined;
  return meta?.description ?? '';
}

/** A new shape of a kind with every parameter at its default. */
export function defaultShape(kind: ShapeKind): Record<string, unknown> {
  return shapeKindSchemas[kind].parse({ kind }) as Record<string, unknown>;
}

const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

/**
 * Messages of a value by one of core's schemas, keyed by dotted path ({} when valid), in the batch
 * form's words ('must be in (0, 1]', 'enter a number' for an empty or unreadable entry): the form's
 * validator reads the schema's ranges as JSON Schema. zod's own messages for the schema's refinements,
 * which the engine writes in the product's words (and for anything the form's validator let pass).
 */
export function schemaMessages(schema: z.ZodType, value: unknown): Record<string, string> {
  let json = jsonSchemas.get(schema);
  if (!json) jsonSchemas.set(schema, (json = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema));
  const out = validate(json, value);
  const checked = Object.keys(out).length > 0;
  const r = schema.safeParse(value);
  // Refinements ('custom') always; zod's other issues only when the form's validator found nothing.
  if (!r.success) for (const issue of r.error.issues) if (issue.code === 'custom' || !checked) out[issue.path.join('.')] ??= issue.message;
  return out;
}

/** Field messages of a shape, keyed by the field's dotted path ('e1', 'surface.blobs.0.radius'; {} when
 *  valid): the kind's schema first (schemaMessages), then the checks that need several fields
 *  (shapeIssues). A parameter of the kind names itself ('e1 must be in [0.1, 4]'), as the size and
 *  resolution below it do; a field of a surface is named by its row of the surface's form. */
export function validateShape(shape: Record<string, unknown>): Record<string, string> {
  const kind = String(shape.kind);
  if (!isShapeKind(kind)) return { kind: `unknown shape kind '${kind}'` };
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(schemaMessages(shapeKindSchemas[kind], shape))) {
    if (!path) out.kind ??= message;
    else out[path] = path.includes('.') ? message : `${path}${message.startsWith('must') ? ' ' : ': '}${message}`;
  }
  if (Object.keys(out).length) return out;
  for (const issue of shapeIssues(shapeKindSchemas[kind].parse(shape), '')) out[issue.path] ??= issue.message;
  return out;
}

/** Range text of a field as the batch form and the API write it (main/api.ts rangeText), with an exclusive bound marked, e.g. '(0, 1]'. */
export function rangeText(f: NumberField): string {
  return schemaRangeText({ [f.exclusiveMin ? 'exclusiveMinimum' : 'minimum']: f.min ?? undefined, maximum: f.max ?? undefined });
}
