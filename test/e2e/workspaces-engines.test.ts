/**
 * A user's day in Chromium against the web host (issue 4), second half (walk.ts): import a sphere
 * packing, run a ball mill and play it back, switch the theme, define an implicit shape and pack it,
 * compose a stacking run from a sieve analysis, inspect and export it. One screenshot per step in
 * test/e2e/artifacts/workspace-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '../../main/host/server';
import type { Services } from '../../main/services/services';
import { CHROMIUM } from './chromium';
import { openWalk, testid, type Walk } from './walk';

let walk: Walk;
let dataDir: string;
let services: Services;
let host: Host;
let page: Page;

beforeAll(async () => {
  walk = await openWalk();
  ({ dataDir, services, host, page } = walk);
});

afterAll(() => walk?.close());

describe.skipIf(!CHROMIUM)("a user's day: the other engines", () => {
  it('imports a sphere CSV as an analysed run', async () => {
    const bad = join(dataDir, 'broken.csv'), good = join(dataDir, 'lattice.csv');
    writeFileSync(bad, 'x,y,z,r\n0.5,0.5,oops,0.5\n');
    // A simple cubic lattice of touching unit spheres, 4 x 4 x 3: coordination 3 to 6.
    const lines = ['x,y,z,r'];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) for (let k = 0; k < 3; k++) lines.push(`${i + 0.5},${j + 0.5},${k + 0.5},0.5`);
    writeFileSync(good, lines.join('\n') + '\n');
    await page.click(testid('nav-history'));
    await page.click(testid('history-import-spheres'));
    await page.setInputFiles(testid('sphere-import-file'), bad);
    await page.click(testid('sphere-import-submit'));
    await page.locator(testid('sphere-import-error')).filter({ hasText: /line 2/ }).waitFor();
    await page.setInputFiles(testid('sphere-import-file'), good);
    await page.fill(testid('sphere-import-name'), 'lattice import');
    await page.locator('[data-testid="sphere-import"] .box input').nth(0).fill('4');
    await page.locator('[data-testid="sphere-import"] .box input').nth(1).fill('4');
    await page.locator('[data-testid="sphere-import"] .box input').nth(2).fill('3');
    await page.click(testid('sphere-import-submit'));
    await page.locator(testid('sphere-import')).waitFor({ state: 'detached' });
    await page.locator(testid('details-metrics')).filter({ hasText: 'coordinationMean' }).waitFor();
    await page.fill(testid('history-search'), 'lattice import');
    await page.locator(testid('history-total')).filter({ hasText: /^1 run · 1 selected/ }).waitFor();
    await walk.shot('history-import');
    // The imported spheres in the inspector, drawn as spheres (thin instances).
    await page.click(testid('history-open'));
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    // The canvas is ready before the table arrives: wait for its count.
    await page.locator(testid('inspector-count')).filter({ hasText: '48' }).waitFor();
    await walk.shot('inspector-spheres');
    await page.click(testid('nav-history'));
    await page.fill(testid('history-search'), '');
  });

  it('runs a shaker ball mill from the batch form and plays it back; a 3D run draws its cylinder; a running run shows its latest state', async () => {
    await page.click(testid('nav-batch'));
    await page.selectOption(testid('engine-select'), 'ballmill');
    await page.fill(testid('run-name'), 'walk mill');
    await page.fill(testid('field-balls.count'), '60');
    await page.fill(testid('field-duration'), '2');
    await walk.shot('batch-ballmill');
    await page.click(testid('enqueue'));
    await walk.waitForRuns('walk mill', 1, 120_000);
    const id = services.store.listRuns({ offset: 0, limit: 1, filter: { text: 'walk mill' } }).rows[0].id;
    await page.goto(`${host.url}#/inspector/${id}`);
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    // The run has frames: a time slider at the last frame (t = 2 s), play/pause and speed.
    await page.locator(testid('time-label')).filter({ hasText: 't = 2.000 / 2.000 s' }).waitFor();
    await page.selectOption(testid('colour-by'), 'speed');
    await page.locator(testid('time-slider')).fill('40');
    await page.locator(testid('time-label')).filter({ hasText: 't = 0.800 / 2.000 s' }).waitFor();
    await walk.shot('inspector-ballmill-frame');
    await page.selectOption(testid('playback-speed'), '4');
    await page.click(testid('play'));
    await page.locator(testid('play')).and(page.locator('[aria-label="Play"]')).waitFor({ timeout: 20_000 });
    expect(await page.textContent(testid('time-label'))).toContain('t = 2.000 / 2.000 s');
    await page.selectOption(testid('colour-by'), 'impacts');
    await walk.shot('inspector-ballmill-played');

    const { runIds } = await services.dispatch('runs.enqueue', {
      spec: { engine: 'ballmill', name: 'walk mill 3D', seed: 2, params: { dim: 3, cdo: 'hashedGrid', duration: 1, balls: { count: 150, radius: { law: 'uniform', min: 3, max: 5 } }, vial: { width: 80, height: 100 } } },
    });
    await walk.waitForRuns('walk mill 3D', 1, 120_000);
    await page.goto(`${host.url}#/inspector/${runIds[0]}`);
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    await page.locator(testid('time-label')).filter({ hasText: '/ 1.000 s' }).waitFor();
    await page.click(testid('camera-front'));
    await walk.shot('inspector-ballmill-3d');

    const { runIds: live } = await services.dispatch('runs.enqueue', {
      spec: { engine: 'ballmill', name: 'walk mill live', seed: 3, params: { dim: 2, duration: 600, balls: { count: 100 }, output: { frameRate: 0 } } },
    });
    await page.goto(`${host.url}#/inspector/${live[0]}`);
    await page.locator(testid('live-time')).filter({ hasText: /t = [1-9]/ }).waitFor({ timeout: 60_000 });
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    expect(await page.locator(testid('playback')).count()).toBe(0);
    await walk.shot('inspector-ballmill-live');
    // In the queue, the running run's pause, Inspect and cancel fit their column (cancel was elided to '…').
    await page.click(testid('nav-batch'));
    const actions = page.locator(`${testid(`queue-row-${live[0]}`)}[data-status="running"] td.actions`);
    await actions.waitFor();
    expect(await actions.evaluate((td: { scrollWidth: number; clientWidth: number }) => td.scrollWidth <= td.clientWidth)).toBe(true);
    await services.dispatch('runs.cancel', { id: live[0] });
  });

  it('switches theme and lists the shortcuts', async () => {
    const before = await page.getAttribute('html', 'data-theme');
    await page.click(testid('theme-toggle'));
    expect(await page.getAttribute('html', 'data-theme')).not.toBe(before);
    await page.keyboard.press('?');
    await page.waitForSelector(testid('shortcuts-overlay'));
    await walk.shot('shortcuts-dark');
    await page.keyboard.press('Escape');
    expect(await page.locator(testid('shortcuts-overlay')).count()).toBe(0);
    expect(walk.pageErrors).toEqual([]);
  });

  it('defines an implicit shape, sees it sampled by particles and as voxels, and packs it with the voxel engine', async () => {
    await page.keyboard.press('Alt+1');
    await page.waitForSelector(testid('editor-workspace'));
    await page.selectOption(testid('new-shape-kind'), 'implicit');
    await page.click(testid('new-shape'));
    await page.locator('.shape-editor h2').filter({ hasText: 'My implicit surface' }).waitFor();
    // The surface from the schema-driven form: a torus, sampled live until uniform.
    await page.selectOption(testid('field-surface-variant'), { label: 'torus' });
    await page.fill(testid('field-surface.minorRadius'), '0.35');
    await page.locator(testid('surface-preview-status')).filter({ hasText: /· uniform/ }).waitFor({ timeout: 60_000 });
    await walk.shot('editor-implicit');
    // Its voxels, then saved as a voxel shape of the library.
    await page.click(testid('preview-mode-solid'));
    await page.waitForSelector(`${testid('voxel-preview-canvas')}[data-ready="1"]`);
    await page.locator(testid('count-solid')).filter({ hasText: /[1-9]/ }).waitFor();
    await walk.shot('editor-implicit-voxels');
    await page.click(testid('shape-save'));
    await page.waitForSelector(`${testid('shape-save')}:disabled`);
    // The mixture's type becomes the torus, and the batch manager packs it.
    await page.locator(`${testid('mixture-type-0')} select.shape-select`).selectOption({ label: 'My implicit surface' });
    await page.click(testid('mixture-send'));
    await page.waitForSelector(testid('field-box.resolution'));
    await page.fill(testid('run-name'), 'walk tori');
    for (const i of [0, 1, 2]) await page.fill(testid(`field-box.size.${i}`), '3');
    await page.fill(testid('field-box.resolution'), '10');
    await page.fill(testid('field-stop.particles'), '6');
    await page.click(testid('enqueue'));
    await walk.waitForRuns('walk tori', 1, 150_000);
    const run = services.store.listRuns({ offset: 0, limit: 10, filter: { text: 'walk tori' } }).rows[0];
    expect(services.store.getRun(run.id)!.spec.params).toMatchObject({ mixture: { types: [{ shape: { kind: 'implicit', surface: { kind: 'torus', minorRadius: 0.35 } } }] } });
    expect(run.metrics.particles).toBe(6);
    expect(walk.pageErrors).toEqual([]);
  });

  it('composes a stacking run with the gradation editor, inspects its spheres and sieve curve, and exports it in every format that applies', async () => {
    await page.click(testid('nav-batch'));
    await page.waitForSelector(testid('engine-select'));
    await page.selectOption(testid('engine-select'), 'stacking');
    await page.waitForSelector(testid('field-gradation'));
    await page.fill(testid('run-name'), 'walk stacking');
    for (const i of [0, 1, 2]) await page.fill(testid(`field-region.size.${i}`), '1.6');
    // A sieve analysis pasted from a spreadsheet, largest sieve first: the curve is drawn from it.
    await page.selectOption(testid('field-gradation-kind'), 'sieve');
    await page.click(testid('field-gradation-paste-open'));
    await page.fill(testid('field-gradation-paste'), 'size (mm)\t% passing\n0.4\t100\n0.25\t60\n0.16\t25\n0.08\t0\n');
    await page.click(testid('field-gradation-paste-apply'));
    expect(await page.inputValue(testid('field-gradation.sizes.0'))).toBe('0.08');
    await page.waitForSelector(testid('field-gradation-curve-line'));
    // An impossible curve is named at its cell and blocks Enqueue.
    await page.fill(testid('field-gradation.passing.2'), '20');
    await page.locator(testid('field-gradation-error')).filter({ hasText: /passing/ }).first().waitFor();
    expect(await page.isDisabled(testid('enqueue'))).toBe(true);
    await page.fill(testid('field-gradation.passing.2'), '60');
    await page.locator(testid('field-gradation-error')).first().waitFor({ state: 'detached' });
    await page.click(testid('field-gradation-preset-save'));
    await page.fill(testid('field-gradation-preset-name'), 'walk sand');
    await page.click(testid('field-gradation-preset-save-confirm'));
    await page.waitForSelector(testid('field-gradation-preset'));
    await page.fill(testid('field-target.e'), '0.9');
    await page.locator(testid('field-gradation')).scrollIntoViewIfNeeded();
    await walk.shot('batch-gradation');
    await page.click(testid('enqueue'));
    await walk.waitForRuns('walk stacking', 1, 120_000);
    const run = services.store.listRuns({ offset: 0, limit: 10, filter: { text: 'walk stacking' } }).rows[0];
    expect(run.metrics.stopReason).toBe('target');
    expect(Math.abs((run.metrics.voidRatio as number) - 0.9)).toBeLessThan(0.005);
    expect(run.metrics.maxOverlapRelative as number).toBeLessThanOrEqual(1e-9);

    // The inspector: spheres coloured by their class, then by radius; the sieve curve asked against achieved.
    await page.goto(`${host.url}#/inspector/${run.id}`);
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    // The canvas is ready before the run's table arrives (an empty scene draws too): wait for the colouring the table brings.
    await expect.poll(() => page.inputValue(testid('colour-by'))).toBe('class');
    const sieve = page.locator(testid('plot-panel')).filter({ has: page.locator('.plot-title', { hasText: /^sieve curve$/ }) });
    await sieve.locator('.u-legend').filter({ hasText: 'achieved' }).waitFor();
    expect(await sieve.locator('.u-legend').textContent()).toContain('asked');
    await walk.shot('inspector-stacking');
    await page.selectOption(testid('colour-by'), 'r');
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`);
    await walk.shot('inspector-stacking-radius');

    // A 2D run is drawn as disks in the x-y plane.
    const disks = await page.evaluate(async () => {
      const api = (globalThis as unknown as { packbench: { call(m: string, p: unknown): Promise<{ runIds: string[] }> } }).packbench;
      return (await api.call('runs.enqueue', { spec: { engine: 'stacking', name: 'walk disks', seed: 2, params: { dim: 2, region: { shape: 'circle', radius: 3 }, gradation: { kind: 'classes', rang: 0.1, classes: [{ radius: 0.2, fraction: 1, af: [0.5, 1] }, { radius: 0.1, fraction: 1, af: [0, 0.3] }, { radius: 0.05, fraction: 1, af: [0, 0.3] }] }, target: { kind: 'voidRatio', e: 0.35 } } } })).runIds[0];
    });
    await walk.waitForRuns('walk disks', 1, 120_000);
    await page.goto(`${host.url}#/inspector/${disks}`);
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`, { timeout: 60_000 });
    await page.locator(testid('inspector-run-name')).filter({ hasText: 'walk disks' }).waitFor();
    await page.locator('label', { has: page.locator(testid('show-spheres')) }).filter({ hasText: 'Disks' }).waitFor();
    await page.selectOption(testid('colour-by'), 'class');
    await page.click('button[title="Top (3)"]');
    await page.waitForSelector(`${testid('inspector-canvas')}[data-ready="1"]`);
    await walk.shot('inspector-stacking-2d');

    // Every export the run's artifacts allow, from History.
    await page.click(testid('nav-history'));
    await page.fill(testid('history-search'), 'walk stacking');
    await page.locator(testid('history-total')).filter({ hasText: /^1 run/ }).waitFor();
    // The row by its name: under load the first row could still be the last list's ('walk disks').
    await page.locator('[data-testid^="history-row-"]').filter({ hasText: 'walk stacking' }).first().click();
    await page.locator(testid('details-metrics')).filter({ hasText: 'voidRatio' }).waitFor();
    await walk.shot('history-stacking');
    const formats = (await services.dispatch('exports.formats', {})).filter((f) => ['results', 'table', 'volume-or-table'].includes(f.needs));
    expect(formats.map((f) => f.id)).toEqual(expect.arrayContaining(['json', 'metrics-csv', 'series-csv', 'csv', 'lammps', 'stl-particles']));
    const particles = run.metrics.particles as number;
    for (const f of formats) {
      await page.selectOption(testid('history-export-format'), f.id);
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.click(testid('history-export'))]);
      expect(download.suggestedFilename(), f.id).toMatch(new RegExp(`^walk.stacking.*\\.${f.extension}$`));
      const text = readFileSync(await download.path()).toString();
      const lines = text.trim().split('\n');
      if (f.id === 'json') expect(JSON.parse(text).metrics.particles).toBe(particles);
      if (f.id === 'metrics-csv') expect(text).toMatch(/^voidRatio,0\.(9|8999)/m);
      if (f.id === 'series-csv') expect(text).toContain('sieve curve achieved');
      if (f.id === 'csv') {
        // The sphere CSV (the importer's format) of the exports: x, y, z, r (and type when a table has one).
        expect(lines[0].split(',').slice(0, 4)).toEqual(['x', 'y', 'z', 'r']);
        expect(lines.length).toBe(particles + 1);
      }
      if (f.id === 'lammps') expect(text).toContain(`ITEM: NUMBER OF ATOMS\n${particles}\n`);
      if (f.id === 'stl-particles') expect(text.match(/^solid /gm)?.length).toBe(particles);
    }
    await page.fill(testid('history-search'), '');
    expect(walk.pageErrors).toEqual([]);
  });
});
