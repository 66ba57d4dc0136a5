/**
 * The fast geometric stacking of seed 004 (Meng & Zhang 2019, Figs. 2-3): balls are generated
 * class by class, largest first (the "large ball-first strategy"), each class until it holds its
 * share of the solid volume. A new ball of radius r (Eq. 1) goes to the first free position of,
 * in the seed's order (description (9)):
 *   1. a random position in the region (5);
 *   2. around a nucleus ball A: one contact, a random direction at a gap of up to r (Eq. 2);
 *   3. two contacts, touching A and a neighbour B (Eqs. 3-4);
 *   4. three contacts, touching A, B and C (Eq. 5; not in 2D, description (10)).
 * Neighbours take part when their gap to A is within the class's search index a_f (3); walls take
 * part as contacts like balls. A nucleus around which a few positions of each kind all fail is
 * closed for the rest of the class (its surroundings are full for this size), so the work per ball
 * stays bounded and the run linear in the number of balls. When every nucleus is closed, the
 * reshape step (Fig. 3) moves balls to three-contact positions among their neighbours, the nuclei
 * reopen, and the class goes on; after `reshape` such passes the class ends short.
 *
 * Order 'front' (2D, fillFront) places every class at once from an advancing front instead.
 *
 * Two- and three-contact positions around a nucleus are tested against the balls gathered once
 * from the grid within a gap of one largest diameter of the class from A (such a candidate is at
 * r_A + r from A, so every ball it could hit is among them), in A's frame, so periodic images need
 * no care there; up to PER_NUCLEUS balls are placed around a nucleus with that list. State is in
 * flat typed arrays; the hot loops allocate nothing.
 */
import { powInt } from '../common/power';
import { Random } from '../common/random';
import { LevelGrid } from './grid';
import { OpenFront } from './front';
import type { Region } from './region';
import type { SizeClass } from './gradation';
import { CLASS_DONE, ballVolume, gridLevelCells, meanBallVolume } from './params';
import {
  circleOnCircle, circleOnLine, oneContact, sphereOnPlane, sphereOnPlaneAndAxis, sphereOnTwoPlanes,
  spheresOnPlane, threeContacts, twoContacts2, twoContacts3,
} from './contacts';

/** Neighbour-list code of the curved side of a cylinder or circle; plane wall w is -1 - w. */
const SIDE = -100;
/** Two-contact positions tried around a nucleus before it is closed (each gives two centres; 2D: twice as many). */
const TWO_TRIES = 2;
/** Three-contact partner pairs tried around a nucleus before it is closed. */
const THREE_TRIES = 16;
/** Balls placed around one nucleus before another is drawn (they share its gathered neighbours). */
const PER_NUCLEUS = 4;
/** Random positions tried when every nucleus is closed, before the class counts as stalled. */
const STALL_RANDOM_TRIES = 1000;
/** Partner triples (pairs in 2D) tried per ball in a reshape pass; the snuggest free position wins. */
const RESHAPE_TRIES = 8;
/** Order 'front': open balls above the lowest one that takes a ball whose positions are also scored. */
const FRONT_LOOKAHEAD = 32;
/**
 * Candidate positions between two calls of the stop hook: at 42,000 balls at most 122 ms apart on a
 * loaded machine (16,384 were up to 350 ms apart), at the same CPU time.
 */
const TICK = 1 << 10;
/** Samples kept of the count-against-time series (halved when full). */
const SAMPLES = 1024;
/** Renumber the balls when their count has grown by this factor since the last time (see renumber). */
const RENUMBER_GROWTH = 1.1;

export interface StackerCounters {
  randomTries: number;
  randomPlaced: number;
  oneContactTries: number;
  oneContactPlaced: number;
  twoContactTries: number;
  twoContactPlaced: number;
  threeContactTries: number;
  threeContactPlaced: number;
  nucleusVisits: number;
  nucleiClosed: number;
  reshapePasses: number;
  reshapeMoves: number;
  /** Order 'front': nodes of the open balls' tree (front.ts) that the searches for a position visited. */
  frontSteps: number;
}

export type StopReason = 'target' | 'full' | 'cancelled';

export interface StackerOptions {
  dim: 2 | 3;
  region: Region;
  classes: SizeClass[];
  quotas: Float64Array;
  /** The most balls each class may place (plan's classBalls): radiusToward holds it to them. */
  classBalls: Float64Array;
  /** The solid volume asked for (the sum of the quotas). */
  solidVolume: number;
  /** Stop at this many balls (count target), else Infinity. */
  targetCount: number;
  capacity: number;
  gid: number;
  reshape: number;
  /** Candidate order (params `order`). */
  order: 'seed' | 'contactsFirst' | 'front';
  seed: number;
}

export class Stacker {
  readonly dim: 2 | 3;
  readonly region: Region;
  readonly classes: SizeClass[];
  readonly quotas: Float64Array;
  readonly classBalls: Float64Array;
  readonly capacity: number;
  /** Balls as [x, y, z, r] (z = 0 in 2D). */
  readonly pos: Float64Array;
  /** Class of each ball (index into classes, largest first). */
  readonly cls: Uint8Array;
  count = 0;
  /** Solid volume (area in 2D) and balls placed per class. */
  readonly classVolume: Float64Array;
  readonly classCount: Float64Array;
  readonly grid: LevelGrid;
  /** Two balls overlap when they interpenetrate by more than this (1e-10 of the smallest radius). */
  readonly tol: number;
  /** Classes that found no more room before their share was placed. */
  readonly shortClasses: number[] = [];
  stopReason: StopReason | null = null;
  readonly counters: StackerCounters = {
    randomTries: 0, randomPlaced: 0, oneContactTries: 0, oneContactPlaced: 0, twoContactTries: 0, twoContactPlaced: 0,
    threeContactTries: 0, threeContactPlaced: 0, nucleusVisits: 0, nucleiClosed: 0, reshapePasses: 0, reshapeMoves: 0, frontSteps: 0,
  };
  /** Count against time (seconds since the start), sampled. */
  sampleTime = new Float64Array(SAMPLES);
  sampleCount = new Float64Array(SAMPLES);
  samples = 0;
  /** Balls the reshape pass under way has visited (of count), -1 outside a pass: its progress. */
  reshapeVisited = -1;

