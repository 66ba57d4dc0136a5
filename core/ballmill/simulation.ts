/**
 * The event-driven shaker ball mill of seed 003 (Gavrilova, Rokne, Gavrilov & Vinogradov).
 *
 * Every ball moves on a parabola (Eq. 1) between events. Its trajectory is stored as (t0; position,
 * velocity at t0) and changes only at its impacts; each change increments the ball's event counter,
 * which makes every queued event that involves the ball stale.
 *
 * Events, in one queue (event-queue.ts):
 *  - Collision: two balls touch (Eq. 2). Both fall under the same gravity, so their relative motion
 *    is linear and |d + u·s| = r1 + r2 is a quadratic in s, solved exactly. Post-impact normal
 *    velocities by Eq. 3 (tangential ones are kept: frictionless).
 *  - Wall: a ball touches the floor, the ceiling or a side wall of the oscillating vial (vial.ts);
 *    the wall has infinite mass and its own velocity at the impact (Eq. 3 with m2 → ∞).
 *  - Step: the seed's predict-trajectory events, every Δt: each ball's state is computed by Eq. 1
 *    and its wall contacts within the next Δt are searched (the moving floor's contact has no closed
 *    form, so it is looked for one step at a time; a collision re-searches the rest of the step).
 *    One queue entry updates every ball; it counts as one predict-trajectory event per ball, as in
 *    the seed's tables.
 *  - BoxExit: the topological events of the CDO. Each ball has a box in the chosen core/spatial
 *    structure, a cube of half edge r + δ (δ = skin · mean radius) centred where the ball was when
 *    the box was placed; the ball's centre leaves it at an exactly computed time, and the box is then
 *    moved to the ball (the structure counts its own topological events: cell changes, remaps,
 *    endpoint swaps).
 *
 * Collision checks. A pair's next collision is predicted exactly (no horizon), so it stays valid
 * until one of the two trajectories changes. The invariant kept is: every pair whose boxes overlap
 * has been checked since the last change of either trajectory. Two balls touching at t lie in their
 * boxes at t, so their boxes overlap, so their collision was predicted: no collision is missed. It is
 * kept by checking a ball against every ball whose box overlaps its own when its trajectory changes,
 * and, when its box moves, against the balls whose boxes overlap the new box but did not overlap the
 * old one (the others were checked already). The balls whose boxes overlap a ball's box are its
 * neighbour set (the seed's, neighbours.ts), updated at box moves: an impact reads it instead of
 * querying the structure, so the structure answers one query per box move. 'direct' checks a ball against every other ball when
 * its trajectory changes. Predictions use the later of the two trajectories' start times as origin,
 * so a pair's predicted time does not depend on when it was checked, and every CDO replays the same
 * collision sequence.
 *
 * Inelastic collapse is guarded by the restitution floor (restitution.ts); a run whose simulated
 * time stops advancing anyway is stopped with stopReason 'stalled', one that exceeds its event
 * budget with 'maxEvents', never left spinning.
 */
import { Random } from '../common/random';
import type { SpatialIndex } from '../spatial/types';
import { createStructure } from './cdo';
import { EventKind, EventQueue } from './event-queue';
import { NeighbourLists } from './neighbours';
import { frameCount, frameInterval, stepCount, type BallmillParams } from './params';
import { placeBalls } from './placement';
import { RestitutionModel } from './restitution';
import { CEILING, FLOOR, LEFT, Vial } from './vial';

/** Impact energy histogram: log-spaced bins from 1e-12 J, BINS_PER_DECADE per decade. */
export const ENERGY_BIN_MIN = 1e-12;
export const BINS_PER_DECADE = 5;
export const ENERGY_BINS = 15 * BINS_PER_DECADE;
/** Impacts and box moves between two checks that simulated time still advances: at least this
 *  many, and 64 a ball. */
const STALL_EVENTS = 1 << 18;
/** The queue is compacted (its stale events dropped) when it holds more than this many events a ball
 *  (and twice what the last compaction kept). */
const COMPACT_PER_BALL = 4;

export type StopReason = 'duration' | 'cancelled' | 'maxEvents' | 'stalled';

