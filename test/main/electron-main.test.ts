/**
 * The Electron main process's security rules (main/index.ts), with Electron replaced by a recording
 * stand-in (the binary cannot run here): the window's web preferences, navigation and new-window
 * guards, permissions, IPC from other frames, and the app:// protocol's paths and CSP.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { contentSecurityPolicy } from '../../main/security';

type Listener = (...args: unknown[]) => unknown;

const electron = vi.hoisted(() => {
  class Emitter {
    readonly listeners = new Map<string, Listener[]>();
    on(event: string, fn: Listener) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
      return this;
    }
    once(event: string, fn: Listener) {
      return this.on(event, fn);
    }
    emit(event: string, ...args: unknown[]) {
      for (const fn of this.listeners.get(event) ?? []) fn(...args);
    }
    /** Calls the listeners of `event` as Electron would; true when one called preventDefault. */
    emitPreventable(event: string, ...args: unknown[]): boolean {
      let prevented = false;
      for (const fn of this.listeners.get(event) ?? []) fn({ preventDefault: () => (prevented = true) }, ...args);
      return prevented;
    }
  }
  class WebContents extends Emitter {
    readonly mainFrame = { url: 'app://packbench/index.html' };
    windowOpenHandler: Listener | undefined;
    setWindowOpenHandler(fn: Listener) {
      this.windowOpenHandler = fn;
    }
    send() {}
  }
  const windows: BrowserWindow[] = [];
  class BrowserWindow extends Emitter {
    readonly webContents = new WebContents();
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      super();
      windows.push(this);
    }
    static getAllWindows = () => windows;
    loadURL = async () => {};
    isDestroyed = () => false;
    isMinimized = () => false;
    show() {}
  }
  const handlers = {
    permissionRequest: undefined as undefined | ((wc: unknown, permission: string, grant: (ok: boolean) => void) => void),
    permissionCheck: undefined as undefined | ((wc: unknown, permission: string) => boolean),
    ipc: new Map<string, Listener>(),
    protocols: new Map<string, (request: { url: string }) => Promise<Response>>(),
    /** The questions the dialog was asked, and the button the user presses. */
    questions: [] as { buttons: string[] }[],
    answer: 'Stay',
    servicesClosed: 0,
  };
  return {
    handlers,
    windows,
    module: {
      app: Object.assign(new Emitter(), {
        isPackaged: true,
        enableSandbox: () => {},
        requestSingleInstanceLock: () => true,
        whenReady: () => Promise.resolve(),
        getPath: () => '/nonexistent/userData',
        quit: () => {},
      }),
      BrowserWindow,
      dialog: { showErrorBox: () => {}, showSaveDialog: async () => ({ canceled: true }), showMessageBoxSync: (_w: unknown, o: { buttons: string[] }) => (handlers.questions.push(o), o.buttons.indexOf(handlers.answer)) },
      ipcMain: { handle: (channel: string, fn: Listener) => handlers.ipc.set(channel, fn) },
      net: { fetch: async () => new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }) },
      protocol: { registerSchemesAsPrivileged: () => {}, handle: (scheme: string, fn: (request: { url: string }) => Promise<Response>) => handlers.protocols.set(scheme, fn) },
      session: {
        defaultSession: {
          setPermissionRequestHandler: (fn: typeof handlers.permissionRequest) => (handlers.permissionRequest = fn),
          setPermissionCheckHandler: (fn: typeof handlers.permissionCheck) => (handlers.permissionCheck = fn),
          webRequest: { onHeadersReceived: () => {} },
        },
      },
    },
  };
});

const dispatched = vi.hoisted(() => [] as { method: string; params: unknown; signal?: AbortSignal }[]);

vi.mock('electron', () => ({ ...electron.module, default: electron.module }));
vi.mock('../../main/services/services', () => ({
  openServicesWhenFree: async () => ({
    readOnlyBecause: null,
    events: { onAny: () => () => {} },
    dispatch: async (method: string, params: unknown, signal?: AbortSignal) => {
      dispatched.push({ method, params, signal });
      // A long call (an import in its worker) ends once its signal is aborted, with its reason, as the services' dispatch does.
      if (method === 'runs.importSpheres') await new Promise((_ok, fail) => signal!.addEventListener('abort', () => fail(signal!.reason)));
      return { ok: method };
    },
    close: async () => void electron.handlers.servicesClosed++,
  }),
}));

const win = () => electron.windows[0];

