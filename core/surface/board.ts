/**
 * The repulsion pass and the constrained move on several threads: a *job* (a pass of rows.ts or a
 * move of moves.ts) cut into tasks that the threads take one at a time, in order, as they come
 * free. A move's tasks are equal ranges of particles, each writing only its own. A pass's are a
 * first and a second task per band of z-layers (rows.ts); band b's second task (its last layer)
 * writes into band b's last layer and band b + 1's first (modulo the bands), so it waits until
 * the first tasks of bands b and b + 1 have finished (they write there too, and their terms come
 * first in the sums); no other two tasks touch the same particles. So the threads meet at no
 * barrier: while the last first tasks run, the second tasks of the bands before them do.
 *
 * The run's thread and its helper threads share the particles' arrays (SharedArrayBuffers) and a
 * control block: the job's number (helpers sleep on it between jobs), a claim word (the job's
 * number and its next task: a thread takes a task by a compare-and-swap, so a helper that wakes
 * late takes nothing of a finished job), the number of the job in which each task last finished,
 * a count of the job's finished tasks (its end), the job's kind and tasks, the pass's geometry
 * and bands, the move's parameters. Helpers compile the implicit function themselves from its
 * surface. A task's results do not depend on the thread that runs it, so a job is the same for a
 * given number of tasks however the threads share it; a helper that is late or asleep only
 * leaves more tasks to the run's thread (which takes them all without helpers). Helpers return
 * when told to quit (TaskBoard.quit); a helper that throws marks the block failed, and the run's
 * thread gives up with an error instead of waiting for a task that will not end, as it does after
 * HELPER_TIMEOUT_MS without progress.
 */
import { implicitFunction, type ImplicitFunction, type ImplicitSurface } from './implicit';
import { M, MOVE_SLOTS, MovePass, type MoveArrays } from './moves';
import { GEOMETRY_SLOTS, RowPass, type RowArrays } from './rows';

/** Int32 slots of the control block. */
const C = {
  /** The job's number, incremented to start a job (helpers wait on it). */
  number: 0,
  /** The job's number (low bits, CLAIM_PASS_MASK) · 2^8 + its next task; CLOSED between jobs. */
  claim: 1,
  /** Tasks finished in this job. */
  done: 2,
  /** 1: helpers return. */
  quit: 3,
  /** 1: a helper threw. */
  failed: 4,
  /** Tasks the helpers ran, all jobs together. */
  helperTasks: 5,
  /** The job's kind (JOB_ROWS or JOB_MOVES) and its number of tasks. */
  kind: 6,
  tasks: 7,
} as const;
const JOB_ROWS = 0;
const JOB_MOVES = 1;
const CONTROL_WORDS = 8;
const CLAIM_PASS_MASK = 0x7fffff;
/** No pass's claim word (its pass field matches no pass number). */
const CLOSED = -1;
/** Bands of a pass, and ranges of a move, at most (below the claim word's 8 bits of task). */
export const MAX_BANDS = 64;
/** Spins on a shared word this many times before sleeping on it. */
const SPINS = 20_000;
/** The run's thread gives up on a helper that has held a task this long. */
const HELPER_TIMEOUT_MS = 60_000;

const BYTES = 4 * CONTROL_WORDS + 8 * (GEOMETRY_SLOTS + MOVE_SLOTS) + 4 * (MAX_BANDS + 1) + 4 * 2 * MAX_BANDS;

/** What a helper thread gets (structured-cloned: the buffers are shared). */
export interface HelperData {
  control: SharedArrayBuffer;
  rows: RowArrays;
  moves: MoveArrays;
  surface: ImplicitSurface;
}

/** The control block's parts; finished[t]: the number of the job in which task t last finished. */
interface Views { ctl: Int32Array; geometry: Float64Array; moveParams: Float64Array; bandFirst: Int32Array; finished: Int32Array }

