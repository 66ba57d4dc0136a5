/// <reference lib="dom" />
/**
 * The inspector in Debian Chromium with N synthetic spheres (a fake window.packbench injected into
 * the page, so only the renderer is measured): time to the first complete frame, frames per second
 * while orbiting, and the time from a click to the picked particle's record. Needs the built
 * renderer (npm run build:web) and a Chromium (test/e2e/browser.ts: PACKBENCH_CHROMIUM or one on PATH).
 *
 * Chromium runs headless on SwiftShader (software GL on the CPU), so the frame rate here is a floor
 * on this machine, not what a desktop GPU draws; the load and pick times are CPU-side and do carry over.
 *
 *   npm run bench -- inspector-browser [particles ...]     (default: 10000 100000)
 */
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/e2e/chromium';
import { printTable, writeResults, type Row } from './_harness';

const webRoot = fileURLToPath(new URL('../out/web/', import.meta.url));
if (!existsSync(join(webRoot, 'index.html'))) {
  console.error('no built renderer in out/web: run npm run build:web first');
  process.exit(2);
}
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const sizes = counts.length ? counts : [10_000, 100_000];

const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0])).replace(/^(\.\.[/\\])+/, '');
  const file = join(webRoot, path === '/' ? 'index.html' : path);
  if (!file.startsWith(webRoot) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;

const browser = await launchChromium();
const rows: Row[] = [];
try {
  for (const n of sizes) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    // The fake API: one finished run whose particle table holds n random spheres in a cube. Passed
    // as source text: a function would be serialised after tsx's transform, helpers and all.
    await page.addInitScript(`(() => {
      const n = ${n};
      let s = 1;
      const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
      const L = Math.cbrt(n) * 1.2;
      const cols = { id: new Int32Array(n), type: new Int32Array(n), x: new Float64Array(n), y: new Float64Array(n), z: new Float64Array(n), radius: new Float64Array(n) };
      for (let i = 0; i < n; i++) {
        cols.id[i] = i; cols.type[i] = i % 3; cols.x[i] = rnd() * L; cols.y[i] = rnd() * L; cols.z[i] = rnd() * L; cols.radius[i] = 0.3 + 0.2 * rnd();
      }
      const run = { id: 'bench', name: n + ' spheres', engine: 'synthetic', status: 'done', priority: 0, seed: 1, progress: { done: 1, total: 1, phase: '' }, createdAt: new Date().toISOString(), startedAt: null, finishedAt: null, wallSeconds: 1, metrics: {}, batchId: null, error: null };
      const answers = {
        'runs.get': { ...run, spec: {}, params: {}, counters: {}, log: [], appVersion: '', host: null, threads: 1, attempts: 1 },
        'runs.series': [],
        'runs.artifacts': [{ id: 1, kind: 'table', name: 'particles', path: '', bytes: 0, checksum: '', meta: {} }],
        'runs.particles': { total: n, count: n, columns: cols, meta: { box: [L, L, L] } },
        'queue.state': { paused: false, running: 0, queued: 0, concurrency: 1 },
        'app.info': { version: 'bench', dataDir: '-', cores: 1, totalMemoryBytes: 0, platform: 'linux', electron: false },
        'runs.list': { total: 0, rows: [] },
      };
      window.packbench = { call: async (m) => answers[m] ?? [], on: () => () => {} };
    })();`);
    const canvas = '[data-testid="inspector-canvas"]';
    const t0 = Date.now();
    await page.goto(`http://127.0.0.1:${port}/#/inspector/bench`);
    await page.waitForFunction((sel) => document.querySelector<HTMLCanvasElement>(sel)?.dataset.ready === '1', canvas, { timeout: 300_000 });
    const loadMs = Date.now() - t0;
    const frames = (): Promise<number> => page.evaluate((sel) => Number(document.querySelector<HTMLCanvasElement>(sel)!.dataset.frames), canvas);
    const box = (await page.locator(canvas).boundingBox())!;
    const f0 = await frames();
    const d0 = Date.now();
    await page.mouse.move(box.x + 100, box.y + 100);
    await page.mouse.down();
    for (let k = 1; k <= 5; k++) await page.mouse.move(box.x + 100 + k * 15, box.y + 100);
    await page.mouse.up();
    await page.waitForFunction((sel) => document.querySelector<HTMLCanvasElement>(sel)?.dataset.ready === '1', canvas);
    const orbitS = (Date.now() - d0) / 1000;
    const orbitFrames = (await frames()) - f0;
    // Click near the centre until the click lands on a sphere (random packings have gaps).
    await page.waitForTimeout(1000);
    let pickMs = -1;
    for (const [fx, fy] of [[0.5, 0.5], [0.45, 0.55], [0.55, 0.45], [0.5, 0.6], [0.4, 0.5]]) {
      const p0 = Date.now();
      await page.mouse.click(box.x + box.width * fx, box.y + box.height * fy);
      if (await page.waitForSelector('[data-testid="picked-record"]', { timeout: 5_000 }).then(() => true, () => false)) {
        pickMs = Date.now() - p0;
        break;
      }
    }
    rows.push({ particles: n, 'first complete frame (ms)': loadMs, 'orbit frames': orbitFrames, 'SwiftShader fps': +(orbitFrames / orbitS).toFixed(2), 'click to record (ms)': pickMs });
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
printTable('Inspector in headless Chromium (SwiftShader, software GL)', rows);
writeResults('inspector-browser', { spheres: rows });
