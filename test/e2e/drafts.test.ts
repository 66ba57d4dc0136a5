/// <reference lib="dom" />
/**
 * What the user typed survives a reload of the web host's tab: the batch manager's form and the
 * particle editor's mixture are kept as drafts (renderer/src/stores/keptDrafts.ts) and restored by the
 * next page, said so, with a Discard. Before, a reload showed the defaults and the work was gone.
 * A draft that no longer reads, of an engine no longer registered, or of another data folder is not
 * applied: the first two are dropped with a notice. Each tab keeps its own draft (a reload of one shows
 * its own, whatever another typed since); a new tab starts from the last one kept.
 * Screenshots: test/e2e/artifacts/drafts-composer-{1024,1920}.png, drafts-mixture-{1024,1920}.png, drafts-tab-{a,b}-reloaded.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openServices } from '../../main/services/services';
import { draftKey } from '../../renderer/src/stores/keptDrafts';
import { ARTIFACTS, CHROMIUM } from './chromium';
import { openFolderSession, type FolderSession } from './session';

let session: FolderSession;
let page: Page;
const testid = (id: string) => `[data-testid="${id}"]`;
const value = (id: string) => page.inputValue(testid(id));

beforeAll(async () => {
  if (!CHROMIUM) return;
  session = await openFolderSession('packbench-e2e-drafts-', (dataDir) => openServices({ dataDir, autoStart: false }), { viewport: { width: 1024, height: 768 }, colorScheme: 'light' });
  ({ page } = session);
  await page.goto(session.host.url);
  await page.waitForSelector(testid('engine-select'));
});

afterAll(() => session?.close());

/** Screenshots of the page at 1024 and 1920 px wide, named drafts-<name>-<width>.png. */
async function shoot(name: string): Promise<void> {
  for (const width of [1920, 1024]) {
    await page.setViewportSize({ width, height: 768 });
    await page.screenshot({ path: join(ARTIFACTS, `drafts-${name}-${width}.png`) });
  }
}