function views(buffer: ArrayBufferLike): Views {
  const ints = 4 * CONTROL_WORDS + 8 * (GEOMETRY_SLOTS + MOVE_SLOTS);
  return {
    ctl: new Int32Array(buffer, 0, CONTROL_WORDS),
    geometry: new Float64Array(buffer, 4 * CONTROL_WORDS, GEOMETRY_SLOTS),
    moveParams: new Float64Array(buffer, 4 * CONTROL_WORDS + 8 * GEOMETRY_SLOTS, MOVE_SLOTS),
    bandFirst: new Int32Array(buffer, ints, MAX_BANDS + 1),
    finished: new Int32Array(buffer, ints + 4 * (MAX_BANDS + 1), 2 * MAX_BANDS),
  };
}

/** A thread's two kinds of task. */
interface Passes { rows: RowPass; moves: MovePass }

/** Waits (spinning first, then sleeping) while a[at] is `value`, until `deadline` (ms since the epoch) or until `stop()`. */
function waitWhile(a: Int32Array, at: number, value: number, deadline: number, stop: () => boolean): void {
  for (let i = 0; i < SPINS; i++) if (Atomics.load(a, at) !== value) return;
  while (Atomics.load(a, at) === value && Date.now() < deadline && !stop()) Atomics.wait(a, at, value, Math.min(1000, Math.max(1, deadline - Date.now())));
}

/**
 * Waits until task t has finished in pass `number`; false when `stop()` ended the wait. Throws
 * when a helper failed or at the deadline.
 */
function waitFinished(v: Views, t: number, number: number, deadline: number, stop: () => boolean): boolean {
  for (let f = Atomics.load(v.finished, t); f !== number; f = Atomics.load(v.finished, t)) {
    if (Atomics.load(v.ctl, C.failed) === 1) throw new Error('surface sampler: a helper thread failed');
    if (Date.now() > deadline) throw new Error(`surface sampler: a task did not finish in ${HELPER_TIMEOUT_MS / 1000} s (a helper thread stopped)`);
    if (stop()) return false;
    waitWhile(v.finished, t, f, deadline, stop);
  }
  return true;
}

/**
 * Takes tasks of job `number` until none is left (or the job is over) and runs them; in a pass,
 * band b's second task once the first tasks of bands b and b + 1 have finished. `stop` ends the
 * waits (a helper told to quit, or on the run's thread a failed helper). Returns how many it ran.
 */
function takeTasks(v: Views, passes: Passes, number: number, deadline: number, stop: () => boolean): number {
  const ctl = v.ctl, tag = (number & CLAIM_PASS_MASK) << 8;
  let ran = 0;
  for (;;) {
    const word = Atomics.load(ctl, C.claim);
    if ((word & ~0xff) !== tag) return ran;
    // Read before the claim: the job cannot end (and these change) while a task is open.
    const t = word & 0xff, tasks = Atomics.load(ctl, C.tasks), rows = Atomics.load(ctl, C.kind) === JOB_ROWS, bands = tasks >> 1;
    if (t >= tasks) return ran;
    if (Atomics.compareExchange(ctl, C.claim, word, word + 1) !== word) continue;
    if (rows && t >= bands && !(waitFinished(v, t - bands, number, deadline, stop) && waitFinished(v, (t - bands + 1) % bands, number, deadline, stop))) return ran;
    if (rows) passes.rows.task(t);
    else passes.moves.task(t);
    ran++;
    Atomics.store(v.finished, t, number);
    Atomics.notify(v.finished, t);
    Atomics.add(ctl, C.done, 1);
    Atomics.notify(ctl, C.done);
  }
}

/** The run's side: the control block, its own passes, and the jobs it hands out. */
export class TaskBoard {
  /** This thread's passes (the geometry and bands, or the move's parameters, are written into
   *  them before each job). */
  readonly rows: RowPass;
  readonly moves: MovePass;
  private readonly buffer: ArrayBuffer | SharedArrayBuffer;
  private readonly views: Views;
  private readonly ctl: Int32Array;

  /** `threads` > 1: the arrays must be in SharedArrayBuffers, and so is the control block. */
  constructor(readonly rowArrays: RowArrays, readonly moveArrays: MoveArrays, readonly fn: ImplicitFunction, readonly threads: number) {
    this.buffer = threads > 1 ? new SharedArrayBuffer(BYTES) : new ArrayBuffer(BYTES);
    const v = views(this.buffer);
    this.views = v;
    this.ctl = v.ctl;
    this.ctl[C.claim] = CLOSED;
    this.rows = new RowPass(rowArrays, v.geometry, v.bandFirst);
    this.moves = new MovePass(moveArrays, fn, v.moveParams);
  }

