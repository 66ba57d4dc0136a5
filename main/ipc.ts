/**
 * The IPC contract between main/index.ts and main/preload.ts: channel names and the envelope a
 * call returns (Electron keeps only the message of a thrown Error, so errors travel as data).
 */
import type { ApiErrorData } from './api';

export const CALL_CHANNEL = 'packbench:call';
export const EVENT_CHANNEL = 'packbench:event';

export type CallEnvelope = { ok: true; result: unknown } | { ok: false; error: ApiErrorData };
