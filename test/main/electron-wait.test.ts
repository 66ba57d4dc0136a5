/**
 * The Electron main process (main/index.ts) while another process keeps the data folder's database
 * locked, with Electron replaced by a recording stand-in (the binary cannot run here): a small window
 * says that it waits, and goes once the app's window is made.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

const electron = vi.hoisted(() => {
  const log: string[] = [];
  const windows: BrowserWindow[] = [];
  class BrowserWindow {
    url = '';
    destroyed = false;
    readonly webContents = { on: () => {}, setWindowOpenHandler: () => {}, send: () => {}, mainFrame: {} };
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      windows.push(this);
      log.push(`window ${windows.length}`);
    }
    static getAllWindows = () => windows.filter((w) => !w.destroyed);
    loadURL = async (url: string) => void (this.url = url);
    once() {}
    on() {}
    isDestroyed = () => this.destroyed;
    destroy() {
      this.destroyed = true;
      log.push(`window ${windows.indexOf(this) + 1} destroyed`);
    }
  }
  const noop = () => {};
  const module = {
    app: { isPackaged: true, enableSandbox: noop, requestSingleInstanceLock: () => true, whenReady: () => Promise.resolve(), getPath: () => '/nonexistent/userData', quit: noop, on: noop },
    BrowserWindow,
    dialog: { showErrorBox: noop },
    ipcMain: { handle: noop },
    net: {},
    protocol: { registerSchemesAsPrivileged: noop, handle: noop },
    session: { defaultSession: { setPermissionRequestHandler: noop, setPermissionCheckHandler: noop, webRequest: { onHeadersReceived: noop } } },
  };
  return { log, windows, module };
});

const LOCKED = 'PackBench: the database of /data/lab is locked by another process; waiting up to 60 s for it';

vi.mock('electron', () => ({ ...electron.module, default: electron.module }));
vi.mock('../../main/services/services', () => ({
  openServicesWhenFree: async (_o: unknown, onWait: (message: string) => void) => {
    onWait(LOCKED);
    await new Promise((r) => setTimeout(r, 50)); // the other process lets go
    electron.log.push('services open');
    return { readOnlyBecause: null, events: { onAny: () => () => {} }, close: async () => {} };
  },
}));

beforeAll(async () => {
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  await import('../../main/index');
  for (let i = 0; i < 100 && electron.windows.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
});

describe('the app waiting for a locked data folder', () => {
  it('shows a window saying so while it waits (it showed nothing), and closes it once its own window is made', () => {
    const [waiting, main] = electron.windows;
    expect(decodeURIComponent(waiting.url)).toContain('The database of /data/lab is locked by another process; waiting up to 60 s for it.');
    expect(waiting.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false });
    expect(main.url).toBe('app://packbench/index.html');
    // Destroyed after the app's window exists: with no window left, the app would quit.
    expect(electron.log).toEqual(['window 1', 'services open', 'window 2', 'window 1 destroyed']);
  });
});
