/**
 * The run the inspector shows, remembered across workspaces: the app's Inspector link and shortcut
 * reopen it instead of the empty "pick a run" page.
 */
import { reactive } from 'vue';

export const inspected = reactive({ runId: '' });

/** Where the Inspector link goes: the last inspected run, else the run picker. */
export function inspectorPath(): string {
  return inspected.runId ? `/inspector/${encodeURIComponent(inspected.runId)}` : '/inspector';
}
