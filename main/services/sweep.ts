/**
 * Parameter sweeps: a spec whose params hold `{ "$sweep": [...] }` or `{ "$sweep": { from, to, steps } }`
 * (at any depth, inside arrays too: mixture.types.0.size.value) expands into the cartesian product of runs. The first sweep varies slowest. Each
 * point gets its own seed, derived from the spec's seed and the point's index (core/common/random).
 * A spec's seed may be a sweep too (replicates): every point of the params then runs at each of its
 * seeds, the fastest varying, each run at the seed itself (the run "seed": 3 would make), not derived.
 */
import { deriveSeed } from '../../core/common/random';
import { valueAt } from '../../core/common/engine';
import type { z } from 'zod';
import { abridged, ApiError, MAX_SWEEP_POINTS, SEED_RANGE, describeValue, firstRepeat, seedSchema, sweepSchema, sweepValues, unknownFieldMessage, type ApiIssue, type RunSpec, type SweepSpec } from '../api';


/**
 * The params all the runs of a sweep hold together, as JSON text: each run is parsed, checked and
 * stored with its own copy, so a large inline field (a voxel map's bits) is multiplied by the
 * points. 10,000 points of a 6 KiB spec fit; a 64³ map as byte values (131 kB) swept 1,000 times
 * made 131 MB of params, two minutes of checks and 253 MB in the database before this limit.
 */
export const MAX_SWEEP_PARAMS_BYTES = 64 << 20;

export interface SweepPoint {
  /** The spec of this point: params without any $sweep, the point's seed, a name naming its values. */
  spec: RunSpec;
  /** Dotted params path → value, for display; and `seed` → the run's seed when the spec sweeps its seed. */
  values: Record<string, unknown>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

type Path = (string | number)[];

const SWEEP_FORMS = 'a sweep is { "$sweep": [v1, v2, ...] } (1 to 10000 values) or { "$sweep": { "from": number, "to": number, "steps": integer in [1, 10000] } }';

/**
 * The issues of a malformed sweep, each at its field ('params.a.$sweep.steps') with the forms a
 * sweep takes. zod reports a failed union as one 'Invalid input' naming no field, so the issues of
 * the form written (a list, or a range) are given instead.
 */
function sweepIssues(where: string, issues: readonly z.core.$ZodIssue[], body: unknown): ApiIssue[] {
  return issues.flatMap((issue) => {
    const inner = issue.code === 'invalid_union' && (Array.isArray(body) || isPlainObject(body))
      ? issue.errors[Array.isArray(body) ? 0 : 1].map((i) => ({ ...i, path: [...issue.path, ...i.path] }))
      : [issue];
    return inner.map((i) => ({ path: [where, ...i.path].join('.'), message: `${i.code === 'invalid_union' ? 'expected a list of values or a range' : i.code === 'unrecognized_keys' ? unknownKeysMessage(i.keys, i.path.length ? RANGE_FIELDS : ['$sweep']) : i.message}; ${SWEEP_FORMS}` }));
  });
}

const RANGE_FIELDS = ['from', 'to', 'steps'];

/** Unknown fields of a sweep, said as the API says them: zod's words quoted each whole ('Unrecognized key: "…"'). */
function unknownKeysMessage(keys: string[], known: string[]): string {
  const more = keys.length - 1;
  return unknownFieldMessage(keys[0], known) + (more ? ` (and ${more} more unknown field${more > 1 ? 's' : ''})` : '');
}

/**
 * Finds the sweeps in params, in objects and arrays alike: their paths and their values (checked;
 * without `check`, paths only: stored batches are read as they were accepted).
 */
function findSweeps(value: unknown, path: Path, out: { path: Path; values: unknown[] }[], check = true, issuePrefix = ''): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => findSweeps(v, [...path, i], out, check, issuePrefix));
    return;
  }
  if (!isPlainObject(value)) return;
  if ('$sweep' in value) {
    if (!check) {
      out.push({ path, values: [] });
      return;
    }
    const r = sweepSchema.strict().safeParse(value);
    if (!r.success) {
      const where = [issuePrefix, 'params', ...path].filter((x) => x !== '').join('.');
      throw new ApiError('invalid', `${where}: ${SWEEP_FORMS}`, sweepIssues(where, r.error.issues, value.$sweep));
    }
    out.push({ path, values: sweepValues(r.data) });
    return;
  }
  for (const [k, v] of Object.entries(value)) findSweeps(v, [...path, k], out, check, issuePrefix);
}

