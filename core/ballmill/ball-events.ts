/**
 * The event queue of the simulation, kept per ball (as in Lubachevsky's and Donev's event-driven
 * codes): each ball holds its own pending events, and a 4-ary min-heap of the n balls, keyed by
 * each ball's earliest event, orders them. A ball's events are its box exit and its wall contact
 * (one of each, replaced when recomputed) and the pair collisions it predicted (a short linked list
 * in a shared pool). So a box exit or a wall contact never adds a queue entry, and when a ball's
 * trajectory changes, `clear` drops all its own predictions at once; a prediction it made with a
 * partner whose trajectory changed since is stale (the partner's event counter differs) and is
 * dropped when it comes up. The heap holds n entries whatever the number of predictions.
 *
 * Order: by time, ties by (kind, a, b) with a < b for a pair (a ball and the wall for a wall
 * contact): the order does not depend on which ball holds a prediction or on the heap's history,
 * so every collision-detection structure replays the same sequence.
 *
 *   clear, setExit, setWall, addPair: O(1)   update (re-key a ball): O(its predictions + log n)
 *   pool: grows by doubling; no allocation in the steady state
 */

export const enum EventKind {
  /** Ball a hits ball b. */
  Collision = 0,
  /** Ball a hits wall b. */
  Wall = 1,
  /** Ball a leaves its CDO box (a topological event). */
  BoxExit = 2,
  /** The periodic trajectory update of every ball (kept by the simulation, not here). */
  Step = 3,
}

/** The tie-break key of an event at equal times: kind · 2^48 + a · 2^24 + (b + 16), exact in a
 *  double for a, b + 16 < 2^24. */
export function tieKey(kind: EventKind, a: number, b: number): number {
  // Literals rather than module constants, which V8 loads from the module's context (and checks
  // the type of) at every use.
  return kind * 281474976710656 + a * 16777216 + (b + 16);
}

export class BallEvents {
  readonly n: number;
  /** Box exit time per ball (Infinity: none). */
  readonly exitTime: Float64Array;
  /** Wall contact time and wall per ball (Infinity: none). */
  readonly wallTime: Float64Array;
  readonly wallId: Int32Array;
  /** The earliest event of each ball: its kind and, for a collision, its pool node and the node
   *  before it in the ball's list (-1: the head). */
  readonly keyKind: Int8Array;
  readonly keyNode: Int32Array;
  private readonly keyPrev: Int32Array;
  // Pair predictions: pool nodes (time; partner, partner's counter, next node), per-ball lists.
  private poolTime: Float64Array;
  private poolInt: Int32Array;
  private free = -1;
  private used = 0;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  // The heap of balls: (time, tie) of each entry's earliest event, the ball, and each ball's slot.
  private readonly heapKey: Float64Array;
  private readonly heapBall: Int32Array;
  private readonly slot: Int32Array;
  /** Most pair predictions held at once: nodes are taken from the free list first, so the pool
   *  grows past its used part only when every node is held. */
  get peak(): number { return this.used; }

  /** Pair predictions held now (walks the free list; for tests). */
  get pending(): number {
    let free = 0;
    for (let k = this.free; k >= 0; k = this.poolInt[3 * k + 2]) free++;
    return this.used - free;
  }

