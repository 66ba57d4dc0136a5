/**
 * The subset of JSON Schema that z.toJSONSchema emits for engine params, and what the batch manager does
 * with it: defaults, client-side validation by field path, sweeps ({ "$sweep": ... }) and their run count.
 * Paths are dotted from the params root ('box.lx', 'types.0.size.value'), as the service reports them
 * after its 'params.' prefix.
 */

import { rangeText, sweepValues, unknownFieldMessage } from '../../../../main/api';

export { rangeText };

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  description?: string;
  title?: string;
  unit?: string;
  additionalProperties?: boolean | JsonSchema;
  [key: string]: unknown;
}

export type Sweep = { $sweep: unknown[] | { from: number; to: number; steps: number } };

/** Follows a local $ref ('#/$defs/x') against the root schema. */
export function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let s = schema;
  for (let guard = 0; s.$ref && guard < 20; guard++) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
    const target = m ? (root[m[1]] as Record<string, JsonSchema> | undefined)?.[m[2]] : undefined;
    if (!target) break;
    s = { ...target, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
  }
  return s;
}

/** Variants of a union (oneOf/anyOf), without a bare {type:'null'} which makes a field nullable. */
export function variants(schema: JsonSchema): JsonSchema[] | null {
  const list = schema.oneOf ?? schema.anyOf;
  if (!list) return null;
  const v = list.filter((x) => x.type !== 'null');
  return v.length ? v : null;
}

export function kindOf(schema: JsonSchema): 'object' | 'array' | 'tuple' | 'number' | 'integer' | 'boolean' | 'enum' | 'string' | 'union' | 'unknown' {
  if (variants(schema)) return variants(schema)!.length === 1 ? kindOf(variants(schema)![0]) : 'union';
  if (schema.enum) return 'enum';
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  if (t === 'array') return schema.prefixItems ? 'tuple' : 'array';
  if (t === 'object' || (!t && schema.properties)) return 'object';
  if (t === 'number' || t === 'integer' || t === 'boolean' || t === 'string') return t;
  return 'unknown';
}

/** The property whose value is a different const in each variant (e.g. 'kind' or 'law'). */
export function discriminator(options: JsonSchema[]): string | null {
  const first = options[0]?.properties;
  if (!first) return null;
  for (const key of Object.keys(first)) {
    const consts = options.map((o) => o.properties?.[key]?.const);
    if (consts.every((c) => c !== undefined) && new Set(consts).size === consts.length) return key;
  }
  return null;
}