  private readonly targetCount: number;
  private readonly solidVolume: number;
  private readonly maxReshapes: number;
  private readonly contactsFirst: boolean;
  private readonly front: boolean;
  /** Largest radius of the gradation. */
  private readonly rTopAll: number;
  private readonly rng: Random;
  private readonly open: Int32Array;
  private openCount = 0;
  /** The current nucleus (-1: none), its slot in the open list, balls placed around it, and
   *  whether its neighbours are gathered into the neighbour list. */
  private nucleus = -1;
  private nucleusSlot = 0;
  private nucleusPlaced = 0;
  private gathered = false;
  private readonly nbIds: Int32Array;
  private readonly nbPos: Float64Array;
  private readonly nbMax: number;
  private nbCount = 0;
  /** Whether the gathered list holds every ball that a candidate around the nucleus could hit. */
  private nbComplete = false;
  private readonly partners: Int32Array;
  private readonly cand = new Float64Array(6);
  private readonly point = new Float64Array(3);
  private readonly order: Int32Array;
  private readonly inverse: Int32Array;
  private readonly spare: Float64Array;
  /** Front order: the open balls by height, with the smallest radius known not to fit around each. */
  private readonly openFront: OpenFront;
  /** Balls at the last renumbering (see renumber). */
  private sortedCount = 0;
  private work = 0;
  private sampleStride = 1;
  private readonly t0 = performance.now();
  private stopHook: () => boolean = () => false;

  constructor(o: StackerOptions) {
    this.dim = o.dim;
    this.region = o.region;
    this.classes = o.classes;
    this.quotas = o.quotas;
    this.classBalls = o.classBalls;
    this.targetCount = o.targetCount;
    this.solidVolume = o.solidVolume;
    this.capacity = o.capacity;
    this.maxReshapes = o.reshape;
    this.contactsFirst = o.order === 'contactsFirst';
    this.front = o.order === 'front';
    this.rng = new Random(o.seed);
    let rMax = 0, rMin = Infinity;
    for (const c of o.classes) { rMax = Math.max(rMax, c.rMax); rMin = Math.min(rMin, c.rMin); }
    this.tol = 1e-10 * rMin;
    this.rTopAll = rMax;
    this.pos = new Float64Array(4 * o.capacity);
    this.cls = new Uint8Array(o.capacity);
    this.classVolume = new Float64Array(o.classes.length);
    this.classCount = new Float64Array(o.classes.length);
    this.grid = new LevelGrid(this.pos, o.capacity, o.region, rMax, rMin, o.gid, this.tol, gridLevelCells(o.classes, o.classBalls, o.capacity, Number.isFinite(o.targetCount)));
    this.open = new Int32Array(o.capacity);
    this.order = new Int32Array(o.capacity);
    this.inverse = new Int32Array(o.capacity);
    this.spare = new Float64Array(4 * o.capacity);
    // Non-overlapping balls of radius >= rMin with centres within 5 rMax of a nucleus (its largest
    // gather reach) all lie in a ball of radius 6 rMax: at most (6 rMax / rMin)^dim of them.
    this.nbMax = Math.max(16, Math.min(o.capacity + 8, 1 << 20, Math.ceil(powInt(6 * rMax / rMin, o.dim)) + 8));
    this.nbIds = new Int32Array(this.nbMax);
    this.nbPos = new Float64Array(4 * this.nbMax);
    this.partners = new Int32Array(this.nbMax);
    this.openFront = new OpenFront(this.front ? o.capacity : 0);
  }

  /** Runs to the target (or until every class has ended, or until stop() says so). */
  fill(stop: () => boolean): StopReason {
    this.stopHook = stop;
    this.sample();
    const finished = this.front ? this.fillFront() : this.fillByClass();
    this.sample();
    this.stopReason = !finished ? 'cancelled' : this.shortClasses.length > 0 ? 'full' : 'target';
    return this.stopReason;
  }

  /**
   * Large-first: each class to its quota in turn; false when stopped. A class whose rest no whole
   * number of its balls can make (a class of one radius, rang 0, or a quota of a couple of balls)
   * ends at the nearest whole ball, up to half a ball (and less than one of its smallest) over or
   * under its quota. What it leaves under, the next class makes up. Left to the smallest class, as
   * it was, a coarse class's half ball came back as fines: plan() had to allow, in the smallest
   * class's balls, half a largest ball of every class, and wide gradations were refused (1:100 in
   * radius, 64 classes of rang 0: 2.5 million balls for the leftovers against 250,000 placed). What
   * it places over stays with the smallest class: taken from the next class, it could leave a class
   * of about one ball with none. The smallest class fills to the solid volume asked, unless a class
   * ended short.
   */
  private fillByClass(): boolean {
    let carried = 0;
    for (let j = 0; j < this.classes.length && this.count < this.targetCount; j++) {
      let quota = this.quotas[j] + carried;
      if (j === this.classes.length - 1 && this.shortClasses.length === 0) {
        quota = this.solidVolume;
        for (let i = 0; i < j; i++) quota -= this.classVolume[i];
      }
      if (!this.fillClass(j, quota)) return false;
      // Not the rest of a class that found no room, nor round-off (that stays with the smallest class).
      const rest = quota - this.classVolume[j];
      const short = this.shortClasses[this.shortClasses.length - 1] === j;
      carried = !short && rest > CLASS_DONE * ballVolume(this.classes[j].rMin, this.dim) ? rest : 0;
    }
    return true;
  }

  /** Seconds since the stacker was made. */
  get seconds(): number {
    return (performance.now() - this.t0) / 1000;
  }

  /**
   * Fills class j to `quota` (its share, what the class before left, fillByClass); false when
   * stopped. With a count target the smallest class goes on to the count.
   */
  private fillClass(j: number, quota: number): boolean {
    const last = j === this.classes.length - 1;
    const byCount = Number.isFinite(this.targetCount);
    let reshapes = this.maxReshapes;
    this.reopen();
    for (;;) {
      if (this.count >= this.targetCount) return true;
      if (this.count >= this.capacity) throw new Error(`stacking: ${this.count} balls reached the capacity bound (a bug: plan() bounds the count)`);
      const r = byCount && last ? this.drawRadius(j) : this.radiusToward(j, quota - this.classVolume[j]);
      if (r === 0) return true;
      if (this.place(j, r)) continue;
      if (this.stopHook()) return false;
      if (reshapes > 0) {
        reshapes--;
        if (!this.reshapePass()) return false;
        this.reopen();
        continue;
      }
      this.shortClasses.push(j);
      return true;
    }
  }

