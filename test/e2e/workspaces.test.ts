/**
 * A user's day in Chromium against the web host (issue 4): define a shape in the particle editor, queue
 * a small voxel sweep in the batch manager and watch it finish, open a run in the inspector, find the
 * runs in the history and compare them. One screenshot per workspace in test/e2e/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHost, type Host } from '../../main/host/server';
import { openServices, type Services } from '../../main/services/services';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

let dataDir: string;
let services: Services;
let host: Host;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `workspace-${name}.png`) });
const testid = (id: string) => `[data-testid="${id}"]`;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), 'packbench-walk-'));
  services = openServices({ dataDir, autoStart: true, concurrency: 2, progressIntervalMs: 100 });
  host = await startHost({ services });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.setDefaultTimeout(30_000);
  await page.goto(host.url);
  await page.waitForSelector(testid('batch-workspace'));
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await services?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("a user's day", () => {
  it('defines a shape in the particle editor and sees its voxel counts', async () => {
    await page.keyboard.press('Alt+1');
    await page.waitForSelector(testid('editor-workspace'));
    await page.selectOption(testid('new-shape-kind'), 'ellipsoid');
    await page.click(testid('new-shape'));
    await page.waitForFunction((sel) => /\d/.test(document.querySelector(sel)?.textContent ?? ''), testid('count-solid'));
    await page.waitForSelector(`${testid('voxel-preview-canvas')}[data-ready="1"]`);
    const solid = Number((await page.textContent(testid('count-solid')))!.replace(/\D/g, ''));
    expect(solid).toBeGreaterThan(0);
    await shot('editor');
  });

  it('queues a small voxel sweep and watches both runs finish', async () => {
    await page.click(testid('nav-batch'));
    await page.waitForSelector(testid('field-box.resolution'));
    await page.selectOption(testid('engine-select'), 'voxel');
    await page.fill(testid('run-name'), 'walk spheres');
    for (const i of [0, 1, 2]) await page.fill(testid(`field-box.size.${i}`), '3');
    await page.fill(testid('field-box.resolution'), '8');
    // Inline validation: an out-of-range value is named at its field and blocks Enqueue.
    await page.fill(testid('field-box.resolution'), '0');
    await page.waitForSelector(testid('field-box.resolution-error'));
    expect(await page.isDisabled(testid('enqueue'))).toBe(true);
    await page.fill(testid('field-box.resolution'), '8');
    await page.click(testid('field-reboundProbability-sweep-toggle'));
    await page.fill(testid('field-reboundProbability-sweep-list'), '0.1, 0.5');
    expect(await page.textContent(testid('run-count'))).toBe('This sweep makes 2 runs');
    await page.click(testid('enqueue'));
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid^="queue-row-"][data-status="done"]').length >= 2,
      undefined,
      { timeout: 120_000 },
    );
    expect(await page.locator('[data-testid^="queue-row-"][data-status="failed"]').count()).toBe(0);
    await shot('batch');
  });

  it('opens a finished run in the inspector', async () => {
    await page.locator('[data-testid^="inspect-"]').first().click();
    await page.waitForSelector(testid('inspector-workspace'));
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    expect(await page.textContent(testid('inspector-run-name'))).toContain('walk spheres');
    await shot('inspector');
  });

  it('finds the runs in the history and compares them', async () => {
    await page.click(testid('nav-history'));
    await page.fill(testid('history-search'), 'walk spheres');
    await page.waitForFunction(() => document.querySelector('[data-testid="history-total"]')?.textContent?.startsWith('2 runs'));
    const rows = page.locator('[data-testid^="history-row-"]');
    expect(await rows.count()).toBe(2);
    await shot('history');
    await rows.nth(0).click();
    await rows.nth(1).click({ modifiers: ['Control'] });
    await page.click(testid('history-compare'));
    await page.waitForFunction(() => document.querySelector('[data-testid="compare-params"]')?.textContent?.includes('reboundProbability'));
    await page.waitForSelector(`${testid('compare')} canvas`);
    expect(await page.textContent(testid('compare-metrics'))).toMatch(/solidFraction/);
    await shot('compare');
  });

  it('keeps the history smooth with 100,000 runs in the store', async () => {
    // Recorded straight into the store (as finished runs) so that no engine has to make them.
    const N = 100_000;
    const spec = { engine: 'voxel', name: 'bulk', seed: 1, params: {} };
    const ids = services.store.insertRuns(
      Array.from({ length: N }, (_, i) => ({ name: `bulk ${i}`, engine: 'voxel', spec, params: {}, seed: i, priority: 0, batchId: null, status: 'paused' as const })),
    );
    services.store.transaction(() => {
      ids.forEach((id, i) => services.store.finishRun(id, { status: 'done', metrics: { solidFraction: (i % 1000) / 1000 }, series: [], artifacts: [], wallSeconds: 1 }));
    });
    await page.click(testid('compare-close'));
    await page.fill(testid('history-search'), '');
    await page.waitForFunction(() => document.querySelector('[data-testid="history-total"]')?.textContent?.startsWith('100,002 runs'));
    // Only the rows in view exist in the page, however many runs there are.
    expect(await page.locator('[data-testid^="history-row-"]').count()).toBeLessThan(80);
    const timings: number[] = [];
    for (const fraction of [0.25, 0.5, 0.75, 0.999]) {
      const t0 = Date.now();
      await page.evaluate((f) => {
        const vp = document.querySelector('[data-testid="history-viewport"]')!;
        vp.scrollTop = f * vp.scrollHeight;
      }, fraction);
      await page.waitForFunction(() => {
        const vp = document.querySelector('[data-testid="history-viewport"]')!;
        const r = vp.getBoundingClientRect();
        const row = document.elementFromPoint(r.left + 200, r.top + r.height / 2)?.closest('[data-testid^="history-row-"]');
        return !!row;
      });
      timings.push(Date.now() - t0);
    }
    // The metric filter runs in the service too.
    await page.fill(testid('history-metric'), 'solidFraction');
    await page.fill(testid('history-metric-min'), '0.9985');
    await page.waitForFunction(() => document.querySelector('[data-testid="history-total"]')?.textContent?.startsWith('100 runs'));
    writeFileSync(join(ARTIFACTS, 'history-scroll.json'), JSON.stringify({ runs: N + 2, msFromScrollToRowsDrawn: timings }, null, 1));
    await shot('history-100k');
    await page.fill(testid('history-metric'), '');
    await page.fill(testid('history-metric-min'), '');
  });

  it('switches theme and lists the shortcuts', async () => {
    const before = await page.getAttribute('html', 'data-theme');
    await page.click(testid('theme-toggle'));
    expect(await page.getAttribute('html', 'data-theme')).not.toBe(before);
    await page.keyboard.press('?');
    await page.waitForSelector(testid('shortcuts-overlay'));
    await shot('shortcuts-dark');
    await page.keyboard.press('Escape');
    expect(await page.locator(testid('shortcuts-overlay')).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
