/**
 * The engine registry: which engines exist, how their params are validated (schema, then the
 * engine's cross-field checks) and which worker entry runs them. The engines come from core's one
 * list (core/common/engines.ts) and all run in the one generic worker entry; tests build their own
 * registry with a fixture engine and its worker entry.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { EngineDefinition, ParamsIssue } from '../../core/common/engine';
import { ENGINES } from '../../core/common/engines';
import { Turns } from './turns';
import { ApiError, closest, invalidMessage, parseStrict, quoted, SPHERE_IMPORT_ENGINE, unknownFields, type ApiIssue, type EngineInfo, type RunSpec } from '../api';

export interface EngineDeclaration {
  definition: EngineDefinition;
  /**
   * Absolute path of the worker entry (.ts from source, bundled by the pool with esbuild;
   * .js when bundled by electron-vite). The entry calls runEngineWorker(a list holding the engine).
   */
  workerEntry: string;
}

/**
 * The schema as the services apply it: parseStrict refuses an unknown field in any object that does
 * not say otherwise, so every object with properties says additionalProperties: false. zod writes
 * that only for strict objects, and the voxel engine's (plain objects) read as open to a validator
 * of the published schema (Python's jsonschema, ajv), which then passed a misspelt field.
 */
function closedObjects<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(closedObjects);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
    Object.values(o).forEach(closedObjects);
  }
  return node;
}

function unknownEngine(id: string, known: string[], path: string): ApiError {
  const meant = closest(id, known);
  const hint = meant ? ` (did you mean '${meant}'?)` : '';
  const list = known.join(', ') || '(none)';
  return new ApiError('invalid', `unknown engine ${quoted(id)}${hint}; known engines: ${list}`, [{ path, message: `unknown engine ${quoted(id)}${hint}; known: ${list}` }]);
}

export class EngineRegistry {
  private readonly byId = new Map<string, EngineDeclaration>();

  constructor(declarations: EngineDeclaration[]) {
    for (const d of declarations) {
      if (this.byId.has(d.definition.id)) throw new Error(`engine '${d.definition.id}' is declared twice`);
      this.byId.set(d.definition.id, d);
    }
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** The engine `id`; or ApiError('invalid') at `path`, the engine field's place in the request. */
  get(id: string, path = 'engine'): EngineDeclaration {
    const d = this.byId.get(id);
    if (!d) throw unknownEngine(id, this.ids(), path);
    return d;
  }

  /**
   * Refuses, at `path`, an engine no stored run can have: a filter by a misspelt engine would answer
   * no runs, as if there were none. Imported sphere sets are runs of an engine the registry does not
   * hold (SPHERE_IMPORT_ENGINE): History and `runs list --engine` filter by it too.
   */
  checkRunEngine(id: string, path: string): void {
    const known = [...this.ids(), SPHERE_IMPORT_ENGINE];
    if (!known.includes(id)) throw unknownEngine(id, known, path);
  }

  /** Ids of the engines whose runs share their work among helper threads (definition.helper): the only ones more threads per run help. */
  threaded(): string[] {
    return [...this.byId.values()].filter((d) => d.definition.helper).map((d) => d.definition.id);
  }

  /** A spec's engine; unknown, refused at `prefix`.engine (the spec's place in the request). */
  private engineOf(spec: Pick<RunSpec, 'engine'>, prefix: string): EngineDeclaration {
    return this.get(spec.engine, prefix ? `${prefix}.engine` : 'engine');
  }

  info(): EngineInfo[] {
    return [...this.byId.values()].map(({ definition: d }) => {
      const defaults = d.paramsSchema.safeParse({});
      return {
        id: d.id,
        title: d.title,
        description: d.description,
        paramsJsonSchema: closedObjects(z.toJSONSchema(d.paramsSchema, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>,
        defaults: defaults.success ? (defaults.data as Record<string, unknown>) : null,
        particleTable: d.particleTable,
        metrics: d.metrics ?? {},
        stopAndKeep: d.stopAndKeep ?? null,
      };
    });
  }

  /**
   * The unknown fields of a spec's params before its sweeps are expanded, each named; an array over
   * its size limit is refused at once (a walk of every entry of an oversized array took seconds).
   */
  unknownFields(spec: Pick<RunSpec, 'engine' | 'params'>, prefix = ''): ApiIssue[] {
    return unknownFields(this.engineOf(spec, prefix).definition.paramsSchema, spec.params, prefix ? `${prefix}.params` : 'params');
  }

  /**
   * Validates a spec's params against its engine's schema: the parsed params (with defaults), or
   * ApiError('invalid') whose issue paths start with `prefix` (the spec's place in the request). The
   * engine's cross-field checks come after, in a worker (JobQueue.validate, refusedByCheck).
   */
  parseParams(spec: RunSpec, prefix = ''): Record<string, unknown> {
    const d = this.engineOf(spec, prefix).definition;
    return parseStrict(d.paramsSchema, spec.params, prefix ? `${prefix}.params` : 'params') as Record<string, unknown>;
  }

  /**
   * What one run's spec wrote that has no effect with its other params (EngineDefinition.warnings:
   * its spec's params as written, and as parsed), paths at `prefix`.params. Never refuses.
   */
  runWarnings(engine: string, run: { spec: RunSpec; params: Record<string, unknown> }, prefix = ''): ApiIssue[] {
    const at = prefix ? `${prefix}.params` : 'params';
    return (this.get(engine).definition.warnings?.(run.spec.params, run.params) ?? []).map((w) => ({ path: `${at}.${w.path}`, message: w.message }));
  }

  /**
   * runWarnings of a spec's runs, once per field however many sweep points have it (saying how many
   * when not all do). In turns: 10,000 points took 40-115 ms of the thread that serves the app.
   */
  async warnings(engine: string, runs: readonly { spec: RunSpec; params: Record<string, unknown> }[], prefix = ''): Promise<ApiIssue[]> {
    if (!this.get(engine).definition.warnings) return [];
    const byPath = new Map<string, { message: string; runs: number }>();
    const turns = new Turns();
    for (const r of runs) {
      await turns.pass();
      for (const w of this.runWarnings(engine, r, prefix)) {
        const seen = byPath.get(w.path);
        if (seen) seen.runs++;
        else byPath.set(w.path, { message: w.message, runs: 1 });
      }
    }
    return [...byPath].map(([path, w]) => ({ path, message: w.runs < runs.length ? `${w.message} (in ${w.runs} of the ${runs.length} sweep points)` : w.message }));
  }

  /** The refusal of a spec whose engine's cross-field checks found `issues`, at the spec's `prefix`. */
  refusedByCheck(issues: ParamsIssue[], prefix = ''): ApiError {
    const at = prefix ? `${prefix}.params` : 'params';
    const named = issues.map((i) => ({ path: `${at}.${i.path}`, message: i.message }));
    return new ApiError('invalid', invalidMessage(named), named);
  }
}

/**
 * The generic worker entry: next to this module's source when running from source (tsx), in
 * out/main/workers/ when bundled (electron-vite puts main/index.ts at out/main/index.js).
 */
export const ENGINE_WORKER = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../workers/engine.ts' : './workers/engine.js', import.meta.url));

/** The engines PackBench ships: core's list, each run by the generic worker entry. */
export function defaultRegistry(): EngineRegistry {
  return new EngineRegistry(ENGINES.map((definition) => ({ definition, workerEntry: ENGINE_WORKER })));
}
