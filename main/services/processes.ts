import { readFileSync } from 'node:fs';

/** Whether a process of this machine runs (a process of another user counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This boot of the machine: Linux's boot id, '' where there is none. After a reboot the pid of a
 * process that ran before it may be any live process's now: a run it left 'running' was never taken up.
 */
export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}
