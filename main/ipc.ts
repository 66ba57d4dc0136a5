/**
 * The IPC contract between main/index.ts and main/preload.ts: channel names and the envelope a
 * call or abort returns (Electron keeps only the message of a thrown Error, so errors travel as data); and
 * the lifetime of the page that made a call (pageSignals).
 */
import type { ApiErrorData } from './api';

export const CALL_CHANNEL = 'packbench:call';
/** The renderer aborts one of its calls (PackbenchApi.abort): its callId; answered with a CallEnvelope. */
export const ABORT_CHANNEL = 'packbench:abort';
export const EVENT_CHANNEL = 'packbench:event';

export type CallEnvelope = { ok: true; result: unknown } | { ok: false; error: ApiErrorData };

/** The events of a window's webContents that end the page it shows (Electron's WebContents has them). */
export interface PageEvents {
  on(event: 'did-start-navigation', listener: (details: { isMainFrame: boolean; isSameDocument: boolean }) => void): unknown;
  on(event: 'render-process-gone' | 'destroyed', listener: () => void): unknown;
}

/**
 * The signal of the page a window shows now, for the calls it makes (dispatch's signal): aborted
 * once that page goes, as the web host's once its socket closes, so that its export or sweep check
 * under way is abandoned. A page goes when its main frame starts loading another document (a
 * reload: the new page asks again), its renderer process is gone (a crash) or the window closed.
 */
export function pageSignals(contents: PageEvents): () => AbortSignal {
  let page = new AbortController();
  const gone = () => {
    page.abort(new Error('the page that asked has gone'));
    page = new AbortController();
  };
  contents.on('did-start-navigation', (details) => {
    if (details.isMainFrame && !details.isSameDocument) gone();
  });
  contents.on('render-process-gone', gone);
  contents.on('destroyed', gone);
  return () => page.signal;
}