/** Balls given instead of drawn and placed (tests, replays): radii and the state at t = 0, in the
 *  simulation's axes (x, y horizontal, z vertical; y = 0 in 2D). */
export interface InitialBalls {
  r: ArrayLike<number>;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  z: ArrayLike<number>;
  vx: ArrayLike<number>;
  vy: ArrayLike<number>;
  vz: ArrayLike<number>;
}

/** One recorded impact, for tests (see BallMill.onImpact). */
export type ImpactListener = (time: number, a: number, b: number) => void;

export class BallMill {
  readonly n: number;
  readonly dim: 2 | 3;
  readonly params: BallmillParams;
  readonly vial: Vial;
  readonly restitution: RestitutionModel;
  /** Gravity in mm/s². */
  readonly g: number;
  readonly duration: number;
  readonly timeStep: number;
  /** δ: how far a centre may move from its box centre, in mm. */
  readonly skin: number;
  // Balls: radius (mm), mass (kg), trajectory origin t0 and state at t0.
  readonly r: Float64Array;
  readonly m: Float64Array;
  readonly t0: Float64Array;
  readonly x0: Float64Array;
  readonly y0: Float64Array;
  readonly z0: Float64Array;
  readonly vx: Float64Array;
  readonly vy: Float64Array;
  readonly vz: Float64Array;
  /** Event counter per ball: incremented at each trajectory change. */
  readonly count: Uint32Array;
  /** Impacts per ball (ball–ball and ball–wall). */
  readonly impacts: Uint32Array;
  // CDO boxes: centre and half edge (the structure's copy is authoritative for queries).
  private readonly bx: Float64Array;
  private readonly by: Float64Array;
  private readonly bz: Float64Array;
  private readonly bh: Float64Array;
  readonly structure: SpatialIndex | null;
  /** The seed's neighbour sets: the balls whose boxes overlap each ball's box (null for direct). */
  readonly neighbours: NeighbourLists | null;
  readonly queue: EventQueue;
  /** Current simulated time. */
  now = 0;
  stopReason: StopReason | null = null;
  // Counters (the seed's tables, and more).
  ballCollisions = 0;
  wallCollisions = 0;
  boxExits = 0;
  trajectoryUpdates = 0;
  collisionChecks = 0;
  staleEvents = 0;
  /** Energy dissipated by impacts (J), and energy the restitution floor added (J). */
  dissipated = 0;
  guardEnergy = 0;
  /** Work done on the balls by the moving walls at impacts (J). */
  wallWork = 0;
  readonly energyHistogram = new Float64Array(ENERGY_BINS + 2);
  // Series and frames.
  readonly energyTime: number[] = [];
  readonly energyValue: number[] = [];
  readonly frames: { time: Float64Array; x: Float32Array; y: Float32Array; z: Float32Array; speed: Float32Array; impacts: Uint32Array; count: number };
  /** Called at every processed impact (tests use it to compare CDOs); b < 0 is wall -1 - b. */
  onImpact: ImpactListener | null = null;

  private step = 0;
  private stepEnd = 0;
  private readonly steps: number;
  private readonly frameEvery: number;
  private readonly energyEvery: number;
  private compactAt: number;
  // Scratch state of one ball at a time (position and velocity now).
  private px = 0; private py = 0; private pz = 0; private qx = 0; private qy = 0; private qz = 0;
  // The current structure query: the ball, the mode, the old box.
  private qBall = 0;
  private qMode = 0;
  private ox = 0; private oy = 0; private oz = 0;
  private readonly visit: (j: number) => void;

