/**
 * Faults of the file system for tests: a folder this process cannot write, a disk that is full.
 * Permissions do not stop root (as in CI containers), so there a read-only bind mount and a small
 * tmpfs do the job; where neither works the helpers return null and the test says it is skipped.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const isRoot = process.getuid?.() === 0;

function tryRun(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes `dir` read-only for this process; returns the undo, or null when it cannot be done here. */
export function makeReadOnly(dir: string): (() => void) | null {
  if (!isRoot) {
    chmodSync(dir, 0o555);
    return () => chmodSync(dir, 0o755);
  }
  if (!tryRun('mount', ['--bind', dir, dir])) return null;
  if (!tryRun('mount', ['-o', 'remount,ro,bind', dir])) {
    tryRun('umount', [dir]);
    return null;
  }
  // Lazy: a file still open below it (a closing database) must not keep the folder read-only.
  return () => void tryRun('umount', ['-l', dir]);
}

/**
 * A folder on a disk of `kib` KiB (a tmpfs; root only), with room for `files` files and folders when
 * given (a disk full of blocks may have none for a new folder's); null when it cannot be mounted here.
 */
export function smallDisk(kib: number, files?: number): { dir: string; cleanup: () => void } | null {
  if (!isRoot) return null;
  const dir = mkdtempSync(join(tmpdir(), 'packbench-full-'));
  if (!tryRun('mount', ['-t', 'tmpfs', '-o', `size=${kib}k${files === undefined ? '' : `,nr_inodes=${files}`}`, 'tmpfs', dir])) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    cleanup: () => {
      tryRun('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Fills the disk `dir` lies on (a smallDisk) to its last block, as another program would: a file
 * `filler` in it grows until the disk refuses it (ENOSPC; any other error is thrown). Returns its path:
 * removing it frees the disk.
 */
export function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  try {
    for (;;) appendFileSync(filler, Buffer.alloc(64 * 1024));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  }
  return filler;
}
