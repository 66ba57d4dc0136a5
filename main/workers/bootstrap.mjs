// Worker bootstrap: Node cannot run a .ts worker by itself, so the pool starts this plain-JS file
// with workerData.entry; it registers tsx when the entry is TypeScript (running from source: CLI,
// tests, web host), then imports the entry. Bundled entries (.js, electron-vite) need no tsx.
import { workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

const entry = workerData.entry;
if (entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(pathToFileURL(entry).href);