/** Index of the variant a value belongs to (by discriminator, else the first that validates). */
export function variantIndex(options: JsonSchema[], value: unknown, root: JsonSchema): number {
  const key = discriminator(options);
  if (key && value && typeof value === 'object') {
    const i = options.findIndex((o) => o.properties![key].const === (value as Record<string, unknown>)[key]);
    if (i >= 0) return i;
  }
  const i = options.findIndex((o) => Object.keys(validate(o, value, root)).length === 0);
  return i >= 0 ? i : 0;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** A value for a field: its default, else one built from its parts (objects recursively), else empty. */
export function defaultValue(schema: JsonSchema, root: JsonSchema = schema): unknown {
  const s = resolve(schema, root);
  if (s.default !== undefined) return clone(s.default);
  if (s.const !== undefined) return s.const;
  const opts = variants(s);
  if (opts) return defaultValue(opts[0], root);
  switch (kindOf(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        if (leftUnset(s, k, root)) continue;
        const v = defaultValue(p, root);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case 'tuple':
      return (s.prefixItems ?? []).map((p) => defaultValue(p, root));
    case 'array':
      return s.items && s.minItems ? Array.from({ length: s.minItems }, () => defaultValue(s.items as JsonSchema, root)) : [];
    case 'enum':
      return s.enum![0];
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
    case 'string':
      return '';
    default:
      return undefined;
  }
}

/**
 * An optional field without a default stays unset: the engine documents what its absence means
 * (e.g. a slice thickness of one voxel), and any value made up here (its minimum) would change the run.
 */
function leftUnset(object: JsonSchema, key: string, root: JsonSchema): boolean {
  return !(object.required ?? []).includes(key) && resolve(object.properties?.[key] ?? {}, root).default === undefined;
}

/**
 * The value with every field it lacks set to its default, recursively (objects, list items, tuples,
 * the chosen variant of a union): a form shows the value that runs, never a blank field whose default
 * the engine would apply unseen. Sweeps and values of the wrong type are left as they are.
 */
export function fillDefaults(schema: JsonSchema, value: unknown, root: JsonSchema = schema): unknown {
  if (value === undefined) return defaultValue(schema, root);
  if (isSweep(value) || value === null) return value;
  const s = resolve(schema, root);
  const opts = variants(s);
  if (opts) return fillDefaults(opts.length > 1 ? opts[variantIndex(opts.map((o) => resolve(o, root)), value, root)] : opts[0], value, root);
  switch (kindOf(s)) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        if (out[k] === undefined && leftUnset(s, k, root)) continue;
        const v = fillDefaults(p, out[k], root);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case 'tuple':
      return Array.isArray(value) ? value.map((v, i) => (s.prefixItems?.[i] ? fillDefaults(s.prefixItems[i], v, root) : v)) : value;
    case 'array':
      return Array.isArray(value) && s.items ? value.map((v) => fillDefaults(s.items as JsonSchema, v, root)) : value;
    default:
      return value;
  }
}

/**
 * What a form shows instead of a value's fields (JSON Schema `form`, declared by the engine's schema
 * meta): 'voxelMap' is an imported voxel map ({ dims, bits }), shown by its size and a thumbnail.
 */
/** A field drawn by its own editor instead of the generic one (the schema's meta `form`). */
export function formWidget(schema: JsonSchema): 'voxelMap' | 'gradation' | null {
  return schema.form === 'voxelMap' || schema.form === 'gradation' ? schema.form : null;
}

export function isSweep(v: unknown): v is Sweep {
  return !!v && typeof v === 'object' && !Array.isArray(v) && '$sweep' in v;
}

/** The numbers of a sweep's list as typed: '0.1, 0.2 0.3; 0.4' (what is not a number reads NaN, for the checks to name). */
export function numberList(text: string): number[] {
  return text.split(/[\s,;]+/).filter(Boolean).map(Number);
}

/** Runs a params tree makes: the product of the sizes of its sweeps (1 without sweeps). */
export function runCount(value: unknown): number {
  if (isSweep(value)) return sweepValues(value).length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n * runCount(v), 1);
  if (value && typeof value === 'object') return Object.values(value).reduce((n: number, v) => n * runCount(v), 1);
  return 1;
}

function numberError(s: JsonSchema, v: unknown, integer: boolean): string | null {
  // An empty or unreadable entry is told the range too: a law's median or a type's fraction shows none beside its box.
  if (typeof v !== 'number' || !Number.isFinite(v)) return `enter a ${integer ? 'whole number' : 'number'}${rangeText(s) ? ` in ${rangeText(s)}` : ''}`;
  if (integer && !Number.isInteger(v)) return 'must be a whole number';
  const bad =
    (s.minimum !== undefined && v < s.minimum) ||
    (s.maximum !== undefined && v > s.maximum) ||
    (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) ||
    (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum);
  return bad ? `must be in ${rangeText(s)}` : null;
}

/**
 * The message for the first value of a sweep list that the form's list text did not read as the
 * field takes it (a number; a tuple: its n numbers), naming the accepted form; null when all read.
 * The text 'a b c' of a 3-tuple reads as one tuple of three NaNs, '1,1,1, 2,2,2' as one of six.
 */
