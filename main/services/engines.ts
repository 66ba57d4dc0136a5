/**
 * The engine registry: which engines exist, how their params are validated, and which worker entry
 * runs them. An engine plugs in by one declaration here (its definition from core/ and its worker
 * entry in main/workers/); nothing else in the app names engines. Tests build their own registry
 * with a fixture engine.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { EngineDefinition } from '../../core/common/engine';
import { voxelEngine } from '../../core/voxel';
import { ApiError, issuesFrom, invalidMessage, type EngineInfo, type RunSpec } from '../api';

export interface EngineDeclaration {
  definition: EngineDefinition;
  /**
   * Absolute path of the worker entry (.ts from source, bundled by the pool with esbuild;
   * .js when bundled by electron-vite). The entry calls runEngineWorker(definition).
   */
  workerEntry: string;
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

  get(id: string): EngineDeclaration {
    const d = this.byId.get(id);
    if (!d) {
      throw new ApiError('invalid', `unknown engine '${id}'; known engines: ${this.ids().join(', ') || '(none)'}`, [
        { path: 'engine', message: `unknown engine '${id}'; known: ${this.ids().join(', ') || '(none)'}` },
      ]);
    }
    return d;
  }

  info(): EngineInfo[] {
    return [...this.byId.values()].map(({ definition: d }) => {
      const defaults = d.paramsSchema.safeParse({});
      return {
        id: d.id,
        title: d.title,
        description: d.description,
        paramsJsonSchema: z.toJSONSchema(d.paramsSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
        defaults: defaults.success ? (defaults.data as Record<string, unknown>) : null,
      };
    });
  }

  /**
   * Validates a spec's params against its engine: the parsed params (with defaults), or
   * ApiError('invalid') whose issue paths start with `prefix` (the spec's place in the request).
   */
  parseParams(spec: RunSpec, prefix = ''): Record<string, unknown> {
    const d = this.get(spec.engine);
    const r = d.definition.paramsSchema.safeParse(spec.params);
    if (!r.success) {
      const issues = issuesFrom(r.error, prefix ? `${prefix}.params` : 'params');
      throw new ApiError('invalid', invalidMessage(issues), issues);
    }
    return r.data as Record<string, unknown>;
  }
}

/**
 * Where a worker entry lives: next to this module's source when running from source (tsx), in
 * out/main/workers/ when bundled (electron-vite puts main/index.ts at out/main/index.js).
 */
export function workerEntry(name: string): string {
  const fromSource = import.meta.url.endsWith('.ts');
  return fileURLToPath(new URL(fromSource ? `../workers/${name}.ts` : `./workers/${name}.js`, import.meta.url));
}

/** The engines PackBench ships. */
export function defaultRegistry(): EngineRegistry {
  return new EngineRegistry([{ definition: voxelEngine, workerEntry: workerEntry('voxel') }]);
}