  constructor(params: BallmillParams, seed: number, initial?: InitialBalls) {
    this.params = params;
    const n = params.balls.count, dim = params.dim;
    this.n = n;
    this.dim = dim;
    this.g = params.gravity * 1000;
    this.duration = params.duration;
    this.timeStep = params.timeStep;
    this.steps = stepCount(params);
    this.frameEvery = frameInterval(params);
    this.energyEvery = Math.max(1, Math.ceil(this.steps / 1000));
    const v = params.vial;
    this.vial = new Vial({ dim, width: v.width, height: v.height, amplitude: v.amplitude, frequency: v.frequency, gravity: this.g });
    this.restitution = new RestitutionModel(params.restitution, params.minimumRebound);
    const f64 = () => new Float64Array(n);
    this.r = f64(); this.m = f64(); this.t0 = f64();
    this.x0 = f64(); this.y0 = f64(); this.z0 = f64();
    this.vx = f64(); this.vy = f64(); this.vz = f64();
    this.bx = f64(); this.by = f64(); this.bz = f64(); this.bh = f64();
    this.count = new Uint32Array(n);
    this.impacts = new Uint32Array(n);

    const rnd = new Random(seed);
    if (initial) this.setInitial(initial);
    else {
      this.drawRadii(rnd);
      placeBalls({ dim, width: v.width, height: v.height }, this.r, rnd, this.x0, this.y0, this.z0);
    }
    let rSum = 0;
    for (let i = 0; i < n; i++) {
      rSum += this.r[i];
      this.m[i] = params.balls.density * (4 / 3) * Math.PI * (this.r[i] * 1e-3) ** 3;
      if (initial) continue;
      // A random direction (in the x–z plane in 2D) at the initial speed.
      let ux: number, uy: number, uz: number;
      if (dim === 2) { const a = 2 * Math.PI * rnd.next(); ux = Math.cos(a); uy = 0; uz = Math.sin(a); }
      else {
        do { ux = rnd.normal(); uy = rnd.normal(); uz = rnd.normal(); } while (ux * ux + uy * uy + uz * uz === 0);
        const s = 1 / Math.sqrt(ux * ux + uy * uy + uz * uz);
        ux *= s; uy *= s; uz *= s;
      }
      const speed = params.balls.initialSpeed;
      this.vx[i] = ux * speed; this.vy[i] = uy * speed; this.vz[i] = uz * speed;
    }
    this.skin = params.skin * (rSum / n);

    // Boxes: half edge r + δ, widened by a relative 1e-9 of the vial so that rounding in the box
    // and exit arithmetic never separates the boxes of touching balls.
    const margin = 1e-9 * (v.width + v.height + 2 * v.amplitude);
    let hMin = Infinity, hMax = 0, hSum = 0;
    for (let i = 0; i < n; i++) {
      const h = this.r[i] + this.skin + margin;
      this.bh[i] = h;
      hMin = Math.min(hMin, h); hMax = Math.max(hMax, h); hSum += h;
    }
    const A = v.amplitude;
    const lo = -A - this.skin - hMax, hi = v.height + A + this.skin + hMax;
    const side = v.width + 2 * (this.skin + hMax);
    this.structure = createStructure(params.cdo, {
      dim, capacity: n,
      min: dim === 2 ? [-this.skin - hMax, lo] : [-this.skin - hMax, -this.skin - hMax, lo],
      size: dim === 2 ? [side, hi - lo] : [side, side, hi - lo],
      hMin, hMean: hSum / n, hMax,
    });
    this.neighbours = this.structure ? new NeighbourLists(n) : null;
    this.queue = new EventQueue(16 * n + 64);
    this.compactAt = COMPACT_PER_BALL * n + 1024;
    const fc = frameCount(params);
    this.frames = {
      time: new Float64Array(fc), x: new Float32Array(fc * n), y: new Float32Array(fc * n), z: new Float32Array(fc * n),
      speed: new Float32Array(fc * n), impacts: new Uint32Array(fc * n), count: 0,
    };
    this.visit = (j: number) => this.candidate(j);
    this.start();
  }

