/**
 * JobQueue: the persistent queue of runs. The queue *is* the runs table (status 'queued',
 * priority, seq), so nothing queued is lost when the app dies; this class decides what to start,
 * starts it on the WorkerPool, stores progress and outcomes, and emits events. Concurrency
 * defaults to cores - 1 (at least 1); the threads of the runs at a time stay within the cores (at
 * least one run), a run on threads per run if its engine shares its work with helper threads, for
 * its params, else on one (threadsFor).
 * Start-up recovery re-queues
 * runs left 'running' by a crash.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import { valueAt, WORKER_BYTES } from '../../core/common/engine';
import { ApiError, FINAL_STATUSES, invalidMessage, paramsSchemas, SPHERE_IMPORT_ENGINE, type ApiIssue, type MemoryEstimate, type QueueState, type RunRecord, type RunSpec, type RunSummary, type SweepSpec } from '../api';
import type { EngineRegistry } from './engines';
import type { EventBus } from './events';
import { Limiter } from './limiter';
import { allWithin, formatBytes, type JobOutcome, type RunningJob, type WorkerPool } from './pool';
import { isFullDisk, storageFault, storageFaultMeaning } from './handlers';
import { CHECKPOINT_FILE, removeCheckpoint } from '../workers/checkpoint';
import type { CheckOutcome, CheckTask } from '../workers/protocol';
import type { BatchPoint, EncodedRun, InterruptedView, NewRun, RunOrigin, RunStore } from './store';
import { sweepLabel, sweepPlan, sweptPaths, type SweepPoint } from './sweep';
import { OWNER_TAG, ownerState, ownerTag, ownerText, parseOwnerTag, parseOwnerText, THIS_PROCESS } from './processes';
import { Turns } from './turns';

/** A run validate found fit to queue, with its engine's memory estimate. */
export type CheckedRun = NewRun & { memoryBytes: number };

export interface QueueOptions {
  store: RunStore;
  registry: EngineRegistry;
  pool: WorkerPool;
  events: EventBus;
  dataDir: string;
  appVersion: string;
  /** Runs at a time; default cores - 1, at least 1. */
  concurrency?: number;
  /** Threads each run may use (EngineContext.threads). */
  threadsPerRun?: number;
  /** Seconds between a run's checkpoints (engines that can resume; default 60, 0: none). */
  checkpointSeconds?: number;
  /** Only start these runs (the CLI's `run` works through its own runs only); filled as they are queued. */
  only?: ReadonlySet<string>;
  /** Milliseconds between looks at the store for other processes' changes (default POLL_MS; tests set it short). */
  pollMs?: number;
  /** How long closing waits for runs being stopped (stop and keep) to end with their results (default STOP_GRACE_MS). */
  stopGraceMs?: number;
}

/** The store settings that keep the queue's controls across restarts (JobQueue.restoreSettings). */
const SETTINGS = {
  paused: 'queue.paused',
  concurrency: 'queue.concurrency',
  threadsPerRun: 'queue.threadsPerRun',
  checkpointSeconds: 'queue.checkpointSeconds',
} as const;

/** How often the queue looks for runs queued by other processes, unless set otherwise. */
const POLL_MS = 2000;

/** Sweep points JobQueue.validate reads (and add writes) at most before it lets other calls and events through (or TURN_MS). */
const POINTS_PER_TURN = 200;

/**
 * Sweep points a check task carries to the worker: the host's thread copies a task's points into
 * its message in one go, 0.2-0.4 s for 10,000 points of a voxel spec.
 */
const CHECK_POINTS_PER_TASK = 500;

/**
 * How long closing (the app quitting, Ctrl-C of the web host or `queue run`) waits for runs the user
 * asked to stop and keep to end with their results, unless set otherwise: what comes after an engine's
 * main loop (settling, analysis) takes seconds on a large run. Past it, the stop is still honoured at
 * the next start (JobQueue.interrupted).
 */
export const STOP_GRACE_MS = 10_000;

/** Seconds between checkpoints of a running run, unless set otherwise. */
export const DEFAULT_CHECKPOINT_SECONDS = 60;

