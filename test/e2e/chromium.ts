/**
 * Chromium for the e2e tests and the browser bench (browser.ts finds it): the Electron binary cannot
 * be downloaded on these machines, so the renderer is driven in Chromium against the web host.
 * SwiftShader gives it WebGL2 without a GPU.
 */
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { startHost, type Host } from '../../main/host/server';
import type { Services } from '../../main/services/services';
import { findChromium } from './browser';

/** Screenshots and timings of the e2e tests, looked at by eye before UI work is called done. */
export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

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

const lookup = findChromium();

/** The browser's path, or null: suites wrap themselves in `describe.skipIf(!CHROMIUM)`. */
export const CHROMIUM = lookup.path;

export function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error(`no Chromium found (looked for ${lookup.looked}): install chromium or set PACKBENCH_CHROMIUM to its path`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** A web host over the test's services and one Chromium page on it. */
export interface BrowserSession {
  host: Host;
  browser: Browser;
  page: Page;
  /** Closes the browser and the host (the services stay the caller's). */
  close(): Promise<void>;
}

export async function openBrowserSession(services: Services, pageOptions: BrowserContextOptions = {}): Promise<BrowserSession> {
  const host = await startHost({ services });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, ...pageOptions });
  return {
    host,
    browser,
    page,
    close: async () => {
      await browser.close();
      await host.close();
    },
  };
}