  /** Takes given balls; they must lie in the vial at rest without overlapping. */
  private setInitial(b: InitialBalls): void {
    const n = this.n, v = this.params.vial;
    for (const [name, a] of Object.entries(b)) {
      if (a.length !== n) throw new RangeError(`initial.${name} must have balls.count = ${n} entries, got ${a.length}`);
    }
    for (let i = 0; i < n; i++) {
      this.r[i] = b.r[i]; this.x0[i] = b.x[i]; this.y0[i] = this.dim === 2 ? 0 : b.y[i]; this.z0[i] = b.z[i];
      this.vx[i] = b.vx[i]; this.vy[i] = this.dim === 2 ? 0 : b.vy[i]; this.vz[i] = b.vz[i];
      const r = this.r[i];
      const outside = this.dim === 2
        ? this.x0[i] < r || this.x0[i] > v.width - r
        : Math.hypot(this.x0[i] - v.width / 2, this.y0[i] - v.width / 2) > v.width / 2 - r;
      if (!(r > 0) || outside || this.z0[i] < r || this.z0[i] > v.height - r) throw new RangeError(`initial ball ${i} is not inside the vial`);
      for (let j = 0; j < i; j++) {
        if (Math.hypot(this.x0[i] - this.x0[j], this.y0[i] - this.y0[j], this.z0[i] - this.z0[j]) < r + this.r[j]) throw new RangeError(`initial balls ${j} and ${i} overlap`);
      }
    }
  }

  /** Radii from the law, scaled to the solid fraction when one is asked for. */
  private drawRadii(rnd: Random): void {
    const p = this.params, law = p.balls.radius;
    let measure = 0;
    for (let i = 0; i < this.n; i++) {
      const r = law.law === 'fixed' ? law.value : rnd.uniform(law.min, law.max);
      this.r[i] = r;
      measure += this.dim === 2 ? Math.PI * r * r : (4 / 3) * Math.PI * r ** 3;
    }
    const target = p.balls.solidFraction;
    if (target !== null) {
      const vial = this.dim === 2 ? p.vial.width * p.vial.height : Math.PI * (p.vial.width / 2) ** 2 * p.vial.height;
      const s = (target * vial / measure) ** (1 / this.dim);
      for (let i = 0; i < this.n; i++) this.r[i] *= s;
    }
    const rMax = this.r.reduce((a, b) => Math.max(a, b), 0);
    const room = Math.min(p.vial.width, p.vial.height) / 4;
    if (rMax > room) {
      throw new RangeError(`balls: the largest drawn ball has radius ${rMax.toPrecision(4)} mm, more than a quarter of the vial's smaller inner side (${room} mm); lower balls.solidFraction or enlarge the vial`);
    }
  }

  /** Boxes, the first predictions, the first step. */
  private start(): void {
    const s = this.structure;
    if (s) {
      for (let i = 0; i < this.n; i++) {
        this.bx[i] = this.x0[i]; this.by[i] = this.y0[i]; this.bz[i] = this.z0[i];
        this.insertBox(s, i);
      }
    }
    for (let i = 0; i < this.n; i++) {
      if (s) this.scheduleExit(i);
      this.qBall = i; this.qMode = MODE_START;
      if (s) this.query(s, i);
      else for (let j = i + 1; j < this.n; j++) this.examine(i, j);
    }
    this.queue.push(0, EventKind.Step, 0, 0, 0, 0);
  }

  /** Processes events up to the end of the run, a cancel, the event budget or a stall. */
  run(progress: (done: number) => void, cancelled: () => boolean): StopReason {
    const q = this.queue, maxEvents = this.params.maxEvents;
    const stallWindow = Math.max(STALL_EVENTS, 64 * this.n);
    let lastCheckTime = this.now, nextCheck = stallWindow;
    while (this.stopReason === null) {
      if (q.size === 0) { this.stopReason = 'duration'; break; }
      const t = q.topTime;
      if (t > this.duration) { this.stopReason = 'duration'; break; }
      const kind = q.topKind, a = q.topA, b = q.topB, ca = q.topCountA, cb = q.topCountB;
      q.pop();
      switch (kind) {
        case EventKind.Collision:
          if (this.count[a] !== ca || this.count[b] !== cb) { this.staleEvents++; continue; }
          this.now = t;
          this.collide(a, b);
          break;
        case EventKind.Wall:
          if (this.count[a] !== ca) { this.staleEvents++; continue; }
          this.now = t;
          this.hitWall(a, b);
          break;
        case EventKind.BoxExit:
          if (this.count[a] !== ca) { this.staleEvents++; continue; }
          this.now = t;
          this.moveBox(a);
          break;
        case EventKind.Step:
          this.now = t;
          this.updateTrajectories();
          progress(Math.min(1, t / this.duration));
          if (cancelled()) this.stopReason = 'cancelled';
          break;
      }
      if (this.events >= maxEvents) this.stopReason = 'maxEvents';
      const moves = this.ballCollisions + this.wallCollisions + this.boxExits;
      if (moves >= nextCheck) {
        // A window of impacts and box moves without simulated time moving on by a thousandth of a step.
        if (this.now - lastCheckTime < this.timeStep * 1e-3) this.stopReason = 'stalled';
        lastCheckTime = this.now;
        nextCheck = moves + stallWindow;
      }
      if (q.size > this.compactAt) this.compact();
    }
    if (this.stopReason === 'duration') this.now = this.duration;
    return this.stopReason;
  }