/** A copy of `node` with the value at `path` replaced (objects and arrays copied along the path only). */
function setPath(node: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(node)) {
    const copy = node.slice();
    copy[head as number] = setPath(node[head as number], rest, value);
    return copy;
  }
  const obj = node as Record<string, unknown>;
  return { ...obj, [head]: setPath(obj[head], rest, value) };
}

/**
 * A swept value as a run's name says it. A long one (a size table, a shape's voxels) by its start and
 * length: whole, a sweep over two size tables of 3,000 sizes named its runs with 33,000 characters
 * each, printed whole by `runs list`. The run keeps the value whole in its sweep (RunSummary.sweep).
 */
function formatValue(v: unknown): string {
  return abridged(typeof v === 'string' ? v : JSON.stringify(v));
}

/** The label a sweep point's name ends with ('name [porosity=0.4, box.resolution=12]'): its values by dotted params path. */
export function sweepLabel(values: Record<string, unknown>): string {
  return Object.entries(values).map(([k, v]) => `${k}=${formatValue(v)}`).join(', ');
}

/**
 * The seeds of a spec whose seed is a sweep (null for one seed), checked: the sweep's form as the
 * params' sweeps are, then each value a seed, named at its field (seed.$sweep.2; a range's at
 * seed.$sweep, which holds no such field), then no seed twice. A range's whole values differ unless
 * its from equals its to: with from ≠ to, a step under 1 makes a value that is not whole (refused
 * above) and one of 1 or more keeps them apart (12 significant digits hold a seed's 10 and 2 decimals).
 */
function seedSweep(seed: SweepSpec['seed'], issuePrefix: string): number[] | null {
  if (typeof seed === 'number') return null;
  const where = [issuePrefix, 'seed'].filter((x) => x !== '').join('.');
  const r = sweepSchema.strict().safeParse(seed);
  const seedValues = `; its values are seeds, each ${SEED_RANGE}`;
  if (!r.success) throw new ApiError('invalid', `${where}: ${SWEEP_FORMS}${seedValues}`, sweepIssues(where, r.error.issues, seed.$sweep).map((i) => ({ ...i, message: i.message + seedValues })));
  const values = sweepValues(r.data);
  const list = Array.isArray(r.data.$sweep);
  const issues: ApiIssue[] = [];
  values.forEach((v, i) => {
    if (seedSchema.safeParse(v).success) return;
    const got = describeValue(v);
    issues.push(list
      ? { path: `${where}.$sweep.${i}`, message: `must be ${SEED_RANGE}, got ${got}` }
      : { path: `${where}.$sweep`, message: `each seed must be ${SEED_RANGE}; this range's value ${i + 1} is ${got}` });
  });
  // A range says its first bad value (its others follow from it); a list each of its own, up to 10.
  const said = list ? issues.slice(0, 10) : issues.slice(0, 1);
  if (said.length) throw new ApiError('invalid', `${said[0].path}: ${said[0].message}${issues.length > said.length ? ` (and ${issues.length - said.length} more)` : ''}`, said);
  const repeat = firstRepeat(values);
  if (repeat) {
    const [first, again] = repeat;
    const why = 'each seed of a sweep must differ: the same seed and params make the same run, counted twice in its point\'s spread';
    const issue = list
      ? { path: `${where}.$sweep.${again}`, message: `repeats seed ${String(values[again])} (${where}.$sweep.${first}); ${why}` }
      : { path: `${where}.$sweep`, message: `this range gives seed ${String(values[again])} ${values.filter((v) => v === values[again]).length} times; ${why}` };
    throw new ApiError('invalid', `${issue.path}: ${issue.message}`, [issue]);
  }
  return values as number[];
}

/**
 * The runs of a spec: one when it holds no sweep, else the cartesian product of its sweeps (its
 * seeds' the last), checked at once but made one at a time: `point(i)` makes the i-th of `total` (a
 * loop on the host's thread makes 10,000 in turns, not in one go). Issue paths start with
 * `issuePrefix` (the spec's place in the request).
 */