function unreadListValue(field: JsonSchema, values: unknown[], root: JsonSchema): string | null {
  const isNumber = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  const opts = variants(field);
  const s = opts?.length === 1 ? resolve(opts[0], root) : field;
  const kind = kindOf(s);
  if (kind === 'number' || kind === 'integer') {
    const nullable = !!(field.anyOf ?? field.oneOf)?.some((x) => x.type === 'null');
    const i = values.findIndex((v) => !isNumber(v) && !(nullable && v === null));
    return i < 0 ? null : `value ${i + 1} of the list is not a number: write the values separated by commas (e.g. 0.1, 0.2, 0.5)`;
  }
  const items = s.prefixItems ?? [];
  if (kind !== 'tuple' || !items.every((p) => ['number', 'integer'].includes(kindOf(p)))) return null;
  const n = items.length;
  const i = values.findIndex((v) => !Array.isArray(v) || v.length !== n || !v.every(isNumber));
  if (i < 0) return null;
  const example = [1, 2].map((x) => Array<number>(n).fill(x).join(' ')).join('; ');
  return `value ${i + 1} of the list is not ${n} numbers: write each value as its ${n} numbers separated by spaces, and the values separated by ';' (e.g. ${example})`;
}

/**
 * Keys of an object value that its schema does not list, when the schema allows no others (engine
 * params are strict: the service refuses them). An opened spec file may hold them; the form shows each
 * at its place with its message and a way to remove just it.
 */
export function unknownKeys(s: JsonSchema, value: unknown): string[] {
  if (!s.properties || !(s.additionalProperties === undefined || s.additionalProperties === false)) return [];
  if (!value || typeof value !== 'object' || Array.isArray(value) || isSweep(value)) return [];
  return Object.entries(value).filter(([k, v]) => v !== undefined && !(k in s.properties!)).map(([k]) => k);
}

function addMissing(into: Record<string, string>, more: Record<string, string>): void {
  for (const [k, m] of Object.entries(more)) if (!(k in into)) into[k] = m;
}

function join(path: string, key: string | number): string {
  return path ? `${path}.${key}` : String(key);
}

/**
 * The unit the field at a dotted params path declares ('box.size.0', 'balls.radius.min'), '' when
 * none: unions are followed by the variant the value takes (without a value, the first variant that
 * has the next key), and a nullable field's unit sits beside its variants.
 */
export function unitAt(root: JsonSchema, value: unknown, path: string): string {
  const chosen = (s: JsonSchema, v: unknown, key?: string): JsonSchema => {
    const r = resolve(s, root);
    const vs = variants(r)?.map((x) => resolve(x, root));
    if (!vs) return r;
    if (v === undefined && key !== undefined) return vs.find((x) => x.properties?.[key]) ?? vs[0];
    return vs[variantIndex(vs, v, root)];
  };
  let s: JsonSchema | undefined = root;
  let v = value;
  for (const key of path.split('.')) {
    const at: JsonSchema = chosen(s, v, key);
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    s = at.properties?.[key] ?? at.prefixItems?.[Number(key)] ?? (at.items || undefined);
    if (!s) return '';
  }
  return resolve(s, root).unit ?? chosen(s, v).unit ?? '';
}

/**
 * Validates a value (which may hold sweeps) against a schema. Returns messages by dotted path; an empty
 * object means valid. Sweeps check each of their values, and their own shape.
 */
