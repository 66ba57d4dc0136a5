import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
import { availableParallelism } from 'node:os';

// Three projects: engines and services in Node, renderer components in happy-dom, and the
// end-to-end walk in a real Chromium against the web host.
export default defineConfig({
  test: {
    // One test file per core. Vitest's default (cores - 1) ran unit and renderer files one at a time
    // on the 2-core CI machine, while most of them wait (on workers, sockets, child processes).
    maxWorkers: availableParallelism(),
    projects: [
      {
        test: {
          name: 'unit',
          // browser.test.ts checks how the e2e suites find (or miss) their browser: it needs none.
          include: ['test/core/**/*.test.ts', 'test/main/**/*.test.ts', 'test/bench/**/*.test.ts', 'test/e2e/browser.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [vue()],
        test: {
          name: 'renderer',
          include: ['test/renderer/**/*.test.ts'],
          environment: 'happy-dom',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/browser.test.ts'],
          // Finds the browser (test/e2e/browser.ts; none: the suites skip with a notice, or fail when
          // PACKBENCH_E2E=required). Starts building out/web when it is missing or older than the
          // renderer sources, in the background; each e2e file first waits for that build (web-built.ts).
          globalSetup: ['test/e2e/setup-web.ts'],
          setupFiles: ['test/e2e/web-built.ts'],
          // After the unit and renderer files, which keep the second core busy during the build (it
          // runs on one; the e2e files first would have waited for it, two at a time, a core idle).
          // Two e2e files at a time, each with its own host, data folder and browser.
          sequence: { groupOrder: 1 },
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
