#!/usr/bin/env node
// Prepares this checkout to start Electron (`npm start`, `npm run dev`):
//  1. the Electron binary: `npm install` does not download it (electron's install script is
//     disabled in package.json allowScripts so that installs work offline); fetch it now if missing;
//  2. better-sqlite3 compiled for Electron's ABI, into .electron-native/better_sqlite3.node,
//     WITHOUT touching node_modules/better-sqlite3/build (Node — tests, CLI, web host — keeps its
//     own build). main/index.ts passes that file to better-sqlite3's `nativeBinding` option.
// Both steps are skipped when already done. Packaged builds (`npm run dist`) do not use this:
// electron-builder rebuilds native modules for Electron itself.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const outDir = join(root, '.electron-native');
const binary = join(outDir, 'better_sqlite3.node');
const stampFile = join(outDir, 'stamp.json');

const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
const sqliteVersion = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')).version;

function log(message) {
  process.stderr.write(`electron-native: ${message}\n`);
}

// 1. The Electron binary (electron/install.js returns at once when it is present and current).
try {
  execFileSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' } });
} catch {
  log(`could not download the Electron ${electronVersion} binary (offline?). Set ELECTRON_MIRROR or copy it to ${join(electronDir, 'dist')}.`);
  process.exit(1);
}

// 2. better-sqlite3 for Electron's ABI, in a private copy of the package.
const stamp = { electron: electronVersion, betterSqlite3: sqliteVersion, platform: process.platform, arch: process.arch };
if (existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === JSON.stringify(stamp)) process.exit(0);

log(`building better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} in ${relative(root, outDir)}/`);
const appDir = join(outDir, 'app');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(join(appDir, 'node_modules'), { recursive: true });
writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'packbench-native', private: true, dependencies: { 'better-sqlite3': sqliteVersion } }));
const copy = join(appDir, 'node_modules', 'better-sqlite3');
cpSync(sqliteDir, copy, { recursive: true, filter: (src) => !(src + sep).startsWith(join(sqliteDir, 'build') + sep) });

const { rebuild } = await import('@electron/rebuild');
await rebuild({ buildPath: appDir, electronVersion, onlyModules: ['better-sqlite3'], force: true });
copyFileSync(join(copy, 'build', 'Release', 'better_sqlite3.node'), binary);
rmSync(appDir, { recursive: true, force: true });
writeFileSync(stampFile, JSON.stringify(stamp));
log(`wrote ${relative(root, binary)}`);