export function defaultConcurrency(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Removes what the folder `dir` holds but the files named in `keep`. */
function removeFilesBut(dir: string, keep: readonly string[]): void {
  for (const name of readdirSync(dir)) if (!keep.includes(name)) rmSync(join(dir, name), { recursive: true, force: true });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `over` laid on `base` as a JSON merge patch (RFC 7386): objects field by field, so that an override
 * of box.resolution keeps the run's box.size instead of the default, and a field given null is
 * removed (restitution.value of a run switched to model 'hertz': it would be an unknown field, with no
 * way to leave it out); an object keyed by indices of the list `base` holds sets those elements and
 * keeps the others (box.size.2, as `runs rerun --set` writes it); anything else (a value, a list, a
 * sweep) replaces.
 */
function overlay(base: unknown, over: unknown): unknown {
  if (!isObject(over) || Object.hasOwn(over, '$sweep')) return over;
  if (Array.isArray(base)) {
    const keys = Object.keys(over);
    if (keys.length === 0 || !keys.every((k) => /^(0|[1-9]\d*)$/.test(k) && Number(k) < base.length)) return over;
    const out = base.slice();
    for (const k of keys) out[Number(k)] = overlay(base[Number(k)], over[k]);
    return out;
  }
  if (!isObject(base)) return over;
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    // defineProperty: an own '__proto__' key stays a field (refused by the checks), not the prototype.
    else Object.defineProperty(out, k, { value: overlay(Object.hasOwn(base, k) ? base[k] : undefined, v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Whether `path` (below params) lies in a value `overrides` gives: the override itself or inside it,
 * or inside an object the override brought where the run's spec (`base`) had none, which is all the
 * caller's (a missing 'model' of { restitution: { youngModulus: 5 } } on a run that had no restitution).
 */
function overridden(overrides: unknown, base: unknown, path: string[]): boolean {
  let node = overrides, own = base;
  for (const key of path) {
    if (!isObject(node) || Object.hasOwn(node, '$sweep')) return true; // a value or a sweep replaces all below it
    if (!Object.hasOwn(node, key)) return false;
    node = node[key];
    // Through a list too (an override of box.size.2): its elements are the run's.
    own = (isObject(own) || Array.isArray(own)) && Object.hasOwn(own, key) ? (own as Record<string, unknown>)[key] : undefined;
    if (own === undefined) return true;
  }
  return node !== overrides || Object.keys(overrides as object).length > 0;
}

/**
 * The dotted paths (below params) of the values `overrides` gives, down to each value: 'box.resolution'
 * for { box: { resolution: 12 } }, 'box.size.2' for a list's element. A sweep's are left out: its
 * points' names say them (sweepPlan).
 */
function givenPaths(overrides: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(overrides).flatMap(([k, v]) => {
    if (!isObject(v)) return [prefix + k];
    return Object.hasOwn(v, '$sweep') ? [] : givenPaths(v, `${prefix}${k}.`);
  });
}

/** Whether the dotted params path `path` is `other` or lies inside it. */
const within = (path: string, other: string) => path === other || path.startsWith(`${other}.`);

/**
 * A re-run's issues or warnings (at `params.X` of the spec it would queue) each named where its value
 * came from: `overrides.X` for a value the caller gave, else `params.X`, the run's own value. What the
 * user can do about the latter is each surface's to say: the CLI's user overrides it with --set, the
 * app's edits a copy of the run in the batch form.
 */
function bySource(issues: readonly ApiIssue[], overrides: Record<string, unknown>, base: unknown): ApiIssue[] {
  return issues.map((i) => {
    const path = i.path === 'params' ? [] : i.path.startsWith('params.') ? i.path.slice('params.'.length).split('.') : null;
    return path !== null && overridden(overrides, base, path) ? { path: ['overrides', ...path].join('.'), message: i.message } : i;
  });
}

/**
 * In a run's folder: stop and keep was asked (JobQueue.stopRun). Another process running the run reads
 * it at its poll; it outlives the process (a close, a crash), so that the next one honours the stop.
 */
export const STOP_REQUEST_FILE = 'stop-requested';

/** In runs/: the folders of runs being removed (JobQueue.deleteRun); no run's id, which is hex. */
const REMOVING_DIR = '.removing';

/**
 * In runs/.removing: what a run folder set aside by deleteFilesFirst starts with. Its removal only goes
 * forward (row, then folder), where another set aside is put back while its row is there.
 */
const FILES_FIRST = 'files-first-';

/** Why the runs a closing queue puts back were interrupted, unless told (close): the app, the web host, a command ended. */
const APP_CLOSED = 'the app closed';

/** Why a run is interrupted when its process is found gone (recover). */
const PROCESS_ENDED = 'the process running it ended';

/** The log line of a run cancelled while it ran: the log then says why it ended and what it kept,
 *  as a stopped run's 'stopped by user at ...' does. */
const CANCELLED_RUNNING = 'cancelled by the user: its metrics and series so far are kept, its artifacts (an unfinished result) are not';

/**
 * The error of a sphere import whose process ended (kill -9) between recording its run and storing
 * the spheres: not a run that can resume (no engine runs it), so it ends failed, naming the file.
 */
function importInterrupted(source: unknown): string {
  return `interrupted: the process importing it ended before the spheres were stored; import ${typeof source === 'string' ? source : 'the file'} again`;
}

/** The error of a run the user asked to stop and keep whose process ended (`why`) before it could, with no checkpoint. */
function stoppedWithNothingKept(why: string): string {
  return `stopped by user, but ${why} before the run had kept its results, and it had no checkpoint to keep them from: nothing was kept`;
}

export class JobQueue {
  private readonly store: RunStore;
  private readonly registry: EngineRegistry;
  private readonly pool: WorkerPool;
  private readonly events: EventBus;
  private readonly dataDir: string;
  private readonly appVersion: string;
  private threadsPerRun: number;
  private checkpointSeconds: number;
  private readonly only?: ReadonlySet<string>;
  private readonly owner = ownerText(THIS_PROCESS);
  private readonly active = new Map<string, RunningJob>();
  /** Turns for the engines' checks (checkInWorker): a sweep of slow ones queues, the next form's check gets the other. */
  private readonly checks = new Limiter(Math.min(2, availableParallelism()));
  private concurrency: number;
  /** Controls given as options, which restoreSettings leaves as they are. */
  private readonly given: { concurrency: boolean; threadsPerRun: boolean; checkpointSeconds: boolean };
  private paused = false;
  /** Why queued runs wait though they could start (unwritable); null while the data folder takes writes. */
  private waiting: string | null = null;
  /**
   * Set by restoreSettings, for the queue of the app or the web host (windows watch it): it follows
   * the pause stored in the data folder (followStoredPause) and tells its subscribers about the runs
   * of other processes (followOthers). The CLI's queue works its own way and prints only its runs.
   */
  private followsFolder = false;
  private started = false;
  private closing = false;
  /** Why the queue closes, for the logs of the runs it puts back (close). */
  private closingBecause = APP_CLOSED;
  /** Runs that could not start for lack of memory budget are retried when a run ends. */
  private pumping = false;
  private poll: NodeJS.Timeout | undefined;
  private readonly pollMs: number;
  private readonly stopGraceMs: number;
  private lastQueued = -1;
  private lastElsewhere = -1;

  constructor(o: QueueOptions) {
    this.store = o.store;
    this.registry = o.registry;
    this.pool = o.pool;
    this.events = o.events;
    this.dataDir = o.dataDir;
    this.appVersion = o.appVersion;
    this.given = { concurrency: o.concurrency !== undefined, threadsPerRun: o.threadsPerRun !== undefined, checkpointSeconds: o.checkpointSeconds !== undefined };
    this.concurrency = o.concurrency ?? defaultConcurrency();
    this.threadsPerRun = o.threadsPerRun ?? 1;
    this.checkpointSeconds = o.checkpointSeconds ?? DEFAULT_CHECKPOINT_SECONDS;
    this.only = o.only;
    this.pollMs = o.pollMs ?? POLL_MS;
    this.stopGraceMs = o.stopGraceMs ?? STOP_GRACE_MS;
  }

  runDir(id: string): string {
    return join(this.dataDir, 'runs', id);
  }

  /**
   * Recovery: runs left 'running' (or paused inside a worker) by a process that is gone are taken up
   * as interrupted (see interrupted: back to the queue, or ended as the user's stop asked). At
   * start-up (`startUp`) a run recorded under this
   * process's own owner name is a leftover of an earlier process with the same pid; later (the
   * poll) it is one of ours and stays. Runs of live processes on this machine, and of other
   * machines (which cannot be asked), are left alone. Returns the ids re-queued.
   */
  recover(startUp = true): string[] {
    const recovered: string[] = [];
    for (const r of this.orphans(startUp)) {
      const status = this.store.getSummary(r.id)?.status;
      if (status !== 'running' && status !== 'paused') continue;
      const stopAsked = this.stopRequested(r.id);
      if (this.interrupted(r.id, PROCESS_ENDED, { stopAsked, wasPaused: status === 'paused' })) recovered.push(r.id);
    }
    return recovered;
  }

  /** Whether Stop and keep was asked of run `id` and not yet honoured: its stop-request file (written by stopRun here or in another process, kept by interrupted). */
  private stopRequested(id: string): boolean {
    return existsSync(join(this.runDir(id), STOP_REQUEST_FILE));
  }

  /**
   * What interrupted does with a run whose process ended before it did: 'requeue' it (to resume),
   * or, the user having asked to stop and keep it, 'stop' it (re-queued to end at its checkpoint)
   * or 'cancel' it (no checkpoint to keep); 'fail' a sphere import (importInterrupted).
   */
  private fate(id: string, stopAsked: boolean): 'requeue' | 'stop' | 'cancel' | 'fail' {
    if (this.store.getSummary(id)?.engine === SPHERE_IMPORT_ENGINE) return 'fail';
    if (!stopAsked) return 'requeue';
    return existsSync(join(this.runDir(id), CHECKPOINT_FILE)) ? 'stop' : 'cancel';
  }

  /**
   * A run whose process closed or ended (`why`) before the run did. It goes back to the queue to
   * resume from its last checkpoint when its engine saved one (EngineContext.checkpoints), else from
   * its beginning (paused if it was paused); its log says so. Unless the user had asked to stop and
   * keep it: that stop is honoured, never lost to a re-run. With a checkpoint the run is re-queued to
   * resume from it only to end there (its stop-request file stays, and tryStart stops the new attempt
   * at once), done with what the checkpoint holds, started before the other queued runs whatever the
   * pause (pump); without one it has nothing to keep, and ends
   * cancelled saying so, with what it had done (`ended`, its worker's last word, when it gave one).
   * An interrupted sphere import ends failed, its part of a table removed (importInterrupted).
   * Returns whether the run was re-queued.
   */
  private interrupted(id: string, why: string, o: { stopAsked: boolean; wasPaused: boolean; ended?: Extract<JobOutcome, { status: 'cancelled' }> }): boolean {
    const dir = this.runDir(id);
    const fate = this.fate(id, o.stopAsked);
    if (fate === 'fail') {
      this.store.finishRun(id, { status: 'failed', error: importInterrupted(this.store.getRun(id)?.params.source) });
      this.bestEffort(() => rmSync(dir, { recursive: true, force: true }));
      this.afterFinal(id);
      return false;
    }
    if (fate === 'requeue') {
      // Which of the two: a user waits for an hour's run again, or for its last minutes.
      const from = existsSync(join(dir, CHECKPOINT_FILE)) ? 'to resume from its last checkpoint' : 'to start again from its beginning (it had saved no checkpoint)';
      this.store.requeue(id, `interrupted: ${why}; re-queued ${from}`, o.wasPaused ? 'paused' : 'queued');
      this.emitRun(id);
      return true;
    }
    if (fate === 'stop') {
      // Kept (written again should stopRun have failed to): it makes the next attempt stop.
      this.bestEffort(() => writeFileSync(join(dir, STOP_REQUEST_FILE), ''));
      this.store.requeue(id, `interrupted while stopping: ${why} before the run had kept its results; re-queued to resume from its last checkpoint and end there, as stopped (stop and keep), before the other queued runs`);
      this.stopPendingLooked = -1; // pump starts it first
      this.emitRun(id);
      return true;
    }
    this.store.finishRun(id, { status: 'cancelled', metrics: o.ended?.metrics ?? this.store.getRun(id)?.metrics, series: o.ended?.series, wallSeconds: o.ended?.wallSeconds, error: stoppedWithNothingKept(why) });
    // As a cancel, it keeps no files (what a killed worker left: its live table).
    this.bestEffort(() => rmSync(dir, { recursive: true, force: true }));
    this.afterFinal(id);
    return false;
  }

  /** Runs left 'running' or 'paused' whose process on this machine has ended (see recover, ownerState): its pid is no live process's, or it ran in an earlier boot. */
  private orphans(startUp: boolean): { id: string; status: string }[] {
    return this.store.runningRuns().filter((r) => {
      const owner = parseOwnerText(r.owner ?? '');
      return owner !== null && ownerState(owner, startUp ? 'ended' : 'running') === 'ended';
    });
  }

  /**
   * The runs recover would take up, each as it would leave it (interrupted), without writing: for
   * services opened read-only, which show them so (RunStore.showInterrupted) instead of 'running'
   * for good. A run of this very process is not one (read-only services beside a writer in one
   * process: the CLI's tests).
   */
  interruptedRuns(): Map<string, InterruptedView> {
    const ended = 'the process running it has ended', next = 'when PackBench next works through it (the app, the web host, packbench queue run)';
    const views = new Map<string, InterruptedView>();
    for (const r of this.orphans(false)) {
      const fate = this.fate(r.id, this.stopRequested(r.id));
      const paused = r.status === 'paused';
      views.set(r.id, fate === 'fail'
        ? { status: 'failed', error: importInterrupted(this.store.getRun(r.id)?.params.source) }
        : fate === 'cancel'
        // The error recover will record.
        ? { status: 'cancelled', error: stoppedWithNothingKept(PROCESS_ENDED) }
        : fate === 'stop'
          ? { status: 'queued', log: `interrupted while stopping: ${ended} before the run had kept its results; it resumes from its last checkpoint only to end there, as stopped (stop and keep), before the other queued runs, ${next}` }
          : { status: paused ? 'paused' : 'queued', log: `interrupted: ${ended}; it goes back to the queue${paused ? ', paused,' : ''} ${next}` });
    }
    return views;
  }

  /**
   * The runs working (or paused under way) in other processes, each with its process and machine
   * (the owner its row stores) and whether that process is of this machine ('running': its pid is a
   * live process's) or cannot be asked from here ('elsewhere': another machine's, or this one's under
   * an earlier hostname, as stored before machine keys). Neither is ever taken up (recover): the user
   * must be told who has them, to end one whose process is gone.
   */
  runners(): Map<string, { host: string; pid: number; state: 'running' | 'elsewhere' }> {
    const runners = new Map<string, { host: string; pid: number; state: 'running' | 'elsewhere' }>();
    for (const r of this.store.runningRuns()) {
      const owner = parseOwnerText(r.owner ?? '');
      const state = owner && !this.active.has(r.id) ? ownerState(owner, 'running') : 'ended';
      if (owner && state !== 'ended') runners.set(r.id, { host: owner.host, pid: owner.pid, state });
    }
    return runners;
  }

  /**
   * Begins starting queued runs (and keeps doing so as runs end or arrive). Another process may add
   * runs to the same database (`packbench queue add` while the app is open), so the queue also looks
   * every couple of seconds, and tells subscribers when the number of queued runs changed.
   */
  start(): void {
    this.started = true;
    this.bestEffort(() => this.followOthers(false)); // a failed look is taken again at the poll
    this.pump();
    this.poll = setInterval(() => this.tick(), this.pollMs);
    this.poll.unref();
  }

  /**
   * The poll: runs of processes that died since (kill -9 of a `queue run` beside the app) go back
   * to the queue, runs queued elsewhere start. A failing database (disk full, locked) must not end
   * the process: the next tick tries again.
   */
  private tick(): void {
    try {
      for (const [id, write] of [...this.unstored]) this.storeOutcome(id, write);
      this.followOthers(true);
      this.stopRunsEndedElsewhere();
      if (this.recover(false).length) this.emitQueue();
      this.pump();
      // Runs queued, started or ended by another process change the counts subscribers show.
      const { queued, runningElsewhere } = this.state();
      if (queued !== this.lastQueued || runningElsewhere !== this.lastElsewhere) this.emitQueue();
    } catch (err) {
      // A full or locked folder (a run a killed process left cannot be put back): said once, as what
      // the queue waits for. It said 'database or disk is full' at every poll, and not what to do.
      if (storageFault(err)) this.unwritable(err);
      else console.error(`queue: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * What followOthers saw: the data version, the last run's seq, the last entry of the log of deleted
   * runs, and each unfinished run's status and progress.
   */
  private others = { version: -1, seq: 0, deletion: 0, runs: new Map<string, string>() };
  /** Runs whose deletion this process told its subscribers itself (followOthers does not tell them again). */
  private readonly toldDeleted = new Set<string>();

  /**
   * Tells subscribers (the app's windows, the host's browsers) about runs another process on the
   * folder changed: added (`queue add`), started, advanced, finished (`packbench run`) or deleted
   * (`runs rm`, finished or not: the store's log of deleted runs); this process's own changes are told
   * as they happen. Only when another process committed since the last look (the database's
   * data_version), so a quiet folder costs one pragma, and a look reads the unfinished runs and the
   * new entries only, however many runs the folder holds.
   */
  private followOthers(tell: boolean): void {
    if (!this.followsFolder) return;
    const version = this.store.dataVersion();
    if (version === this.others.version) return;
    // The first look (at start, or at the poll after a failed one) only takes stock.
    if (this.others.version === -1) tell = false;
    const before = this.others.runs;
    const runs = new Map<string, string>();
    // At the first look, the runs already finished (or deleted) are of no interest: only those from then on.
    let seq = tell ? this.others.seq : this.store.lastSeq();
    let deletion = tell ? this.others.deletion : this.store.lastDeletion();
    for (const r of this.store.openRuns(seq)) {
      seq = Math.max(seq, r.seq);
      const state = `${r.status} ${r.done}`;
      if (!FINAL_STATUSES.includes(r.status)) runs.set(r.id, state);
      if (tell && before.get(r.id) !== state && !this.active.has(r.id)) this.emitRun(r.id);
    }
    const gone = new Set<string>();
    for (const d of this.store.deletedRuns(deletion)) {
      deletion = d.seq;
      gone.add(d.id);
    }
    if (tell) {
      for (const id of before.keys()) {
        if (!runs.has(id) && !gone.has(id) && !this.active.has(id) && !this.emitRun(id)) gone.add(id);
      }
      // A run of this process's own workers is told when its worker ends (onOutcome).
      for (const id of gone) if (!this.toldDeleted.delete(id) && !this.active.has(id)) this.events.emit('run.deleted', { id });
    }
    this.others = { version, seq, deletion, runs };
  }

  /**
   * Runs of this process that another one on the folder cancelled or deleted (the app beside a
   * `packbench run`, whose cancel can only write the run's row): their workers stop, and a cancelled
   * one is recorded with what it had done, as a cancel here would. Those it asked to stop and keep
   * (the file stopRun writes in the run's folder) stop as a stop here would.
   */
  private stopRunsEndedElsewhere(): void {
    for (const [id, job] of this.active) {
      if (!job.stopping && this.stopRequested(id)) this.stopJob(id, job);
      const status = this.store.getSummary(id)?.status;
      if (status !== undefined && status !== 'cancelled') continue;
      this.cancelRequested.add(id);
      job.cancel();
    }
  }

  // ------------------------------------------------------------------ queue-wide controls

  state(): QueueState {
    let running = 0;
    for (const j of this.active.values()) if (!j.paused) running++;
    const counts = this.store.countUnfinished();
    // The folder's running runs that are not this process's: another process's (`packbench run`
    // beside the app), said apart rather than left out.
    const runningElsewhere = Math.max(0, counts.running - running);
    return { paused: this.paused, running, runningElsewhere, pausedRuns: counts.paused, queued: counts.queued, concurrency: this.concurrency, threadsPerRun: this.threadsPerRun, checkpointSeconds: this.checkpointSeconds, waiting: this.waiting };
  }

  /** Starts no more runs (those running go on); kept in the data folder, so that a restart keeps it (restoreSettings). */
  pause(): QueueState {
    this.store.setSetting(SETTINGS.paused, 'true');
    this.paused = true;
    return this.emitQueue();
  }

  resume(): QueueState {
    this.store.setSetting(SETTINGS.paused, 'false');
    this.paused = false;
    this.pump();
    return this.emitQueue();
  }

  /** Whether the data folder's queue is paused (stored by pause and resume), as the app and web hosts follow it. */
  pausedInFolder(): boolean {
    return this.store.setting(SETTINGS.paused) === 'true';
  }

  /**
   * Takes up the controls the data folder's queue was left with (kept by pause, resume and the
   * setters): the app and the web host, at start, so that a queue paused before a restart (or a
   * crash) does not start every queued run on its own, and runs at a time, threads and checkpoint
   * interval stay as the user set them. A value given to this queue's options wins; a stored value
   * out of its range (written by hand) is left out. The CLI's `queue run` and `run` do not call this:
   * they are told to run, with their own options.
   */
  restoreSettings(): void {
    this.paused = this.pausedInFolder();
    this.followsFolder = true;
    const stored = (name: string, method: 'queue.setConcurrency' | 'queue.setThreadsPerRun' | 'queue.setCheckpointSeconds', key: string): number | undefined => {
      const text = this.store.setting(name);
      const parsed = text === null ? undefined : paramsSchemas[method].safeParse({ [key]: Number(text) });
      return parsed?.success ? (parsed.data as Record<string, number>)[key] : undefined;
    };
    if (!this.given.concurrency) this.concurrency = stored(SETTINGS.concurrency, 'queue.setConcurrency', 'concurrency') ?? this.concurrency;
    if (!this.given.threadsPerRun) this.threadsPerRun = stored(SETTINGS.threadsPerRun, 'queue.setThreadsPerRun', 'threads') ?? this.threadsPerRun;
    if (!this.given.checkpointSeconds) this.checkpointSeconds = stored(SETTINGS.checkpointSeconds, 'queue.setCheckpointSeconds', 'seconds') ?? this.checkpointSeconds;
  }

  /** Seconds between checkpoints of the runs started from now on (0: none); kept in the data folder (restoreSettings). */
  setCheckpointSeconds(seconds: number): QueueState {
    this.store.setSetting(SETTINGS.checkpointSeconds, String(seconds));
    this.checkpointSeconds = seconds;
    return this.emitQueue();
  }

  /** Runs at a time; kept in the data folder (restoreSettings). */
  setConcurrency(n: number): QueueState {
    this.store.setSetting(SETTINGS.concurrency, String(n));
    this.concurrency = n;
    this.pump();
    return this.emitQueue();
  }

  /**
   * Threads of the runs started from now on (a run's result may depend on them: each run records its
   * own); kept in the data folder (restoreSettings).
   */
  setThreadsPerRun(n: number): QueueState {
    this.store.setSetting(SETTINGS.threadsPerRun, String(n));
    this.threadsPerRun = n;
    this.pump();
    return this.emitQueue();
  }

  // ------------------------------------------------------------------ runs

  /**
   * Expands a spec's sweeps and checks every point (the engine's schema and cross-field checks, and
   * its memory estimate against the budget): the runs it would queue, or ApiError('invalid') naming
   * the first point that fails and the field (with the spec's warnings when every point could be
   * read). Nothing is stored unless every point passes. The
   * cross-field checks run in a worker thread (checkInWorker): some take seconds. `signal` aborted
   * (the client that asked has gone) stops it between points and ends its worker's checks.
   */
  async validate(spec: SweepSpec, priority = 0, issuePrefix = 'spec', signal?: AbortSignal): Promise<CheckedRun[]> {
    // Unknown fields are said with the spec's other mistakes (a user who made two sees both), once.
    const unknown = this.registry.unknownFields(spec, issuePrefix);
    const isUnknown = (i: ApiIssue) => unknown.some((u) => u.path === i.path && u.message === i.message);
    let plan: ReturnType<typeof sweepPlan>;
    /** `err` (a sweep point's when `at` names it) with the unknown fields. */
    const refusal = (err: unknown, at?: number): unknown => {
      if (!(err instanceof ApiError)) return err;
      const head = at !== undefined && plan.total > 1 ? `sweep point ${at + 1} of ${plan.total} (${plan.point(at).spec.name}): ` : '';
      if (!unknown.length || err.code !== 'invalid') return head ? new ApiError(err.code, head + err.message, err.issues) : err;
      const issues = [...unknown, ...(err.issues ?? []).filter((i) => !isUnknown(i))];
      return new ApiError('invalid', head + invalidMessage(issues), issues);
    };
    try {
      plan = sweepPlan(spec, issuePrefix);
    } catch (err) {
      throw refusal(err);
    }
    // Schema and budget here, point by point up to the first that fails; the points before it (and
    // it, when only its budget failed) go to the cross-field checks, which come first within a point.
    const parsed: { at: number; point: SweepPoint; params: Record<string, unknown>; memoryBytes: number }[] = [];
    let failed: { at: number; err: unknown } | null = null;
    // Making a point, its schema and its estimate take 0.1 ms to milliseconds: 10,000 of them in one go held the thread that serves the app for seconds.
    const turns = new Turns(POINTS_PER_TURN);
    for (let at = 0; at < plan.total; at++) {
      await turns.pass();
      signal?.throwIfAborted();
      const p = plan.point(at);
      try {
        parsed.push({ at, point: p, params: this.registry.parseParams(p.spec, issuePrefix), memoryBytes: 0 });
      } catch (err) {
        // A point whose only issues are the unknown fields (every point has them): the next may have others.
        if (unknown.length && err instanceof ApiError && err.code === 'invalid' && err.issues?.every(isUnknown)) continue;
        failed = { at, err };
        break;
      }
      try {
        const point = parsed[parsed.length - 1];
        point.memoryBytes = this.checkBudget(p.spec.engine, point.params, issuePrefix);
      } catch (err) {
        failed = { at, err };
        break;
      }
    }
    const checked = await this.checkInWorker(spec.engine, parsed.map((x) => x.params), signal);
    /**
     * A refusal with the fields the spec wrote that have no effect, when every point could be read
     * (the cross-field checks or the budget refused it): a user then fixes both at once.
     */
    const withWarnings = async (err: unknown): Promise<unknown> => {
      if (!(err instanceof ApiError) || err.code !== 'invalid' || parsed.length < plan.total) return err;
      const warnings = await this.registry.warnings(spec.engine, parsed.map((x) => ({ spec: x.point.spec, params: x.params })), issuePrefix);
      return new ApiError(err.code, err.message, err.issues, warnings);
    };
    if (checked) throw await withWarnings(refusal(this.registry.refusedByCheck(checked.issues, issuePrefix), parsed[checked.point].at));
    if (failed) throw await withWarnings(refusal(failed.err, failed.at));
    if (unknown.length) throw new ApiError('invalid', invalidMessage(unknown), unknown);
    return parsed.map(({ point: p, params, memoryBytes }) => ({ name: p.spec.name, engine: p.spec.engine, spec: p.spec, params, seed: p.spec.seed, priority, batchId: null, sweep: p.values, memoryBytes }));
  }

  /**
   * The engine's cross-field checks of parsed params, in order, in a worker thread of its entry: the
   * first point with issues, or null. Some take seconds (the area of a blobby surface of 256 blobs),
   * during which the thread that serves the app and the web host must go on answering. At most
   * `checks.slots` at a time; a kept worker serves the next (and keeps what the engine caches).
   * A checking worker holds a worker's bytes of the memory budget (WORKER_BYTES, as a run's own worker
   * counts: its isolate, the engine's bundle, zod), so that runs do not start into them; it is never
   * refused for memory (the form's check must answer while runs hold the budget); a run that waited
   * for it starts at the queue's next look (tick) after it.
   */
  private async checkInWorker(engine: string, points: Record<string, unknown>[], signal?: AbortSignal): Promise<CheckOutcome> {
    const decl = this.registry.get(engine);
    if (!decl.definition.check || points.length === 0) return null;
    try {
      return await this.checks.run(async () => {
        for (let from = 0; from < points.length; from += CHECK_POINTS_PER_TASK) {
          const task: CheckTask = { engineId: engine, points: points.slice(from, from + CHECK_POINTS_PER_TASK) };
          const outcome = await this.pool.task<CheckOutcome>(decl.workerEntry, task, WORKER_BYTES, 'run anyway', signal);
          if (outcome) return { point: from + outcome.point, issues: outcome.issues };
        }
        return null;
      });
    } catch (err) {
      signal?.throwIfAborted(); // abandoned, not failed
      throw new Error(`the checks of engine '${engine}' failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Bytes a run of parsed params takes at most on `threads` threads (threadsFor): its engine's
   * estimate (which counts the run's worker once, WORKER_BYTES) and a worker of the same size for
   * each helper thread the run starts (threads - 1, EngineContext.startHelpers). The one estimate:
   * the queue admits runs against the budget with it, and shows it.
   */
  memoryBytes(engine: string, params: Record<string, unknown>, threads = this.threadsFor(engine, params)): number {
    return this.registry.get(engine).definition.estimateMemoryBytes(params as never) + (threads - 1) * WORKER_BYTES;
  }

  /** What runs.validate, `run` and `queue add` show: the largest of the estimates validate made (at this queue's threads), the threads the runs get, and the budget. */
  memoryEstimate(runs: readonly CheckedRun[]): MemoryEstimate {
    const memoryBytes = runs.reduce((m, r) => Math.max(m, r.memoryBytes), 0);
    const threadsPerRun = runs.reduce((m, r) => Math.max(m, this.threadsFor(r.engine, r.params)), 1);
    return { memoryBytes, threadsPerRun, memoryBudgetBytes: this.pool.memoryBudgetBytes };
  }

  /** '' for one thread, else ' with N threads' (the estimate counts a worker per helper thread). */
  private withThreads(threads: number): string {
    return threads > 1 ? ` with ${threads} threads` : '';
  }

  /**
   * A run that could never start for its memory is refused when it is queued, not when its turn
   * comes; else the bytes it takes at most (memoryBytes).
   */
  private checkBudget(engine: string, params: Record<string, unknown>, issuePrefix: string): number {
    const threads = this.threadsFor(engine, params);
    const bytes = this.memoryBytes(engine, params, threads);
    const budget = this.pool.memoryBudgetBytes;
    if (bytes > budget) {
      const fewer = threads > 1 ? ', fewer threads per run' : '';
      const message = `the run needs about ${formatBytes(bytes)}${this.withThreads(threads)}, more than the memory budget of ${formatBytes(budget)}; use a smaller box, a coarser resolution${fewer} or fewer particles`;
      const issues = [{ path: issuePrefix ? `${issuePrefix}.params` : 'params', message }];
      throw new ApiError('invalid', invalidMessage(issues), issues);
    }
    return bytes;
  }

  /** Validates a spec (see validate) and queues its runs, as a batch when it has several. */
  async enqueue(spec: SweepSpec, priority = 0, batchName?: string, issuePrefix = 'spec'): Promise<{ batchId: string | null; runIds: string[] }> {
    return this.add(spec, await this.validate(spec, priority, issuePrefix), batchName);
  }

  /**
   * Queues the runs `validate` gave for `spec`, as a batch when there are several (or a name is
   * given): all or none, in one transaction. Their rows' JSON is made before it and their events go
   * out after it, in turns: for 10,000 runs each took about half a second of the thread that serves the app.
   * `fills`: the batch point a re-run fills (rerun): it joins that batch when no run of the point is done or still to run.
   */
  async add(spec: SweepSpec, rows: NewRun[], batchName?: string, fills?: BatchPoint): Promise<{ batchId: string | null; runIds: string[] }> {
    const turns = new Turns(POINTS_PER_TURN);
    const encoded: EncodedRun[] = [];
    for (const r of rows) {
      await turns.pass();
      encoded.push(this.store.encodeRun(r));
    }
    const { batchId, runIds } = this.store.transaction(() => {
      // Asked in the transaction, which holds the write lock from its start: two processes re-running
      // one failed replicate at once (the app and the CLI) both found its point free when they asked
      // before it, and both joined.
      const joinBatch = fills && !this.store.batchPointTaken(fills) ? fills.batchId : null;
      // A run that joins a batch (a re-run filling its point) makes it unfinished until it ends.
      if (joinBatch) this.store.reopenBatch(joinBatch);
      const batchId = joinBatch ?? (rows.length > 1 || batchName ? this.store.createBatch(batchName ?? spec.name, spec) : null);
      for (const r of encoded) r.batchId = batchId;
      return { batchId, runIds: this.store.insertEncoded(encoded) };
    });
    for (const id of runIds) {
      await turns.pass();
      this.emitRun(id);
    }
    this.emitQueue();
    this.pump();
    return { batchId, runIds };
  }

  private mustGet(id: string): RunRecord {
    const r = this.store.getRun(id);
    if (!r) throw new ApiError('not_found', `no run with id '${id}'`);
    return r;
  }

  pauseRun(id: string): RunSummary {
    const r = this.mustGet(id);
    const job = this.active.get(id);
    // A stopping run no longer waits at a pause (the runtime's wait ends at a stop): said, not shown paused.
    if (job?.stopping) throw new ApiError('conflict', `run ${id} is stopping: it ends at its next safe point and keeps its results; it can no longer be paused`);
    if (job) job.pause();
    else if (r.status === 'running') throw this.elsewhere(id, 'paused');
    else if (r.status !== 'queued') throw new ApiError('conflict', `run ${id} is ${r.status}; only queued or running runs can be paused`);
    this.store.setStatus(id, 'paused');
    this.pump(); // a paused worker uses no CPU: its slot goes to the next run
    this.emitQueue();
    return this.emitRun(id)!;
  }

  resumeRun(id: string): RunSummary {
    const r = this.mustGet(id);
    if (r.status !== 'paused') throw new ApiError('conflict', `run ${id} is ${r.status}, not paused`);
    const job = this.active.get(id);
    if (job) {
      job.resume();
      this.store.setStatus(id, 'running');
    } else if (r.startedAt !== null) {
      throw this.elsewhere(id, 'resumed'); // its worker waits there: a start here would run it twice
    } else {
      this.store.setStatus(id, 'queued');
      this.pump();
    }
    this.emitQueue();
    return this.emitRun(id)!;
  }

  /** A run that started in another process (a `packbench run` beside the app): only its row is shared here. */
  private elsewhere(id: string, what: 'paused' | 'resumed'): ApiError {
    return new ApiError('conflict', `run ${id} runs in another process on this data folder (a 'packbench run' or 'queue run', or another window): it can be ${what} only there; cancelling it works from here`);
  }

  cancelRun(id: string): RunSummary {
    const r = this.mustGet(id);
    if (this.cancelJob(id)) return this.store.getSummary(id)!;
    if (FINAL_STATUSES.includes(r.status)) throw new ApiError('conflict', `run ${id} is already ${r.status}`);
    this.recordCancel(r);
    this.clearCancelled(r);
    this.afterFinal(id);
    return this.store.getSummary(id)!;
  }

  /**
   * Cancels the runs of `ids` not over yet, each as cancelRun does, at once: a Ctrl-C of `packbench
   * run` on a sweep. Those not under way here are recorded in one transaction, and the queue's state
   * and their batches are told once, not after each run: 9,300 runs one by one took 4.8 s of CPU, most
   * of it counting the queue after each. Runs over, or deleted, are left.
   */
  cancelMany(ids: Iterable<string>): void {
    const cancelled: RunSummary[] = [];
    this.store.transaction(() => {
      for (const id of ids) {
        if (this.cancelJob(id)) continue;
        const r = this.store.getSummary(id); // what recordCancel needs, without the record's params, spec and log
        if (!r || FINAL_STATUSES.includes(r.status)) continue;
        this.recordCancel(r);
        cancelled.push(r);
      }
    });
    for (const r of cancelled) this.clearCancelled(r);
    if (cancelled.length) this.afterFinal(...cancelled.map((r) => r.id));
  }

  /** Tells the worker of run `id`, when it runs here, to cancel (its outcome arrives through the job's promise); whether it runs here. */
  private cancelJob(id: string): boolean {
    const job = this.active.get(id);
    if (!job) return false;
    this.cancelRequested.add(id);
    job.cancel();
    return true;
  }

  /** Records run `r` (queued, paused, or under way in another process) cancelled by the user. */
  private recordCancel(r: RunSummary): void {
    this.store.appendLog(r.id, [`cancelled by the user while ${r.status}`]);
    this.store.finishRun(r.id, { status: 'cancelled', metrics: r.metrics, error: null });
  }

  /** Removes the files of run `r` recordCancel cancelled, once that is stored. */
  private clearCancelled(r: RunSummary): void {
    // A queued run has no worker to clear its folder: what an interrupted attempt left there (its
    // checkpoint, which may hold a whole packing matrix, its live table) goes, as a cancel keeps no artifacts.
    if (r.status === 'queued') this.bestEffort(() => rmSync(this.runDir(r.id), { recursive: true, force: true }));
    // Nor does a run under way in another process: that process, should it still run, ends its worker
    // and clears the rest at its next look; gone (another machine's that crashed, which no process
    // here takes up: runners), it left the checkpoint there for good.
    else this.bestEffort(() => removeCheckpoint(this.runDir(r.id)));
  }

  /**
   * Stop and keep (runs.stop): the run's engine ends at its next safe point as if its end condition
   * had been reached, and the run is done with its artifacts (cancelRun discards them). Only for a
   * run that has started (running, or paused since): a queued run has nothing to keep, and cancel
   * takes it out of the queue. Only for engines that declare stopAndKeep. A run working in another
   * process on the folder (`packbench run` beside the app) is told through a file in its folder,
   * which that process's poll reads (stopRunsEndedElsewhere). The file is written for a run of this
   * process too: should the process close or die before the run ends, the next one honours the stop
   * (interrupted).
   */
  stopRun(id: string): RunSummary {
    const r = this.mustGet(id);
    if (FINAL_STATUSES.includes(r.status)) throw new ApiError('conflict', `run ${id} is already ${r.status}: only a running or paused run can be stopped`);
    const keeps = this.registry.ids().includes(r.engine) ? this.registry.get(r.engine).definition.stopAndKeep : undefined;
    if (keeps === undefined) throw new ApiError('conflict', `run ${id}: the engine '${r.engine}' cannot end a run early with a meaningful result, so its runs cannot be stopped and kept; cancel it instead`);
    if (r.startedAt === null) throw new ApiError('conflict', `run ${id} has not started: it has nothing to keep yet; cancel it to take it out of the queue`);
    const job = this.active.get(id);
    const request = () => writeFileSync(join(this.runDir(id), STOP_REQUEST_FILE), '');
    if (job) {
      this.stopJob(id, job);
      this.bestEffort(request); // the worker is told already; the file only outlives this process
    } else {
      request();
    }
    return this.emitRun(id)!;
  }

  /** This process's runs asked to stop and keep (here, or by another process since its last look): close gives them up to stopGraceMs to end so. */
  stoppingRuns(): string[] {
    return [...this.active].filter(([id, job]) => job.stopping || this.stopRequested(id)).map(([id]) => id);
  }

  /** Stops a worker of this process; a paused one wakes and goes on to its end, shown running again. */
  private stopJob(id: string, job: RunningJob): void {
    job.stop();
    if (!job.paused) return;
    job.resume();
    this.store.setStatus(id, 'running');
    this.emitRun(id);
    this.emitQueue();
  }

  setPriority(id: string, priority: number): RunSummary {
    this.mustGet(id);
    this.store.setPriority(id, priority);
    this.pump();
    return this.emitRun(id)!;
  }

  /**
   * Queues the run again with the same spec and seed, optionally with some params replaced (laid
   * over its spec as written, by overlay; may hold sweeps) and another seed; checked as enqueue
   * checks a spec, with the fields that have no effect. Issues and warnings are named where their
   * value came from (bySource). The message's head (a sweep point) stays. Answers, as `queue add`
   * says them, the memory the largest new run needs (memoryEstimate) and the warnings.
   *
   * A re-run of a batch's run that changes nothing (no override, its seed) joins the batch when its
   * point there (seed and swept values) has no run done or still to run: a failed or cancelled replicate
   * run again fills its place in the batch's counts, sweep plot and replicates summary. Any other is a
   * new experiment outside it (a changed value; a second run of a point the batch has): `outside` says why.
   */
  async rerun(id: string, overrides: Record<string, unknown> = {}, seed?: number): Promise<{ batchId: string | null; runIds: string[]; warnings: ApiIssue[]; outside: string | null } & MemoryEstimate> {
    const r = this.mustGet(id);
    const params = overlay(r.spec.params, overrides) as Record<string, unknown>;
    // The label its name ends with says the values that set the run apart: a sweep point's swept fields
    // ('porosity=0.4'), a re-run's changed ones. Said anew with the new values, and with the fields
    // changed here; those a sweep given here varies are said by its points.
    const swept = sweptPaths(params), labelled: string[] = [];
    for (const p of [...Object.keys(r.sweep), ...givenPaths(overrides)]) {
      if (!labelled.some((l) => within(p, l)) && !swept.some((x) => within(p, x) || within(x, p))) labelled.push(p);
    }
    const label = Object.keys(r.sweep).length ? ` [${sweepLabel(r.sweep)}]` : '';
    const base = label && r.spec.name.endsWith(label) ? r.spec.name.slice(0, -label.length) : r.spec.name;
    const nameOf = (values: Record<string, unknown>) => (Object.keys(values).length ? `${base} [${sweepLabel(values)}]` : base);
    // As written; a field removed (null) by the value it takes (its default), once the params are parsed.
    // A replicate's label says its seed (sweepPlan): the seed it runs at now.
    const valueOf = (p: string, parsed: Record<string, unknown>) => (p === 'seed' ? (seed ?? r.spec.seed) : (valueAt(params, p) ?? valueAt(parsed, p)));
    const valuesIn = (parsed: Record<string, unknown> = {}) => Object.fromEntries(labelled.map((p) => [p, valueOf(p, parsed)]).filter(([, v]) => v !== undefined));
    const spec: RunSpec = { ...r.spec, name: nameOf(valuesIn()), seed: seed ?? r.spec.seed, params };
    const named = (issues: readonly ApiIssue[]) => bySource(issues, overrides, r.spec.params);
    let rows: CheckedRun[];
    try {
      rows = await this.validate(spec, r.priority, '');
    } catch (err) {
      if (!(err instanceof ApiError) || !err.issues) throw err;
      const issues = named(err.issues);
      const at = err.message.indexOf('invalid request:');
      throw new ApiError(err.code, (at > 0 ? err.message.slice(0, at) : '') + invalidMessage(issues), issues, named(err.warnings ?? []));
    }
    const values = valuesIn(rows[0].params);
    spec.name = nameOf(values); // the batch's, when a sweep given here makes one
    // A run's swept values are its label's, so that the queue's and History's columns say the same as its name.
    rows = rows.map((row) => {
      const sweep = { ...values, ...row.sweep }, name = nameOf(sweep);
      return { ...row, sweep, name, spec: { ...row.spec, name } };
    });
    const warnings = named(await this.registry.warnings(spec.engine, rows));
    const changed = Object.keys(overrides).length > 0 || spec.seed !== r.spec.seed;
    const point = r.batchId && !changed ? { batchId: r.batchId, seed: r.seed, sweep: r.sweep } : undefined;
    const added = await this.add(spec, rows, undefined, point);
    const outside = !r.batchId
      ? null
      : changed
        ? 'its values changed, so it is a new experiment'
        : added.batchId !== r.batchId
          ? 'the batch has a run of this point done or still to run'
          : null;
    return { ...added, warnings, outside, ...this.memoryEstimate(rows) };
  }

  /** Deletes a run, its series and artifacts (cancelling it first if it runs). */
  async deleteRun(id: string): Promise<void> {
    const { batchId } = this.mustGet(id);
    const job = this.active.get(id);
    if (job) {
      this.cancelRequested.add(id);
      job.cancel();
      await job.done;
      await this.settled(id);
    }
    this.removeRun(id);
    this.tellDeleted(id);
    this.emitQueue();
    // The last run of its batch still to run: the others are final, so the batch is finished.
    if (batchId) this.finishBatchIfDone(batchId);
  }

  /**
   * Removes run `id`'s row and folder (deleteRun, a failed sphere import): the folder goes aside
   * first, then the row, then the folder, so that a process killed between two steps leaves the run
   * listed, its folder put back at the next start (finishRemovals), or wholly gone. The row first,
   * it left a folder that no command lists, its disk used for good.
   */
  removeRun(id: string): void {
    const aside = this.setAside(id);
    try {
      this.store.deleteRun(id);
    } catch (err) {
      if (aside) renameSync(aside, this.runDir(id)); // not deleted (locked, full): whole, as it was
      throw err;
    }
    if (aside) rmSync(aside, { recursive: true, force: true });
  }

  /**
   * Deletes run `id`'s files ahead of its row, for its removal on a full disk: there SQLite cannot open
   * the database for writing (it has no room for its shared-memory and WAL files) until something frees
   * space, and the run's files are what the user would free. Writes nothing to the database, so that
   * read-only services can do it. The folder goes aside as a removal that only goes forward: the next
   * services to open the folder for writing (this process's too) delete the row, then the folder
   * (finishRemovals); until then the run is listed without its files. False when it had no folder.
   * Refused for a run another process runs (runners): deleteRun stops it there by deleting its record,
   * which that process watches, and this cannot; its files went from under its worker, its record
   * stayed 'running'. Read-only services run nothing themselves.
   */
  deleteFilesFirst(id: string): boolean {
    this.mustGet(id);
    const runner = this.runners().get(id);
    if (runner) {
      throw new ApiError('conflict', `run ${id} runs in another process on this data folder (pid ${runner.pid} on ${runner.host}): on a full disk its record cannot be changed from here to stop it, so its files are not deleted under it; cancel it there, or end that process (its runs go back to the queue), then delete it`);
    }
    const aside = join(this.asideDir(), `${FILES_FIRST}${id}@${ownerTag()}`);
    try {
      renameSync(this.runDir(id), aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    this.filesDeleted.add(id);
    // Its contents, not the folder: the folder is what says the row is to go.
    removeFilesBut(aside, []);
    return true;
  }

  /** Runs whose files deleteFilesFirst deleted, their records not yet seen gone (removedByWriter). */
  private readonly filesDeleted = new Set<string>();

  /**
   * Services that can write, opened once deleteFilesFirst made room (handlers.ts deleteRun), removed
   * records at their opening (finishRemovals): those of every run whose files this process deleted
   * first, each on a click of its own in History while the disk was full. Read-only services read
   * the folder again (on a full disk they read a copy in memory, which sees no change) and tell their
   * subscribers (the app's, the web host's windows) of each, as deleteRun does; they heard nothing of
   * the writer's, which has none.
   */
  removedByWriter(): void {
    this.store.reread();
    for (const id of this.filesDeleted) {
      if (this.store.getSummary(id)) continue;
      this.filesDeleted.delete(id);
      this.tellDeleted(id);
    }
    this.emitQueue();
  }

  /** Where deleteRun sets a run's folder aside while it removes the run: in runs/, so that the move is a rename. */
  private asideDir(): string {
    return join(this.dataDir, 'runs', REMOVING_DIR);
  }

  /** Moves run `id`'s folder aside, named after the run and this process (finishRemovals reads both); null when it has none. */
  private setAside(id: string): string | null {
    const aside = join(this.asideDir(), `${id}@${ownerTag()}`);
    mkdirSync(this.asideDir(), { recursive: true });
    try {
      renameSync(this.runDir(id), aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // never started: no folder
      throw err;
    }
    return aside;
  }

  /**
   * Finishes the removals (deleteRun) of processes that ended part-way through one: a run whose row is
   * still there gets its folder back (listed and whole, it can be removed again), the folder of one
   * whose row is gone goes; one whose files went first (deleteFilesFirst) loses its row, then its folder.
   * Those of live processes are theirs to finish. At start-up: a removal of this process runs to its end
   * in one go, so one with its pid is an earlier process's, or this one's files-first removal, which
   * waits for services that can write.
   */
  finishRemovals(): void {
    let names: string[];
    try {
      // Made here, at the start, while the disk likely has room: a removal on a full one could not make
      // it, and failed (a sphere import that failed for want of room was left 'running').
      mkdirSync(this.asideDir(), { recursive: true });
      names = readdirSync(this.asideDir());
    } catch {
      return; // a removal makes it, or says why it cannot
    }
    const pattern = new RegExp(`^(${FILES_FIRST})?([0-9a-f]+)@(${OWNER_TAG})$`);
    for (const name of names) {
      const m = pattern.exec(name);
      const owner = m && parseOwnerTag(m[3]);
      if (!m || !owner || ownerState(owner, 'ended') !== 'ended') continue;
      const [, filesFirst, id] = m;
      const aside = join(this.asideDir(), name), dir = this.runDir(id);
      if (filesFirst) this.bestEffort(() => this.finishFilesFirst(id, aside));
      else this.bestEffort(() => (this.store.getSummary(id) && !existsSync(dir) ? renameSync(aside, dir) : rmSync(aside, { recursive: true, force: true })));
    }
  }

  /** The rest of a removal deleteFilesFirst began: its files went (some may be left), its row goes, then `aside`. */
  private finishFilesFirst(id: string, aside: string): void {
    const batchId = this.store.getRun(id)?.batchId;
    if (batchId !== undefined) {
      this.store.deleteRun(id);
      this.tellDeleted(id);
      if (batchId) this.finishBatchIfDone(batchId);
    }
    rmSync(aside, { recursive: true, force: true });
  }

  /**
   * Resolves when every run of `ids` has reached a final status (or was deleted), whichever process
   * ran it: runs another process took (the app or the web host on the same folder, beside a
   * `packbench run`) finish there, so the store is looked at every poll as well. The poll keeps
   * this process alive while it waits. Also resolves when the queue closes.
   */
  waitFor(ids: string[]): Promise<void> {
    const pending = new Set(ids);
    return new Promise((resolve) => {
      const finish = () => {
        clearInterval(timer);
        offUpdated();
        offDeleted();
        this.waiters.delete(finish);
        resolve();
      };
      const check = () => {
        for (const id of pending) {
          // A run working here that another process cancelled is final in the store at once, but
          // its metrics, wall time and log are stored here when its worker has ended (settled).
          if (this.active.has(id)) continue;
          const status = this.store.getSummary(id)?.status;
          if (status === undefined || FINAL_STATUSES.includes(status)) pending.delete(id);
        }
        if (pending.size === 0) finish();
      };
      // The run an event names, alone: check() reads every pending run, and at each end of a 9,300-run
      // sweep (its Ctrl-C cancels them one by one) that made 43 million reads.
      const ended = (id: string) => {
        if (this.active.has(id) || !pending.delete(id)) return;
        if (pending.size === 0) finish();
      };
      const offUpdated = this.events.on('run.updated', (s) => FINAL_STATUSES.includes(s.status) && ended(s.id));
      const offDeleted = this.events.on('run.deleted', ({ id }) => ended(id));
      const timer = setInterval(() => this.bestEffort(check), this.pollMs);
      this.waiters.add(finish);
      check();
    });
  }

  /**
   * Resolves when nothing this queue may start is queued or left by a process that died, and nothing runs (CLI `queue run`), or
   * when the queue closes (Ctrl-C of `queue run` puts its runs back: the queue is not empty then).
   */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        off();
        clearInterval(timer);
        this.waiters.delete(finish);
        resolve();
      };
      // Runs left running by a process on the folder that died (a `queue run` beside this one killed)
      // are not worked through: the poll re-queues them (recover), then says so (queue.updated).
      // Nor are runs whose outcome waits for room (a full disk): `queue run` ended with it unstored,
      // the run re-run from its beginning by the next process.
      const check = () => {
        if (this.active.size === 0 && this.unstored.size === 0 && !this.nextStartable() && this.orphans(false).length === 0) finish();
      };
      const off = this.events.on('queue.updated', check);
      // Another process may take the last queued runs: look at the store every poll too.
      const timer = setInterval(() => this.bestEffort(check), this.pollMs);
      this.waiters.add(finish);
      check();
    });
  }

  /**
   * The pending waitFor and idle: close ends them, as their polls would read a closed database
   * (a Ctrl-C'd `queue run` printed 'The database connection is not open' every 2 s and never exited).
   */
  private readonly waiters = new Set<() => void>();

  /**
   * Stops starting runs; running ones are stopped and go back to the queue (nothing is lost). Runs
   * the user asked to stop and keep are given up to stopGraceMs to end so, with their results; past
   * it they are stopped as the others, and their stop is honoured at the next start (interrupted).
   * `because`: what happened, for their logs ('interrupted: the app closed; re-queued ...').
   */
  async close(because = APP_CLOSED): Promise<void> {
    this.closing = true;
    this.closingBecause = because;
    clearInterval(this.poll);
    for (const finish of [...this.waiters]) finish();
    // Runs another process cancelled are recorded cancelled, not put back in the queue; those it asked to stop, stop.
    this.bestEffort(() => this.stopRunsEndedElsewhere());
    const jobs = [...this.active.values()];
    const stopping = jobs.filter((j) => j.stopping);
    for (const j of jobs) if (!j.stopping) j.cancel();
    if (stopping.length > 0) {
      await allWithin(stopping.map((j) => j.done), this.stopGraceMs);
      for (const j of stopping) j.cancel(); // nothing for those that ended
    }
    await Promise.all(jobs.map((j) => j.done));
    await Promise.all(jobs.map((j) => this.settled(j.runId)));
    // A last try, waiting for a lock as calls do; what still cannot be written is recovered (run again) by the next process.
    for (const [id, write] of [...this.unstored]) {
      this.bestEffort(() => {
        write();
        this.unstored.delete(id);
      });
    }
  }

  /** Runs that ended here whose outcome the data folder has not taken (a full disk); after close, those the next process runs again. */
  unstoredRuns(): string[] {
    return [...this.unstored.keys()];
  }

  // ------------------------------------------------------------------ internals

  private readonly settling = new Map<string, Promise<void>>();
  /** Runs the user cancelled (as opposed to runs stopped because the queue closes). */
  private readonly cancelRequested = new Set<string>();

  private settled(id: string): Promise<void> {
    return this.settling.get(id) ?? Promise.resolve();
  }

  /** Runs whose failure to start could not be stored, for another reason than a locked or full database. */
  private readonly unrecorded = new Set<string>();
  /**
   * Outcomes the database could not take when they came (locked by another process, full), by run:
   * the poll writes them again, so that a run that ended does not stay 'running' with its results lost.
   */
  private readonly unstored = new Map<string, () => void>();

  /** The next run this queue may start: of `among` (all when not given), and of `only`. */
  private nextStartable(among?: ReadonlySet<string>): RunRecord | null {
    const include = among && this.only ? new Set([...among].filter((id) => this.only!.has(id))) : (among ?? this.only);
    return this.store.nextQueued(new Set([...this.active.keys(), ...this.unrecorded, ...this.unstored.keys()]), include);
  }

  /**
   * Runs re-queued to end as stopped (interrupted: the user asked to stop and keep them, and their
   * process ended first), as last looked; and the data version then (-1: look again, this process
   * re-queued one). Among the queued runs that started before (a few), those with a stop-request
   * file; looked for again only when another process has written since (a scan of 10,000 queued
   * runs takes about 10 ms).
   */
  private stopPending: ReadonlySet<string> = new Set();
  private stopPendingLooked = -1;

  /**
   * The queued runs that start before the others (pump), for `queue list`'s order: those re-queued
   * to end as stopped, and those recover will re-queue so (a read-only look at a folder whose
   * process died while its runs were stopping).
   */
  startsFirst(): ReadonlySet<string> {
    const first = new Set(this.stopPendingRuns());
    for (const r of this.orphans(false)) if (this.fate(r.id, this.stopRequested(r.id)) === 'stop') first.add(r.id);
    return first;
  }

  private stopPendingRuns(): ReadonlySet<string> {
    try {
      const version = this.store.dataVersion();
      if (version !== this.stopPendingLooked) {
        this.stopPending = new Set(this.store.requeuedRuns().filter((id) => this.stopRequested(id)));
        this.stopPendingLooked = version;
      }
    } catch (err) {
      console.error(`queue: cannot look for runs to stop: ${err instanceof Error ? err.message : String(err)}`);
    }
    return this.stopPending;
  }

  /** Runs `write` (a run's outcome); when the database cannot take it now, keeps it for the poll. Other errors are thrown. */
  private storeOutcome(id: string, write: () => void): void {
    try {
      this.store.withoutWaiting(write);
      this.unstored.delete(id);
      this.writable();
    } catch (err) {
      const fault = storageFault(err);
      if (!fault) {
        this.unstored.delete(id);
        throw err;
      }
      if (!this.unstored.has(id)) console.error(`queue: the outcome of run ${id} cannot be stored now: ${fault.message}; trying again every ${this.pollMs / 1000} s`);
      this.unstored.set(id, write);
      this.unwritable(err);
    }
  }

  /**
   * The data folder refused a write of the queue's (`err`, a storage fault: its disk filled by another
   * program, its database locked): queued runs wait, and so do the outcomes of runs that ended. Said
   * once on stderr and in the queue's state (the app's status bar), with what it needs, until a write
   * goes through (writable); the runs it waits for were said only as 'queued', or a line a poll.
   */
  private unwritable(err: unknown): void {
    const code = String((err as { code?: unknown }).code);
    const full = isFullDisk(code); // said with the free space
    const what = code === 'SQLITE_BUSY' ? 'the database of the data folder is locked by another process' : storageFaultMeaning(code);
    if (this.waiting?.startsWith(`${what}:`)) return; // said (its free space may have changed)
    let free = '';
    if (full) {
      try {
        const fs = statfsSync(this.dataDir);
        free = `, ${formatBytes(fs.bavail * fs.bsize)} free`;
      } catch {
        // the free space is a hint
      }
    }
    const until = full ? 'space is freed on it' : code === 'SQLITE_BUSY' ? 'the process holding its write lock (a database tool, a PackBench command writing) lets go' : 'it can be written again';
    this.waiting = `${what}: queued runs start, and the outcomes of ended runs are stored, once ${until} (${code}, ${this.dataDir}${free})`;
    console.error(`queue: waiting: ${this.waiting}; trying again every ${this.pollMs / 1000} s`);
    this.emitQueue();
  }

  /** A write of the queue's went through: what unwritable said is over. */
  private writable(): void {
    if (this.waiting === null || this.unstored.size > 0) return;
    this.waiting = null;
    console.error('queue: the data folder takes writes again: going on');
    this.emitQueue();
  }

  private pump(): void {
    if (!this.started || this.closing || this.pumping) return;
    this.pumping = true;
    try {
      this.followStoredPause();
      // Runs re-queued only to end as stopped first, whatever the pause and the runs at a time: the
      // user asked them to end with their results, and they were running when their process ended.
      // Within the memory budget: one that must wait for it holds the others.
      for (let r = this.nextStartable(this.stopPendingRuns()); r; r = this.nextStartable(this.stopPending)) {
        if (!this.startRun(r)) return;
      }
      // At most `concurrency` runs, and the threads they run on within the cores (a run on more
      // threads than there are cores runs alone). A run of an engine without helper threads counts
      // one, whatever the threads per run.
      const cores = availableParallelism();
      while (!this.paused && this.state().running < this.concurrency) {
        const r = this.nextStartable();
        if (!r) break;
        const busy = this.threadsInUse();
        if (busy > 0 && busy + this.threadsFor(r.engine, r.params) > cores) break;
        if (!this.startRun(r)) break;
      }
    } catch (err) {
      // A read that fails (a disk I/O error) must not fail what called for the pump: a run's end,
      // whose promise nothing catches (Node ends the process on it), or a call whose change is
      // stored already (resume, pause of a run, priorities). Said; the poll's next look picks again.
      console.error(`queue: cannot pick the next run now (${err instanceof Error ? err.message : String(err)}); trying again every ${this.pollMs / 1000} s`);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Takes up a pause or resume of the queue that another process on the data folder stored (the app
   * beside a web host), before runs are picked: one read of a one-row table. Tells subscribers when
   * it changed. A read that fails keeps the pause as it was.
   */
  private followStoredPause(): void {
    if (!this.followsFolder) return;
    let paused: boolean;
    try {
      paused = this.pausedInFolder();
    } catch (err) {
      console.error(`queue: cannot read the queue's pause: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (paused === this.paused) return;
    this.paused = paused;
    this.emitQueue();
  }

  /** This process as the runner of a run: machine, threads, app version, owner. */
  origin(threads: number): RunOrigin {
    const host = { hostname: hostname(), platform: process.platform, arch: process.arch, cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', totalMemoryBytes: totalmem(), node: process.version };
    return { host, threads, appVersion: this.appVersion, owner: this.owner };
  }

  /**
   * Starts one run as one guarded step: false when it must wait for memory; any failure on the way
   * (no such engine, over the budget, run folder not writable, worker bundle not writable, database
   * full) fails that run with the message, and the queue goes on with the next.
   */
  private startRun(r: RunRecord): boolean {
    try {
      return this.tryStart(r);
    } catch (err) {
      this.active.delete(r.id);
      this.failBeforeStart(r.id, `could not start: ${err instanceof Error ? err.message : String(err)}`);
      return true;
    }
  }

  /**
   * Threads a run of `engine` with parsed `params` runs on: the threads per run when its work is
   * shared with helper threads (the engine has a helper, and usesHelpers allows it for these params),
   * else one.
   */
  private threadsFor(engine: string, params: Record<string, unknown>): number {
    const d = this.registry.get(engine).definition;
    return d.helper && (d.usesHelpers?.(params as never) ?? true) ? this.threadsPerRun : 1;
  }

  /** Threads this process's running (not paused) runs use. */
  private threadsInUse(): number {
    let n = 0;
    for (const job of this.active.values()) if (!job.paused) n += job.threads;
    return n;
  }

  private tryStart(r: RunRecord): boolean {
    const decl = this.registry.get(r.engine);
    const threads = this.threadsFor(r.engine, r.params);
    const memoryBytes = this.memoryBytes(r.engine, r.params, threads);
    if (memoryBytes > this.pool.memoryBudgetBytes) {
      throw new Error(`run needs about ${formatBytes(memoryBytes)}${this.withThreads(threads)}, more than the memory budget of ${formatBytes(this.pool.memoryBudgetBytes)}`);
    }
    if (!this.pool.fits(memoryBytes)) return false;
    let claimed: boolean;
    try {
      claimed = this.store.withoutWaiting(() => this.store.claim(r.id, this.origin(threads)));
    } catch (err) {
      // Locked by another process, or full: the run stays queued and the poll tries again.
      if (!storageFault(err)) throw err;
      this.unwritable(err);
      return false;
    }
    this.writable();
    if (!claimed) return true;
    // What the spec wrote that has no effect, at the start of the run's log: its history tells later readers.
    if (r.attempts === 0) {
      this.bestEffort(() => {
        const lines = this.registry.runWarnings(r.engine, r).map((w) => `warning: ${w.path}: ${w.message}`);
        this.store.withoutWaiting(() => this.store.appendLog(r.id, lines));
      });
    }
    const dir = this.runDir(r.id);
    // Leftovers of an interrupted attempt go, but for its checkpoint (the run resumes from it) and a
    // stop asked before the interruption (the run ends as soon as it can: interrupted).
    mkdirSync(dir, { recursive: true });
    removeFilesBut(dir, [CHECKPOINT_FILE, STOP_REQUEST_FILE]);
    const stopAsked = this.stopRequested(r.id);
    // Log lines the database could not take when they came (locked by another process, full): written
    // with the next ones, or with the outcome, which is retried until stored. Dropped, the lines a run
    // logged while another process held the lock (a database tool's transaction, a `queue add` of a
    // large sweep) were lost, its last ones (an error's stack) too.
    let unlogged: string[] = [];
    const log = (lines: string[]) => {
      const all = unlogged.length ? [...unlogged, ...lines] : lines;
      try {
        this.store.withoutWaiting(() => this.store.appendLog(r.id, all));
        unlogged = [];
      } catch (err) {
        if (!storageFault(err)) throw err;
        unlogged = all;
      }
    };
    const job = this.pool.start(
      { runId: r.id, engineId: r.engine, workerEntry: decl.workerEntry, params: r.params, seed: r.seed, threads, runDir: dir, memoryBytes, checkpointSeconds: this.checkpointSeconds },
      {
        // Progress and logs are best effort: a full or locked database must not stop the run, nor this process.
        onProgress: (p) => this.bestEffort(() => {
          try {
            this.store.withoutWaiting(() => this.store.setProgress(r.id, { done: p.done, total: p.total, phase: p.phase, counters: p.counters }));
          } catch (err) {
            if ((err as { code?: unknown }).code === 'SQLITE_BUSY') return; // locked: the next update comes within a second
            if (!storageFault(err)) throw err;
            this.unwritable(err); // full: said once, not at every update
            return;
          }
          this.emitRun(r.id);
        }),
        onLog: (lines) => this.bestEffort(() => log(lines)),
      },
    );
    if (stopAsked) job.stop();
    this.active.set(r.id, job);
    this.emitRun(r.id);
    this.emitQueue();
    this.settling.set(
      r.id,
      job.done.then((o) => {
        this.active.delete(r.id);
        this.settling.delete(r.id);
        const userCancelled = this.cancelRequested.delete(r.id);
        // Stop and keep was asked: here, or by another process after this one last looked.
        const stopAsked = job.stopping || this.stopRequested(r.id);
        // A failed run keeps no files: its artifacts are not recorded (a checkpoint would resume a run
        // that is over). What it wrote before failing stayed, up to its results' whole size when the
        // disk filled up part-way through them: the disk stayed full, the failure could not be stored
        // and the next runs could not start. Before the outcome is stored, for that room.
        if (o.status === 'failed' && existsSync(dir)) this.bestEffort(() => removeFilesBut(dir, [STOP_REQUEST_FILE]));
        try {
          this.storeOutcome(r.id, () => {
            if (unlogged.length) {
              this.store.appendLog(r.id, unlogged);
              unlogged = [];
            }
            this.onOutcome(r.id, o, userCancelled, stopAsked);
          });
        } catch (err) {
          this.failBeforeStart(r.id, `finished but its outcome could not be stored: ${err instanceof Error ? err.message : String(err)}`);
        }
        this.pump();
      }),
    );
    return true;
  }

  /** Marks a run failed (later, when the database is locked or full now); when that cannot be stored at all, says so on stderr. */
  private failBeforeStart(id: string, error: string): void {
    try {
      this.storeOutcome(id, () => {
        this.store.finishRun(id, { status: 'failed', error });
        this.afterFinal(id);
      });
    } catch (err) {
      this.unrecorded.add(id); // not picked again by this process, or the pump would loop on it
      console.error(`queue: run ${id} failed (${error}), and that could not be recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Tells subscribers a run is deleted, once: followOthers, reading the store's log of deletions, leaves it. */
  private tellDeleted(id: string): void {
    if (this.followsFolder) this.toldDeleted.add(id);
    this.events.emit('run.deleted', { id });
  }

  private bestEffort(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      console.error(`queue: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private onOutcome(id: string, o: JobOutcome, userCancelled: boolean, stopAsked: boolean): void {
    const status = this.store.getSummary(id)?.status;
    if (status !== undefined && this.closing && o.status === 'cancelled' && !userCancelled) {
      this.interrupted(id, this.closingBecause, { stopAsked, wasPaused: status === 'paused', ended: o });
      return;
    }
    if (status === undefined) {
      // Deleted by another process (a deletion here emits its own event once this is done).
      this.tellDeleted(id);
      this.emitQueue();
      return;
    }
    if (o.status === 'done') {
      this.store.finishRun(id, { status: 'done', metrics: o.metrics, series: o.series, artifacts: o.artifacts, wallSeconds: o.wallSeconds });
    } else if (o.status === 'cancelled') {
      this.store.appendLog(id, [CANCELLED_RUNNING]);
      this.store.finishRun(id, { status: 'cancelled', metrics: o.metrics, series: o.series, wallSeconds: o.wallSeconds });
    } else {
      this.store.finishRun(id, { status: 'failed', error: o.error, wallSeconds: o.wallSeconds });
    }
    // Once its outcome is stored: a stop asked is not lost to a process that ends before that, and the
    // run resumes from its checkpoint (it would only resume a run that is over now). The worker
    // removed it as it handed its results over: killed before they could be stored (another process
    // held the lock), the process left a run that started again from its beginning.
    rmSync(join(this.runDir(id), STOP_REQUEST_FILE), { force: true });
    removeCheckpoint(this.runDir(id));
    this.afterFinal(id);
  }

  /** Tells subscribers runs `ids` ended, then the queue's state once, and finishes the batches they leave with nothing to run. */
  private afterFinal(...ids: string[]): void {
    const batches = new Set<string>();
    for (const id of ids) {
      const s = this.emitRun(id);
      if (s?.batchId) batches.add(s.batchId);
    }
    this.emitQueue();
    for (const batchId of batches) this.finishBatchIfDone(batchId);
  }

  /** Marks a batch finished (and says so) once none of its runs is left to run and some remain. */
  private finishBatchIfDone(batchId: string): void {
    // Counted once no run is left to run: each of a 10,000-run sweep's ends counted all its runs.
    if (this.store.batchUnfinished(batchId)) return;
    const c = this.store.batchCounts(batchId);
    if (c.done + c.failed + c.cancelled > 0 && this.store.markBatchFinished(batchId)) {
      this.events.emit('batch.finished', { batchId, name: this.store.batchName(batchId) ?? '', done: c.done, failed: c.failed, cancelled: c.cancelled });
    }
  }

  private emitRun(id: string): RunSummary | null {
    const s = this.store.getSummary(id);
    if (s) this.events.emit('run.updated', s);
    return s;
  }

  private emitQueue(): QueueState {
    const s = this.state();
    this.lastQueued = s.queued;
    this.lastElsewhere = s.runningElsewhere;
    this.events.emit('queue.updated', s);
    return s;
  }
}