  /** Eq. 1: a radius of class j, uniform in [r (1 - rang), r (1 + rang)] (a sieve segment's range). */
  private drawRadius(j: number): number {
    const c = this.classes[j];
    return c.rMin + (c.rMax - c.rMin) * this.rng.next();
  }

  /**
   * The next radius of class j when `rest` of its quota is still to place (0: the class is done),
   * within the balls plan() allows the class (classBalls): a radius so small that the balls left
   * could not fill the rest, each at most the class's largest, is raised to the least that can
   * (plan's margin makes that about as likely as 1e-12; a sieve segment was bounded by its smallest
   * balls all). At the bound the class is done, what it lacks going to the next (fillByClass).
   */
  private radiusToward(j: number, rest: number): number {
    const left = this.classBalls[j] - this.classCount[j];
    if (left < 1) return 0;
    const r = this.radiusToQuota(j, rest);
    const vMax = ballVolume(this.classes[j].rMax, this.dim);
    const least = Math.min(vMax, rest - (left - 1) * vMax);
    return r === 0 || ballVolume(r, this.dim) >= least ? r : this.radiusOf(least);
  }

  /** The radius of a ball of volume (area in 2D) v. */
  private radiusOf(v: number): number {
    return this.dim === 3 ? Math.cbrt((3 * v) / (4 * Math.PI)) : Math.sqrt(v / Math.PI);
  }

  /**
   * The next radius of class j when `rest` of its quota is still to place (0: the class is done).
   * Far from the quota, Eq. 1. Within four of its largest balls the last few are sized so that
   * they fill the quota exactly: the fewest k balls whose volumes, each within the class's range,
   * can sum to the rest, the next one drawn uniformly among the volumes that leave k - 1 feasible.
   * A rest that no whole number of balls of the range can make (only a quota of a couple of balls)
   * ends at the nearest whole ball.
   */
  private radiusToQuota(j: number, rest: number): number {
    const c = this.classes[j], dim = this.dim;
    const vMin = ballVolume(c.rMin, dim), vMax = ballVolume(c.rMax, dim);
    if (rest > 4 * vMax) return this.drawRadius(j);
    if (rest <= CLASS_DONE * vMin) return 0;
    const k = Math.ceil(rest / vMax - 1e-12);
    if (k * vMin > rest) {
      const r = this.drawRadius(j);
      return rest >= ballVolume(r, dim) / 2 ? r : 0;
    }
    const lo = Math.max(vMin, rest - (k - 1) * vMax), hi = Math.min(vMax, rest - (k - 1) * vMin);
    const v = lo + (hi - lo) * this.rng.next();
    return this.radiusOf(v);
  }

  /** Every ball is a nucleus again (at the start of a class and after a reshape pass). */
  private reopen(): void {
    this.renumber();
    for (let i = 0; i < this.count; i++) this.open[i] = i;
    this.openCount = this.count;
    this.nucleus = -1;
  }

  /**
   * Renumbers the balls in the grid's cell order, so that the balls of a cell, and of a row of
   * cells, are consecutive in memory: a query then reads a few cache lines instead of one per
   * ball (balls are placed at random places, and at 10^5 balls the position array no longer fits
   * the cache). Done at every reopen and whenever the count has grown by a tenth since the last
   * time (at 300,000 balls a fifth less time than after growing by half; the copies cost little).
   */
  private renumber(): void {
    const n = this.count, order = this.order, inv = this.inverse, p = this.pos, sp = this.spare, cls = this.cls;
    this.grid.cellOrder(order, n, inv);
    for (let k = 0; k < n; k++) {
      const j = order[k];
      inv[j] = k;
      sp[4 * k] = p[4 * j]; sp[4 * k + 1] = p[4 * j + 1]; sp[4 * k + 2] = p[4 * j + 2]; sp[4 * k + 3] = p[4 * j + 3];
    }
    p.set(sp.subarray(0, 4 * n));
    // The class of each ball, through the order array (its old ids are no longer needed).
    for (let k = 0; k < n; k++) order[k] = cls[order[k]];
    for (let k = 0; k < n; k++) cls[k] = order[k];
    for (let k = 0; k < this.openCount; k++) this.open[k] = inv[this.open[k]];
    this.openFront.remap(inv);
    this.grid.rebuild(n);
    this.sortedCount = n;
    this.nucleus = -1;
  }

  /** Counts a candidate; every TICK candidates asks the stop hook (true: stop now). */
  private tick(): boolean {
    return (++this.work & (TICK - 1)) === 0 && this.stopHook();
  }

  /** Places one ball of radius r of class j; false when there is no room (or when stopped). */
  private place(j: number, r: number): boolean {
    const ct = this.counters;
    // contactsFirst: a random position only when no nucleus is open (below), so that every ball
    // touches two or three others: a ball dropped at random leaves gaps narrower than the balls to come.
    if (!this.contactsFirst && this.tryRandom(j, r)) {
      // The ball may be near the current nucleus, whose neighbour list does not have it.
      this.gathered = false;
      return true;
    }
    while (this.openCount > 0) {
      if (this.nucleus < 0) {
        this.nucleusSlot = this.rng.int(this.openCount);
        this.nucleus = this.open[this.nucleusSlot];
        this.nucleusPlaced = 0;
        this.gathered = false;
        ct.nucleusVisits++;
      }
      if (this.tryAround(this.nucleus, j, r)) {
        if (++this.nucleusPlaced >= PER_NUCLEUS) this.nucleus = -1;
        return true;
      }
      this.open[this.nucleusSlot] = this.open[--this.openCount];
      this.nucleus = -1;
      ct.nucleiClosed++;
      if (this.tick()) return false;
    }
    for (let t = 0; t < STALL_RANDOM_TRIES; t++) if (this.tryRandom(j, r)) return true;
    return false;
  }

  /** Places a ball of radius r of class j at a random position if that is free (description (5)). */
  private tryRandom(j: number, r: number): boolean {
    const pt = this.point, ct = this.counters;
    ct.randomTries++;
    if (!this.region.randomCentre(this.rng, r, pt) || this.grid.anyOverlap(pt[0], pt[1], pt[2], r, -1)) return false;
    this.add(pt[0], pt[1], pt[2], r, j);
    ct.randomPlaced++;
    return true;
  }