  /** Processed events: impacts, box moves and per-ball trajectory updates. */
  get events(): number {
    return this.ballCollisions + this.wallCollisions + this.boxExits + this.trajectoryUpdates;
  }

  /** Topological events as the structure counts them (cell changes, remaps, endpoint swaps). */
  get topologicalEvents(): number {
    return this.structure ? this.structure.counters.remaps : 0;
  }

  // ---- state ---------------------------------------------------------------------------------

  /** Position (px, py, pz) and velocity (qx, qy, qz) of ball i at time t (Eq. 1). */
  private stateAt(i: number, t: number): void {
    const tau = t - this.t0[i], g = this.g;
    this.px = this.x0[i] + this.vx[i] * tau;
    this.py = this.y0[i] + this.vy[i] * tau;
    this.pz = this.z0[i] + this.vz[i] * tau - 0.5 * g * tau * tau;
    this.qx = this.vx[i]; this.qy = this.vy[i]; this.qz = this.vz[i] - g * tau;
  }

  /** Writes ball i's position at t into out[3·k..] (x, y, z in the table's axes: 2D y = vertical). */
  positionAt(i: number, t: number, out: Float64Array, k: number): void {
    this.stateAt(i, t);
    out[3 * k] = this.px;
    out[3 * k + 1] = this.dim === 2 ? this.pz : this.py;
    out[3 * k + 2] = this.dim === 2 ? 0 : this.pz;
  }

  /** Speed of ball i at t (mm/s). */
  speedAt(i: number, t: number): number {
    this.stateAt(i, t);
    return Math.sqrt(this.qx * this.qx + this.qy * this.qy + this.qz * this.qz);
  }

  /** Kinetic plus potential energy of the balls at t (J; potential from the vial's rest floor). */
  energyAt(t: number): number {
    let e = 0;
    for (let i = 0; i < this.n; i++) {
      this.stateAt(i, t);
      e += this.m[i] * (0.5 * (this.qx * this.qx + this.qy * this.qy + this.qz * this.qz) + this.g * this.pz);
    }
    return e * 1e-6;
  }

  /** Starts a new trajectory of ball i at the current time from (px..qz). */
  private setTrajectory(i: number): void {
    this.t0[i] = this.now;
    this.x0[i] = this.px; this.y0[i] = this.py; this.z0[i] = this.pz;
    this.vx[i] = this.qx; this.vy[i] = this.qy; this.vz[i] = this.qz;
    this.count[i]++;
  }

  // ---- events ----------------------------------------------------------------------------------

