// The renderer built for the browser (`npm run build:web` → out/web), served by the web host.
// Same sources as the Electron renderer; in a browser renderer/src/main.ts installs the WebSocket
// bridge (renderer/src/bridge) because there is no preload.
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { onwarn } from './build-warnings';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [vue()],
  build: {
    outDir: here('../out/web'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 4000,
    reportCompressedSize: false,
    rollupOptions: { onwarn },
  },
});