  private add(x: number, y: number, z: number, r: number, j: number): void {
    const id = this.count++, o = 4 * id;
    this.pos[o] = this.region.wrapX(x);
    this.pos[o + 1] = this.region.wrapY(y);
    this.pos[o + 2] = z;
    this.pos[o + 3] = r;
    this.cls[id] = j;
    this.grid.insert(id);
    if (this.front) this.openFront.insert(id, this.pos[o + 1]);
    else this.open[this.openCount++] = id;
    this.classVolume[j] += ballVolume(r, this.dim);
    this.classCount[j]++;
    if (id % this.sampleStride === 0) this.sample();
    if (this.count >= RENUMBER_GROWTH * this.sortedCount + 1024) this.renumber();
  }

  private sample(): void {
    if (this.samples === SAMPLES) {
      for (let k = 0; k < SAMPLES / 2; k++) {
        this.sampleTime[k] = this.sampleTime[2 * k];
        this.sampleCount[k] = this.sampleCount[2 * k];
      }
      this.samples = SAMPLES / 2;
      this.sampleStride *= 2;
    }
    this.sampleTime[this.samples] = this.seconds;
    this.sampleCount[this.samples] = this.count;
    this.samples++;
  }

  /**
   * Gathers the balls within a surface gap `gap` of ball a (other than `exclude`) and the walls
   * within that gap into the neighbour list, in a's frame. Returns the list length.
   */
  private gatherAround(ax: number, ay: number, az: number, ra: number, gap: number, exclude: number): number {
    let k = this.grid.gather(ax, ay, az, ra, gap, exclude, this.nbIds, this.nbPos, this.nbMax - 8);
    this.nbComplete = k < this.nbMax - 8;
    const reg = this.region, ids = this.nbIds, nb = this.nbPos;
    for (let w = 0; w < reg.planes.length; w++) {
      const p = reg.planes[w];
      const coord = p.axis === 0 ? ax : p.axis === 1 ? ay : az;
      const wallGap = (coord - p.at) * p.inward - ra;
      if (wallGap < gap) {
        ids[k] = -1 - w;
        // [axis, wall coordinate in a's frame, inward, gap]
        nb[4 * k] = p.axis; nb[4 * k + 1] = p.at - coord; nb[4 * k + 2] = p.inward; nb[4 * k + 3] = wallGap;
        k++;
      }
    }
    if (reg.round) {
      const ox = reg.radius - ax, oy = reg.radius - ay;
      const wallGap = reg.radius - Math.sqrt(ox * ox + oy * oy) - ra;
      if (wallGap < gap) {
        ids[k] = SIDE;
        // [axis x, axis y in a's frame, radius, gap]
        nb[4 * k] = ox; nb[4 * k + 1] = oy; nb[4 * k + 2] = reg.radius; nb[4 * k + 3] = wallGap;
        k++;
      }
    }
    this.nbCount = k;
    return k;
  }

  /** Surface gap between the nucleus (at the origin, radius ra) and neighbour-list entry q. */
  private gapTo(q: number, ra: number): number {
    const nb = this.nbPos, o = 4 * q;
    if (this.nbIds[q] < 0) return nb[o + 3];
    return Math.sqrt(nb[o] * nb[o] + nb[o + 1] * nb[o + 1] + nb[o + 2] * nb[o + 2]) - ra - nb[o + 3];
  }

  /**
   * True when a ball of radius r centred at (cx, cy, cz) in the nucleus frame (the nucleus at
   * (ax, ay, az) in the region) is inside the region and hits no ball.
   */
  private free(cx: number, cy: number, cz: number, r: number, ax: number, ay: number, az: number, exclude: number): boolean {
    if (!this.region.contains(ax + cx, ay + cy, az + cz, r)) return false;
    if (!this.nbComplete) return !this.grid.anyOverlap(this.region.wrapX(ax + cx), this.region.wrapY(ay + cy), az + cz, r, exclude);
    const nb = this.nbPos, ids = this.nbIds, tol = this.tol;
    for (let q = 0, n = this.nbCount; q < n; q++) {
      if (ids[q] < 0) continue;
      const o = 4 * q;
      const dx = nb[o] - cx, dy = nb[o + 1] - cy, dz = nb[o + 2] - cz, s = r + nb[o + 3] - tol;
      if (dx * dx + dy * dy + dz * dz < s * s) return false;
    }
    return true;
  }

  /** Tests the solver's centres in cand (n of them, in random order); places the first free one. */
  private placeCandidate(n: number, r: number, j: number, ax: number, ay: number, az: number): boolean {
    if (n === 0) return false;
    const c = this.cand;
    const first = this.rng.next() < 0.5 ? 0 : 3;
    for (let s = 0; s < 2; s++) {
      const o = s === 0 ? first : 3 - first;
      if (this.free(c[o], c[o + 1], c[o + 2], r, ax, ay, az, -1)) {
        this.addNear(c[o], c[o + 1], c[o + 2], r, j, ax, ay, az);
        return true;
      }
    }
    return false;
  }

  /** Eq. 2: one contact with nucleus a (at ax, ay, az, radius ra) in a random direction. */
  private tryOneContact(j: number, r: number, ax: number, ay: number, az: number, ra: number): boolean {
    const ct = this.counters, rng = this.rng, c = this.cand;
    ct.oneContactTries++;
    if (this.dim === 3) {
      const uz = 2 * rng.next() - 1, phi = 2 * Math.PI * rng.next(), s = Math.sqrt(1 - uz * uz);
      oneContact(c, 0, 0, 0, ra, r, rng.next(), s * Math.cos(phi), s * Math.sin(phi), uz);
    } else {
      const phi = 2 * Math.PI * rng.next();
      oneContact(c, 0, 0, 0, ra, r, rng.next(), Math.cos(phi), Math.sin(phi), 0);
    }
    const x1 = ax + c[0], y1 = ay + c[1], z1 = az + c[2];
    if (this.region.contains(x1, y1, z1, r) && !this.grid.anyOverlap(this.region.wrapX(x1), this.region.wrapY(y1), z1, r, -1)) {
      this.addNear(c[0], c[1], c[2], r, j, ax, ay, az);
      ct.oneContactPlaced++;
      return true;
    }
    return false;
  }