  /** Ball–ball impact of a and b now (Eq. 3 on the normal components). */
  private collide(a: number, b: number): void {
    this.stateAt(a, this.now);
    const ax = this.px, ay = this.py, az = this.pz, avx = this.qx, avy = this.qy, avz = this.qz;
    this.stateAt(b, this.now);
    let nx = this.px - ax, ny = this.py - ay, nz = this.pz - az;
    const d = Math.sqrt(nx * nx + ny * ny + nz * nz);
    nx /= d; ny /= d; nz /= d;
    const v1 = avx * nx + avy * ny + avz * nz, v2 = this.qx * nx + this.qy * ny + this.qz * nz;
    const w = v1 - v2;
    const m1 = this.m[a], m2 = this.m[b];
    if (w > 0) {
      const mEff = (m1 * m2) / (m1 + m2), rEff = (this.r[a] * this.r[b]) / (this.r[a] + this.r[b]);
      const out = this.restitution.rebound(w, rEff, mEff, false);
      const eps = out / w;
      // Eq. 3: A = (1 + ε) m1 / (m1 + m2).
      const A = ((1 + eps) * m1) / (m1 + m2);
      const v1a = (A - eps) * v1 + (1 - A + eps) * v2, v2a = A * v1 + (1 - A) * v2;
      this.account(0.5 * mEff * w * w, 0.5 * mEff * out * out);
      // b: its state is in (px..qz).
      this.qx += (v2a - v2) * nx; this.qy += (v2a - v2) * ny; this.qz += (v2a - v2) * nz;
      this.setTrajectory(b);
      this.px = ax; this.py = ay; this.pz = az;
      this.qx = avx + (v1a - v1) * nx; this.qy = avy + (v1a - v1) * ny; this.qz = avz + (v1a - v1) * nz;
      this.setTrajectory(a);
    } else {
      // Rounding left the pair not approaching: nothing to exchange, but both trajectories are
      // restarted so that the event is consumed.
      this.setTrajectory(b);
      this.stateAt(a, this.now);
      this.setTrajectory(a);
    }
    this.ballCollisions++;
    this.impacts[a]++; this.impacts[b]++;
    if (this.onImpact) this.onImpact(this.now, a, b);
    this.afterChange(a, b);
    this.afterChange(b, a);
  }

  /** Ball–wall impact of ball i and wall `wall` now. */
  private hitWall(i: number, wall: number): void {
    this.stateAt(i, this.now);
    const V = this.vial;
    let nx = 0, ny = 0, nz = 0, u = 0;
    if (wall === FLOOR) { nz = 1; u = V.floorVelocity(this.now); }
    else if (wall === CEILING) { nz = -1; u = -V.floorVelocity(this.now); }
    else if (this.dim === 2) nx = wall === LEFT ? 1 : -1;
    else {
      const hx = this.px - V.radius, hy = this.py - V.radius, h = Math.sqrt(hx * hx + hy * hy);
      nx = -hx / h; ny = -hy / h;
    }
    // Normal components along the inward normal n: the ball approaches when vn < u.
    const vn = this.qx * nx + this.qy * ny + this.qz * nz;
    const w = u - vn;
    if (w >= 0) {
      const out = this.restitution.rebound(w, this.r[i], this.m[i], true);
      const dv = u + out - vn;
      const m = this.m[i];
      const before = this.qx * this.qx + this.qy * this.qy + this.qz * this.qz;
      this.qx += dv * nx; this.qy += dv * ny; this.qz += dv * nz;
      const after = this.qx * this.qx + this.qy * this.qy + this.qz * this.qz;
      this.account(0.5 * m * w * w, 0.5 * m * out * out);
      // What the wall gave the ball beyond the impact's loss (J): the work of the moving wall.
      this.wallWork += (0.5 * m * (after - before) + 0.5 * m * (w * w - out * out)) * 1e-6;
    }
    this.setTrajectory(i);
    this.wallCollisions++;
    this.impacts[i]++;
    if (this.onImpact) this.onImpact(this.now, i, -1 - wall);
    this.afterChange(i, -1);
  }

  /** Impact energy statistics: the normal relative kinetic energy before (in) and after (out), in mm²/s²·kg. */
  private account(inE: number, outE: number): void {
    const e = inE * 1e-6;
    const lost = (inE - outE) * 1e-6;
    if (lost >= 0) this.dissipated += lost; else this.guardEnergy -= lost;
    let bin = e > 0 ? Math.floor(Math.log10(e / ENERGY_BIN_MIN) * BINS_PER_DECADE) + 1 : 0;
    if (bin < 0) bin = 0; else if (bin > ENERGY_BINS + 1) bin = ENERGY_BINS + 1;
    this.energyHistogram[bin]++;
  }

