/** better-sqlite3 for Electron's ABI on `platform` and `arch`, built once: the path of its .node file (see electron-native.mjs). */
export function buildForElectron(target: { platform: string; arch: string }): Promise<string>;

/** What placeNativeBuild reads of electron-builder's AfterPackContext. */
export interface PackContext {
  appOutDir: string;
  electronPlatformName: string;
  /** electron-builder's Arch enum: 0 ia32, 1 x64, 2 armv7l, 3 arm64, 4 universal. */
  arch: number;
  packager: { getResourcesDir(appOutDir: string): string };
}

/** Puts the Electron build of the package's platform and arch over the Node build in app.asar.unpacked. */
export function placeNativeBuild(context: PackContext, build?: typeof buildForElectron): Promise<void>;

/** electron-builder's afterPack hook. */
export function afterPack(context: PackContext): Promise<void>;