  /**
   * Tries the contact positions around nucleus a for a ball of radius r of class j. The balls
   * within a gap of one largest diameter of the class from a (every ball that a two- or
   * three-contact candidate, at r_a + r from a, could hit) are gathered at the first try and kept
   * while a stays the nucleus; balls placed around it join the list.
   */
  private tryAround(a: number, j: number, r: number): boolean {
    const ct = this.counters, rng = this.rng, p = this.pos, o = 4 * a;
    const ax = p[o], ay = p[o + 1], az = p[o + 2], ra = p[o + 3];
    const cl = this.classes[j];

    // Eq. 2: one contact in a random direction, up to a gap r (tested through the grid: its
    // blockers may be up to 3 r from a). Not with contactsFirst: such a ball leaves gaps too.
    if (!this.contactsFirst && this.tryOneContact(j, r, ax, ay, az, ra)) return true;

    if (!this.gathered) {
      this.gatherAround(ax, ay, az, ra, 2 * cl.rMax * (1 + 1e-9) + this.tol, a);
      this.gathered = true;
    }
    const n = this.nbCount;

    // Partners: neighbours and walls whose gap to A is within a_f.
    const lo = 2 * r * cl.af1, hi = 2 * r * cl.af2;
    const partners = this.partners;
    let m = 0;
    for (let q = 0; q < n; q++) {
      const g = this.gapTo(q, ra);
      if (g >= lo && g <= hi) partners[m++] = q;
    }
    if (m === 0) return false;

    // Eqs. 3-4: two contacts.
    const twoTries = this.dim === 3 ? Math.min(m, TWO_TRIES) : Math.min(m, 2 * TWO_TRIES);
    for (let t = 0; t < twoTries; t++) {
      const q = partners[rng.int(m)];
      ct.twoContactTries++;
      if (this.placeCandidate(this.twoContact(q, ra, r), r, j, ax, ay, az)) {
        ct.twoContactPlaced++;
        return true;
      }
      if (this.tick()) return false;
    }
    if (this.dim === 2 || m < 2) return false;

    // Eq. 5: three contacts.
    for (let t = 0; t < THREE_TRIES; t++) {
      const i1 = rng.int(m), q1 = partners[i1];
      // The second partner: the first one, from a random place in the list, that is near enough
      // to q1 for a ball of radius r to touch both (else there is no three-contact position).
      const start = rng.int(m - 1);
      let q2 = -1;
      for (let u = 0; u < m - 1; u++) {
        let i2 = start + u;
        if (i2 >= m - 1) i2 -= m - 1;
        if (i2 >= i1) i2++;
        if (this.canTouchBoth(q1, partners[i2], r)) { q2 = partners[i2]; break; }
      }
      if (q2 < 0) continue;
      ct.threeContactTries++;
      if (this.placeCandidate(this.threeContact(q1, q2, ra, r), r, j, ax, ay, az)) {
        ct.threeContactPlaced++;
        return true;
      }
      if (this.tick()) return false;
    }
    return false;
  }

  /**
   * Adds a ball at (cx, cy, cz) in the frame of the nucleus at (ax, ay, az), and to the nucleus'
   * neighbour list when that is gathered.
   */
  private addNear(cx: number, cy: number, cz: number, r: number, j: number, ax: number, ay: number, az: number): void {
    if (this.gathered && this.nbCount < this.nbMax) {
      const k = this.nbCount++, q = 4 * k;
      this.nbIds[k] = this.count;
      this.nbPos[q] = cx; this.nbPos[q + 1] = cy; this.nbPos[q + 2] = cz; this.nbPos[q + 3] = r;
    } else if (this.gathered) {
      this.nbComplete = false;
    }
    this.add(ax + cx, ay + cy, az + cz, r, j);
  }

  /** Whether a ball of radius r can touch both neighbour-list entries (walls: always tried). */
  private canTouchBoth(q1: number, q2: number, r: number): boolean {
    if (this.nbIds[q1] < 0 || this.nbIds[q2] < 0) return true;
    const nb = this.nbPos, o1 = 4 * q1, o2 = 4 * q2;
    const dx = nb[o1] - nb[o2], dy = nb[o1 + 1] - nb[o2 + 1], dz = nb[o1 + 2] - nb[o2 + 2];
    const s = nb[o1 + 3] + nb[o2 + 3] + 2 * r;
    return dx * dx + dy * dy + dz * dz <= s * s;
  }

  /** Two-contact centres (nucleus frame) touching the nucleus (radius ra) and partner q; how many. */
  private twoContact(q: number, ra: number, r: number): number {
    const c = this.cand, nb = this.nbPos, o = 4 * q, id = this.nbIds[q];
    if (this.dim === 3) {
      if (id >= 0) return twoContacts3(c, 0, 0, 0, ra, nb[o], nb[o + 1], nb[o + 2], nb[o + 3], r, this.rng.next());
      if (id === SIDE) return sphereOnPlaneAndAxis(c, 0, 0, 0, ra + r, 0, nb[o], nb[o + 1], nb[o + 2] - r);
      return sphereOnPlane(c, 0, 0, 0, ra + r, nb[o] as 0 | 1 | 2, nb[o + 1] + nb[o + 2] * r, 2 * Math.PI * this.rng.next());
    }
    if (id >= 0) return twoContacts2(c, 0, 0, ra, nb[o], nb[o + 1], nb[o + 3], r);
    if (id === SIDE) return circleOnCircle(c, 0, 0, ra + r, nb[o], nb[o + 1], nb[o + 2] - r);
    return circleOnLine(c, 0, 0, ra + r, nb[o] as 0 | 1, nb[o + 1] + nb[o + 2] * r);
  }

