/**
 * The open balls of the stacker's front order (Stacker.placeFront), in order of their key (the
 * centre's height), each with `fail`, the smallest radius known not to fit around it (Infinity:
 * none yet). A ball of radius r is looked for only around open balls with fail > r, lowest first.
 *
 * A treap (a binary search tree kept balanced by pseudo-random priorities) whose nodes also hold
 * their subtree's size and largest fail: `first(from, r)` finds the lowest such ball at or after a
 * rank in O(log n), skipping whole subtrees of balls that take only smaller radii. A binary heap by
 * key (the first version) popped and pushed back every open ball below the lowest that takes r.
 * Such balls collect below the front (holes that only the smallest disks, of a sliver of their
 * range, fit: about 7 % of the disks in the 2D first group), so each placement cost O(n).
 *
 * Nodes are slots 0, 1, ... in insertion order since the last clear (each ball is inserted at most
 * once in between, so `capacity` slots suffice); equal keys go by slot. State in typed arrays.
 */
export class OpenFront {
  /** Ball, key and fail of each slot. */
  readonly ball: Int32Array;
  readonly key: Float64Array;
  readonly fail: Float64Array;
  /** Rank (open balls before it in key order) of the slot `first` found. */
  rank = 0;
  /** Nodes that `first` visited (the bench and the tests read the search's cost from it). */
  steps = 0;
  private readonly maxFail: Float64Array;
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly count: Int32Array;
  private root = -1;
  private next = 0;
  /** The two halves of the last split. */
  private splitLeft = -1;
  private splitRight = -1;

  constructor(capacity: number) {
    this.ball = new Int32Array(capacity);
    this.key = new Float64Array(capacity);
    this.fail = new Float64Array(capacity);
    this.maxFail = new Float64Array(capacity);
    this.left = new Int32Array(capacity);
    this.right = new Int32Array(capacity);
    this.count = new Int32Array(capacity);
  }

  /** Open balls. */
  get size(): number {
    return this.root < 0 ? 0 : this.count[this.root];
  }

  /** No ball open; slots count from 0 again. */
  clear(): void {
    this.root = -1;
    this.next = 0;
  }

  /** Opens a ball (fail Infinity). */
  insert(ball: number, key: number): void {
    if (this.next === this.ball.length) throw new Error(`OpenFront: more than ${this.ball.length} insertions since the last clear (a bug: each ball is inserted once)`);
    const s = this.next++;
    this.ball[s] = ball; this.key[s] = key; this.fail[s] = Infinity;
    this.left[s] = -1; this.right[s] = -1;
    this.pull(s);
    this.root = this.insertAt(this.root, s);
  }

  /** Closes the ball of slot s. */
  remove(s: number): void {
    this.root = this.removeAt(this.root, s);
  }

  /** Sets the fail of slot s. */
  setFail(s: number, f: number): void {
    this.fail[s] = f;
    this.pullPath(this.root, s);
  }

  /** The slot of the first open ball at rank `from` or later whose fail exceeds r (its rank in `rank`); -1 if none. */
  first(from: number, r: number): number {
    return this.find(this.root, 0, from, r);
  }

  /** The balls were renumbered: ball b is now inv[b]. */
  remap(inv: Int32Array): void {
    for (let s = 0; s < this.next; s++) this.ball[s] = inv[this.ball[s]];
  }

  /** Subtree t, whose first node has rank `base`. */
  private find(t: number, base: number, from: number, r: number): number {
    if (t < 0) return -1;
    this.steps++;
    if (this.maxFail[t] <= r || base + this.count[t] <= from) return -1;
    const l = this.left[t];
    const found = this.find(l, base, from, r);
    if (found >= 0) return found;
    const rank = base + (l < 0 ? 0 : this.count[l]);
    if (rank >= from && this.fail[t] > r) {
      this.rank = rank;
      return t;
    }
    return this.find(this.right[t], rank + 1, from, r);
  }

  /** Whether slot a comes before slot b (key, then slot). */
  private before(a: number, b: number): boolean {
    const ka = this.key[a], kb = this.key[b];
    return ka < kb || (ka === kb && a < b);
  }

  /** Size and largest fail of subtree t from its children. */
  private pull(t: number): void {
    const l = this.left[t], r = this.right[t];
    let n = 1, f = this.fail[t];
    if (l >= 0) { n += this.count[l]; if (this.maxFail[l] > f) f = this.maxFail[l]; }
    if (r >= 0) { n += this.count[r]; if (this.maxFail[r] > f) f = this.maxFail[r]; }
    this.count[t] = n;
    this.maxFail[t] = f;
  }

  private insertAt(t: number, s: number): number {
    if (t < 0) return s;
    if (priority(s) > priority(t)) {
      this.split(t, s);
      this.left[s] = this.splitLeft;
      this.right[s] = this.splitRight;
    } else if (this.before(s, t)) {
      this.left[t] = this.insertAt(this.left[t], s);
      s = t;
    } else {
      this.right[t] = this.insertAt(this.right[t], s);
      s = t;
    }
    this.pull(s);
    return s;
  }

  /** Splits subtree t into the nodes before slot s (splitLeft) and the others (splitRight). */
  private split(t: number, s: number): void {
    if (t < 0) {
      this.splitLeft = -1;
      this.splitRight = -1;
      return;
    }
    if (this.before(t, s)) {
      this.split(this.right[t], s);
      this.right[t] = this.splitLeft;
      this.splitLeft = t;
    } else {
      this.split(this.left[t], s);
      this.left[t] = this.splitRight;
      this.splitRight = t;
    }
    this.pull(t);
  }

  /** Joins subtrees a and b, every node of a before every node of b. */
  private merge(a: number, b: number): number {
    if (a < 0) return b;
    if (b < 0) return a;
    if (priority(a) > priority(b)) {
      this.right[a] = this.merge(this.right[a], b);
      this.pull(a);
      return a;
    }
    this.left[b] = this.merge(a, this.left[b]);
    this.pull(b);
    return b;
  }

  private removeAt(t: number, s: number): number {
    if (t < 0) throw new Error(`OpenFront: slot ${s} is not open (a bug)`);
    if (t === s) return this.merge(this.left[t], this.right[t]);
    if (this.before(s, t)) this.left[t] = this.removeAt(this.left[t], s);
    else this.right[t] = this.removeAt(this.right[t], s);
    this.pull(t);
    return t;
  }

  /** Recomputes the nodes on the path from t down to slot s. */
  private pullPath(t: number, s: number): void {
    if (t < 0) throw new Error(`OpenFront: slot ${s} is not open (a bug)`);
    if (t !== s) this.pullPath(this.before(s, t) ? this.left[t] : this.right[t], s);
    this.pull(t);
  }
}

/** The treap priority of slot s: a bijective integer hash (murmur3's finaliser), so no two slots tie. */
function priority(s: number): number {
  let h = Math.imul(s ^ (s >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
