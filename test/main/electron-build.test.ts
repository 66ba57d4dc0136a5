/**
 * The Electron main process as electron-vite bundles it (out/main, for `npm start` and the package),
 * built in memory: the files its code finds beside itself through import.meta.url (worker entries,
 * package.json) are where that code looks, from whichever chunk the code landed in. The CLI, the
 * web host and the other tests run main/ from its sources, where every such path is right.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'vite';
import { resolveConfig } from 'electron-vite';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

interface OutputChunk {
  type: 'chunk' | 'asset';
  fileName: string;
  isEntry?: boolean;
  code?: string;
}

async function bundleMain(): Promise<OutputChunk[]> {
  const env = process.env.NODE_ENV_ELECTRON_VITE;
  process.env.NODE_ENV_ELECTRON_VITE = 'production'; // as `electron-vite build` sets it
  try {
    const config = await resolveConfig({ root, logLevel: 'warn' }, 'build', 'production');
    const main = config.config!.main!;
    main.build = { ...main.build, write: false };
    const result = (await build(main)) as { output: OutputChunk[] } | { output: OutputChunk[] }[];
    return (Array.isArray(result) ? result : [result]).flatMap((r) => r.output);
  } finally {
    if (env === undefined) delete process.env.NODE_ENV_ELECTRON_VITE;
    else process.env.NODE_ENV_ELECTRON_VITE = env;
  }
}

describe('the bundled main process', () => {
  it('finds its worker entries and package.json from every chunk, and starts helper threads from an entry', async () => {
    const outputs = await bundleMain();
    const outDir = join(root, 'out/main');
    const emitted = new Set(outputs.map((o) => join(outDir, o.fileName)));
    const wrong: string[] = [];
    for (const chunk of outputs) {
      if (chunk.type !== 'chunk') continue;
      const at = join(outDir, chunk.fileName);
      // new URL("./workers/imports.js", import.meta.url), also as the built side of a ternary on '.ts'
      for (const [, path] of chunk.code!.matchAll(/"(\.\.?\/[^"]+)",\s*import\.meta\.url\)/g)) {
        const target = resolve(dirname(at), path);
        const found = target.startsWith(outDir) ? emitted.has(target) : existsSync(target);
        if (!found) wrong.push(`${chunk.fileName}: '${path}' is ${relative(root, target)}, which does not exist`);
      }
      // runtime.ts runs its helper threads from its own file: that file must be a worker entry.
      if (/new Worker\(new URL\(import\.meta\.url\)/.test(chunk.code!) && !chunk.isEntry) wrong.push(`${chunk.fileName}: starts workers from itself, not an entry`);
    }
    expect(wrong).toEqual([]);
    expect([...emitted].map((f) => relative(outDir, f))).toEqual(expect.arrayContaining(['index.js', 'workers/engine.js', 'workers/imports.js']));
  });
});