  /** Three-contact centres (nucleus frame) touching the nucleus and partners q1, q2; how many. */
  private threeContact(q1: number, q2: number, ra: number, r: number): number {
    let id1 = this.nbIds[q1], id2 = this.nbIds[q2];
    // Balls before walls, planes before the side.
    if (id1 < id2) { const t = q1; q1 = q2; q2 = t; id1 = this.nbIds[q1]; id2 = this.nbIds[q2]; }
    const c = this.cand, nb = this.nbPos, o1 = 4 * q1, o2 = 4 * q2;
    if (id2 >= 0) {
      return threeContacts(c, 0, 0, 0, ra, nb[o1], nb[o1 + 1], nb[o1 + 2], nb[o1 + 3], nb[o2], nb[o2 + 1], nb[o2 + 2], nb[o2 + 3], r);
    }
    if (id1 >= 0) {
      if (id2 === SIDE) return 0;
      return spheresOnPlane(c, 0, 0, 0, ra + r, nb[o1], nb[o1 + 1], nb[o1 + 2], nb[o1 + 3] + r, nb[o2] as 0 | 1 | 2, nb[o2 + 1] + nb[o2 + 2] * r);
    }
    if (id2 === SIDE) {
      // A plane and the side: only the floor and the lid (z planes) meet the side in circles.
      if (nb[o1] !== 2) return 0;
      return sphereOnPlaneAndAxis(c, 0, 0, 0, ra + r, nb[o1 + 1] + nb[o1 + 2] * r, nb[o2], nb[o2 + 1], nb[o2 + 2] - r);
    }
    return sphereOnTwoPlanes(c, 0, 0, 0, ra + r, nb[o1] as 0 | 1 | 2, nb[o1 + 1] + nb[o1 + 2] * r, nb[o2] as 0 | 1 | 2, nb[o2 + 1] + nb[o2 + 2] * r);
  }

  // --- Front order ----------------------------------------------------------------------------

  /**
   * Order 'front' (2D): an advancing front (Feng, Han & Owen 2003; Löhner & Oñate 2004) instead of
   * large-first filling. The classes are placed together: each ball's class is drawn by the balls
   * each class still lacks, so that all advance at one pace and every height of the bed holds them
   * at their shares. The ball goes to the free
   * two-contact position (Eqs. 3-4, walls as partners) whose score is lowest among those around
   * the lowest open balls (frontScore: its height plus its gap to a third neighbour), tested for
   * overlap against the neighbours gathered from the grid. The packing grows from the floor (y = 0)
   * up as a dense bed. An open ball around which the ball does not fit but a smaller one may stays
   * open; one that takes not even the smallest size still lacking closes. When no open ball takes
   * the sizes still lacking, a reshape pass (Fig. 3) and every ball reopens; after `reshape`
   * passes the classes still short end so. False when stopped.
   */
  private fillFront(): boolean {
    const nc = this.classes.length, byCount = Number.isFinite(this.targetCount);
    const done = new Uint8Array(nc), stuck = new Uint8Array(nc);
    const perBall = Float64Array.from(this.classes, (c) => meanBallVolume(c, this.dim));
    let reshapes = this.maxReshapes;
    this.reopenFront();
    for (;;) {
      if (this.count >= this.targetCount) return true;
      if (this.count >= this.capacity) throw new Error(`stacking: ${this.count} balls reached the capacity bound (a bug: plan() bounds the count)`);
      // The class: drawn by the balls each class still lacks, its volume lacking over its mean
      // ball's (with a count target, past every quota: by the balls of its fraction). By the volume
      // lacking, a draw of the seed's largest class added 48 times the area of its smallest's: the
      // largest classes met their shares low in the bed (0.43 of its bottom sixth) and the fines
      // filled its top (0.87 of it), every class asked at 0.2.
      let lacking = 0, open = 0;
      for (let k = 0; k < nc; k++) {
        const rest = this.quotas[k] - this.classVolume[k];
        if (done[k] || rest <= 0) continue;
        open++;
        if (!stuck[k]) lacking += rest / perBall[k];
      }
      if (open === 0 && !byCount) return true;
      let j = -1, r = 0;
      if (lacking > 0) {
        let u = this.rng.next() * lacking;
        for (let k = 0; k < nc; k++) {
          const rest = this.quotas[k] - this.classVolume[k];
          if (done[k] || stuck[k] || rest <= 0) continue;
          j = k;
          if ((u -= rest / perBall[k]) < 0) break;
        }
        r = this.radiusToward(j, this.quotas[j] - this.classVolume[j]);
        if (r === 0) { done[j] = 1; continue; }
      } else if (byCount) {
        // Past the quotas still placeable (count target): by the balls of the fractions of the classes that still find room.
        let free = 0;
        for (let k = 0; k < nc; k++) if (!stuck[k]) free += this.classes[k].fraction / perBall[k];
        let u = this.rng.next() * free;
        for (let k = 0; k < nc; k++) {
          if (stuck[k]) continue;
          j = k;
          if ((u -= this.classes[k].fraction / perBall[k]) < 0) break;
        }
        if (j >= 0) r = this.drawRadius(j);
      }
      if (j >= 0) {
        if (this.placeFront(j, r, this.smallestLacking(done))) continue;
        stuck[j] = 1;
      }
      if (this.stopHook()) return false;
      // Another class may still find room; when none does (or no ball is open), reshape.
      let other = false;
      for (let k = 0; k < nc; k++) if (!stuck[k] && (byCount || (!done[k] && this.quotas[k] > this.classVolume[k]))) other = true;
      if (other && this.openFront.size > 0) continue;
      if (reshapes > 0) {
        reshapes--;
        if (!this.reshapePass()) return false;
        this.reopenFront();
        stuck.fill(0);
        continue;
      }
      for (let k = 0; k < nc; k++) if ((!done[k] && this.quotas[k] > this.classVolume[k]) || (byCount && stuck[k])) this.shortClasses.push(k);
      return true;
    }
  }

  /** The smallest radius of the classes not yet done (of all, past every quota): a ball around which it does not fit closes. */
  private smallestLacking(done: Uint8Array): number {
    let rMin = Infinity, all = Infinity;
    for (let k = 0; k < this.classes.length; k++) {
      all = Math.min(all, this.classes[k].rMin);
      if (!done[k]) rMin = Math.min(rMin, this.classes[k].rMin);
    }
    return rMin < Infinity ? rMin : all;
  }

  /** Every ball is open again. */
  private reopenFront(): void {
    this.renumber();
    this.openFront.clear();
    for (let i = 0; i < this.count; i++) this.openFront.insert(i, this.pos[4 * i + 1]);
  }