export function sweepPlan(spec: SweepSpec, issuePrefix = ''): { total: number; point: (i: number) => SweepPoint } {
  const sweeps: { path: Path; values: unknown[] }[] = [];
  findSweeps(spec.params, [], sweeps, true, issuePrefix);
  const seeds = seedSweep(spec.seed, issuePrefix);
  if (sweeps.length === 0 && !seeds) return { total: 1, point: () => ({ spec: spec as RunSpec, values: {} }) };
  const paramsPoints = sweeps.reduce((n, s) => n * s.values.length, 1);
  const total = paramsPoints * (seeds?.length ?? 1);
  if (total > MAX_SWEEP_POINTS) {
    const field = [issuePrefix, seeds ? 'seed' : 'params'].filter((x) => x !== '').join('.');
    const product = seeds && sweeps.length ? ` (${paramsPoints} of the params × ${seeds.length} seeds)` : '';
    throw new ApiError('invalid', `the sweep expands into ${total} runs${product}; at most ${MAX_SWEEP_POINTS} are allowed`, [
      { path: field, message: `sweep of ${total} runs${product} exceeds ${MAX_SWEEP_POINTS}` },
    ]);
  }
  checkSweepBytes(spec.params, total, issuePrefix);
  const point = (i: number): SweepPoint => {
    let params = spec.params;
    const values: Record<string, unknown> = {};
    // The seed varies fastest: a params point's replicates follow one another.
    let rest = seeds ? Math.floor(i / seeds.length) : i;
    // Mixed radix, the last sweep fastest.
    for (let k = sweeps.length - 1; k >= 0; k--) {
      const s = sweeps[k];
      const v = s.values[rest % s.values.length];
      rest = Math.floor(rest / s.values.length);
      params = setPath(params, s.path, v) as Record<string, unknown>;
      values[s.path.join('.')] = v;
    }
    const ordered = Object.fromEntries(sweeps.map((s) => [s.path.join('.'), values[s.path.join('.')]]));
    if (seeds) ordered.seed = seeds[i % seeds.length];
    const seed = seeds ? seeds[i % seeds.length] : deriveSeed(spec.seed as number, i);
    return { spec: { ...spec, params, seed, name: `${spec.name} [${sweepLabel(ordered)}]` }, values: ordered };
  };
  return { total, point };
}

/** JSON length of a value (undefined, as in an object, counts as nothing). */
const jsonLength = (v: unknown): number => JSON.stringify(v)?.length ?? 0;

/**
 * Refuses a sweep whose runs would hold more than MAX_SWEEP_PARAMS_BYTES of params together, before
 * any point is made, naming the field that weighs most (where the user can act: a smaller map).
 */
function checkSweepBytes(params: Record<string, unknown>, points: number, issuePrefix: string): void {
  const each = jsonLength(params);
  if (points < 2 || points * each <= MAX_SWEEP_PARAMS_BYTES) return; // one point is a spec as any other
  // Down the heaviest child while it holds most of its parent: the field to name.
  const path: Path = [];
  let node: unknown = params, size = each;
  while (node !== null && typeof node === 'object') {
    const [key, child, childSize] = Object.entries(node).map(([k, v]) => [k, v, jsonLength(v)] as const).reduce((a, b) => (b[2] > a[2] ? b : a), ['', null, 0] as const);
    if (childSize * 2 < size) break;
    path.push(key);
    node = child;
    size = childSize;
  }
  const where = [issuePrefix, 'params', ...path].filter((x) => x !== '').join('.');
  const most = Math.floor(MAX_SWEEP_PARAMS_BYTES / each);
  const message = `the sweep's ${points} runs would each hold these params of ${each} bytes (${size} of them in this field), ${points * each} bytes in all; allowed: at most ${MAX_SWEEP_PARAMS_BYTES} bytes in all, ${most >= 2 ? `here at most ${most} runs: sweep fewer values, or` : 'here one run, no sweep: queue it alone, or'} make ${path.length ? 'this field' : 'the params'} smaller`;
  throw new ApiError('invalid', `${where}: ${message}`, [{ path: where, message }]);
}

/** The dotted paths of the sweeps in a (batch) spec's params, in expansion order. */
export function sweptPaths(params: Record<string, unknown>): string[] {
  const sweeps: { path: Path; values: unknown[] }[] = [];
  findSweeps(params, [], sweeps, false);
  return sweeps.map((s) => s.path.join('.'));
}

/** The values a point's params hold at swept paths (as a sweep point's `values`). */
export function valuesAt(params: Record<string, unknown>, paths: string[]): Record<string, unknown> {
  return Object.fromEntries(paths.map((p) => [p, valueAt(params, p)]));
}
