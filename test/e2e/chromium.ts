/**
 * Debian's Chromium for the e2e tests and the browser bench: the Electron binary cannot be
 * downloaded on these machines, so the renderer is driven in Chromium against the web host.
 * SwiftShader gives it WebGL2 without a GPU.
 */
import { chromium, type Browser } from 'playwright-core';
import { fileURLToPath } from 'node:url';

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

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}