  /**
   * Places a ball of radius r of class j at the front: the lowest-scoring free position around the
   * lowest open ball that takes it and the open balls above that one up to FRONT_LOOKAHEAD of
   * them (those that take only smaller balls count; fewer when the next one lies so high that no
   * position around it can score lower). False when no open ball takes it. An open ball around
   * which it fits nowhere (before one that takes it) is kept for smaller balls, or closes when it
   * takes not even rSmall.
   */
  private placeFront(j: number, r: number, rSmall: number): boolean {
    const ct = this.counters, best = this.point, front = this.openFront;
    if (this.count === 0 || (this.count === 1 && this.bestAround(0, r, Infinity) === Infinity)) return this.firstFront(j, r);
    let bestScore = Infinity, foundRank = -1, from = 0;
    for (;;) {
      // The lowest open ball from rank `from` on that may take r (balls known to take only smaller ones are skipped).
      const s = front.first(from, r);
      if (s < 0) break;
      const rank = front.rank;
      // A position around a ball is at most r_a + r below its centre, and scores at least its height.
      if (bestScore < Infinity && (rank - foundRank > FRONT_LOOKAHEAD || front.key[s] - (this.rTopAll + r) >= bestScore)) break;
      ct.nucleusVisits++;
      const a = front.ball[s];
      bestScore = this.bestAround(a, r, bestScore);
      // Stopped: nothing placed (fillFront asks the stop hook again and ends).
      if (this.tick()) { bestScore = Infinity; break; }
      from = rank + 1;
      if (bestScore < Infinity) {
        if (foundRank < 0) foundRank = rank;
      } else if (!(rSmall < r) || this.bestAround(a, rSmall, Infinity) === Infinity) {
        // Closed when not even the smallest size still lacking fits (the balls after it move down a rank).
        front.remove(s);
        from = rank;
        ct.nucleiClosed++;
      } else {
        front.setFail(s, r);
      }
    }
    ct.frontSteps = front.steps;
    if (bestScore === Infinity) return false;
    this.add(best[0], best[1], 0, r, j);
    ct.twoContactPlaced++;
    return true;
  }

  /**
   * The first ball on the floor (in a rectangle touching the left wall, in a circle at its lowest
   * point); the second, when the first touches no wall (periodic sides), touching it (Eq. 2 with
   * no gap) in a random direction.
   */
  private firstFront(j: number, r: number): boolean {
    const reg = this.region, p = this.pos;
    if (this.count === 1) {
      for (let t = 0; t < 64; t++) {
        const phi = 2 * Math.PI * this.rng.next(), d = p[3] + r;
        const x = p[0] + d * Math.cos(phi), y = p[1] + d * Math.sin(phi);
        if (reg.contains(x, y, 0, r)) {
          this.add(x, y, 0, r, j);
          this.counters.oneContactPlaced++;
          return true;
        }
      }
      return false;
    }
    const x = reg.round ? reg.radius : reg.periodicX ? 0 : r, y = reg.periodicY ? 0 : r;
    if (!reg.contains(x, y, 0, r)) return false;
    this.add(x, y, 0, r, j);
    this.counters.randomPlaced++;
    return true;
  }

  /**
   * The free two-contact position (with ball a and a neighbour or wall within a gap 2 r of it) of a
   * ball of radius r with the lowest frontScore, if that is below `below`: into point (region
   * coordinates, wrapped). Returns the score found (`below` when none is lower).
   */
  private bestAround(a: number, r: number, below: number): number {
    const ct = this.counters, p = this.pos, o = 4 * a, c = this.cand, reg = this.region;
    const ax = p[o], ay = p[o + 1], ra = p[o + 3];
    const n = this.gatherAround(ax, ay, 0, ra, 2 * r * (1 + 1e-9) + this.tol, a);
    let bestScore = below;
    for (let q = 0; q < n; q++) {
      ct.twoContactTries++;
      if (this.twoContact(q, ra, r) === 0) continue;
      for (let w = 0; w < 6; w += 3) {
        const y = reg.wrapY(ay + c[w + 1]);
        if (y >= bestScore || !this.free(c[w], c[w + 1], 0, r, ax, ay, 0, a)) continue;
        // The snug term: the gap to a further neighbour or wall, up to r (gapToOthers skips a's partner q; a is not in the list).
        const score = y + Math.min(r, this.gapToOthers(c[w], c[w + 1], 0, r, n, q, q, q));
        if (score >= bestScore) continue;
        bestScore = score;
        this.point[0] = reg.wrapX(ax + c[w]); this.point[1] = y;
      }
    }
    return bestScore;
  }

  /**
   * The reshape subroutine (Fig. 3), a micro-adjustment of every ball in random order: among a few
   * three-contact positions (two-contact in 2D) with neighbours within one of its diameters, the
   * free one whose gap to a further neighbour or wall is smallest (the snuggest: nearest to one
   * more contact); the ball moves there. Balls pressed into the hollows of their neighbours merge
   * the void between them into holes that the balls still to come fit (taking the position nearest
   * to where the ball is, as before, moved balls about at random: 2D second group at the seed's
   * count after 30 passes 0.780 against 0.788 now). False when stopped.
   */
  private reshapePass(): boolean {
    const ct = this.counters, rng = this.rng, n = this.count, order = this.order, p = this.pos, c = this.cand;
    const nb = this.nbPos, ids = this.nbIds, best = this.point, reg = this.region;
    ct.reshapePasses++;
    this.nucleus = -1;
    for (let i = 0; i < n; i++) order[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const k = rng.int(i + 1), t = order[i];
      order[i] = order[k];
      order[k] = t;
    }
    const need = this.dim === 3 ? 3 : 2;
    for (let s = 0; s < n; s++) {
      this.reshapeVisited = s;
      const b = order[s], o = 4 * b;
      const bx = p[o], by = p[o + 1], bz = p[o + 2], rb = p[o + 3];
      // Partners: the balls and walls within one diameter of b (all of the gathered list).
      const m = this.gatherAround(bx, by, bz, rb, 2 * rb, b);
      if (m < need) continue;
      let bestGap = Infinity;
      for (let t = 0; t < RESHAPE_TRIES; t++) {
        if (this.tick()) return false;
        // Partner 0 plays the nucleus (a ball): the solvers work in its frame. The others are the
        // first ones, from random places in the list, that b could touch together with it.
        const q0 = rng.int(m);
        if (ids[q0] < 0) continue;
        const q1 = this.partnerNear(m, q0, -1, rb);
        if (q1 < 0) continue;
        let solved: number, q2 = -1;
        if (need === 2) {
          solved = this.reshapeTwo(q0, q1, rb);
        } else {
          q2 = this.partnerNear(m, q0, q1, rb);
          if (q2 < 0) continue;
          solved = this.reshapeThree(q0, q1, q2, rb);
        }
        if (solved === 0) continue;
        const o0 = 4 * q0;
        for (let w = 0; w < 6; w += 3) {
          // Displacement of b: partner 0's centre in b's frame plus the solver's centre.
          const dx = nb[o0] + c[w], dy = nb[o0 + 1] + c[w + 1], dz = nb[o0 + 2] + c[w + 2];
          if (!reg.contains(bx + dx, by + dy, bz + dz, rb)) continue;
          // The gathered list settles most candidates (a cut ball, or not snugger); the grid the rest.
          const g = this.gapToOthers(dx, dy, dz, rb, m, q0, q1, q2);
          if (g >= bestGap || this.grid.anyOverlap(reg.wrapX(bx + dx), reg.wrapY(by + dy), bz + dz, rb, b)) continue;
          best[0] = dx; best[1] = dy; best[2] = dz;
          bestGap = g;
        }
      }
      if (bestGap < Infinity) {
        this.grid.remove(b);
        p[o] = reg.wrapX(bx + best[0]); p[o + 1] = reg.wrapY(by + best[1]); p[o + 2] = bz + best[2];
        this.grid.insert(b);
        ct.reshapeMoves++;
      }
    }
    this.reshapeVisited = -1;
    return true;
  }

