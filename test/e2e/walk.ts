/**
 * A user's day in Chromium against the web host (issue 4), in two files that run side by side on the
 * two cores: workspaces-sweep.test.ts (a shape, a voxel sweep, its runs in the inspector and History,
 * then 100,000 runs) and workspaces-engines.test.ts (an imported packing, the ball mill, themes, an
 * implicit shape, stacking). As one file it took 84-127 s alone on one core at the end of the suite.
 * Each file walks in its own data folder, host and browser (openWalk), its tests one after the other.
 */
import type { Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '../../main/host/server';
import { openServices, type Services } from '../../main/services/services';
import { ARTIFACTS } from './chromium';
import { openFolderSession } from './session';

export interface Walk {
  /** The services' data folder; the tests write the files they import there too. */
  dataDir: string;
  services: Services;
  host: Host;
  /** On the batch workspace at first. */
  page: Page;
  /** Errors thrown in the page so far, and what its Content-Security-Policy refused: the tests expect none. */
  pageErrors: string[];
  /** Saves a screenshot of the page as test/e2e/artifacts/workspace-<name>.png. */
  shot(name: string): Promise<unknown>;
  /** Waits in the services for `n` runs named like `name` to reach a final status; says which did not. */
  waitForRuns(name: string, n: number, timeoutMs: number): Promise<void>;
  /** Closes the browser, the host and the services, and removes the data folder. */
  close(): Promise<void>;
}

export const testid = (id: string) => `[data-testid="${id}"]`;

export async function openWalk(): Promise<Walk> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const session = await openFolderSession('packbench-walk-', (dataDir) => openServices({ dataDir, autoStart: true, concurrency: 2, progressIntervalMs: 100 }), { viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
  const { dataDir, services, host, page } = session;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // A refusal of the policy (an eval, a worker, a socket, a style) is an error too, even one the page
  // catches: Chromium prints no console line for those, so the page reports them itself.
  await page.exposeFunction('packbenchCspViolation', (violation: string) => pageErrors.push(`CSP refused ${violation}`));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { packbenchCspViolation: (violation: string) => void }).packbenchCspViolation;
      void report(`${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`);
    }),
  );
  page.setDefaultTimeout(30_000);
  await page.goto(host.url);
  await page.waitForSelector(testid('batch-workspace'));
  return {
    dataDir,
    services,
    host,
    page,
    pageErrors,
    shot: (name) => page.screenshot({ path: join(ARTIFACTS, `workspace-${name}.png`) }),
    async waitForRuns(name, n, timeoutMs) {
      const t0 = Date.now();
      for (;;) {
        const rows = services.store.listRuns({ offset: 0, limit: 100, filter: { text: name } }).rows;
        if (rows.length >= n && rows.every((r) => ['done', 'failed', 'cancelled'].includes(r.status))) {
          const bad = rows.filter((r) => r.status !== 'done');
          if (bad.length) throw new Error(`runs did not finish well: ${JSON.stringify(bad.map((r) => [r.name, r.status, r.error]))}`);
          return;
        }
        if (Date.now() - t0 > timeoutMs) {
          throw new Error(`runs still working after ${timeoutMs} ms: ${JSON.stringify(rows.map((r) => [r.name, r.status, r.progress, r.error]))}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    close: () => session.close(),
  };
}
