/**
 * The Electron main process: lifecycle, the window, IPC. No business logic lives here: the
 * services (main/services) are the same ones the CLI and the web host use.
 *
 * Security: context isolation, sandbox, no Node in the renderer; the renderer is served from the
 * app:// scheme with a strict CSP; navigation, new windows, webviews and permissions (except
 * notifications) are refused; devtools only in unpackaged runs; IPC is answered only for this
 * window's main frame, and every payload is validated against main/api.ts by the services' dispatch.
 */
import { app, BrowserWindow, dialog, ipcMain, net, protocol, session, type IpcMainInvokeEvent, type SaveDialogOptions } from 'electron';
import { existsSync } from 'node:fs';
import { join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ApiError, isMethodName, unknownMethod } from './api';
import { ABORT_CHANNEL, CALL_CHANNEL, EVENT_CHANNEL, pageSignals, type CallEnvelope } from './ipc';
import { ClientCalls } from './calls';
import { contentSecurityPolicy } from './security';
import { openServicesWhenFree, type Services } from './services/services';
import { askBeforeUnload, closeAfterWindows } from './unload';
import { waitingPageUrl } from './waiting';

const here = fileURLToPath(new URL('.', import.meta.url)); // out/main/
const rendererRoot = resolve(here, '../renderer');
const devUrl = process.env.ELECTRON_RENDERER_URL; // set by `electron-vite dev`
const APP_ORIGIN = 'app://packbench';

protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

/** --data DIR on the command line overrides Electron's userData folder. */
function dataDirFromArgs(): string {
  const i = process.argv.indexOf('--data');
  return i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]) : app.getPath('userData');
}

/** better-sqlite3 built for Electron's ABI by scripts/electron-native.mjs (unpackaged runs only). */
function nativeBinding(): string | undefined {
  if (app.isPackaged) return undefined; // the package's node_modules has the Electron build (afterPack)
  const file = join(app.getAppPath(), '.electron-native', `${process.platform}-${process.arch}`, 'better_sqlite3.node');
  if (!existsSync(file)) throw new Error(`missing ${file}: start the app with \`npm start\` (it runs scripts/electron-native.mjs)`);
  return file;
}

let services: Services | undefined;
let window: BrowserWindow | undefined;
/** The signal of the page the window shows (aborted when it reloads, crashes or closes). */
let pageSignal: (() => AbortSignal) | undefined;

/** runs.saveExport's question: where to write the file (the user's Downloads folder suggested). */
async function chooseSavePath(suggestedName: string): Promise<string | null> {
  const options: SaveDialogOptions = { defaultPath: join(app.getPath('downloads'), suggestedName) };
  const r = window && !window.isDestroyed() ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
  return r.canceled || !r.filePath ? null : r.filePath;
}

function serveRenderer(): void {
  const csp = contentSecurityPolicy();
  protocol.handle('app', async (request) => {
    const url = new URL(request.url);
    const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
    const file = normalize(join(rendererRoot, rel));
    if (url.host !== 'packbench' || !file.startsWith(rendererRoot + sep)) return new Response('not found', { status: 404 });
    const res = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(res.headers);
    headers.set('content-security-policy', csp);
    headers.set('x-content-type-options', 'nosniff');
    return new Response(res.body, { status: res.status, headers });
  });
  if (devUrl) {
    // The dev server's pages get the policy too, plus its HMR socket.
    const devCsp = contentSecurityPolicy([new URL(devUrl).origin.replace(/^http/, 'ws')]);
    session.defaultSession.webRequest.onHeadersReceived((details, done) =>
      done({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [devCsp] } }),
    );
  }
}

function isOwnFrame(e: IpcMainInvokeEvent): boolean {
  const url = e.senderFrame?.url ?? '';
  const origin = devUrl ? new URL(devUrl).origin : APP_ORIGIN;
  return !!window && e.sender === window.webContents && e.senderFrame === window.webContents.mainFrame && url.startsWith(origin + '/');
}

/** The calls under way of the page the window shows now (a new page, a new set: its callIds start again). */
let calls: ClientCalls | null = null;
function pageCalls(): ClientCalls {
  const signal = pageSignal?.() ?? new AbortController().signal;
  if (calls?.signal !== signal) calls = new ClientCalls(signal);
  return calls;
}