  /**
   * Smallest surface gap between a ball of radius r at (cx, cy, cz) (in the frame of the gathered
   * list) and the first m entries, balls and walls, other than q0, q1, q2 (the ones it touches);
   * Infinity as soon as it cuts a ball (it is not free). Entries farther than the list's reach
   * count as far.
   */
  private gapToOthers(cx: number, cy: number, cz: number, r: number, m: number, q0: number, q1: number, q2: number): number {
    const nb = this.nbPos, ids = this.nbIds, tol = this.tol;
    let gap = Infinity;
    for (let q = 0; q < m; q++) {
      if (q === q0 || q === q1 || q === q2) continue;
      const o = 4 * q, id = ids[q];
      let g: number;
      if (id >= 0) {
        const dx = nb[o] - cx, dy = nb[o + 1] - cy, dz = nb[o + 2] - cz, s = r + nb[o + 3];
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < (s - tol) * (s - tol)) return Infinity;
        // The root only when this ball may be the nearest so far.
        if (gap < Infinity && d2 >= (s + gap) * (s + gap)) continue;
        g = Math.sqrt(d2) - s;
      } else if (id === SIDE) {
        const dx = nb[o] - cx, dy = nb[o + 1] - cy;
        g = nb[o + 2] - Math.sqrt(dx * dx + dy * dy) - r;
      } else {
        const axis = nb[o];
        g = ((axis === 0 ? cx : axis === 1 ? cy : cz) - nb[o + 1]) * nb[o + 2] - r;
      }
      if (g < gap) gap = g;
    }
    return gap;
  }

  /**
   * An entry of the neighbour list (of m) other than q0 and q1 that a ball of radius r can touch
   * together with q0 and q1 (q1 = -1: with q0 only), searched from a random place; -1 if none.
   */
  private partnerNear(m: number, q0: number, q1: number, r: number): number {
    const start = this.rng.int(m);
    for (let u = 0; u < m; u++) {
      let q = start + u;
      if (q >= m) q -= m;
      if (q === q0 || q === q1) continue;
      if (this.canTouchBoth(q0, q, r) && (q1 < 0 || this.canTouchBoth(q1, q, r))) return q;
    }
    return -1;
  }

  /** Shifts neighbour entry q into the frame of entry q0 (balls: centre; planes: coordinate). */
  private shifted(q: number, q0: number, out: Float64Array, at: number): void {
    const nb = this.nbPos, o = 4 * q, o0 = 4 * q0;
    const id = this.nbIds[q];
    if (id >= 0) {
      out[at] = nb[o] - nb[o0]; out[at + 1] = nb[o + 1] - nb[o0 + 1]; out[at + 2] = nb[o + 2] - nb[o0 + 2]; out[at + 3] = nb[o + 3];
    } else if (id === SIDE) {
      out[at] = nb[o] - nb[o0]; out[at + 1] = nb[o + 1] - nb[o0 + 1]; out[at + 2] = nb[o + 2]; out[at + 3] = 0;
    } else {
      const axis = nb[o];
      out[at] = axis; out[at + 1] = nb[o + 1] - nb[o0 + axis]; out[at + 2] = nb[o + 2]; out[at + 3] = 0;
    }
  }

  private readonly frame = new Float64Array(8);

  /** Reshape in 2D: centres touching ball q0 and entry q1, in q0's frame. */
  private reshapeTwo(q0: number, q1: number, rb: number): number {
    const f = this.frame, c = this.cand, id1 = this.nbIds[q1], r0 = this.nbPos[4 * q0 + 3];
    this.shifted(q1, q0, f, 0);
    if (id1 >= 0) return twoContacts2(c, 0, 0, r0, f[0], f[1], f[3], rb);
    if (id1 === SIDE) return circleOnCircle(c, 0, 0, r0 + rb, f[0], f[1], f[2] - rb);
    return circleOnLine(c, 0, 0, r0 + rb, f[0] as 0 | 1, f[1] + f[2] * rb);
  }

  /** Reshape in 3D: centres touching ball q0 and entries q1, q2, in q0's frame. */
  private reshapeThree(q0: number, q1: number, q2: number, rb: number): number {
    if (this.nbIds[q1] < this.nbIds[q2]) { const t = q1; q1 = q2; q2 = t; }
    const f = this.frame, c = this.cand, id1 = this.nbIds[q1], id2 = this.nbIds[q2], r0 = this.nbPos[4 * q0 + 3];
    this.shifted(q1, q0, f, 0);
    this.shifted(q2, q0, f, 4);
    if (id2 >= 0) return threeContacts(c, 0, 0, 0, r0, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], rb);
    if (id1 >= 0) {
      if (id2 === SIDE) return 0;
      return spheresOnPlane(c, 0, 0, 0, r0 + rb, f[0], f[1], f[2], f[3] + rb, f[4] as 0 | 1 | 2, f[5] + f[6] * rb);
    }
    if (id2 === SIDE) {
      if (f[0] !== 2) return 0;
      return sphereOnPlaneAndAxis(c, 0, 0, 0, r0 + rb, f[1] + f[2] * rb, f[4], f[5], f[6] - rb);
    }
    return sphereOnTwoPlanes(c, 0, 0, 0, r0 + rb, f[0] as 0 | 1 | 2, f[1] + f[2] * rb, f[4] as 0 | 1 | 2, f[5] + f[6] * rb);
  }
}
