/**
 * A data folder the host can only read, from a real Chromium: the shell's banner names the folder
 * read-only and why, what would write is disabled, a format the run lacks the data for cannot be
 * chosen, and a failed export (its particle table cut short) is a message at the export control,
 * not a page that replaces the app. Screenshots in
 * test/e2e/artifacts/readonly-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openServices, type Services } from '../../main/services/services';
import { makeReadOnly, smallDisk } from '../main/faults';
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

describe.skipIf(!CHROMIUM)('a data folder on a full disk in the browser', () => {
  it("History's delete frees the space: the files first, then the records once there is room, said under the toolbar", async (ctx) => {
    const disk = smallDisk(4096);
    if (!disk) return ctx.skip(); // no tmpfs here (not root)
    let full: Services | undefined, browser: BrowserSession | undefined;
    try {
      const writable = fixtureServices(disk.dir);
      const runWith = (name: string, bytes: number) => {
        const [id] = writable.store.insertRuns([{ name, engine: 'counter', spec: { engine: 'counter', name, seed: 1, params: {} }, params: {}, seed: 1, priority: 0, batchId: null }]);
        writable.store.finishRun(id, { status: 'done', metrics: { steps: 3 } });
        mkdirSync(writable.queue.runDir(id), { recursive: true });
        writeFileSync(join(writable.queue.runDir(id), 'labels.raw'), Buffer.alloc(bytes, 1));
        return id;
      };
      const small = runWith('small run', 1), big = runWith('big run', 2 << 20), kept = runWith('kept run', 1);
      await writable.close();
      try {
        writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(8 << 20, 1));
      } catch {
        // the disk is full now: what this test wants
      }
      full = fixtureServices(disk.dir, { autoStart: true });
      expect(full.readOnlyBecause).toMatch(/full/);
      browser = await openBrowserSession(full, { viewport: { width: 1024, height: 720 } });
      const p = browser.page;
      await p.goto(`${browser.host.url}#/history`);
      const banner = p.locator('[data-testid="readonly-banner"]');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('deleted in History to free space');
      const remove = async (id: string) => {
        await p.locator(`[data-testid="history-row-${id}"]`).click();
        const button = p.locator('[data-testid="history-delete"]');
        expect(await button.isDisabled()).toBe(false);
        await button.click();
        await p.locator('[data-testid="history-delete-confirm"]').click();
        const note = p.locator('[data-testid="history-delete-note"]');
        await note.waitFor();
        return note.textContent();
      };
      // One byte frees too little: listed without its files until there is room.
      expect(await remove(small)).toContain('that was not enough room: it stays listed, without files');
      await p.locator(`[data-testid="history-row-${small}"]`).waitFor();
      await p.screenshot({ path: join(ARTIFACTS, 'fulldisk-history-left-1024.png') });
      // Its 2 MiB make room: both records go, and the list shows what is left.
      expect(await remove(big)).toContain('which made room, and the run is gone');
      await p.locator(`[data-testid="history-row-${small}"]`).waitFor({ state: 'detached' });
      expect(await p.locator(`[data-testid="history-row-${big}"]`).count()).toBe(0);
      expect(await p.locator(`[data-testid="history-row-${kept}"]`).count()).toBe(1);
      await p.screenshot({ path: join(ARTIFACTS, 'fulldisk-history-removed-1024.png') });
      await p.setViewportSize({ width: 1920, height: 900 });
      await p.screenshot({ path: join(ARTIFACTS, 'fulldisk-history-removed-1920.png') });
    } finally {
      await browser?.close();
      await full?.close();
      disk.cleanup();
    }
  });
});
