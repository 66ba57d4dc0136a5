/**
 * Long loops on the host's thread (a sweep's points, an export's rows) cut into turns of the event
 * loop. That thread serves the app, the web host and the CLI: while a loop holds it, no other call
 * is answered, no progress event goes out and no cancel is taken.
 */

/** Milliseconds of work a loop does in one go before it lets other calls and events through. */
export const TURN_MS = 20;

/** Lets other calls and events through (a macrotask: I/O and timers run before it resolves). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The clock of one loop: `pass()` at each step waits for the next turn once this turn has taken
 * TURN_MS, or `steps` steps (when given: a bound that does not depend on the machine's speed). A
 * loop that awaits something else at times (a file write) asks `due()` and `restart()`s after it.
 */
export class Turns {
  private start = performance.now();
  private count = 0;

  constructor(private readonly steps = Infinity) {}

  /** Whether this turn has taken TURN_MS, or `steps` steps with this one. */
  due(): boolean {
    return ++this.count >= this.steps || performance.now() - this.start >= TURN_MS;
  }

  /** Begins a turn: the loop has just let others through. */
  restart(): void {
    this.start = performance.now();
    this.count = 0;
  }

  async pass(): Promise<void> {
    if (!this.due()) return;
    await nextTurn();
    this.restart();
  }
}

/**
 * Runs `steps` (a generator of core's, such as decodeTableInSteps) to its end, letting others through
 * after each step; stops with the signal's reason once `signal` is aborted (its client has gone).
 */
export async function inTurns<T>(steps: Generator<void, T, void>, signal?: AbortSignal): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
    signal?.throwIfAborted();
  }
}