function registerIpc(s: Services): void {
  const answer = async (e: IpcMainInvokeEvent, work: () => unknown): Promise<CallEnvelope> => {
    try {
      if (!isOwnFrame(e)) throw new ApiError('unauthorized', 'IPC from an unknown frame');
      return { ok: true, result: await work() };
    } catch (err) {
      const apiErr = err instanceof ApiError ? err : new ApiError('internal', err instanceof Error ? err.message : String(err));
      return { ok: false, error: apiErr.toData() };
    }
  };
  ipcMain.handle(CALL_CHANNEL, (e, method: unknown, params: unknown, callId: unknown) =>
    answer(e, () => {
      if (!isMethodName(method)) throw unknownMethod(method);
      return pageCalls().run(callId, method, (signal) => s.dispatch(method, params, signal));
    }),
  );
  ipcMain.handle(ABORT_CHANNEL, (e, callId: unknown) => answer(e, () => (pageCalls().abort(callId), {})));
  s.events.onAny((event, payload) => {
    if (window && !window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event, payload);
  });
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: 'PackBench',
    show: false,
    webPreferences: {
      preload: join(here, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      // The default menu's Toggle Developer Tools (Ctrl+Shift+I) would give a console on
      // window.packbench: for `npm start` and `npm run dev` only, not in an installed app.
      devTools: !app.isPackaged,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  const allowed = devUrl ? new URL(devUrl).origin : APP_ORIGIN;
  win.webContents.on('will-navigate', (e, url) => {
    if (new URL(url).origin !== allowed) e.preventDefault();
  });
  win.webContents.on('will-redirect', (e, url) => {
    if (new URL(url).origin !== allowed) e.preventDefault();
  });
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-attach-webview', (e) => e.preventDefault());
  askBeforeUnload(win.webContents, (question) => dialog.showMessageBoxSync(win, question));
  pageSignal = pageSignals(win.webContents);
  void win.loadURL(devUrl ?? `${APP_ORIGIN}/index.html`);
  return win;
}

/** A small window saying the app waits for its data folder (main/waiting.ts: no script); closing it quits. */
function waitingWindow(message: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 560,
    height: 220,
    resizable: false,
    title: 'PackBench',
    webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false },
  });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  void win.loadURL(waitingPageUrl(message));
  return win;
}

app.enableSandbox();
// One app per user: a second start focuses the first window (two would share one queue and database).
const primary = app.requestSingleInstanceLock();
if (!primary) app.quit();

app.on('second-instance', () => {
  if (window?.isMinimized()) window.restore();
  window?.focus();
});

app.whenReady().then(async () => {
  if (!primary) return;
  // Requests and checks alike: Electron grants every permission check (navigator.permissions.query,
  // media device labels, HID, serial, USB) to a session without a check handler.
  session.defaultSession.setPermissionRequestHandler((_wc, permission, grant) => grant(permission === 'notifications'));
  session.defaultSession.setPermissionCheckHandler((_wc, permission) => permission === 'notifications');
  serveRenderer();
  // Services boot before the window and shut down after it. A data folder another process keeps
  // locked is waited for without freezing this process; one that cannot be opened is said, then quit.
  let waiting: BrowserWindow | undefined;
  try {
    services = await openServicesWhenFree({ dataDir: dataDirFromArgs(), autoStart: true, electron: true, chooseSavePath, nativeBinding: nativeBinding() }, (message) => {
      console.warn(message);
      waiting = waitingWindow(message);
    });
  } catch (err) {
    dialog.showErrorBox('PackBench cannot open its data folder', err instanceof Error ? err.message : String(err));
    app.quit();
    return;
  }
  if (services.readOnlyBecause) console.warn(`PackBench: the data folder cannot be written (${services.readOnlyBecause}): runs can be browsed, not added`);
  registerIpc(services);
  window = createWindow();
  waiting?.destroy(); // after the window is made: with no window left, the app would quit
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) window = createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Running runs go back to the queue before the process ends (nothing queued is lost).
closeAfterWindows(app, async () => services?.close());
