/**
 * A run draft handed to the batch manager by another workspace: the particle editor's "send to batch
 * manager" (a mixture) and the history's "re-run with changes" (a whole spec). The sender calls
 * sendToBatch() and navigates to /batch; the batch manager watches `draft.pending`, merges its params over
 * the engine's defaults (or over its form, with keepOthers) and clears it with takeDraft().
 */
import { shallowReactive } from 'vue';
import { api, type EngineInfo } from '../api';

/** The batch form's seed: one, or a list of seeds (replicates). */
export type FormSeed = number | { $sweep: unknown[] };

export interface RunDraft {
  engine: string;
  name?: string;
  /** One seed, or the seeds of replicates ({ $sweep: [3, 8] }: every point runs at each). */
  seed?: FormSeed;
  priority?: number;
  /** Partial params: what they leave out is filled with its default (a union field's from its own variant). */
  params: Record<string, unknown>;
  /**
   * Merge over the batch manager's current params instead of the defaults when it already shows this
   * engine: the editor's mixture then replaces only the mixture (and the resolution and reduction
   * threshold its shapes were saved with, editor/voxelParams.ts), the user's box size and sweeps stay:
   * a resolution the form sweeps stays swept (schema.ts mergeOver).
   */
  keepOthers?: boolean;
  /** Shown in the batch manager after "Prefilled ": "from run r-12", "from the particle editor". */
  origin?: string;
}

export const draft = shallowReactive({ pending: null as RunDraft | null });

export function sendToBatch(d: RunDraft): void {
  draft.pending = d;
}

/**
 * Sends run `id`'s spec as written, its seed and priority, to the batch manager's form, to change and
 * queue (History's 'Re-run with changes…', the queue's 'Edit in the form' after a re-run). Throws,
 * saying why, for a run no engine of `engines` makes (an imported sphere set: the form has none).
 */
export async function sendRunToBatch(id: string, engines: readonly EngineInfo[]): Promise<void> {
  const rec = await api.call('runs.get', { id });
  if (engines.length && !engines.some((e) => e.id === rec.engine)) {
    throw new Error(`“${rec.name}” was not made by an engine that runs ('${rec.engine}'), so it cannot be re-run`);
  }
  sendToBatch({ engine: rec.engine, name: `${rec.name} (re-run)`, seed: rec.seed, priority: rec.priority, params: rec.spec.params, origin: `from run “${rec.name}”` });
}

export function takeDraft(): RunDraft | null {
  const d = draft.pending;
  draft.pending = null;
  return d;
}
