/**
 * A run draft handed to the batch manager by another workspace: the particle editor's "send to batch
 * manager" (a mixture) and the history's "re-run with changes" (a whole spec). The sender calls
 * sendToBatch() and navigates to /batch; the batch manager watches `draft.pending`, merges its params over
 * the engine's defaults (or over its form, with keepOthers) and clears it with takeDraft().
 */
import { shallowReactive } from 'vue';

export interface RunDraft {
  engine: string;
  name?: string;
  seed?: number;
  priority?: number;
  /** Partial params: what they leave out is filled with its default (a union field's from its own variant). */
  params: Record<string, unknown>;
  /**
   * Merge over the batch manager's current params instead of the defaults when it already shows this
   * engine: the editor's mixture then replaces only the mixture, the user's box, resolution and
   * sweeps stay.
   */
  keepOthers?: boolean;
  /** Shown in the batch manager after "Prefilled ": "from run r-12", "from the particle editor". */
  origin?: string;
}

export const draft = shallowReactive({ pending: null as RunDraft | null });

export function sendToBatch(d: RunDraft): void {
  draft.pending = d;
}

export function takeDraft(): RunDraft | null {
  const d = draft.pending;
  draft.pending = null;
  return d;
}
