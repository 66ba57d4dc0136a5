#!/usr/bin/env node
// better-sqlite3 compiled for Electron's ABI, WITHOUT touching node_modules/better-sqlite3/build
// (Node — tests, CLI, web host — keeps its own build): each build is made in a private copy of the
// package and kept as .electron-native/<platform>-<arch>/better_sqlite3.node (skipped when done).
//  - Run as a script (`npm start`, `npm run dev`): fetches the Electron binary if missing
//    (`npm install` does not: electron's install script is disabled in package.json allowScripts so
//    that installs work offline), then builds for this machine; main/index.ts passes that file to
//    better-sqlite3's `nativeBinding` option.
//  - electron-builder's afterPack hook (`npm run dist`, electron-builder.yml): builds for the
//    package's platform and arch and puts it over the Node build copied into app.asar.unpacked.
//    electron-builder's own rebuild (npmRebuild) is off: it recompiled node_modules in place.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
const sqliteVersion = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')).version;

function log(message) {
  process.stderr.write(`electron-native: ${message}\n`);
}

/** The Electron binary (electron/install.js returns at once when it is present and current). */
function fetchElectronBinary() {
  try {
    execFileSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' } });
  } catch {
    log(`could not download the Electron ${electronVersion} binary (offline?). Set ELECTRON_MIRROR or copy it to ${join(electronDir, 'dist')}.`);
    process.exit(1);
  }
}

/** better-sqlite3 for Electron's ABI on `platform` and `arch`: the path of its .node file. */
export async function buildForElectron({ platform, arch }) {
  const outDir = join(root, '.electron-native', `${platform}-${arch}`);
  const binary = join(outDir, 'better_sqlite3.node');
  const stampFile = join(outDir, 'stamp.json');
  const stamp = JSON.stringify({ electron: electronVersion, betterSqlite3: sqliteVersion, platform, arch });
  if (existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return binary;

  log(`building better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (${platform}-${arch}) in ${relative(root, outDir)}/`);
  const appDir = join(outDir, 'app');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(appDir, 'node_modules'), { recursive: true });
  writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'packbench-native', private: true, dependencies: { 'better-sqlite3': sqliteVersion } }));
  const copy = join(appDir, 'node_modules', 'better-sqlite3');
  cpSync(sqliteDir, copy, { recursive: true, filter: (src) => !(src + sep).startsWith(join(sqliteDir, 'build') + sep) });

  const { rebuild } = await import('@electron/rebuild');
  await rebuild({ buildPath: appDir, electronVersion, platform, arch, onlyModules: ['better-sqlite3'], force: true });
  copyFileSync(join(copy, 'build', 'Release', 'better_sqlite3.node'), binary);
  rmSync(appDir, { recursive: true, force: true });
  writeFileSync(stampFile, stamp);
  log(`wrote ${relative(root, binary)}`);
  return binary;
}

/** electron-builder's Arch enum (builder-util), by number. */
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

/**
 * Puts the Electron build (`build`, for the package's platform and arch) where the packaged app
 * loads better-sqlite3 from: asarUnpack keeps every .node file out of the archive.
 */
export async function placeNativeBuild(context, build = buildForElectron) {
  const arch = ARCH_NAMES[context.arch];
  // A universal macOS app is merged from its x64 and arm64 packages, each already done.
  if (arch === 'universal') return;
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  const target = join(context.packager.getResourcesDir(context.appOutDir), 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(target)) throw new Error(`${target}: better_sqlite3.node is not in the package where the app loads it (electron-builder.yml: asarUnpack "**/*.node")`);
  copyFileSync(await build({ platform, arch }), target);
}

/** electron-builder's afterPack hook (electron-builder.yml). */
export const afterPack = (context) => placeNativeBuild(context);

// Run as a script, not imported (by electron-builder or a test); the module's URL is the real path.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fetchElectronBinary();
  await buildForElectron({ platform: process.platform, arch: process.arch });
}
