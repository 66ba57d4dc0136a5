/**
 * A field that has no effect with the others, in the batch form in Chromium against the web host: a
 * ball mill set to cdo 'direct' shows at its skin field that the skin has no effect (runs.validate's
 * warning, styled as a warning, not an error), and Enqueue stays enabled.
 * Screenshot: test/e2e/artifacts/warnings-skin.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openServices, type Services } from '../../main/services/services';
import { ARTIFACTS, CHROMIUM } from './chromium';
import { openFolderSession, type FolderSession } from './session';

let services: Services;
let session: FolderSession;
let page: Page;
const testid = (id: string) => `[data-testid="${id}"]`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  session = await openFolderSession('packbench-e2e-warnings-', (dataDir) => openServices({ dataDir, autoStart: false }), { viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  ({ services, page } = session);
  await page.goto(session.host.url);
  await page.waitForSelector(testid('engine-select'));
});

afterAll(() => session?.close());

describe.skipIf(!CHROMIUM)('the batch form', () => {
  it("shows at the skin field that it has no effect with cdo 'direct', and still enqueues", async () => {
    await page.selectOption(testid('engine-select'), 'ballmill');
    await page.selectOption(testid('field-cdo'), 'direct');
    const warning = page.locator(testid('field-skin-warning'));
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(/^has no effect with cdo 'direct': .* or leave skin out$/);
    // The warning colour, not the error colour; the field is not marked invalid.
    const colours = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: { querySelector(s: string): unknown; documentElement: unknown } }).document;
      const css = (globalThis as unknown as { getComputedStyle(e: unknown): { color: string; getPropertyValue(n: string): string } }).getComputedStyle;
      const root = css(d.documentElement);
      return { text: css(d.querySelector('[data-testid="field-skin-warning"]')).color, warn: root.getPropertyValue('--warn').trim(), danger: root.getPropertyValue('--danger').trim() };
    });
    expect(colours.warn).not.toBe(colours.danger);
    expect(colours.text).toBe(rgb(colours.warn));
    expect(await page.getAttribute(testid('field-skin'), 'aria-invalid')).toBe('false');
    await page.locator(testid('field-skin')).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'warnings-skin.png') });
    expect(await page.isEnabled(testid('enqueue'))).toBe(true);
    await page.click(testid('enqueue'));
    await expect.poll(() => services.store.listRuns({ offset: 0, limit: 10, filter: { engine: 'ballmill' } }).total).toBe(1);
  });
});

/** '#a86a00' as the browser writes a computed colour: 'rgb(168, 106, 0)'. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
