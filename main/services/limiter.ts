/**
 * At most `slots` heavy jobs at a time (exports, imports); the others wait their turn in call order.
 * Twenty STL exports asked for at once then take twenty turns instead of twenty times the memory.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be an integer >= 1, got ${slots}`);
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) await new Promise<void>((turn) => this.waiting.push(turn));
    else this.running++;
    try {
      return await job();
    } finally {
      // The slot passes straight to the next waiter (running stays the same), or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
