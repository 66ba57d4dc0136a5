/**
 * Finding the e2e browser (browser.ts), and what `vitest` does without one: the e2e suites are skipped
 * with a notice and the run passes, unless PACKBENCH_E2E=required. Runs in the unit project (it needs
 * no browser itself).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from './browser';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'packbench-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fake executable `name` in a fresh directory of its own. */
function fakeBrowser(sub: string, name: string, exec = true): string {
  mkdirSync(join(dir, sub), { recursive: true });
  const p = join(dir, sub, name);
  writeFileSync(p, '#!/bin/sh\n');
  chmodSync(p, exec ? 0o755 : 0o644);
  return p;
}

describe('findChromium', () => {
  it('takes PACKBENCH_CHROMIUM when set, and then only that one', () => {
    fakeBrowser('a', 'chromium'); // on PATH, but PACKBENCH_CHROMIUM wins even when it is wrong
    const chosen = fakeBrowser('b', 'my-chrome');
    expect(findChromium({ PACKBENCH_CHROMIUM: chosen, PATH: join(dir, 'a') }).path).toBe(chosen);
    const notExec = fakeBrowser('c', 'broken', false);
    const r = findChromium({ PACKBENCH_CHROMIUM: notExec, PATH: join(dir, 'a') });
    expect(r.path).toBe(null);
    expect(r.looked).toContain('not an executable');
    expect(findChromium({ PACKBENCH_CHROMIUM: join(dir, 'missing'), PATH: join(dir, 'a') }).path).toBe(null);
  });

  it('searches chromium, chromium-browser, google-chrome on PATH, in that order', () => {
    const chrome = fakeBrowser('d', 'google-chrome');
    const cb = fakeBrowser('e', 'chromium-browser');
    expect(findChromium({ PATH: [join(dir, 'd'), join(dir, 'e')].join(delimiter) }).path).toBe(cb);
    expect(findChromium({ PATH: join(dir, 'd') }).path).toBe(chrome);
    fakeBrowser('f', 'chromium', false); // not executable: skipped
    expect(findChromium({ PATH: [join(dir, 'f'), join(dir, 'd')].join(delimiter) }).path).toBe(chrome);
    expect(findChromium({ PATH: join(dir, 'nothing-here') })).toEqual({ path: null, looked: expect.stringContaining('chromium, chromium-browser, google-chrome on PATH') });
  });
});

/** Runs one e2e suite in a child vitest with the given environment. */
function vitest(env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'e2e', 'test/e2e/host.test.ts'],
      { cwd: root, env: { ...process.env, ...env, CI: '1', NO_COLOR: '1' }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('the e2e suites without a browser', () => {
  it('are skipped with a visible notice and pass', async () => {
    const r = await vitest({ PACKBENCH_CHROMIUM: join(dir, 'missing'), PACKBENCH_E2E: '' });
    expect(r.out).toContain('NOTICE: the e2e suites (test/e2e) are SKIPPED');
    expect(r.out).toMatch(/Tests\s+\d+ skipped/);
    expect(r.code).toBe(0);
  });

  it('fail when PACKBENCH_E2E=required', async () => {
    const r = await vitest({ PACKBENCH_CHROMIUM: join(dir, 'missing'), PACKBENCH_E2E: 'required' });
    expect(r.out).toContain('PACKBENCH_E2E=required but no Chromium was found');
    expect(r.code).not.toBe(0);
  });
});
