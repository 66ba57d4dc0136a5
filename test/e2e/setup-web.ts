/**
 * globalSetup of the e2e project: finds the browser (browser.ts) and builds the web renderer (out/web)
 * when it is missing or older than any of its sources, so the e2e tests always drive the current
 * renderer. Without a browser it prints a notice and builds nothing (the suites skip themselves), or
 * fails when PACKBENCH_E2E=required.
 *
 * The build (about 40 s on one core) runs in the background: the e2e project runs after the unit and
 * renderer files (vitest.config.ts, groupOrder), which use the other core meanwhile, and each e2e file
 * waits for the build's end first (web-built.ts, its setupFiles), failing with its output if it failed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { e2eRequired, findChromium, missingBrowserMessage } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file the build's outcome is written to once it ends; null: nothing to wait for. */
    webBuild: string | null;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));
/** What the web build reads besides node_modules: a change to any of these makes out/web stale. */
const SOURCES = ['renderer', 'main/api.ts', 'main/wire.ts', 'core', 'package.json', 'package-lock.json', 'tsconfig.json'];
/**
 * Written once a build has ended well, holding the time it started: out/web is current when no source
 * changed since, and nothing rewrote out/web after (an interrupted build leaves no stamp).
 */
const STAMP = join(root, 'out', 'web.built');
const INDEX = join(root, 'out', 'web', 'index.html');

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

function webIsCurrent(): boolean {
  if (!existsSync(STAMP) || !existsSync(INDEX)) return false;
  const startedMs = Number(readFileSync(STAMP, 'utf8'));
  return statSync(INDEX).mtimeMs <= statSync(STAMP).mtimeMs && startedMs >= Math.max(...SOURCES.map((p) => newestMtime(join(root, p))));
}

/** Outcome of the build as the e2e files read it: null when it ended well, else why not. */
interface Outcome {
  error: string | null;
}

export default function setup(project: TestProject): (() => Promise<void>) | void {
  project.provide('webBuild', null);
  const browser = findChromium();
  if (!browser.path) {
    if (e2eRequired()) throw new Error(missingBrowserMessage(browser, true));
    process.stderr.write(`\n${missingBrowserMessage(browser, false)}\n\n`);
    return;
  }
  if (webIsCurrent()) return;
  const statusDir = mkdtempSync(join(tmpdir(), 'packbench-web-build-'));
  const status = join(statusDir, 'outcome.json');
  project.provide('webBuild', status);
  rmSync(STAMP, { force: true });
  const startedMs = Date.now();
  const args = [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'renderer/vite.web.config.ts', '--logLevel', 'warn'];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  // Kept to be printed in one piece: lines of its own in the middle of the tests' report would be lost there.
  let output = '';
  child.stdout.on('data', (d: Buffer) => void (output += d));
  child.stderr.on('data', (d: Buffer) => void (output += d));
  const ended = new Promise<void>((resolve) => {
    let told = false;
    const finish = (outcome: Outcome) => {
      if (told) return;
      told = true;
      // Whole or not at all for the readers that look for it.
      writeFileSync(`${status}.partial`, JSON.stringify(outcome));
      renameSync(`${status}.partial`, status);
      resolve();
    };
    const what = `the web build (vite ${args.slice(1).join(' ')})`;
    child.once('error', (err) => finish({ error: `${what} could not start: ${err.message}` }));
    child.once('close', (code, signal) => {
      if (code !== 0) return finish({ error: `${what} failed (${signal ?? `exit code ${code}`}):\n${output}` });
      mkdirSync(dirname(STAMP), { recursive: true });
      writeFileSync(STAMP, String(startedMs));
      if (output) process.stderr.write(`\n${what} said:\n${output}\n`);
      finish({ error: null });
    });
  });
  return async () => {
    // No e2e test waited for it (all filtered out): no need to finish it (it leaves no stamp).
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await ended;
    rmSync(statusDir, { recursive: true, force: true });
  };
}

/** Waits for the build the globalSetup started, if any (`status`: the webBuild it provided); throws its error. */
export async function webBuilt(status: string | null): Promise<void> {
  if (status === null) return;
  while (!existsSync(status)) await new Promise((r) => setTimeout(r, 100));
  const { error } = JSON.parse(readFileSync(status, 'utf8')) as Outcome;
  if (error !== null) throw new Error(error);
}
