/**
 * A data folder the host can only read, from a real Chromium: the shell's banner names the folder
 * read-only and why, what would write is disabled, a format the run lacks the data for cannot be
 * chosen, and a failed export (its particle table cut short) is a message at the export control,
 * not a page that replaces the app. Screenshots in
 * test/e2e/artifacts/readonly-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { truncateSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openServices, type Services } from '../../main/services/services';
import { makeReadOnly } from '../main/faults';
import { fixtureServices, tempDir } from '../main/helpers';
import { fixtureRegistry } from '../main/fixtures/registry';
import { ARTIFACTS, CHROMIUM, openBrowserSession, type BrowserSession } from './chromium';

let services: Services | undefined;
let session: BrowserSession | undefined;
let page: Page;
let restore: (() => void) | null = null;
let cleanup: () => void = () => {};
let runId = '';

beforeAll(async () => {
  if (!CHROMIUM) return;
  const t = tempDir('packbench-e2e-ro-');
  cleanup = t.cleanup;
  // A folder with one finished run (no label volume, its particle table cut short), then made read-only.
  const writable = fixtureServices(t.dir, { autoStart: true });
  [runId] = (await writable.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'kept run', seed: 1, params: { steps: 3, stepMs: 0 } } })).runIds;
  await writable.queue.waitFor([runId]);
  truncateSync(writable.store.artifacts(runId).find((a) => a.kind === 'table')!.path, 40);
  await writable.close();
  restore = makeReadOnly(t.dir);
  if (!restore) return;
  services = openServices({ dataDir: t.dir, registry: fixtureRegistry(), autoStart: true });
  session = await openBrowserSession(services);
  page = session.page;
});

afterAll(async () => {
  await session?.close();
  await services?.close();
  restore?.();
  cleanup();
});

describe.skipIf(!CHROMIUM)('a read-only data folder in the browser', () => {
  it('shows a banner with the reason and disables what writes; a failed export is a message at the export control', async (ctx) => {
    if (!session || !services) return ctx.skip(); // the folder could not be made read-only here
    expect(services.readOnlyBecause).toBeTruthy();
    await page.goto(`${session.host.url}#/history`);
    const banner = page.locator('[data-testid="readonly-banner"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain(services.readOnlyBecause!);
    await page.locator(`[data-testid="history-row-${runId}"]`).click();
    expect(await page.locator('[data-testid="history-delete"]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid="history-import-spheres"]').isDisabled()).toBe(true);

    const vti = page.locator('[data-testid="history-export-format"] option[value="vti"]');
    await expect.poll(() => vti.isDisabled()).toBe(true);
    await page.locator('[data-testid="history-export-format"]').selectOption('csv');
    await page.locator('[data-testid="history-export"]').click();
    const error = page.locator('[data-testid="history-export-error"]');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/kept run.*truncated/);
    expect(page.url()).toContain('#/history'); // the app is still there
    await page.screenshot({ path: join(ARTIFACTS, 'readonly-history-export-error.png') });

    await page.locator('[data-testid="nav-batch"]').click();
    const enqueue = page.locator('[data-testid="enqueue"]');
    await enqueue.waitFor();
    expect(await enqueue.isDisabled()).toBe(true);
    expect(await page.locator('[data-testid="enqueue-reason"]').textContent()).toContain('The data folder is read-only');
    await page.screenshot({ path: join(ARTIFACTS, 'readonly-batch.png') });
  });
});
