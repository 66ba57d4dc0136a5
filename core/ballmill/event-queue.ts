/**
 * The one event queue of the simulation: a binary min-heap over typed arrays. An event is a time,
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

export class EventQueue {
  private time: Float64Array;
  /** kind · 2^48 + a · 2^24 + (b + 16): the tie-break, exact in a double for a, b + 16 < 2^24. */
  private tie: Float64Array;
  private a: Int32Array;
  private b: Int32Array;
  private ca: Uint32Array;
  private cb: Uint32Array;
  private kind: Uint8Array;
  private n = 0;
  /** Largest size reached, and the number of compactions. */
  peak = 0;
  compactions = 0;

  constructor(capacity: number) {
    const c = Math.max(16, capacity);
    this.time = new Float64Array(c);
    this.tie = new Float64Array(c);
    this.a = new Int32Array(c);
    this.b = new Int32Array(c);
    this.ca = new Uint32Array(c);
    this.cb = new Uint32Array(c);
    this.kind = new Uint8Array(c);
  }

  get size(): number { return this.n; }

  // The top event, valid after a check of size > 0.
  get topTime(): number { return this.time[0]; }
  get topKind(): EventKind { return this.kind[0]; }
  get topA(): number { return this.a[0]; }
  get topB(): number { return this.b[0]; }
  get topCountA(): number { return this.ca[0]; }
  get topCountB(): number { return this.cb[0]; }

  push(time: number, kind: EventKind, a: number, b: number, ca: number, cb: number): void {
    if (this.n === this.time.length) this.grow();
    const tie = kind * 281474976710656 + a * 16777216 + (b + 16);
    // Sift up: move parents down until the slot fits.
    let k = this.n++;
    if (this.n > this.peak) this.peak = this.n;
    const T = this.time, X = this.tie;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (T[p] < time || (T[p] === time && X[p] <= tie)) break;
      this.move(p, k);
      k = p;
    }
    T[k] = time; X[k] = tie;
    this.a[k] = a; this.b[k] = b; this.ca[k] = ca; this.cb[k] = cb; this.kind[k] = kind;
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
    let m = 0;
    for (let k = 0; k < this.n; k++) {
      if (!live(this.kind[k], this.a[k], this.b[k], this.ca[k], this.cb[k])) continue;
      if (m !== k) this.move(k, m);
      m++;
    }
    this.n = m;
    for (let k = (m >> 1) - 1; k >= 0; k--) this.siftDown(k, k);
    this.compactions++;
  }

  clear(): void { this.n = 0; }

  /** Moves the entry at index `from` into the hole at 0..n-1 position `hole`, sifting down.
   *  (`from` = hole re-sifts an entry in place.) */
  private siftDown(hole: number, from: number): void {
    const T = this.time, X = this.tie, n = this.n;
    const time = T[from], tie = X[from];
    const a = this.a[from], b = this.b[from], ca = this.ca[from], cb = this.cb[from], kind = this.kind[from];
    let k = hole;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      const d = c + 1;
      if (d < n && (T[d] < T[c] || (T[d] === T[c] && X[d] < X[c]))) c = d;
      if (time < T[c] || (time === T[c] && tie <= X[c])) break;
      this.move(c, k);
      k = c;
    }
    T[k] = time; X[k] = tie;
    this.a[k] = a; this.b[k] = b; this.ca[k] = ca; this.cb[k] = cb; this.kind[k] = kind;
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]; this.tie[to] = this.tie[from];
    this.a[to] = this.a[from]; this.b[to] = this.b[from];
    this.ca[to] = this.ca[from]; this.cb[to] = this.cb[from];
    this.kind[to] = this.kind[from];
  }

  private grow(): void {
    const c = this.time.length * 2;
    const f = (x: Float64Array) => { const y = new Float64Array(c); y.set(x); return y; };
    const i = (x: Int32Array) => { const y = new Int32Array(c); y.set(x); return y; };
    const u = (x: Uint32Array) => { const y = new Uint32Array(c); y.set(x); return y; };
    this.time = f(this.time); this.tie = f(this.tie);
    this.a = i(this.a); this.b = i(this.b);
    this.ca = u(this.ca); this.cb = u(this.cb);
    const k = new Uint8Array(c); k.set(this.kind); this.kind = k;
  }
}