  /** Ball i's box is left: move it to the ball, check the new neighbours, schedule the next exit. */
  private moveBox(i: number): void {
    const s = this.structure!;
    this.stateAt(i, this.now);
    this.ox = this.bx[i]; this.oy = this.by[i]; this.oz = this.bz[i];
    this.bx[i] = this.px; this.by[i] = this.py; this.bz[i] = this.pz;
    if (this.dim === 2) s.move(i, this.px, this.pz, 0);
    else s.move(i, this.px, this.py, this.pz);
    this.boxExits++;
    // Neighbours whose boxes the new box no longer overlaps leave i's list (the same closed test
    // as the structure's, so the lists stay what a query would report).
    const nb = this.neighbours!, ids = nb.ids, base = nb.stride * i;
    const x = this.bx[i], y = this.by[i], z = this.bz[i], h = this.bh[i];
    for (let k = nb.count[i] - 1; k >= 0; k--) {
      const j = ids[base + k], w = h + this.bh[j];
      if (!(Math.abs(x - this.bx[j]) <= w && Math.abs(z - this.bz[j]) <= w && Math.abs(y - this.by[j]) <= w)) nb.removeAt(i, k);
    }
    this.qBall = i; this.qMode = MODE_MOVED;
    this.query(s, i);
    this.scheduleExit(i);
  }

  /** The predict-trajectory step: every ball's state by Eq. 1, its wall contacts in the next Δt. */
  private updateTrajectories(): void {
    const k = this.step;
    if (this.frameEvery > 0 && k % this.frameEvery === 0) this.recordFrame();
    if (k % this.energyEvery === 0 || k === this.steps) { this.energyTime.push(this.now); this.energyValue.push(this.energyAt(this.now)); }
    this.stepEnd = (k + 1) * this.timeStep;
    for (let i = 0; i < this.n; i++) this.searchWalls(i);
    this.trajectoryUpdates += this.n;
    this.step = k + 1;
    if (k < this.steps) this.queue.push(this.stepEnd, EventKind.Step, 0, 0, 0, 0);
  }

  // ---- predictions -----------------------------------------------------------------------------

  /** After ball i's trajectory changed (partner: the other ball of the impact, or -1). */
  private afterChange(i: number, partner: number): void {
    this.searchWalls(i);
    const nb = this.neighbours;
    if (nb) {
      this.scheduleExit(i);
      // Every ball whose box overlaps i's: its neighbour list (no structure query).
      const ids = nb.ids, base = nb.stride * i, end = base + nb.count[i];
      for (let k = base; k < end; k++) {
        const j = ids[k];
        if (j !== partner) this.examine(i, j);
      }
    } else {
      for (let j = 0; j < this.n; j++) if (j !== i && j !== partner) this.examine(i, j);
    }
  }

  /** Wall contact of ball i from now to the end of the current step. */
  private searchWalls(i: number): void {
    const V = this.vial;
    V.from = this.now;
    V.to = this.stepEnd;
    V.search(this, i);
    if (V.hitWall >= 0) this.queue.push(V.hitTime, EventKind.Wall, i, V.hitWall, this.count[i], 0);
  }

  /** Seed Eq. 2 for balls i and j on their current trajectories; queues their next collision. */
  private examine(p: number, q: number): void {
    this.collisionChecks++;
    // The pair in a fixed order, so that rounding does not depend on which ball asked.
    const i = p < q ? p : q, j = p < q ? q : p;
    const ti = this.t0[i], tj = this.t0[j], g = this.g;
    // Origin: the later trajectory start, so the result does not depend on when it is computed.
    const T = ti > tj ? ti : tj;
    const si = T - ti, sj = T - tj;
    const dx = this.x0[j] + this.vx[j] * sj - this.x0[i] - this.vx[i] * si;
    const dy = this.y0[j] + this.vy[j] * sj - this.y0[i] - this.vy[i] * si;
    const dz = this.z0[j] + this.vz[j] * sj - 0.5 * g * sj * sj - this.z0[i] - this.vz[i] * si + 0.5 * g * si * si;
    const ux = this.vx[j] - this.vx[i], uy = this.vy[j] - this.vy[i];
    const uz = this.vz[j] - g * sj - this.vz[i] + g * si;
    const b = dx * ux + dy * uy + dz * uz;
    if (b >= 0) return;
    const sigma = this.r[i] + this.r[j];
    const c = dx * dx + dy * dy + dz * dz - sigma * sigma;
    let t = T;
    if (c > 0) {
      const a = ux * ux + uy * uy + uz * uz;
      const D = b * b - a * c;
      if (D < 0) return;
      t = T + c / (Math.sqrt(D) - b);
    }
    if (t < this.now) t = this.now;
    this.queue.push(t, EventKind.Collision, i, j, this.count[i], this.count[j]);
  }

