/**
 * Leaving the app without losing work, Electron's side (Electron-free: main/index.ts hands in its
 * window's webContents, its dialog and its app): the question a page's beforeunload asks for, and
 * the services closed only once every window has gone.
 */

/** The event of a window's webContents by which its page refuses to unload (Electron's WebContents has it). */
export interface UnloadEvents {
  on(event: 'will-prevent-unload', listener: (event: { preventDefault(): void }) => void): unknown;
}

/** What the question box is given (the part of Electron's MessageBoxSyncOptions it uses). */
export interface UnloadQuestion {
  type: 'question';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink: boolean;
}

/** The buttons' indexes: Stay is the default and what Escape answers (nothing is dropped unasked). */
const LEAVE = 0;
const STAY = 1;

export const LEAVE_OR_STAY: UnloadQuestion = {
  type: 'question',
  title: 'PackBench',
  message: 'Leave with changes that are not saved?',
  detail: 'The particle editor has edits of a shape that are not saved. Leave drops them; Stay keeps the window, to save them.',
  buttons: ['Leave', 'Stay'],
  defaultId: STAY,
  cancelId: STAY,
  noLink: true,
};

/**
 * The page refused to unload while its window closes or reloads (its beforeunload handler cancelled:
 * the particle editor holds unsaved shape edits). A browser asks 'Leave site?' itself; Electron asks
 * nothing and keeps the page, so the window did not close, without a word. `ask` shows the question
 * (dialog.showMessageBoxSync: Electron waits for the answer before it goes on) and answers the index
 * of the button pressed. Leave lets the page go (Electron: preventDefault overrides the page's
 * refusal); Stay, or a question that could not be shown, keeps it.
 */
export function askBeforeUnload(contents: UnloadEvents, ask: (question: UnloadQuestion) => number): void {
  contents.on('will-prevent-unload', (event) => {
    let answer = STAY;
    try {
      answer = ask(LEAVE_OR_STAY);
    } catch (err) {
      console.error(`PackBench: could not ask before leaving the page (${err instanceof Error ? err.message : String(err)}): the page stays`);
    }
    if (answer === LEAVE) event.preventDefault();
  });
}

/** The app's events a quit goes through (Electron's app has them). */
export interface QuitEvents {
  on(event: 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

/**
 * Closes the services (`close`: running runs go back to the queue) once every window has closed,
 * then quits. At 'will-quit', which comes once the windows are gone; 'before-quit' comes before they
 * are asked to close, and a window whose page then keeps it open (Stay) kept the app running on
 * closed services.
 */
export function closeAfterWindows(app: QuitEvents, close: () => Promise<void>): void {
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    closed = true;
    event.preventDefault();
    void close()
      .catch((err: unknown) => console.error(`PackBench: closing the services failed: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => app.quit());
  });
}
