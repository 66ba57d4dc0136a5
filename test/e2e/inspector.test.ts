/// <reference lib="dom" />
/**
 * The particle editor and the inspector in a real Chromium against the web host, with the real
 * voxel engine: the editor's voxel preview draws, a small packing runs, the inspector shows it
 * (voxel surfaces, slice, series), and picking a particle in the slice shows its record.
 * Screenshots: test/e2e/artifacts/editor.png, inspector.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Host } from '../../main/host/server';
import { openServices, type Services } from '../../main/services/services';
import type { PackbenchApi } from '../../main/api';
import { ARTIFACTS, CHROMIUM } from './chromium';
import { openFolderSession, type FolderSession } from './session';


let services: Services;
let session: FolderSession;
let host: Host;
let page: Page;

beforeAll(async () => {
  session = await openFolderSession('packbench-e2e-inspector-', (dataDir) => openServices({ dataDir, autoStart: true, concurrency: 1, progressIntervalMs: 50 }));
  ({ services, host, page } = session);
});

afterAll(() => session?.close());

/**
 * Waits until the camera has stopped gliding (its inertia runs on after a drag): the viewer's render
 * loop has stopped. (Two equal readings 400 ms apart also held while no frame came in 400 ms.)
 */
async function cameraStill(): Promise<string> {
  await page.waitForSelector('[data-testid="inspector-canvas"][data-moving="0"]');
  return (await page.locator('[data-testid="inspector-canvas"]').getAttribute('data-camera')) ?? '';
}

/** Waits until the 3D canvas has drawn a frame with every material ready. */
function frameReady(testId: string): Promise<unknown> {
  return page.waitForFunction((id) => document.querySelector<HTMLCanvasElement>(`[data-testid="${id}"]`)?.dataset.ready === '1', testId, { timeout: 60_000 });
}

