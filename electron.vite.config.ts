// electron-vite: main/index.ts (with the generic engine worker, main/workers/engine.ts, as its own entry), the sandboxed preload
// (CommonJS: sandboxed preloads cannot be ES modules), and the renderer (renderer/index.html).
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { onwarn } from './renderer/build-warnings';

const root = import.meta.dirname;
/** The worker entries in main/workers/ (the generic engine worker; not the shared runtime and protocol). */
const workers = Object.fromEntries(
  readdirSync(resolve(root, 'main/workers'))
    .filter((f) => f.endsWith('.ts') && !['runtime.ts', 'protocol.ts'].includes(f))
    .map((f) => [`workers/${f.slice(0, -3)}`, resolve(root, 'main/workers', f)]),
);

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: { index: resolve(root, 'main/index.ts'), ...workers },
        // Shared chunks beside index.js, not in chunks/: main/ finds files relative to its module
        // (new URL('./workers/imports.js', import.meta.url), '../../package.json'), and from
        // out/main/chunks/ the imports worker (shape previews, mesh and sphere imports) was not found.
        output: { chunkFileNames: '[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve(root, 'main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [vue()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: { input: resolve(root, 'renderer/index.html'), onwarn },
      chunkSizeWarningLimit: 4000,
    },
  },
});
