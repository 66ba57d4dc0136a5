/// <reference lib="dom" />
/**
 * Stop and keep from the batch manager's queue in a real Chromium: the running run's ■ button ends
 * it done, with its artifacts (Cancel would keep none). The fixture engine: no engine bundle to
 * build, a second or two. Screenshot: test/e2e/artifacts/stop-queue.png (the button beside Cancel).
 * The same queue shows a sweep's values whole (queue-swept-values.png).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Services } from '../../main/services/services';
import { fixtureServices } from '../main/helpers';
import { ARTIFACTS, CHROMIUM } from './chromium';
import { openFolderSession, type FolderSession } from './session';

let services: Services;
let session: FolderSession | undefined;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  session = await openFolderSession('packbench-e2e-stop-', (dataDir) => fixtureServices(dataDir, { autoStart: true }), { viewport: { width: 1440, height: 900 } });
  ({ services, page } = session);
});

afterAll(() => session?.close());

const testid = (id: string) => `[data-testid="${id}"]`;

describe.skipIf(!CHROMIUM)('Stop and keep in the browser', () => {
  it("stops a running run from the queue's button: done, with its artifacts", async () => {
    const [id] = (await services.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'long count', seed: 1, params: { steps: 1_000_000, stepMs: 1 } } })).runIds;
    await page.goto(session!.host.url);
    const stop = page.locator(`${testid(`queue-row-${id}`)}[data-status="running"] ${testid(`stop-${id}`)}`);
    await stop.waitFor();
    // Pause, Inspect, Stop and Cancel fit their column, each whole inside the cell's padding, in the
    // two-line table (1440 px) and the one-line one (1920 px). The cell ends its text in '…': Cancel
    // 0.05 px past the padding was drawn as '…' in the one-line table (scrollWidth rounds it away).
    const actions = page.locator(`${testid(`queue-row-${id}`)} td.actions`);
    for (const width of [1920, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      const past = await actions.evaluate((td) => {
        const right = td.getBoundingClientRect().right - parseFloat(getComputedStyle(td).paddingRight);
        return Array.from(td.querySelectorAll('button'), (b) => b.getBoundingClientRect().right - right).filter((d) => d > 0);
      });
      expect(past, `at ${width} px`).toEqual([]);
    }
    await stop.hover();
    await page.screenshot({ path: join(ARTIFACTS, 'stop-queue.png') });
    await stop.click();
    await page.locator(`${testid(`queue-row-${id}`)}[data-status="done"]`).waitFor();
    const run = await services.dispatch('runs.get', { id });
    expect(run.log.some((l) => l.startsWith('stopped by user at step '))).toBe(true);
    expect((await services.dispatch('runs.artifacts', { id })).map((a) => a.name)).toEqual(['particles']);
  });

  it("shows a sweep's values whole in the queue, the one thing that tells its runs apart", async () => {
    // A range from 0 to 1 in 200 steps gives 0.005025 (formatNumber's four digits), which read '0.005…'
    // in the 68 px column, as did the run's name. Two swept columns, the most the queue shows, leave
    // the progress its header whole in a 1024 px window.
    const spec = { engine: 'counter', name: 'swept', seed: 1, params: { steps: { $sweep: [5, 6] }, stepMs: { $sweep: [0.005025125628, 0.010050251256] } } };
    const { runIds } = await services.dispatch('runs.enqueue', { spec });
    for (const id of runIds) await page.locator(`${testid(`queue-row-${id}`)}[data-status="done"]`).waitFor();
    for (const width of [1920, 1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      const cut = await page.$$eval('[data-testid="queue"] tbody td.swept, [data-testid="queue"] thead th.c-progress', (cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
      expect(cut, `at ${width} px`).toEqual([]);
      expect(await page.locator(`${testid(`queue-row-${runIds[0]}`)} td.swept`).allTextContents()).toEqual(['5', '0.005025']);
    }
    await page.locator(testid('queue')).screenshot({ path: join(ARTIFACTS, 'queue-swept-values.png') });
  });
});
