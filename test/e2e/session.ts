/**
 * What most e2e files start with: services on a new temporary data folder, a web host over them and
 * a Chromium page on it. Not in chromium.ts, which the browser bench imports without vitest.
 */
import type { BrowserContextOptions } from 'playwright-core';
import type { Services } from '../../main/services/services';
import { tempDir } from '../main/helpers';
import { openBrowserSession, type BrowserSession } from './chromium';

export interface FolderSession extends BrowserSession {
  /** The services' data folder. */
  dataDir: string;
  services: Services;
  /** Closes the browser, the host and the services, then removes the data folder. */
  close(): Promise<void>;
}

/** `open` makes the services on the folder (openServices or fixtureServices, with the file's options). */
export async function openFolderSession(prefix: string, open: (dataDir: string) => Services, pageOptions: BrowserContextOptions = {}): Promise<FolderSession> {
  const { dir: dataDir, cleanup } = tempDir(prefix);
  let services: Services | undefined;
  try {
    services = open(dataDir);
    const session = await openBrowserSession(services, pageOptions);
    const opened = services;
    return {
      ...session,
      dataDir,
      services: opened,
      async close() {
        await session.close();
        await opened.close();
        cleanup();
      },
    };
  } catch (err) {
    await services?.close();
    cleanup();
    throw err;
  }
}
