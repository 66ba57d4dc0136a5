/**
 * The one event queue of the simulation: a 4-ary min-heap over typed arrays (a node's four children share a cache line, and the heap is half as deep as a binary one). An event is a time,
 * a kind, two integers a and b (balls, or a ball and a wall) and the two balls' event counters at
 * the moment it was predicted; an event whose counters no longer match is stale and is dropped when
 * it comes up (invalidation costs nothing: a ball's counter is incremented when its trajectory
 * changes). Ties in time are broken by (kind, a, b), so the order of simultaneous events does not
 * depend on how the heap was filled, and every collision-detection structure replays the same
 * sequence.
 *
 * When stale entries make up most of the heap, `compact` rebuilds it from the live ones (O(size)).
 *
 *   push, pop: O(log size), no allocation except when the arrays double.
 */

export const enum EventKind {
  /** Ball a hits ball b. */
  Collision = 0,
  /** Ball a hits wall b. */
  Wall = 1,
  /** Ball a leaves its CDO box (a topological event). */
  BoxExit = 2,
  /** The periodic trajectory update of every ball (a = b = 0: there is one at a time). */
  Step = 3,
}

/** Slot layout: keys[2k] = time, keys[2k + 1] = tie; ints[4k ..] = a, b, ca, cb. Interleaved so
 *  that a sift step touches two cache lines, not seven arrays. */
export class EventQueue {
  private keys: Float64Array;
  /** a, b and the two counters (stored as int32, read back unsigned). */
  private ints: Int32Array;
  private n = 0;
  /** Largest size reached, and the number of compactions. */
  peak = 0;
  compactions = 0;

  constructor(capacity: number) {
    const c = Math.max(16, capacity);
    this.keys = new Float64Array(2 * c);
    this.ints = new Int32Array(4 * c);
  }

  get size(): number { return this.n; }

  // The top event, valid after a check of size > 0.
  get topTime(): number { return this.keys[0]; }
  get topKind(): EventKind { return Math.floor(this.keys[1] / TIE_KIND); }
  get topA(): number { return this.ints[0]; }
  get topB(): number { return this.ints[1]; }
  get topCountA(): number { return this.ints[2] >>> 0; }
  get topCountB(): number { return this.ints[3] >>> 0; }

  push(time: number, kind: EventKind, a: number, b: number, ca: number, cb: number): void {
    if (this.n === this.keys.length >> 1) this.grow();
    const tie = kind * TIE_KIND + a * TIE_A + (b + 16);
    // Sift up: move parents down until the slot fits.
    let k = this.n++;
    if (this.n > this.peak) this.peak = this.n;
    const K = this.keys;
    while (k > 0) {
      const p = (k - 1) >> 2;
      const tp = K[2 * p];
      if (tp < time || (tp === time && K[2 * p + 1] <= tie)) break;
      this.move(p, k);
      k = p;
    }
    this.put(k, time, tie, a, b, ca, cb);
  }

  /** Removes the top event (read it through the top* getters first). */
  pop(): void {
    const last = --this.n;
    if (last > 0) this.siftDown(0, last);
  }

  /**
   * Keeps only the events for which live(kind, a, b, ca, cb) is true and restores the heap order.
   * The callback is called once per event.
   */
  compact(live: (kind: EventKind, a: number, b: number, ca: number, cb: number) => boolean): void {
    const K = this.keys, I = this.ints;
    let m = 0;
    for (let k = 0; k < this.n; k++) {
      if (!live(Math.floor(K[2 * k + 1] / TIE_KIND), I[4 * k], I[4 * k + 1], I[4 * k + 2] >>> 0, I[4 * k + 3] >>> 0)) continue;
      if (m !== k) this.move(k, m);
      m++;
    }
    this.n = m;
    for (let k = (m - 2) >> 2; k >= 0; k--) this.siftDown(k, k);
    this.compactions++;
  }

  clear(): void { this.n = 0; }

  /** Moves the entry at index `from` into the hole at 0..n-1 position `hole`, sifting down.
   *  (`from` = hole re-sifts an entry in place.) */
  private siftDown(hole: number, from: number): void {
    const K = this.keys, I = this.ints, n = this.n;
    const time = K[2 * from], tie = K[2 * from + 1];
    const a = I[4 * from], b = I[4 * from + 1], ca = I[4 * from + 2], cb = I[4 * from + 3];
    let k = hole;
    for (;;) {
      const first = 4 * k + 1;
      if (first >= n) break;
      // The least of the (up to) four children: their keys share one cache line.
      let c = first, tc = K[2 * first], xc = K[2 * first + 1];
      const last = first + 3 < n ? first + 3 : n - 1;
      for (let d = first + 1; d <= last; d++) {
        const td = K[2 * d];
        if (td < tc || (td === tc && K[2 * d + 1] < xc)) { c = d; tc = td; xc = K[2 * d + 1]; }
      }
      if (time < tc || (time === tc && tie <= xc)) break;
      this.move(c, k);
      k = c;
    }
    this.put(k, time, tie, a, b, ca, cb);
  }

  private put(k: number, time: number, tie: number, a: number, b: number, ca: number, cb: number): void {
    const K = this.keys, I = this.ints;
    K[2 * k] = time; K[2 * k + 1] = tie;
    I[4 * k] = a; I[4 * k + 1] = b; I[4 * k + 2] = ca; I[4 * k + 3] = cb;
  }

  private move(from: number, to: number): void {
    const K = this.keys, I = this.ints;
    K[2 * to] = K[2 * from]; K[2 * to + 1] = K[2 * from + 1];
    const f = 4 * from, t = 4 * to;
    I[t] = I[f]; I[t + 1] = I[f + 1]; I[t + 2] = I[f + 2]; I[t + 3] = I[f + 3];
  }

  private grow(): void {
    const keys = new Float64Array(2 * this.keys.length); keys.set(this.keys); this.keys = keys;
    const ints = new Int32Array(2 * this.ints.length); ints.set(this.ints); this.ints = ints;
  }
}

/** The tie-break key: kind · 2^48 + a · 2^24 + (b + 16), exact in a double for a, b + 16 < 2^24. */
const TIE_KIND = 281474976710656;
const TIE_A = 16777216;