beforeAll(async () => {
  delete process.env.ELECTRON_RENDERER_URL;
  await import('../../main/index');
  for (let i = 0; i < 100 && !win(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(win()).toBeDefined();
});

describe('Electron main process security', () => {
  it('opens its window context-isolated and sandboxed, without Node, web security on, no webviews', () => {
    expect(win().options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
  });

  it('opens no devtools in a packaged app (its default menu offered them: Ctrl+Shift+I, a console on window.packbench)', () => {
    expect(win().options.webPreferences.devTools).toBe(false);
  });

  it('keeps the window on its own origin: other navigations, redirects, new windows and webviews are refused', () => {
    const wc = win().webContents;
    expect(wc.emitPreventable('will-navigate', 'https://evil.example/')).toBe(true);
    expect(wc.emitPreventable('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(wc.emitPreventable('will-redirect', 'https://evil.example/')).toBe(true);
    expect(wc.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(wc.emitPreventable('will-attach-webview', {}, {})).toBe(true);
  });

  it('grants notifications and nothing else, to permission requests and to permission checks', () => {
    const request = (permission: string) => {
      let granted: boolean | undefined;
      electron.handlers.permissionRequest!(win().webContents, permission, (ok) => (granted = ok));
      return granted;
    };
    expect(request('notifications')).toBe(true);
    for (const p of ['media', 'geolocation', 'clipboard-read', 'openExternal']) expect(request(p)).toBe(false);
    // Electron grants every permission check (navigator.permissions.query, device lists, HID,
    // serial, USB) unless the session has a check handler.
    const check = electron.handlers.permissionCheck;
    expect(check, 'a permission check handler').toBeDefined();
    expect(check!(win().webContents, 'notifications')).toBe(true);
    for (const p of ['media', 'hid', 'serial', 'usb', 'clipboard-read', 'geolocation', 'fileSystem']) expect(check!(win().webContents, p)).toBe(false);
  });

  it('answers IPC only from its window\'s main frame, and only for API methods', async () => {
    const call = electron.handlers.ipc.get('packbench:call')!;
    const wc = win().webContents;
    const own = { sender: wc, senderFrame: wc.mainFrame };
    expect(await call(own, 'app.info', {})).toEqual({ ok: true, result: { ok: 'app.info' } });
    expect(await call({ sender: wc, senderFrame: { url: 'app://packbench/index.html' } }, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(await call({ sender: {}, senderFrame: wc.mainFrame }, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    for (const method of ['__proto__', 'constructor', 'toString', 42]) {
      expect(await call(own, method, {})).toMatchObject({ ok: false, error: { code: 'not_found' } });
    }
    expect(dispatched.map((d) => d.method)).toEqual(['app.info']);
  });

  it("abandons the calls of a page that has gone: a reload, a crashed renderer or a closed window aborts their signal", async () => {
    // Before, IPC calls got no signal: a reloaded or closed window's export or sweep check ran to its end.
    const call = electron.handlers.ipc.get('packbench:call')!;
    const wc = win().webContents;
    const signalOfACall = async () => {
      await call({ sender: wc, senderFrame: wc.mainFrame }, 'app.info', {});
      return dispatched.at(-1)!.signal!;
    };
    const first = await signalOfACall();
    wc.emit('did-start-navigation', { isMainFrame: false, isSameDocument: false }); // a subframe's
    wc.emit('did-start-navigation', { isMainFrame: true, isSameDocument: true }); // a route of the page (history.pushState)
    expect(first.aborted).toBe(false);
    wc.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false }); // a reload
    expect(first.aborted).toBe(true);
    const second = await signalOfACall();
    expect(second.aborted).toBe(false);
    wc.emit('render-process-gone', {}, { reason: 'crashed' });
    expect(second.aborted).toBe(true);
    const third = await signalOfACall();
    wc.emit('destroyed');
    expect(third.aborted).toBe(true);
  });

  it('aborts one call of the page when its renderer says so (its callId), and refuses a malformed callId as invalid', async () => {
    // Before, a call could not be aborted: History's Cancel closed its panel and the import went on.
    const call = electron.handlers.ipc.get('packbench:call')!;
    const abort = electron.handlers.ipc.get('packbench:abort')!;
    const wc = win().webContents;
    const own = { sender: wc, senderFrame: wc.mainFrame };
    const importing = call(own, 'runs.importSpheres', { name: 'big' }, 4);
    await vi.waitFor(() => expect(dispatched.at(-1)?.method).toBe('runs.importSpheres'));
    const { signal } = dispatched.at(-1)!;
    expect(await abort(own, 5)).toEqual({ ok: true, result: {} }); // no call under way has it: ignored
    expect(signal!.aborted).toBe(false);
    expect(await abort({ sender: {}, senderFrame: wc.mainFrame }, 4)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(signal!.aborted).toBe(false);
    expect(await abort(own, 4)).toEqual({ ok: true, result: {} });
    expect(await importing).toEqual({ ok: false, error: { code: 'cancelled', message: 'runs.importSpheres was cancelled' } });
    expect(await call(own, 'app.info', {}, 4)).toEqual({ ok: true, result: { ok: 'app.info' } }); // its id is free again
    for (const bad of [0, -1, 1.5, '4', null, {}, [4], NaN, 2 ** 60]) {
      expect(await abort(own, bad)).toMatchObject({ ok: false, error: { code: 'invalid', issues: [{ path: 'callId' }] } });
      expect(await call(own, 'app.info', {}, bad)).toMatchObject({ ok: false, error: { code: 'invalid', issues: [{ path: 'callId' }] } });
    }
    expect(await abort(own)).toMatchObject({ ok: false, error: { code: 'invalid', issues: [{ path: 'callId' }] } });
  });

  it("asks Leave or Stay when the page refuses to unload (unsaved shape edits), and closes the services only once the windows have gone", async () => {
    // Before, a page's refusal kept the window open without a word, and a quit closed the services
    // before the window was asked to close.
    const wc = win().webContents;
    electron.handlers.answer = 'Stay';
    expect(wc.emitPreventable('will-prevent-unload')).toBe(false);
    electron.handlers.answer = 'Leave';
    expect(wc.emitPreventable('will-prevent-unload')).toBe(true);
    expect(electron.handlers.questions).toHaveLength(2);
    const app = electron.module.app;
    app.emitPreventable('before-quit');
    expect(electron.handlers.servicesClosed).toBe(0);
    expect(app.emitPreventable('will-quit')).toBe(true);
    await vi.waitFor(() => expect(electron.handlers.servicesClosed).toBe(1));
  });

  it('serves app:// only from the renderer folder, each page with the CSP', async () => {
    const serve = electron.handlers.protocols.get('app')!;
    const page = await serve({ url: 'app://packbench/index.html' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    for (const url of ['app://packbench/..%2f..%2f..%2fetc/passwd', 'app://packbench/%2e%2e%2f%2e%2e%2fpackage.json', 'app://other/index.html']) {
      expect((await serve({ url })).status, url).toBe(404);
    }
  });
});
