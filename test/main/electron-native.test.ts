/**
 * The package `npm run dist` makes (electron-builder.yml): the Electron fuses it flips, and
 * better-sqlite3 for Electron in it, without touching the Node build in
 * node_modules that the tests, the CLI and the web host load. electron-builder's own rebuild
 * (npmRebuild) recompiled node_modules/better-sqlite3 in place for Electron's ABI: after a
 * `npm run dist`, Node refused it ('compiled against a different Node.js version').
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { afterPack, placeNativeBuild } from '../../scripts/electron-native.mjs';
import { afterEachTest } from './helpers';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { dir } = afterEachTest();

/** electron-builder.yml as electron-builder reads and validates it (against its own schema). */
async function builderConfig(): Promise<Record<string, unknown>> {
  const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
  const { DebugLogger } = require('builder-util');
  const config = await getConfig(root, null, null);
  await validateConfiguration(config, new DebugLogger(false));
  return config;
}

let config: Record<string, unknown>;
beforeAll(async () => {
  config = await builderConfig();
});

describe('the package electron-builder makes', () => {
  it('cannot be run as another program: no ELECTRON_RUN_AS_NODE, NODE_OPTIONS, --inspect, nor an app from outside app.asar', () => {
    // Without these fuses anyone who can start the installed (signed) app can make it run their own
    // code: ELECTRON_RUN_AS_NODE=1 turns it into node, NODE_OPTIONS=--require and --inspect inject a
    // script or a debugger into its main process. PackBench needs none of them: its engines run in
    // worker_threads, not in child processes of its own binary.
    expect(config.electronFuses).toMatchObject({ runAsNode: false, enableNodeOptionsEnvironmentVariable: false, enableNodeCliInspectArguments: false, onlyLoadAppFromAsar: true });
  });

  it('installs as a deb with every library Electron needs: electron-builder\'s own list and more, not fewer', () => {
    // A deb's `depends` replaces electron-builder's list: it had dropped libnotify4 (the app's
    // notifications of runs that end), libxtst6, xdg-utils, libatspi2.0-0, libuuid1, libsecret-1-0.
    const types = readFileSync(require.resolve('app-builder-lib/out/options/linuxOptions.d.ts'), 'utf8');
    const debOptions = types.slice(types.indexOf('export interface DebOptions'));
    const defaults = JSON.parse(/@default (\[[^\]]*\])/.exec(debOptions)![1]) as string[];
    expect(defaults).toContain('libnotify4');
    expect((config.deb as { depends: string[] }).depends).toEqual(expect.arrayContaining(defaults));
  });
});

describe('better-sqlite3 in a package', () => {
  it('electron-builder leaves node_modules alone and puts the Electron build in through the hook', async () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.afterPack).toBe('./scripts/electron-native.mjs');
    // The hook as electron-builder loads it (importing the script builds nothing).
    const { resolveFunction } = require('app-builder-lib/out/util/resolve.js');
    // (Node's own import of it, not vitest's: the same function, another module instance.)
    expect(String(await resolveFunction('module', config.afterPack as string, 'afterPack', root))).toBe(String(afterPack));
  });

  it('puts the Electron build of the package platform and arch over the Node build copied into app.asar.unpacked', async () => {
    const appOutDir = dir('packbench-pack-');
    const resources = join(appOutDir, 'resources');
    const packaged = join(resources, 'app.asar.unpacked/node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    mkdirSync(dirname(packaged), { recursive: true });
    writeFileSync(packaged, 'built for Node');
    const electronBuild = join(dir('packbench-native-'), 'better_sqlite3.node');
    writeFileSync(electronBuild, 'built for Electron');
    const asked: unknown[] = [];
    const context = { appOutDir, electronPlatformName: 'win32', arch: 3, packager: { getResourcesDir: (d: string) => join(d, 'resources') } };
    await placeNativeBuild(context, async (target) => (asked.push(target), electronBuild));
    expect(asked).toEqual([{ platform: 'win32', arch: 'arm64' }]);
    expect(readFileSync(packaged, 'utf8')).toBe('built for Electron');
    // A package without the Node build where the app loads it: said, not shipped broken.
    const elsewhere = { ...context, appOutDir: dir('packbench-pack-') };
    await expect(placeNativeBuild(elsewhere, async () => electronBuild)).rejects.toThrow(/better_sqlite3\.node is not in the package.*asarUnpack/);
  });
});
