import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../main/cli';
import { openServices, type Services, type ServicesOptions } from '../../main/services/services';
import { fixtureRegistry } from './fixtures/registry';

/** A temp data directory, removed by the returned cleanup. */
export function tempDir(prefix = 'packbench-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Services over a temp data dir with the fixture engine. */
export function fixtureServices(dataDir: string, o: Partial<ServicesOptions> = {}): Services {
  return openServices({ dataDir, registry: fixtureRegistry(), concurrency: 1, progressIntervalMs: 20, ...o });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One `packbench` command line in this process on the data folder `data`: exit code and output. */
export async function cliIn(data: string, ...args: string[]): Promise<CliResult> {
  let stdout = '', stderr = '';
  const code = await main(['--data', data, ...args], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), stderrIsTTY: false });
  return { code, stdout, stderr };
}