  /** One entry per helper thread (EngineContext.startHelpers). */
  helperData(): HelperData[] {
    if (this.threads < 2) return [];
    return Array.from({ length: this.threads - 1 }, () => ({ control: this.buffer as SharedArrayBuffer, rows: this.rowArrays, moves: this.moveArrays, surface: this.fn.surface }));
  }

  /** Tasks the helper threads ran so far. */
  get helperTasks(): number {
    return this.ctl[C.helperTasks];
  }

  /**
   * Runs a repulsion pass whose geometry and bands are written: with one band, or one thread, its
   * tasks in order here; else shared with the helpers, returning when every task is done.
   */
  runRows(bands: number): void {
    if (bands === 1 || this.threads === 1) {
      for (let t = 0; t < 2 * bands; t++) this.rows.task(t);
      return;
    }
    this.share(JOB_ROWS, 2 * bands);
  }

  /** Moves particles 0 .. n − 1 (the move's parameters are written): in `chunks` ranges shared with the helpers, or here at once. */
  runMoves(n: number, chunks: number): void {
    const p = this.moves.params;
    if (chunks === 1 || this.threads === 1) {
      this.moves.range(0, n);
      return;
    }
    p[M.n] = n;
    p[M.chunks] = chunks;
    this.share(JOB_MOVES, chunks);
  }

  /** Hands out a job of `tasks` tasks, takes its share, and returns when every task is done. */
  private share(job: number, tasks: number): void {
    // This thread alone writes the job counter; the claim word is open before helpers see the job.
    const ctl = this.ctl, number = (ctl[C.number] + 1) | 0, deadline = Date.now() + HELPER_TIMEOUT_MS;
    ctl[C.done] = 0;
    ctl[C.kind] = job;
    ctl[C.tasks] = tasks;
    Atomics.store(ctl, C.claim, (number & CLAIM_PASS_MASK) << 8);
    Atomics.store(ctl, C.number, number);
    Atomics.notify(ctl, C.number);
    // A failed helper leaves its task unfinished: the waits end, and the checks throw.
    const failed = () => Atomics.load(ctl, C.failed) === 1;
    takeTasks(this.views, this, number, deadline, failed);
    for (let d = Atomics.load(ctl, C.done); d < tasks; d = Atomics.load(ctl, C.done)) {
      if (failed()) throw new Error('surface sampler: a helper thread failed');
      if (Date.now() > deadline) throw new Error(`surface sampler: a helper thread held a task for ${HELPER_TIMEOUT_MS / 1000} s (it stopped)`);
      waitWhile(ctl, C.done, d, deadline, failed);
    }
    Atomics.store(ctl, C.claim, CLOSED);
  }

  /** Tells the helpers to return (they sleep between jobs). */
  quit(): void {
    if (this.threads < 2) return;
    Atomics.store(this.ctl, C.quit, 1);
    Atomics.add(this.ctl, C.number, 1);
    Atomics.notify(this.ctl, C.number);
    Atomics.notify(this.ctl, C.done);
  }
}

/** The body of a helper thread: takes tasks of every job until told to quit. */
export function surfaceHelper(data: HelperData): void {
  const v = views(data.control), ctl = v.ctl;
  const passes: Passes = { rows: new RowPass(data.rows, v.geometry, v.bandFirst), moves: new MovePass(data.moves, implicitFunction(data.surface), v.moveParams) };
  const quit = () => Atomics.load(ctl, C.quit) === 1;
  try {
    for (;;) {
      const number = Atomics.load(ctl, C.number);
      if (quit()) return;
      const ran = takeTasks(v, passes, number, Infinity, quit);
      if (ran > 0) Atomics.add(ctl, C.helperTasks, ran);
      waitWhile(ctl, C.number, number, Infinity, quit);
    }
  } catch (err) {
    Atomics.store(ctl, C.failed, 1);
    Atomics.notify(ctl, C.done);
    throw err;
  }
}
