/**
 * The web host end to end from a real Chromium: the built renderer is served, window.packbench (the
 * WebSocket bridge) reaches the services with typed arrays intact, events arrive, a wrong token is
 * refused, and the page renders (screenshot in test/e2e/artifacts/host.png).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import type { Host } from '../../main/host/server';
import type { Services } from '../../main/services/services';
import type { PackbenchApi } from '../../main/api';
import { fixtureServices } from '../main/helpers';
import { ARTIFACTS, CHROMIUM } from './chromium';
import { openFolderSession, type FolderSession } from './session';


/** A GET with a raw path and headers (fetch normalises paths and will not send another Host). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

let services: Services;
let session: FolderSession;
let host: Host;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  session = await openFolderSession('packbench-e2e-', (dataDir) => fixtureServices(dataDir, { autoStart: true }));
  ({ services, host, browser, page } = session);
});

afterAll(() => session?.close());

describe.skipIf(!CHROMIUM)('web host', () => {
  it('serves the renderer with a CSP and only on its own Host', async () => {
    const res = await fetch(`http://127.0.0.1:${host.port}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await res.text()).toMatch(/<div id="app">/);
    // DNS rebinding: a page of another site resolved to 127.0.0.1 sends its own Host.
    expect(await rawGet('/', { host: `evil.example:${host.port}` })).toBe(421);
    expect(await rawGet('/%2e%2e/package.json')).toBe(404);
    expect(await rawGet('/..%2f..%2fpackage.json')).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/api/runs/x/export?format=json&token=wrong`)).status).toBe(401);
  });

  it('gives the page a working window.packbench: calls, typed arrays, events, validation errors', async () => {
    await page.goto(host.url);
    await page.waitForFunction(() => 'packbench' in globalThis);
    const result = await page.evaluate(async () => {
      // (Serialised into the page: no closures; globalThis is the page's window.)
      const api = (globalThis as unknown as { packbench: PackbenchApi }).packbench;
      const info = await api.call('app.info', {});
      const engines = await api.call('engines.list', {});
      const statuses: string[] = [];
      // Until the run ends, however long the machine takes (it had 10 s); the test's timeout bounds it.
      const ended = new Promise<void>((resolve) => {
        const off = api.on('run.updated', (r) => {
          statuses.push(r.status);
          if (['done', 'failed', 'cancelled'].includes(r.status)) { off(); resolve(); }
        });
      });
      const { runIds } = await api.call('runs.enqueue', { spec: { engine: 'counter', name: 'from the page', seed: 4, params: { steps: 15, volume: true } } });
      await ended;
      const series = await api.call('runs.series', { id: runIds[0] });
      const slice = await api.call('runs.slice', { id: runIds[0], axis: 'z', index: 1 });
      const particles = await api.call('runs.particles', { id: runIds[0] });
      const exported = await api.call('runs.export', { id: runIds[0], format: 'json' });
      let invalid: unknown = null;
      try {
        await api.call('runs.enqueue', { spec: { engine: 'counter', name: 'bad', seed: 1, params: { steps: 0 } } });
      } catch (err) {
        invalid = { code: (err as { code: string }).code, issues: (err as { issues: unknown }).issues };
      }
      return {
        info,
        engineIds: engines.map((e) => e.id),
        stepsSchema: (engines[0].paramsJsonSchema as { properties: Record<string, unknown> }).properties.steps,
        statuses,
        seriesIsF64: series[0].y instanceof Float64Array,
        sliceIsU32: slice.labels instanceof Uint32Array,
        slice: [slice.width, slice.height, slice.labels[0]],
        xColumn: Array.from(particles.columns.x),
        exportName: exported.fileName,
        exportIsBytes: exported.bytes instanceof Uint8Array,
        exportJson: JSON.parse(new TextDecoder().decode(exported.bytes)).metrics?.steps,
        invalid,
      };
    });
    expect(result.info).toMatchObject({ version: '0.1.0', dataDir: services.dataDir, electron: false });
    expect(result.engineIds).toEqual(['counter']);
    expect(result.stepsSchema).toMatchObject({ default: 10, minimum: 1, unit: 'steps' });
    expect(result.statuses).toEqual(expect.arrayContaining(['queued', 'running', 'done']));
    expect(result.seriesIsF64).toBe(true);
    expect(result.sliceIsU32).toBe(true);
    expect(result.slice).toEqual([8, 6, 48]);
    expect(result.xColumn).toEqual([0, 1.5, 3, 4.5, 6]);
    expect(result.exportName).toMatch(/\.json$/);
    expect(result.exportIsBytes).toBe(true);
    expect(result.exportJson).toBe(15);
    expect(result.invalid).toEqual({ code: 'invalid', issues: [{ path: 'spec.params.steps', message: 'must be a whole number in [1, 1000000], got 0' }] });

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${ARTIFACTS}host.png` });
  });

  it('refuses a page whose token is wrong: calls reject instead of hanging', async () => {
    const other = await browser.newPage();
    await other.goto(`http://127.0.0.1:${host.port}/?token=wrong`);
    await other.waitForFunction(() => 'packbench' in globalThis);
    const outcome = await other.evaluate(() =>
      (globalThis as unknown as { packbench: PackbenchApi }).packbench.call('app.info', {}).then(
        () => 'accepted',
        (err: { code: string }) => err.code,
      ),
    );
    expect(outcome).toBe('unavailable');
    await other.close();
  });

  it('serves exports as downloads with the token', async () => {
    const { rows } = await services.dispatch('runs.list', { offset: 0, limit: 1 });
    const res = await fetch(`http://127.0.0.1:${host.port}/api/runs/${rows[0].id}/export?format=series-csv&token=${host.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename=".*\.csv"/);
    expect(await res.text()).toMatch(/sum/);
  });
});
