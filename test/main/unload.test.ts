/**
 * Leaving the Electron app (main/unload.ts), with Electron's webContents, dialog and app replaced by
 * fakes (the binary cannot run here): a page that refuses to unload is asked about, and the services
 * close only once every window has gone.
 */
import { describe, expect, it, vi } from 'vitest';
import { askBeforeUnload, closeAfterWindows, LEAVE_OR_STAY, type UnloadQuestion } from '../../main/unload';

type Listener = (event: { preventDefault(): void }) => void;

/** One event's listeners, and an emit that says whether one called preventDefault (as Electron reads it). */
function emitter() {
  const listeners = new Map<string, Listener[]>();
  return {
    on(event: string, fn: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
    },
    emit(event: string): boolean {
      let prevented = false;
      for (const fn of listeners.get(event) ?? []) fn({ preventDefault: () => (prevented = true) });
      return prevented;
    },
  };
}

describe("a page's refusal to unload in Electron", () => {
  it('asks Leave or Stay, Stay by default; Leave lets the page go, Stay keeps it', () => {
    const contents = emitter();
    const asked: UnloadQuestion[] = [];
    let answer = 0;
    askBeforeUnload(contents, (q) => (asked.push(q), answer));
    // Electron: preventDefault on will-prevent-unload ignores the page's beforeunload (the page goes).
    expect(contents.emit('will-prevent-unload')).toBe(true);
    answer = 1;
    expect(contents.emit('will-prevent-unload')).toBe(false);
    expect(asked).toEqual([LEAVE_OR_STAY, LEAVE_OR_STAY]);
    expect(LEAVE_OR_STAY.buttons[LEAVE_OR_STAY.defaultId]).toBe('Stay');
    expect(LEAVE_OR_STAY.buttons[LEAVE_OR_STAY.cancelId]).toBe('Stay');
  });

  it('keeps the page when the question cannot be shown, and says so', () => {
    const contents = emitter();
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    askBeforeUnload(contents, () => {
      throw new Error('no display');
    });
    expect(contents.emit('will-prevent-unload')).toBe(false);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('no display'));
    error.mockRestore();
  });
});

describe('quitting the Electron app', () => {
  it('closes the services once the windows have gone (will-quit), then quits; once', async () => {
    const app = Object.assign(emitter(), { quit: vi.fn() });
    let closing: () => void = () => {};
    const close = vi.fn(() => new Promise<void>((r) => (closing = r)));
    closeAfterWindows(app, close);
    expect(app.emit('before-quit')).toBe(false); // a window may still keep the app (Stay): nothing closes yet
    expect(close).not.toHaveBeenCalled();
    expect(app.emit('will-quit')).toBe(true); // held until the services have closed
    expect(close).toHaveBeenCalledTimes(1);
    expect(app.quit).not.toHaveBeenCalled();
    closing();
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalledTimes(1));
    expect(app.emit('will-quit')).toBe(false); // the quit asked for then goes through
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('quits even when closing the services fails, saying why', async () => {
    const app = Object.assign(emitter(), { quit: vi.fn() });
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    closeAfterWindows(app, () => Promise.reject(new Error('disk I/O error')));
    app.emit('will-quit');
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalledTimes(1));
    expect(error).toHaveBeenCalledWith(expect.stringContaining('disk I/O error'));
    error.mockRestore();
  });
});