describe.skipIf(!CHROMIUM)('editor and inspector in Chromium', () => {
  it('previews a shape as voxels with live counts', async () => {
    await page.goto(host.url + '#/editor');
    await page.waitForSelector('[data-testid="shape-item"]');
    await page.locator('[data-testid="shape-item"][data-shape-name="Sphere"]').click();
    await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="count-solid"]')?.textContent ?? ''));
    await frameReady('voxel-preview-canvas');
    const solid = Number((await page.locator('[data-testid="count-solid"]').textContent())!.replace(/,/g, ''));
    // a sphere of 20 voxels across: about pi/6 * 20^3 = 4189 voxels
    expect(solid).toBeGreaterThan(3800);
    expect(solid).toBeLessThan(4600);
    await page.screenshot({ path: `${ARTIFACTS}editor.png` });
  });

  it("draws no voxels while the shape's fields are in error, instead of the last shape", async () => {
    await page.goto(host.url + '#/editor');
    await page.selectOption('[data-testid="new-shape-kind"]', 'ellipsoid');
    await page.click('[data-testid="new-shape"]');
    await page.waitForSelector('[data-testid="shape-param-b"]');
    const drawn = () => page.getAttribute('[data-testid="voxel-preview-canvas"]', 'data-voxels');
    await page.waitForFunction(() => Number(document.querySelector<HTMLCanvasElement>('[data-testid="voxel-preview-canvas"]')?.dataset.voxels) > 0);
    await page.fill('[data-testid="shape-param-b"]', '0');
    await page.waitForSelector('[data-testid="preview-none"]');
    expect(await drawn()).toBe('0');
    await page.screenshot({ path: `${ARTIFACTS}editor-invalid.png` });
    await page.fill('[data-testid="shape-param-b"]', '0.5');
    await page.waitForFunction(() => Number(document.querySelector<HTMLCanvasElement>('[data-testid="voxel-preview-canvas"]')?.dataset.voxels) > 0);
    // Leave the unsaved shape as a user would: the editor asks before discarding it (playwright
    // dismisses dialogs by default, which kept every later test of this page in the editor).
    const asked = new Promise<string>((resolve) => page.once('dialog', (d) => { resolve(d.message()); void d.accept(); }));
    await page.goto(host.url + '#/history');
    expect(await asked).toMatch(/unsaved changes/);
    await page.waitForFunction(() => location.hash === '#/history');
  });

  it('opens a finished voxel run: surfaces, slice, series, and a picked particle record', async () => {
    const id = await page.evaluate(async () => {
      const api = (globalThis as unknown as { packbench: PackbenchApi }).packbench;
      const r = await api.call('runs.enqueue', {
        spec: { engine: 'voxel', name: 'e2e plates', seed: 2, params: { box: { size: [3, 3, 2], resolution: 10 }, mixture: { basis: 'number', types: [{ name: 'plate', shape: { kind: 'hexagonalPlate', thickness: 0.4 }, size: { law: 'fixed', value: 1 }, fraction: 1 }] } } },
      });
      return r.runIds[0];
    });
    await page.waitForFunction(
      async (id) => ['done', 'failed'].includes((await (globalThis as unknown as { packbench: PackbenchApi }).packbench.call('runs.get', { id })).status),
      id,
      { timeout: 120_000, polling: 500 },
    );
    await page.goto(host.url + '#/inspector/' + id);
    await page.waitForSelector('[data-testid="inspector-count"]');
    await page.waitForFunction(() => !!document.querySelector<HTMLCanvasElement>('[data-testid="slice-canvas"]')?.dataset.drawn);
    await frameReady('inspector-canvas');
    expect(await page.locator('[data-testid="inspector-run-name"]').textContent()).toBe('e2e plates');
    expect(await page.locator('[data-testid="show-voxels"]').isChecked()).toBe(true);
    expect(await page.locator('.plot-panel').count()).toBeGreaterThan(1);

    // click the first particle pixel of the slice
    const target = await page.evaluate(() => {
      const c = document.querySelector<HTMLCanvasElement>('[data-testid="slice-canvas"]')!;
      const img = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const r = c.getBoundingClientRect();
      for (let v = 0; v < c.height; v++) for (let u = 0; u < c.width; u++) {
        const o = (v * c.width + u) * 4;
        if (img[o] + img[o + 1] + img[o + 2] > 150) return { x: r.left + ((u + 0.5) / c.width) * r.width, y: r.top + ((v + 0.5) / c.height) * r.height };
      }
      return null;
    });
    expect(target).not.toBeNull();
    await page.mouse.click(target!.x, target!.y);
    await page.waitForSelector('[data-testid="picked-record"]');
    expect(await page.locator('[data-testid="picked-record"]').textContent()).toMatch(/equivalentDiameter|size/);
    await frameReady('inspector-canvas');
    await page.screenshot({ path: `${ARTIFACTS}inspector.png` });
    // Every value in the panel, beside its name and unit ('equivalentDiameter length units' pushed them out of it).
    const record = page.locator('[data-testid="picked-record"]');
    const overflow = () => record.evaluate((e) => e.scrollWidth - e.clientWidth);
    expect(await overflow()).toBe(0);
    // At 1024 px the record leaves the 3D view whole (it covered 230 of its 424 px): it goes beside it, above the slice.
    await page.setViewportSize({ width: 1024, height: 768 });
    const view = (await page.locator('[data-testid="inspector-canvas"]').boundingBox())!;
    const panel = (await record.boundingBox())!;
    expect(panel.x).toBeGreaterThanOrEqual(view.x + view.width);
    expect(panel.y + panel.height).toBeLessThan((await page.locator('.inspector .side').boundingBox())!.y);
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}inspector-record-1024.png` });
    await page.setViewportSize({ width: 1280, height: 800 });

    // the screenshot button downloads the view as a PNG
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="screenshot"]').click()]);
    expect(download.suggestedFilename()).toMatch(/^e2e_plates-.*\.png$/);
    const bytes = await download.createReadStream().then(async (s) => { const parts: Buffer[] = []; for await (const c of s) parts.push(c as Buffer); return Buffer.concat(parts); });
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');

    // A colour range typed to 4 digits shows whole in its fields, the auto button shown beside them.
    await page.selectOption('[data-testid="colour-by"]', 'height');
    await page.fill('[data-testid="colour-min"]', '0.0735');
    await page.fill('[data-testid="colour-max"]', '1.8125');
    await page.waitForSelector('[data-testid="colour-auto"]');
    const cut = await page.$$eval('[data-testid="colour-min"], [data-testid="colour-max"]', (els) => (els as HTMLInputElement[]).filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.value));
    expect(cut).toEqual([]);
    await page.click('[data-testid="colour-auto"]');
  });

  it('turns the camera on a plain drag; Shift moves the slice plane', async () => {
    const camera = () => page.locator('[data-testid="inspector-canvas"]').getAttribute('data-camera');
    const index = () => page.locator('[data-testid="slice-index"]').inputValue();
    const box = (await page.locator('[data-testid="inspector-canvas"]').boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const before = { camera: await camera(), index: await index() };
    // a drag across the middle, where the plane lies behind the particles: the camera turns
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) await page.mouse.move(cx + k * 15, cy + k * 4);
    await page.mouse.up();
    await page.waitForFunction((c) => document.querySelector<HTMLCanvasElement>('[data-testid="inspector-canvas"]')!.dataset.camera !== c, before.camera);
    expect(await index()).toBe(before.index);
    // the same with Shift held moves the plane (and so the slice), not the camera
    const turned = await cameraStill();
    await page.keyboard.down('Shift');
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) await page.mouse.move(cx, cy - k * 12);
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.waitForFunction((i) => document.querySelector<HTMLInputElement>('[data-testid="slice-index"]')!.value !== i, before.index, { timeout: 10_000 });
    expect(await cameraStill()).toBe(turned);
  });

  it('saves a figure at a chosen size with colour bar, scale bar and axes', async () => {
    await page.selectOption('[data-testid="colour-by"]', 'height');
    await page.selectOption('[data-testid="colour-map"]', 'cividis');
    await page.click('[data-testid="figure-toggle"]');
    await page.fill('[data-testid="figure-width"]', '1200');
    await page.fill('[data-testid="figure-height"]', '800');
    await frameReady('inspector-canvas');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="figure-save"]')]);
    expect(download.suggestedFilename()).toMatch(/^e2e_plates-.*-figure\.png$/);
    const path = `${ARTIFACTS}inspector-figure.png`;
    await download.saveAs(path);
    const png = readFileSync(path);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 800]); // IHDR width, height
    await page.screenshot({ path: `${ARTIFACTS}inspector-figure-options.png` });
  });

  it('frames a newly opened run and keeps it open across workspaces', async () => {
    const radius = async () => Number((await page.locator('[data-testid="inspector-canvas"]').getAttribute('data-camera'))!.split(',')[2]);
    const id = await page.evaluate(async () => {
      const api = (globalThis as unknown as { packbench: PackbenchApi }).packbench;
      const r = await api.call('runs.enqueue', {
        spec: { engine: 'voxel', name: 'e2e big box', seed: 3, params: { box: { size: [8, 8, 6], resolution: 10 }, mixture: { basis: 'number', types: [{ name: 'ball', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 }, fraction: 1 }] } } },
      });
      return r.runIds[0];
    });
    await page.waitForFunction(
      async (id) => ['done', 'failed'].includes((await (globalThis as unknown as { packbench: PackbenchApi }).packbench.call('runs.get', { id })).status),
      id,
      { timeout: 120_000, polling: 500 },
    );
    const small = await radius();
    await page.goto(host.url + '#/inspector/' + id);
    await page.locator('[data-testid="inspector-run-name"]').filter({ hasText: 'e2e big box' }).waitFor();
    await frameReady('inspector-canvas');
    // framed anew: the camera stands back in proportion to the box diagonal (8 x 8 x 6 against 3 x 3 x 2)
    const ratio = Math.hypot(8, 8, 6) / Math.hypot(3, 3, 2);
    await page.waitForFunction(
      ([r, small]) => Math.abs(Number(document.querySelector<HTMLCanvasElement>('[data-testid="inspector-canvas"]')!.dataset.camera!.split(',')[2]) / small - r) < 0.05 * r,
      [ratio, small],
    );
    const framed = await cameraStill();
    await page.click('[data-testid="nav-history"]');
    await page.waitForSelector('[data-testid="history-workspace"]');
    await page.click('[data-testid="nav-inspector"]');
    await page.locator('[data-testid="inspector-run-name"]').filter({ hasText: 'e2e big box' }).waitFor();
    expect(page.url()).toContain(`#/inspector/${id}`);
    expect(await page.locator('[data-testid="inspector-canvas"]').getAttribute('data-camera')).toBe(framed);
  });

  it('plays a run back from the keyboard: Space, Left/Right a frame, Home/End; not while typing, and the camera stays', async () => {
    const { runIds: [id] } = await services.dispatch('runs.enqueue', { spec: { engine: 'ballmill', name: 'e2e keys mill', seed: 1, params: { dim: 2, duration: 2, balls: { count: 40 } } } });
    await expect.poll(async () => (await services.dispatch('runs.get', { id })).status, { timeout: 120_000, interval: 250 }).toBe('done');
    await page.goto(host.url + '#/inspector/' + id);
    await frameReady('inspector-canvas');
    const label = page.locator('[data-testid="time-label"]');
    const at = (t: string) => label.filter({ hasText: `t = ${t} / 2.000 s` }).waitFor();
    await at('2.000');
    // The keys are in the buttons' titles.
    expect(await page.getAttribute('[data-testid="play"]', 'title')).toBe('Play the run back (Space)');
    expect(await page.getAttribute('[data-testid="frame-back"]', 'title')).toBe('Previous frame (←); first frame (Home)');
    expect(await page.getAttribute('[data-testid="frame-forward"]', 'title')).toBe('Next frame (→); last frame (End)');
    await page.keyboard.press('Home');
    await at('0.000');
    // Keys pressed faster than the frames arrive step on from the frame asked for (50 frames a second).
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await at('0.040');
    await page.keyboard.press('ArrowLeft');
    await at('0.020');
    await page.keyboard.press('End');
    await at('2.000');
    // In a text field the keys are the field's.
    await page.fill('[data-testid="colour-min"]', '3');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowLeft');
    await page.fill('[data-testid="colour-min"]', '');
    expect(await label.textContent()).toContain('t = 2.000 / 2.000 s');
    // With the view focused (a click in it), Left steps a frame and does not turn the camera.
    const box = (await page.locator('[data-testid="inspector-canvas"]').boundingBox())!;
    await page.mouse.click(box.x + 5, box.y + 5);
    const camera = await cameraStill();
    // Held a moment, as a finger does: the camera turned on each frame drawn while its key was down.
    await page.keyboard.down('ArrowLeft');
    await at('1.980');
    await page.waitForTimeout(300);
    await page.keyboard.up('ArrowLeft');
    expect(await cameraStill()).toBe(camera);
    await page.keyboard.press('Home');
    await at('0.000');
    await page.keyboard.press('Space');
    await page.locator('[data-testid="play"][aria-label="Pause"]').waitFor();
    expect(await page.getAttribute('[data-testid="play"]', 'title')).toBe('Pause (Space)');
    await page.keyboard.press('Space');
    await page.locator('[data-testid="play"][aria-label="Play"]').waitFor();
    // Just after dragging the slider it has the focus (a field, to the shortcuts): Space still plays.
    await page.focus('[data-testid="time-slider"]');
    await page.keyboard.press('Space');
    await page.locator('[data-testid="play"][aria-label="Pause"]').waitFor();
    await page.keyboard.press('Space');
    await page.locator('[data-testid="play"][aria-label="Play"]').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}inspector-playback-keys.png` });
  });

  it('shows a running voxel packing live: the particles so far, the bed height and solid fraction against seconds', async () => {
    const id = await page.evaluate(async () => {
      const api = (globalThis as unknown as { packbench: PackbenchApi }).packbench;
      // A box that takes minutes to fill: it is cancelled once seen.
      const r = await api.call('runs.enqueue', {
        spec: { engine: 'voxel', name: 'e2e live', seed: 4, params: { box: { size: [20, 20, 16], resolution: 16 }, labelVolume: 'off', analysis: { enabled: false }, mixture: { basis: 'number', types: [{ name: 'ball', shape: { kind: 'sphere' }, size: { law: 'fixed', value: 1 }, fraction: 1 }] } } },
      });
      return r.runIds[0];
    });
    await page.goto(host.url + '#/inspector/' + id);
    await page.locator('[data-testid="live-time"]').filter({ hasText: 'latest state' }).waitFor({ timeout: 60_000 });
    // The curves grow a point a second; wait for a few.
    const livePoints = async () => (await services.dispatch('runs.series', { id })).find((s) => s.name === 'bed height (live)')?.x.length ?? 0;
    await expect.poll(livePoints, { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(3);
    await page.locator('.plot-panel').filter({ hasText: 'bed height (live)' }).waitFor({ timeout: 30_000 });
    await page.locator('.plot-panel').filter({ hasText: 'solid fraction (live)' }).waitFor();
    await frameReady('inspector-canvas');
    expect(Number((await page.locator('[data-testid="inspector-count"]').textContent())!.replace(/\D/g, ''))).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}inspector-live.png` });
    await page.evaluate(async (id) => (globalThis as unknown as { packbench: PackbenchApi }).packbench.call('runs.cancel', { id }), id);
  });
});
