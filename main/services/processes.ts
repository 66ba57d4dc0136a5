import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

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

/**
 * This machine, the same whatever its hostname becomes: Linux's machine id, hashed as its manual asks
 * of applications (it is not to be shown), with the pid namespace, since a container's pids are
 * not the host's (its processes can be asked only from inside). '' where there is none: macOS and
 * Windows keep theirs where Node cannot read it without running a program, so the hostname tells
 * machines apart there.
 */
export function machineKey(): string {
  let id = '';
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      id = readFileSync(file, 'utf8').trim();
    } catch {
      continue;
    }
    if (id) break;
  }
  if (!id) return '';
  let pidSpace = '';
  try {
    pidSpace = readlinkSync('/proc/self/ns/pid');
  } catch {
    // no /proc: one pid space per machine
  }
  return createHash('sha256').update(`PackBench ${id} ${pidSpace}`).digest('hex').slice(0, 16);
}

/**
 * A process as the owner of what it leaves in the data folder (the runs it runs, the files of its
 * exports, the run folders it removes), so that another process can tell whether it has ended.
 * `boot` and `machine` are '' where there are none, and in what processes before them stored.
 */
export interface ProcessOwner {
  host: string;
  pid: number;
  boot: string;
  machine: string;
}

export const THIS_PROCESS: ProcessOwner = { host: hostname(), pid: process.pid, boot: bootId(), machine: machineKey() };

/**
 * An owner as a run's row stores it: 'host:pid', ':boot' where there is a boot id, ':machine' where
 * there is a machine key. Earlier versions stored 'host:pid[:boot]' and read the first three fields
 * only, so they still tell this one's runs apart as they did.
 */
export function ownerText(o: ProcessOwner): string {
  return [o.host, o.pid, o.boot, o.machine].join(':').replace(/:+$/, '');
}

export function parseOwnerText(text: string): ProcessOwner | null {
  const [host, pid, boot = '', machine = ''] = text.split(':');
  return host && /^\d+$/.test(pid ?? '') ? { host, pid: Number(pid), boot, machine } : null;
}

/** Enough of a boot id to tell boots apart (64 bits), without its dashes: for file names. */
const shortBoot = (boot: string) => boot.replace(/-/g, '').slice(0, 16);

/**
 * An owner in a file name (export partials and folders, run folders being removed): 'pid@host', and
 * '@boot@machine' (shortened) where either is known. No ':', which Windows refuses in a name.
 */
export function ownerTag(o: ProcessOwner = THIS_PROCESS): string {
  return `${o.pid}@${o.host}${o.boot || o.machine ? `@${shortBoot(o.boot)}@${o.machine}` : ''}`;
}

/** The pattern of ownerTag's names (and of the 'pid@host' of earlier versions), for parseOwnerTag. */
export const OWNER_TAG = String.raw`\d+@[^@/\\]+(?:@[0-9a-f]*@[0-9a-f]*)?`;

export function parseOwnerTag(tag: string): ProcessOwner | null {
  const m = /^(\d+)@([^@]+)(?:@([0-9a-f]*)@([0-9a-f]*))?$/.exec(tag);
  return m ? { host: m[2], pid: Number(m[1]), boot: m[3] ?? '', machine: m[4] ?? '' } : null;
}

/**
 * Whether the process `o` has ended, as this process can tell: 'running', 'ended', or 'elsewhere' when
 * it cannot be asked (another machine's, or another container's). A machine is known by its machine
 * key when both have one, else by its hostname (an owner stored before there were keys: a container
 * beside this process shares its boot id but not its pids, so the boot says nothing of the machine).
 * On the same machine a process of an earlier boot has ended, whatever process has its pid now; one
 * with this very pid is this process or an earlier one with the same pid, as `self` says.
 */
export function ownerState(o: ProcessOwner, self: 'running' | 'ended'): 'running' | 'ended' | 'elsewhere' {
  const me = THIS_PROCESS;
  const sameMachine = o.machine && me.machine ? o.machine === me.machine : o.host === me.host;
  if (!sameMachine) return 'elsewhere';
  if (o.boot && me.boot && shortBoot(o.boot) !== shortBoot(me.boot)) return 'ended';
  if (o.pid === me.pid) return self;
  return pidAlive(o.pid) ? 'running' : 'ended';
}
