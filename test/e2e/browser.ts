/**
 * Which Chromium the e2e suites drive, found without Playwright so that the vitest config, its
 * globalSetup and the suites agree: PACKBENCH_CHROMIUM when set (then only that one), else the first
 * of chromium, chromium-browser, google-chrome on PATH. Without one the e2e suites are skipped with a
 * notice, unless PACKBENCH_E2E=required (CI), where a missing browser fails the run.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome'] as const;

type Env = Record<string, string | undefined>;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface BrowserLookup {
  /** Absolute path of the browser, or null when none was found. */
  path: string | null;
  /** Where it looked, for the notice. */
  looked: string;
}

export function findChromium(env: Env = process.env): BrowserLookup {
  const chosen = env.PACKBENCH_CHROMIUM;
  if (chosen) {
    const ok = executable(chosen);
    return { path: ok ? chosen : null, looked: `PACKBENCH_CHROMIUM=${chosen}${ok ? '' : ', which is not an executable file'}` };
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of BROWSER_NAMES) {
    for (const dir of dirs) {
      const p = join(dir, name);
      if (executable(p)) return { path: p, looked: `${name} on PATH` };
    }
  }
  return { path: null, looked: `${BROWSER_NAMES.join(', ')} on PATH (PACKBENCH_CHROMIUM is not set)` };
}

export function e2eRequired(env: Env = process.env): boolean {
  return env.PACKBENCH_E2E === 'required';
}

/** The line printed when the e2e suites are skipped, or the error when they are required. */
export function missingBrowserMessage(lookup: BrowserLookup, required: boolean): string {
  return required
    ? `PACKBENCH_E2E=required but no Chromium was found (looked for ${lookup.looked}): install chromium or set PACKBENCH_CHROMIUM to its path`
    : `NOTICE: the e2e suites (test/e2e) are SKIPPED: no Chromium found (looked for ${lookup.looked}). Install chromium or set PACKBENCH_CHROMIUM; PACKBENCH_E2E=required makes this an error.`;
}