describe.skipIf(!CHROMIUM)('drafts kept across a reload', () => {
  it('restores the batch form as typed, says it is a draft, and forgets it when discarded', async () => {
    await page.fill(testid('run-name'), 'tuned bed, 20 µm spheres');
    await page.fill(testid('field-box.size.2'), '24');
    await page.fill(testid('run-priority'), ''); // an empty box is kept as it is, not as a default
    // At once: the draft is written when the page goes, not only after a pause in typing.
    await page.reload();
    await page.waitForSelector(testid('composer-restored'));
    expect(await page.textContent(testid('composer-restored'))).toContain('Restored the form you left on');
    expect(await value('run-name')).toBe('tuned bed, 20 µm spheres');
    expect(await value('field-box.size.2')).toBe('24');
    expect(await value('run-priority')).toBe('');
    expect(await page.textContent(testid('enqueue-reason'))).toContain('priority: must be a whole number');
    await page.fill(testid('run-priority'), '0');
    await shoot('composer');

    await page.click(testid('composer-discard-draft'));
    expect(await page.locator(testid('composer-restored')).count()).toBe(0);
    expect(await value('run-name')).toBe('voxel run');
    expect(await value('field-box.size.2')).toBe('10');
    await page.reload();
    await page.waitForSelector(testid('run-name'));
    expect(await page.locator(testid('composer-restored')).count()).toBe(0);
    expect(await value('run-name')).toBe('voxel run');
  });

  it("restores the particle editor's mixture, every row, and forgets it when discarded", async () => {
    await page.goto(`${session.host.url}#/editor`);
    await page.waitForSelector(testid('mixture-type-0'));
    await page.click(testid('mixture-add'));
    await page.click(testid('mixture-add'));
    await page.selectOption(testid('mixture-basis'), 'volume');
    await page.fill(testid('mixture-size-1'), '2.5');
    await page.fill(testid('mixture-fraction-2'), '0.25');
    await page.reload();
    await page.waitForSelector(testid('mixture-restored'));
    expect(await page.locator('[data-testid^="mixture-type-"]').count()).toBe(3);
    expect(await page.inputValue(testid('mixture-basis'))).toBe('volume');
    expect(await value('mixture-size-1')).toBe('2.5');
    expect(await value('mixture-fraction-2')).toBe('0.25');
    await shoot('mixture');

    await page.click(testid('mixture-discard-draft'));
    expect(await page.locator('[data-testid^="mixture-type-"]').count()).toBe(1);
    await page.reload();
    await page.waitForSelector(testid('mixture-type-0'));
    expect(await page.locator(testid('mixture-restored')).count()).toBe(0);
    expect(await page.locator('[data-testid^="mixture-type-"]').count()).toBe(1);
  });

  it("drops a draft that no longer reads or names an engine no longer registered, saying so; another folder's is not applied", async () => {
    const dataDir = (await session.services.dispatch('app.info', {})).dataDir;
    const savedAt = new Date().toISOString();
    // As a restarted app finds a draft an earlier version kept: the last kept, and none of the tab's
    // own. (A reload reads the tab's own first, and the page going copies it over the last kept: with
    // one left in the tab, the draft put here was read or not as that one happened to be kept.)
    const put = (key: string, draft: unknown) => page.evaluate(([k, v]) => { sessionStorage.removeItem(k); localStorage.setItem(k, v); }, [key, JSON.stringify(draft)] as const);
    await page.waitForTimeout(600); // a draft the page was keeping (after a pause in typing) is written before these
    const form = { engine: 'voxel', name: 'of another folder', seed: 1, seedList: '', priority: 0, params: {} };
    await put(draftKey('composer', `${dataDir}-other`), { savedAt, value: form });
    // A mixture from a version whose types held a 'shape' (not a shapeId).
    await put(draftKey('mixture', dataDir), { savedAt, value: { basis: 'number', types: [{ shape: 'sphere', size: { law: 'fixed', value: 1 }, fraction: 1 }] } });
    await page.reload();
    await page.locator(testid('toast')).filter({ hasText: 'The mixture kept as a draft' }).waitFor();
    expect(await page.locator(testid('toast')).filter({ hasText: 'The mixture kept as a draft' }).textContent()).toMatch(/no longer reads \(types\.0.*\) and was dropped/);
    expect(await page.locator('[data-testid^="mixture-type-"]').count()).toBe(1);
    expect(await page.evaluate((k) => localStorage.getItem(k), draftKey('mixture', dataDir))).toBeNull();

    await put(draftKey('composer', dataDir), { savedAt, value: { ...form, engine: 'retired', name: 'of a retired engine' } });
    await page.goto(session.host.url); // a new page (the last one's URL had #/editor), on the batch manager
    await page.locator(testid('toast')).filter({ hasText: "engine 'retired'" }).waitFor();
    expect(await page.locator(testid('composer-restored')).count()).toBe(0);
    expect(await value('run-name')).toBe('voxel run');
    expect(await page.evaluate((k) => localStorage.getItem(k), draftKey('composer', dataDir))).toBeNull();
  });

  it('keeps a draft per tab: typing in one tab does not change what a reload of another shows; a new tab takes the last kept', async () => {
    // Before, the tabs of one host shared one draft: tab A's reload showed what tab B typed last.
    await page.goto(session.host.url);
    await page.waitForSelector(testid('run-name'));
    await page.fill(testid('run-name'), 'tab A: lactose bed');
    // Kept after a pause in typing: the new tab below starts from what is kept when it loads, and a
    // quiet machine loaded it before the pause had passed (CI at 675f5fb).
    const dataDir = (await session.services.dispatch('app.info', {})).dataDir;
    await page.waitForFunction((k) => localStorage.getItem(k)?.includes('tab A: lactose bed'), draftKey('composer', dataDir));
    // Another tab of the same browser (its own sessionStorage: noopener, not a copy of the opener's).
    const opened = page.context().waitForEvent('page');
    await page.evaluate((url) => void window.open(url, '_blank', 'noopener'), session.host.url);
    const other = await opened;
    try {
      await other.waitForSelector(testid('composer-restored')); // a new tab starts from the last kept
      await other.fill(testid('run-name'), 'tab B: glass beads');
      await other.waitForTimeout(600); // kept after a pause in typing
      await page.reload();
      await page.waitForSelector(testid('composer-restored'));
      expect(await value('run-name')).toBe('tab A: lactose bed');
      await page.screenshot({ path: join(ARTIFACTS, 'drafts-tab-a-reloaded.png') });
      await other.reload();
      await other.waitForSelector(testid('composer-restored'));
      expect(await other.inputValue(testid('run-name'))).toBe('tab B: glass beads');
      await other.screenshot({ path: join(ARTIFACTS, 'drafts-tab-b-reloaded.png') });
    } finally {
      await other.close();
    }
    await page.click(testid('composer-discard-draft'));
  });
});
