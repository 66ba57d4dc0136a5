/**
 * The calls under way of one client (the page the app's window shows, or one web host socket) that
 * its renderer may abort, by the callId it gave each (PackbenchApi.call). Both transports run their
 * calls through `run` and their abort messages through `abort`, so that an abort means the same on both.
 */
import { ApiError, cancelled, parseCallId } from './api';

export class ClientCalls {
  private readonly underWay = new Map<number, { method: string; controller: AbortController }>();

  /** `signal`: the client's own, aborted once it has gone (every call of it ends then). */
  constructor(readonly signal: AbortSignal) {}

  /**
   * Runs one call with the signal its handler gets: the client's, and its own when it has a callId
   * (validated: a malformed one, or the id of a call still under way, refuses the call as 'invalid').
   */
  async run<T>(callId: unknown, method: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (callId === undefined) return call(this.signal);
    const id = parseCallId(callId);
    if (this.underWay.has(id)) throw new ApiError('invalid', `callId: ${id} is the id of a call still under way`, [{ path: 'callId', message: `${id} is the id of a call still under way` }]);
    const controller = new AbortController();
    this.underWay.set(id, { method, controller });
    try {
      return await call(AbortSignal.any([this.signal, controller.signal]));
    } finally {
      this.underWay.delete(id);
    }
  }

  /**
   * Aborts the call given `callId` as cancelled by its renderer (its signal's reason is the
   * 'cancelled' error it rejects with). An id of no call under way (it has just finished, or never
   * was) is ignored: the renderer's abort and the call's answer may cross. A malformed id throws
   * ApiError('invalid').
   */
  abort(callId: unknown): void {
    const call = this.underWay.get(parseCallId(callId));
    call?.controller.abort(cancelled(call.method));
  }
}