  private insertBox(s: SpatialIndex, i: number): void {
    const h = this.bh[i];
    if (this.dim === 2) s.insertBox(i, this.bx[i], this.bz[i], 0, h, h, 0);
    else s.insertBox(i, this.bx[i], this.by[i], this.bz[i], h, h, h);
  }

  private query(s: SpatialIndex, i: number): void {
    s.queryObject(i, this.visit);
  }

  /** A ball whose box overlaps the box of the ball being queried. */
  private candidate(j: number): void {
    const i = this.qBall;
    if (j === i) return;
    switch (this.qMode) {
      case MODE_START:
        if (j > i) { this.examine(i, j); this.neighbours!.add(i, j); }
        return;
      case MODE_MOVED: {
        // A neighbour already (and checked) if j's box overlapped the old box of i.
        const w = this.bh[i] + this.bh[j];
        if (Math.abs(this.ox - this.bx[j]) <= w && Math.abs(this.oz - this.bz[j]) <= w && Math.abs(this.oy - this.by[j]) <= w) return;
        this.examine(i, j);
        this.neighbours!.add(i, j);
      }
    }
  }

  /** Queues the time at which ball i's centre, inside its box now, leaves it (δ from the box centre
   *  on an axis). Computed from the state now: the trajectory may have started outside the box. */
  private scheduleExit(i: number): void {
    const d = this.skin, g = this.g;
    this.stateAt(i, this.now);
    let tau = Infinity;
    const vx = this.qx, vy = this.qy, vz = this.qz;
    if (vx > 0) tau = (this.bx[i] + d - this.px) / vx; else if (vx < 0) tau = (this.bx[i] - d - this.px) / vx;
    if (this.dim === 3) {
      if (vy > 0) tau = Math.min(tau, (this.by[i] + d - this.py) / vy); else if (vy < 0) tau = Math.min(tau, (this.by[i] - d - this.py) / vy);
    }
    // Vertical: z(τ) = z + vz τ − g τ²/2 reaches the top plane (if it rises that far) or the bottom.
    const up = Math.max(0, this.bz[i] + d - this.pz), down = Math.max(0, this.pz - (this.bz[i] - d));
    if (vz > 0) {
      const D = vz * vz - 2 * g * up;
      if (D >= 0) tau = Math.min(tau, (2 * up) / (vz + Math.sqrt(D)));
    }
    if (g > 0) {
      const s = Math.sqrt(vz * vz + 2 * g * down);
      tau = Math.min(tau, vz > 0 ? (vz + s) / g : s - vz > 0 ? (2 * down) / (s - vz) : 0);
    } else if (vz < 0) tau = Math.min(tau, down / -vz);
    if (tau === Infinity) return;
    this.queue.push(this.now + Math.max(0, tau), EventKind.BoxExit, i, 0, this.count[i], 0);
  }

  /** Drops stale events from the queue. */
  private compact(): void {
    this.queue.compact((kind, a, b, ca, cb) => {
      if (kind === EventKind.Step) return true;
      if (this.count[a] !== ca) return false;
      return kind !== EventKind.Collision || this.count[b] === cb;
    });
    this.compactAt = Math.max(COMPACT_PER_BALL * this.n + 1024, 2 * this.queue.size);
  }

  private recordFrame(): void {
    const F = this.frames, k = F.count, n = this.n;
    F.time[k] = this.now;
    for (let i = 0; i < n; i++) {
      this.stateAt(i, this.now);
      const o = k * n + i;
      F.x[o] = this.px;
      F.y[o] = this.dim === 2 ? this.pz : this.py;
      F.z[o] = this.dim === 2 ? 0 : this.pz;
      F.speed[o] = Math.sqrt(this.qx * this.qx + this.qy * this.qy + this.qz * this.qz);
      F.impacts[o] = this.impacts[i];
    }
    F.count = k + 1;
  }
}

const MODE_START = 0, MODE_MOVED = 1;
