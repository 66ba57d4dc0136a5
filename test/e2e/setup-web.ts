/**
 * globalSetup of the e2e project: finds the browser (browser.ts) and builds the web renderer (out/web)
 * once when it is missing or older than any of its sources, so the e2e tests always drive the current
 * renderer. Without a browser it prints a notice and builds nothing (the suites skip themselves), or
 * fails when PACKBENCH_E2E=required.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { e2eRequired, findChromium, missingBrowserMessage } from './browser';

const root = fileURLToPath(new URL('../..', import.meta.url));

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

export default function setup(): void {
  const browser = findChromium();
  if (!browser.path) {
    if (e2eRequired()) throw new Error(missingBrowserMessage(browser, true));
    process.stderr.write(`\n${missingBrowserMessage(browser, false)}\n\n`);
    return;
  }
  const built = join(root, 'out', 'web', 'index.html');
  const sources = ['renderer', 'main/api.ts', 'main/wire.ts', 'core', 'package.json'].map((p) => newestMtime(join(root, p)));
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources)) return;
  execFileSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'renderer/vite.web.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
}