export function validate(schema: JsonSchema, value: unknown, root: JsonSchema = schema, path = ''): Record<string, string> {
  const errors: Record<string, string> = {};
  const s = resolve(schema, root);
  const put = (p: string, m: string) => {
    if (!(p in errors)) errors[p] = m;
  };
  if (isSweep(value)) {
    const w = value.$sweep;
    if (!Array.isArray(w)) {
      if (!Number.isFinite(w.from)) put(path, 'from: enter a number');
      if (!Number.isFinite(w.to)) put(path, 'to: enter a number');
      if (!Number.isInteger(w.steps) || w.steps < 1 || w.steps > 10_000) put(path, 'steps must be a whole number in [1, 10000]');
    }
    const vals = sweepValues(value);
    if (vals.length === 0) put(path, 'a sweep needs at least one value');
    const unread = Array.isArray(w) ? unreadListValue(s, w, root) : null;
    if (unread) put(path, unread);
    for (const v of vals) {
      const first = Object.values(validate(s, v, root, path))[0];
      if (first) {
        put(path, `sweep value ${JSON.stringify(v)}: ${first}`);
        break;
      }
    }
    return errors;
  }
  if (value === undefined || value === null) {
    return errors; // missing optional fields; required ones are reported by the parent object
  }
  const opts = variants(s);
  if (opts && opts.length > 1) {
    const i = variantIndex(opts, value, root);
    return validate(opts[i], value, root, path);
  }
  if (opts) return validate(opts[0], value, root, path);
  if (s.const !== undefined && value !== s.const) put(path, `must be ${JSON.stringify(s.const)}`);
  switch (kindOf(s)) {
    case 'number':
    case 'integer': {
      const m = numberError(s, value, kindOf(s) === 'integer');
      if (m) put(path, m);
      break;
    }
    case 'boolean':
      if (typeof value !== 'boolean') put(path, 'must be true or false');
      break;
    case 'enum':
      if (!s.enum!.includes(value)) put(path, `must be one of ${s.enum!.map(String).join(', ')}`);
      break;
    case 'string':
      if (typeof value !== 'string') put(path, 'must be text');
      else if (s.minLength !== undefined && value.length < s.minLength) put(path, s.minLength === 1 ? 'must not be empty' : `at least ${s.minLength} characters`);
      else if (s.maxLength !== undefined && value.length > s.maxLength) put(path, `at most ${s.maxLength} characters`);
      break;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) {
        put(path, 'must be an object');
        break;
      }
      const obj = value as Record<string, unknown>;
      for (const k of s.required ?? []) {
        if (obj[k] === undefined && resolve(s.properties?.[k] ?? {}, root).default === undefined) put(join(path, k), 'required');
      }
      for (const [k, p] of Object.entries(s.properties ?? {})) addMissing(errors, validate(p, obj[k], root, join(path, k)));
      for (const k of unknownKeys(s, obj)) put(join(path, k), unknownFieldMessage(k, Object.keys(s.properties!)));
      break;
    }
    case 'tuple':
    case 'array': {
      if (!Array.isArray(value)) {
        put(path, 'must be a list');
        break;
      }
      if (s.minItems !== undefined && value.length < s.minItems) put(path, `needs at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`);
      if (s.maxItems !== undefined && value.length > s.maxItems) put(path, `at most ${s.maxItems} items`);
      // Components with defaults drop minItems from the JSON Schema; the service still wants them all.
      if (s.prefixItems && value.length < s.prefixItems.length) put(path, `must have ${s.prefixItems.length} entries, got ${value.length}`);
      value.forEach((v, i) => {
        const item = s.prefixItems?.[i] ?? (s.items || undefined);
        if (item) addMissing(errors, validate(item, v, root, join(path, i)));
      });
      break;
    }
  }
  return errors;
}

/**
 * Merges a partial value over a base: plain objects deeply, everything else (arrays too) replaced;
 * but a field the base sweeps keeps its sweep against a single value of the partial (a sweep of the
 * partial replaces it), and its dotted path is pushed to `kept`.
 */
export function mergeOver(base: unknown, partial: unknown, kept: string[] = [], path = ''): unknown {
  if (isSweep(base) && partial !== undefined && !isSweep(partial) && !isPlainObject(partial) && !Array.isArray(partial)) {
    kept.push(path);
    return clone(base);
  }
  if (isPlainObject(base) && isPlainObject(partial) && !isSweep(partial)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(partial)) out[k] = mergeOver(base[k], v, kept, path ? `${path}.${k}` : k);
    return out;
  }
  return partial === undefined ? clone(base) : clone(partial);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/**
 * Maps a service issue path to a form path: the part after the last 'params.' ('params.spec.params.box.lx'
 * → 'box.lx'), when its first segment is one of the engine's fields (`fields`); else null (not a form field).
 */
export function formPath(issuePath: string, fields: string[]): string | null {
  const i = issuePath.lastIndexOf('params.');
  if (i < 0) return null;
  const p = issuePath.slice(i + 'params.'.length);
  return fields.includes(p.split('.')[0]) ? p : null;
}