  constructor(n: number, poolCapacity = 4 * n + 64) {
    this.n = n;
    this.exitTime = new Float64Array(n).fill(Infinity);
    this.wallTime = new Float64Array(n).fill(Infinity);
    this.wallId = new Int32Array(n);
    this.keyKind = new Int8Array(n);
    this.keyNode = new Int32Array(n);
    this.keyPrev = new Int32Array(n);
    this.head = new Int32Array(n).fill(-1);
    this.tail = new Int32Array(n).fill(-1);
    this.poolTime = new Float64Array(poolCapacity);
    this.poolInt = new Int32Array(3 * poolCapacity);
    this.heapKey = new Float64Array(2 * n);
    this.heapBall = new Int32Array(n);
    this.slot = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      this.heapKey[2 * i] = Infinity; this.heapKey[2 * i + 1] = 0;
      this.heapBall[i] = i; this.slot[i] = i;
    }
  }

  // ---- the earliest event -----------------------------------------------------------------------

  get topBall(): number { return this.heapBall[0]; }
  get topTime(): number { return this.heapKey[0]; }
  get topTie(): number { return this.heapKey[1]; }

  /** Partner and partner's counter of ball i's earliest event (a collision). */
  partnerOfKey(i: number): number { return this.poolInt[3 * this.keyNode[i]]; }
  partnerCountOfKey(i: number): number { return this.poolInt[3 * this.keyNode[i] + 1] >>> 0; }

  // ---- a ball's events ---------------------------------------------------------------------------

  /** Drops every event of ball i (its trajectory changed). Call update(i) after re-predicting. */
  clear(i: number): void {
    this.exitTime[i] = Infinity;
    this.wallTime[i] = Infinity;
    const h = this.head[i];
    if (h < 0) return;
    // Splice the whole list onto the free list.
    this.poolInt[3 * this.tail[i] + 2] = this.free;
    this.free = h;
    this.head[i] = -1;
    this.tail[i] = -1;
  }

  setExit(i: number, t: number): void { this.exitTime[i] = t; }

  setWall(i: number, t: number, wall: number): void { this.wallTime[i] = t; this.wallId[i] = wall; }

  /** Ball i predicts a collision with j at t; cj is j's event counter now. */
  addPair(i: number, j: number, t: number, cj: number): void {
    let k = this.free;
    if (k < 0) {
      if (this.used === this.poolTime.length) this.grow();
      k = this.used++;
    } else this.free = this.poolInt[3 * k + 2];
    this.poolTime[k] = t;
    const I = this.poolInt;
    I[3 * k] = j; I[3 * k + 1] = cj; I[3 * k + 2] = -1;
    if (this.tail[i] >= 0) I[3 * this.tail[i] + 2] = k; else this.head[i] = k;
    this.tail[i] = k;
  }

  /** Drops ball i's earliest event, a collision (stale, or about to be processed). Call update(i). */
  dropKeyPair(i: number): void {
    const k = this.keyNode[i], p = this.keyPrev[i], I = this.poolInt;
    const next = I[3 * k + 2];
    if (p < 0) this.head[i] = next; else I[3 * p + 2] = next;
    if (this.tail[i] === k) this.tail[i] = p;
    I[3 * k + 2] = this.free;
    this.free = k;
  }

  /** Finds ball i's earliest event and moves the ball to its place in the heap. */
  update(i: number): void {
    // The earliest by time, then kind (collision, wall, box exit), then, of two collisions of i,
    // the smaller partner (the smaller tie key (0, min, max)). The tie key itself is made once, at
    // the end: one carried through the loop, or a 0 for a ball without events, made V8 keep it
    // as a boxed number (a heap number at every step). A ball without events (time Infinity)
    // gets the tie of a box exit: it orders nothing.
    let t = this.exitTime[i], kind = EventKind.BoxExit, other = 0;
    const tw = this.wallTime[i];
    if (tw < t || (tw === t && tw !== Infinity)) { t = tw; kind = EventKind.Wall; other = this.wallId[i]; }
    const T = this.poolTime, I = this.poolInt;
    let node = -1, prev = -1;
    for (let k = this.head[i], p = -1; k >= 0; p = k, k = I[3 * k + 2]) {
      const tk = T[k];
      if (tk > t) continue;
      const j = I[3 * k];
      if (tk < t || (t !== Infinity && (kind !== EventKind.Collision || j < other))) { t = tk; kind = EventKind.Collision; other = j; node = k; prev = p; }
    }
    const lo = kind === EventKind.Collision && other < i ? other : i;
    const hi = kind === EventKind.Collision ? (other < i ? i : other) : kind === EventKind.Wall ? other : 0;
    const tie = tieKey(kind, lo, hi);
    this.keyKind[i] = kind;
    this.keyNode[i] = node;
    this.keyPrev[i] = prev;
    // The ball's place in the heap (here rather than in a method of its own: V8 boxes the doubles
    // of a call it does not inline).
    const time = t;
    const K = this.heapKey, B = this.heapBall, S = this.slot;
    let k = S[i];
    const ot = K[2 * k], ox = K[2 * k + 1];
    if (time < ot || (time === ot && tie < ox)) {
      // Earlier: sift up.
      while (k > 0) {
        const p = (k - 1) >> 2;
        const tp = K[2 * p];
        if (tp < time || (tp === time && K[2 * p + 1] <= tie)) break;
        K[2 * k] = tp; K[2 * k + 1] = K[2 * p + 1];
        const b = B[p]; B[k] = b; S[b] = k;
        k = p;
      }
    } else {
      // Later (or the same): sift down.
      const n = this.n;
      for (;;) {
        const first = 4 * k + 1;
        if (first >= n) break;
        // The earliest child; its tie is read only at equal times.
        let c = first, tc = K[2 * first];
        const last = first + 3 < n ? first + 3 : n - 1;
        for (let d = first + 1; d <= last; d++) {
          const td = K[2 * d];
          if (td < tc || (td === tc && K[2 * d + 1] < K[2 * c + 1])) { c = d; tc = td; }
        }
        if (time < tc || (time === tc && tie <= K[2 * c + 1])) break;
        K[2 * k] = tc; K[2 * k + 1] = K[2 * c + 1];
        const b = B[c]; B[k] = b; S[b] = k;
        k = c;
      }
    }
    K[2 * k] = time; K[2 * k + 1] = tie;
    B[k] = i; S[i] = k;
  }

  private grow(): void {
    const c = 2 * this.poolTime.length;
    const t = new Float64Array(c); t.set(this.poolTime); this.poolTime = t;
    const I = new Int32Array(3 * c); I.set(this.poolInt); this.poolInt = I;
  }
}
