/**
 * The event-driven shaker ball mill of seed 003 (Gavrilova, Rokne, Gavrilov & Vinogradov).
 *
 * Every ball moves on a parabola (Eq. 1) between events. Its trajectory is stored as (t0; position,
 * velocity at t0) and changes only at its impacts; each change increments the ball's event counter,
 * which makes every queued event that involves the ball stale.
 *
 * Events, in one queue kept per ball (ball-events.ts: each ball's box exit, wall contact and the
 * pair collisions it predicted; a heap of the balls by their earliest event), the Step beside it:
 *  - Collision: two balls touch (Eq. 2). Both fall under the same gravity, so their relative motion
 *    is linear and |d + u·s| = r1 + r2 is a quadratic in s, solved exactly. Post-impact normal
 *    velocities by Eq. 3 (tangential ones are kept: frictionless).
 *  - Wall: a ball touches the floor, the ceiling or a side wall of the oscillating vial (vial.ts);
 *    the wall has infinite mass and its own velocity at the impact (Eq. 3 with m2 → ∞).
 *  - Step: the seed's predict-trajectory events, every Δt: each ball's state is computed by Eq. 1
 *    and its wall contacts within the next Δt are searched (the moving floor's contact has no closed
 *    form, so it is looked for one step at a time; a collision re-searches the rest of the step).
 *    One Step updates every ball; it counts as one predict-trajectory event per ball, as in the
 *    seed's tables.
 *  - BoxExit: the topological events of the CDO. Each ball has a box in the chosen core/spatial
 *    structure, of half edge r + δ (δ = skin · mean radius) horizontally and r + δ_z vertically
 *    (δ_z = 2δ under gravity, δ without), placed around the ball (centred horizontally, vertically
 *    ahead along its flight: placeBox); the ball's centre leaves it at an
 *    exactly computed time, and the box is then placed again (the structure counts its own
 *    topological events: cell changes, remaps, endpoint swaps).
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
import { powInt, root } from '../common/power';
import { HashedGrid } from '../spatial/hashed-grid';
import type { SpatialIndex } from '../spatial/types';
import { createStructure } from './cdo';
import { BallEvents, EventKind } from './ball-events';
import { NeighbourLists } from './neighbours';
import { frameCount, frameInterval, placementAdvice, stepCount, vialMeasure, type BallmillParams } from './params';
import { orderByColumns, placeBalls, placedInOneAttempt, PlacementError, type PlacementStage } from './placement';
import { RestitutionModel } from './restitution';
import { CEILING, FLOOR, LEFT, Vial } from './vial';

/** Impact energy histogram: log-spaced bins from 1e-12 J, BINS_PER_DECADE per decade. */
export const ENERGY_BIN_MIN = 1e-12;
export const BINS_PER_DECADE = 5;
export const ENERGY_BINS = 15 * BINS_PER_DECADE;
/** Impacts and box moves between two checks that simulated time still advances: at least this
 *  many, and 64 a ball. */
const STALL_EVENTS = 1 << 18;
/**
 * Impacts and box moves between two looks at the cancel flag besides the one every time step: a
 * step of 20,000 balls took up to 1.7 s, and a cancel waited for it.
 */
const CANCEL_EVENTS = 1 << 14;

export type StopReason = 'duration' | 'cancelled' | 'maxEvents' | 'stalled' | 'stopped';

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

/** The balls' state at t = 0 while they are set up (start() writes it into the trajectories). */
interface StartState {
  x: Float64Array; y: Float64Array; z: Float64Array;
  vx: Float64Array; vy: Float64Array; vz: Float64Array;
}

/**
 * What the set-up is doing at a relaxation sweep (BallMill's `cancelled` is told at each): placing
 * the balls, searching the densest placement after they could not be placed, or checking that the
 * value the refusal advises places them (checkedAdvice; `value` names it: 'balls.solidFraction
 * 0.494', 'radius 4.1 mm', 'radii 1.1-9.8 mm').
 */
export type SetupStage = PlacementStage | { stage: 'checking'; value: string };

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
  /** δ: how far a centre may move from its box centre horizontally, in mm. */
  readonly skin: number;
  /** How far it may move vertically (mm): VERTICAL_SKIN · δ under gravity, δ without. */
  readonly verticalSkin: number;
  /** How much a box's vertical half edge exceeds its horizontal one (δ_z − δ), in mm. */
  private readonly tall: number;
  // Balls: radius (mm), mass (kg).
  readonly r: Float64Array;
  readonly m: Float64Array;
  /** Event counter per ball: incremented at each trajectory change. */
  readonly count: Uint32Array;
  /** Impacts per ball (ball–ball and ball–wall). */
  readonly impacts: Uint32Array;
  /** Trajectories: origin t0, state at t0 and radius, one ball's next to each other (t0, x0, y0,
   *  z0, vx, vy, vz, r at [8 i ..]: one cache line a ball, all the hot loops read of a ball). */
  readonly trajectories: Float64Array;
  /** CDO boxes: centre and half edge at box[4 i ..] (the structure's copy is authoritative for
   *  queries). */
  private readonly box: Float64Array;
  readonly structure: SpatialIndex | null;
  /** The structure when it is a hashed grid: box moves then scan only the cells entered. */
  private readonly grid: HashedGrid | null;
  /** Smallest and largest box half edge. */
  private readonly hMin: number;
  private readonly hMax: number;
  /** The seed's neighbour sets: the balls whose boxes overlap each ball's box (null for direct). */
  readonly neighbours: NeighbourLists | null;
  /** Every ball's pending events (the event queue, but the Step). */
  readonly queue: BallEvents;
  /** Current simulated time. */
  now = 0;
  stopReason: StopReason | null = null;
  /** False when a cancel came while the balls were placed: they have no state, nothing was simulated. */
  readonly placed: boolean;
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
  /** Time of the next Step (Infinity after the last). */
  private stepTime = 0;
  // Scratch state of one ball at a time (position and velocity now).
  private px = 0; private py = 0; private pz = 0; private qx = 0; private qy = 0; private qz = 0;
  // The current structure query: the ball and the mode.
  private qBall = 0;
  private qMode = 0;
  /** A box move's marks: 2 · moveStamp on the ball's neighbours before the move, + 1 once the
   *  query has reported them again (older values are older moves'). */
  private readonly mark: Int32Array;
  private moveStamp = 0;
  /** HashedGrid.cellsEntered's arguments (passed in an array: see there). */
  private readonly entered = new Float64Array(12);
  private readonly visit: (j: number) => void;

  /**
   * Draws the radii, places the balls and makes the first predictions. A cancel during the placement
   * (`cancelled`, asked once a relaxation sweep: a dense set of 20,000 balls takes thousands) skips
   * the predictions and leaves stopReason 'cancelled', so that run() returns at once.
   */
  constructor(params: BallmillParams, seed: number, initial?: InitialBalls, cancelled: (stage: SetupStage) => boolean = () => false) {
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
    // Only the radii and the centres before the placement: a spec whose balls cannot be placed is
    // refused there, and the ball state, the structure, the queue and the frames (72 bytes a
    // trajectory row) are allocated once the balls are placed.
    this.r = f64();
    const x = f64(), y = f64(), z = f64();
    const rnd = new Random(seed);
    if (!initial) {
      let placed: number;
      try {
        placed = drawAndPlace(params, rnd, this.r, x, y, z, cancelled);
      } catch (e) {
        // placeBalls knows the radii, not which fields set them.
        if (e instanceof PlacementError) {
          const advice = checkedAdvice(params, seed, e, cancelled);
          if (advice === null) placed = -1;
          else throw new RangeError(`${e.message}; ${advice}`);
        } else throw e;
      }
      if (placed < 0) this.stopReason = 'cancelled';
      // Near balls get near ids (cache locality of the event loop); columns of 8 largest radii
      // measured best of 2, 4, 8 and 16.
      orderByColumns(dim, 8 * this.r.reduce((a, b) => Math.max(a, b), 0), this.r, x, y, z);
    }
    this.placed = this.stopReason === null;
    this.m = f64();
    this.trajectories = new Float64Array(8 * n);
    this.box = new Float64Array(4 * n);
    this.mark = new Int32Array(n);
    this.count = new Uint32Array(n);
    this.impacts = new Uint32Array(n);
    // The state at t = 0, until start() writes it into the trajectories.
    const s0: StartState = { x, y, z, vx: f64(), vy: f64(), vz: f64() };
    if (initial) this.setInitial(initial, s0);
    let rSum = 0;
    for (let i = 0; i < n; i++) {
      rSum += this.r[i];
      const r = this.r[i] * 1e-3; // m
      this.m[i] = params.balls.density * (4 / 3) * Math.PI * r * r * r;
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
      s0.vx[i] = ux * speed; s0.vy[i] = uy * speed; s0.vz[i] = uz * speed;
    }
    this.skin = params.skin * (rSum / n);
    this.verticalSkin = this.g > 0 ? VERTICAL_SKIN * this.skin : this.skin;
    this.tall = this.verticalSkin - this.skin;

    // Boxes: half edge r + δ, widened by a relative 1e-9 of the vial so that rounding in the box
    // and exit arithmetic never separates the boxes of touching balls.
    const margin = 1e-9 * (v.width + v.height + 2 * v.amplitude);
    let hMin = Infinity, hMax = 0, hSum = 0;
    for (let i = 0; i < n; i++) {
      const h = this.r[i] + this.skin + margin;
      this.box[4 * i + 3] = h;
      hMin = Math.min(hMin, h); hMax = Math.max(hMax, h); hSum += h;
    }
    const A = v.amplitude;
    const up = this.verticalSkin + hMax + this.tall;
    const lo = -A - up, hi = v.height + A + up;
    const side = v.width + 2 * (this.skin + hMax);
    // A run cancelled while its balls were placed has no events (run() returns at once): no
    // structure, neighbour lists, queue (350-400 bytes a ball: 100,000 disks placed held 478-518 bytes a ball, cancelled 124) nor frames (below).
    this.structure = this.placed ? createStructure(params.cdo, {
      dim, capacity: n,
      min: dim === 2 ? [-this.skin - hMax, lo] : [-this.skin - hMax, -this.skin - hMax, lo],
      size: dim === 2 ? [side, hi - lo] : [side, side, hi - lo],
      hMin, hMean: hSum / n, hMax,
    }) : null;
    this.grid = this.structure instanceof HashedGrid ? this.structure : null;
    this.hMin = hMin;
    this.hMax = hMax;
    this.neighbours = this.structure ? new NeighbourLists(n) : null;
    this.queue = new BallEvents(this.placed ? n : 0);
    // Frames: up to MAX_TRAJECTORY_ROWS of them, 1 GB, were allocated for a cancelled placement.
    const fc = this.placed ? frameCount(params) : 0;
    this.frames = {
      time: new Float64Array(fc), x: new Float32Array(fc * n), y: new Float32Array(fc * n), z: new Float32Array(fc * n),
      speed: new Float32Array(fc * n), impacts: new Uint32Array(fc * n), count: 0,
    };
    this.visit = (j: number) => this.candidate(j);
    if (this.stopReason === null) this.start(s0);
  }

  /** Takes given balls; they must lie in the vial at rest without overlapping. */
  private setInitial(b: InitialBalls, s0: StartState): void {
    const n = this.n, v = this.params.vial;
    for (const [name, a] of Object.entries(b)) {
      if (a.length !== n) throw new RangeError(`initial.${name} must have balls.count = ${n} entries, got ${a.length}`);
    }
    for (let i = 0; i < n; i++) {
      this.r[i] = b.r[i]; s0.x[i] = b.x[i]; s0.y[i] = this.dim === 2 ? 0 : b.y[i]; s0.z[i] = b.z[i];
      s0.vx[i] = b.vx[i]; s0.vy[i] = this.dim === 2 ? 0 : b.vy[i]; s0.vz[i] = b.vz[i];
      const r = this.r[i];
      const outside = this.dim === 2
        ? s0.x[i] < r || s0.x[i] > v.width - r
        : Math.hypot(s0.x[i] - v.width / 2, s0.y[i] - v.width / 2) > v.width / 2 - r;
      if (!(r > 0) || outside || s0.z[i] < r || s0.z[i] > v.height - r) throw new RangeError(`initial ball ${i} is not inside the vial`);
      for (let j = 0; j < i; j++) {
        if (Math.hypot(s0.x[i] - s0.x[j], s0.y[i] - s0.y[j], s0.z[i] - s0.z[j]) < r + this.r[j]) throw new RangeError(`initial balls ${j} and ${i} overlap`);
      }
    }
  }

  /** Trajectories from the state at t = 0, boxes, the first predictions, the first step. */
  private start(s0: StartState): void {
    const s = this.structure, T = this.trajectories;
    for (let i = 0; i < this.n; i++) {
      const k = 8 * i;
      T[k] = 0; T[k + 1] = s0.x[i]; T[k + 2] = s0.y[i]; T[k + 3] = s0.z[i];
      T[k + 4] = s0.vx[i]; T[k + 5] = s0.vy[i]; T[k + 6] = s0.vz[i]; T[k + 7] = this.r[i];
    }
    if (s) {
      for (let i = 0; i < this.n; i++) {
        this.px = s0.x[i]; this.py = s0.y[i]; this.pz = s0.z[i]; this.qz = s0.vz[i];
        this.placeBox(i);
        this.insertBox(s, i);
      }
    }
    for (let i = 0; i < this.n; i++) {
      if (s) this.scheduleExit(i);
      this.qBall = i; this.qMode = MODE_START;
      if (s) this.query(s, i);
      else for (let j = i + 1; j < this.n; j++) this.examine(i, j);
    }
    for (let i = 0; i < this.n; i++) this.queue.update(i);
    this.stepTime = 0;
  }

  /**
   * Processes events up to the end of the run, a cancel, a stop by the user (`stopped`, asked where
   * a cancel is: the state is whole after any event, as at maxEvents), the event budget or a stall.
   */
  run(progress: (done: number) => void, cancelled: () => boolean, stopped: () => boolean = () => false): StopReason {
    const q = this.queue, maxEvents = this.params.maxEvents;
    const stallWindow = Math.max(STALL_EVENTS, 64 * this.n);
    let lastCheckTime = this.now, nextCheck = this.ballCollisions + this.wallCollisions + this.boxExits + stallWindow;
    let nextCancelCheck = this.ballCollisions + this.wallCollisions + this.boxExits + CANCEL_EVENTS;
    while (this.stopReason === null) {
      const i = q.topBall, t = q.topTime;
      // A Step (kind 3) comes after every other event of the same time.
      if (this.stepTime < t) {
        if (this.stepTime > this.duration) { this.stopReason = 'duration'; break; }
        this.now = this.stepTime;
        this.updateTrajectories();
        progress(Math.min(1, this.now / this.duration));
        if (cancelled()) this.stopReason = 'cancelled';
        else if (stopped()) this.stopReason = 'stopped';
      } else {
        if (t > this.duration) { this.stopReason = 'duration'; break; }
        switch (q.keyKind[i]) {
          case EventKind.Collision: {
            const j = q.partnerOfKey(i);
            if (this.count[j] !== q.partnerCountOfKey(i)) { q.dropKeyPair(i); q.update(i); this.staleEvents++; continue; }
            this.now = t;
            if (i < j) this.collide(i, j); else this.collide(j, i);
            break;
          }
          case EventKind.Wall:
            this.now = t;
            this.hitWall(i, q.wallId[i]);
            break;
          case EventKind.BoxExit:
            this.now = t;
            this.moveBox(i);
            break;
        }
      }
      if (this.events >= maxEvents) this.stopReason = 'maxEvents';
      const moves = this.ballCollisions + this.wallCollisions + this.boxExits;
      if (moves >= nextCancelCheck) {
        nextCancelCheck = moves + CANCEL_EVENTS;
        if (cancelled()) this.stopReason = 'cancelled';
        else if (stopped()) this.stopReason = 'stopped';
      }
      if (moves >= nextCheck) {
        // A window of impacts and box moves without simulated time moving on by a thousandth of a step.
        if (this.now - lastCheckTime < this.timeStep * 1e-3) this.stopReason = 'stalled';
        lastCheckTime = this.now;
        nextCheck = moves + stallWindow;
      }
    }
    if (this.stopReason === 'duration') this.now = this.duration;
    // The trajectories end where the run does too (frameCount keeps a frame for it): playing them
    // back stopped at the last step's frame, 0.980 s of a 1 s run at 30 frames/s.
    const F = this.frames;
    if (F.count > 0 && F.time[F.count - 1] < this.now) this.recordFrame();
    // The energy series ends where the run does (a duration between two steps, a cancel, a stall),
    // at finalEnergy.
    const last = this.energyTime.length - 1;
    if (last < 0 || this.energyTime[last] < this.now) { this.energyTime.push(this.now); this.energyValue.push(this.energyAt(this.now)); }
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
    const T = this.trajectories, k = 8 * i;
    const tau = t - T[k], g = this.g, vx = T[k + 4], vy = T[k + 5], vz = T[k + 6];
    this.px = T[k + 1] + vx * tau;
    this.py = T[k + 2] + vy * tau;
    this.pz = T[k + 3] + vz * tau - 0.5 * g * tau * tau;
    this.qx = vx; this.qy = vy; this.qz = vz - g * tau;
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
    const T = this.trajectories, k = 8 * i;
    T[k] = this.now; T[k + 1] = this.px; T[k + 2] = this.py; T[k + 3] = this.pz;
    T[k + 4] = this.qx; T[k + 5] = this.qy; T[k + 6] = this.qz;
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

  /**
   * Places ball i's box for its state now (px..qz): centred on the ball horizontally, and
   * vertically ahead of it along its flight. Between impacts a ball flies on a parabola, and most
   * box exits were vertical (86 % at 1,000 balls); a box centred on the ball let it move only δ_z
   * up or down. The band [c − δ_z, c + δ_z] that holds a free flight longest has the ball at its
   * top when the ball falls (c = z − δ_z), its apex at its top when it rises less than 2δ_z
   * (c = z + H − δ_z, H = v_z² / 2g), and the ball at its bottom when it rises more. The centre is
   * kept within LEAD · δ_z of the ball: at the band's very edge rounding would let the ball leave
   * at once. Horizontally the balls rattle (a lead there measured no fewer exits), and without
   * gravity every axis is horizontal in this sense. The invariant needs only the ball inside its box.
   */
  private placeBox(i: number): void {
    const B = this.box, bi = 4 * i, d = this.verticalSkin, g = this.g, vz = this.qz;
    B[bi] = this.px; B[bi + 1] = this.py;
    let lead = 0;
    if (g > 0) {
      const rise = vz > 0 ? (vz * vz) / (2 * g) : 0;
      lead = Math.min(rise, 2 * d) - d;
      const most = LEAD * d;
      if (lead > most) lead = most; else if (lead < -most) lead = -most;
    }
    B[bi + 2] = this.pz + lead;
  }

  /** Ball i's box is left: move it to the ball, check the new neighbours, schedule the next exit. */
  private moveBox(i: number): void {
    const s = this.structure!;
    this.stateAt(i, this.now);
    const B = this.box, bi = 4 * i;
    const ox = B[bi], oy = B[bi + 1], oz = B[bi + 2];
    this.placeBox(i);
    const cx = B[bi], cy = B[bi + 1], cz = B[bi + 2];
    if (this.dim === 2) s.move(i, cx, cz, 0);
    else s.move(i, cx, cy, cz);
    this.boxExits++;
    const nb = this.neighbours!, M = this.mark;
    if (++this.moveStamp >= 1 << 29) { M.fill(0); this.moveStamp = 1; }
    const old = 2 * this.moveStamp;
    const grid = this.grid, h = B[bi + 3], inner = h + this.hMin, outer = h + this.hMax;
    // The hashed grid's cells entered, or -1 (no grid, or a range that wraps around the grid).
    let m = -1;
    if (grid) {
      const v = this.entered;
      if (this.dim === 2) { v[0] = ox; v[1] = oz; v[2] = 0; v[3] = cx; v[4] = cz; v[5] = 0; }
      else { v[0] = ox; v[1] = oy; v[2] = oz; v[3] = cx; v[4] = cy; v[5] = cz; }
      // Per axis; the vertical one (y in 2D) is the boxes' taller extent.
      const t = 2 * this.tall;
      v[6] = inner; v[7] = this.dim === 2 ? inner + t : inner; v[8] = inner + t;
      v[9] = outer; v[10] = this.dim === 2 ? outer + t : outer; v[11] = outer + t;
      m = grid.cellsEntered(v);
    }
    if (m >= 0) this.enterCells(grid!, i, m);
    else {
      // The neighbours before the move (the boxes that overlapped the old box) are marked; the
      // query reports every box that overlaps the new one, re-marking the old neighbours among
      // them and checking the others (candidate); old neighbours it did not report leave the
      // list. So the lists stay what a query would report, without reading the neighbours' boxes.
      for (let k = nb.stride * i, end = k + nb.count[i]; k < end; k++) M[nb.ids[k]] = old;
      this.qBall = i; this.qMode = MODE_MOVED;
      this.query(s, i);
      const ids = nb.ids, base = nb.stride * i;
      for (let k = nb.count[i] - 1; k >= 0; k--) if (M[ids[base + k]] === old) nb.removeAt(i, k);
    }
    // The state now is still in px..qz (stateAt above).
    this.scheduleExit(i, true);
    this.queue.update(i);
  }

  /**
   * A box move in the hashed grid: the old neighbours whose boxes still overlap stay, the others
   * leave; then only the m cells that can hold a box overlapping the new box but not the old one
   * (HashedGrid.cellsEntered: a shell on the leading faces) are scanned, and the boxes found there
   * that overlap and are not neighbours yet are checked. The boxes are tested here on `box` (four
   * numbers a ball), by the same expression as the structure's test, so the lists stay what a full
   * query would report.
   */
  private enterCells(grid: HashedGrid, i: number, m: number): void {
    const nb = this.neighbours!, M = this.mark, B = this.box, bi = 4 * i, old = 2 * this.moveStamp;
    // The vertical half edges are h + tall, added as the structure stores them (the same rounding).
    const qx = B[bi], qy = B[bi + 1], qz = B[bi + 2], qh = B[bi + 3], tall = this.tall, qv = qh + tall;
    const ids = nb.ids, base = nb.stride * i;
    let tested = nb.count[i];
    // The box tests combine the three axes with & rather than && (no branch per axis: which axis
    // separates two boxes is unpredictable).
    for (let k = nb.count[i] - 1; k >= 0; k--) {
      const j = ids[base + k], o = 4 * j, e = B[o + 3] + qh;
      if (+(Math.abs(B[o] - qx) <= e) & +(Math.abs(B[o + 1] - qy) <= e) & +(Math.abs(B[o + 2] - qz) <= B[o + 3] + tall + qv)) M[j] = old;
      else nb.removeAt(i, k);
    }
    M[i] = old;
    const heads = grid.cellHeads, next = grid.nextInCell;
    for (let c = 0; c < m; c++) {
      for (let j = heads[c]; j >= 0; j = next[j]) {
        if (M[j] === old) continue;
        tested++;
        const o = 4 * j, e = B[o + 3] + qh;
        if (+(Math.abs(B[o] - qx) <= e) & +(Math.abs(B[o + 1] - qy) <= e) & +(Math.abs(B[o + 2] - qz) <= B[o + 3] + tall + qv)) {
          this.examine(i, j);
          nb.add(i, j);
        }
      }
    }
    grid.counters.candidatesTested += tested;
  }

  /** The predict-trajectory step: every ball's state by Eq. 1, its wall contacts in the next Δt. */
  private updateTrajectories(): void {
    const k = this.step;
    if (this.frameEvery > 0 && k % this.frameEvery === 0) this.recordFrame();
    if (k % this.energyEvery === 0 || k === this.steps) { this.energyTime.push(this.now); this.energyValue.push(this.energyAt(this.now)); }
    this.stepEnd = (k + 1) * this.timeStep;
    // Every ball's wall contact was processed by now (searches end at a step), so only the balls
    // that find one in the next step need a new place in the queue.
    for (let i = 0; i < this.n; i++) if (this.searchWalls(i)) this.queue.update(i);
    this.trajectoryUpdates += this.n;
    this.step = k + 1;
    // The last step is at the duration: (k + 1)·Δt can round above it (140 × 0.005 =
    // 0.7000000000000001), and the run ends at the first event after the duration.
    this.stepTime = k < this.steps ? Math.min(this.stepEnd, this.duration) : Infinity;
  }

  // ---- predictions -----------------------------------------------------------------------------

  /** After ball i's trajectory changed (partner: the other ball of the impact, or -1). */
  private afterChange(i: number, partner: number): void {
    // Every prediction of i is stale: drop them and predict again.
    this.queue.clear(i);
    this.searchWalls(i);
    const nb = this.neighbours;
    if (nb) {
      this.scheduleExit(i);
      // Every ball whose box overlaps i's: its neighbour list (no structure query).
      this.examineNeighbours(i, partner);
    } else {
      for (let j = 0; j < this.n; j++) if (j !== i && j !== partner) this.examine(i, j);
    }
    this.queue.update(i);
  }

  /** Wall contact of ball i from now to the end of the current step; true if there is one. */
  private searchWalls(i: number): boolean {
    const V = this.vial;
    V.from = this.now;
    V.to = this.stepEnd;
    V.search(this.trajectories, i);
    if (V.hitWall < 0) return false;
    this.queue.setWall(i, V.hitTime, V.hitWall);
    return true;
  }

  /**
   * Seed Eq. 2 for balls p and q on their current trajectories; their next collision goes to p's
   * events (p: the ball whose trajectory or box just changed). The origin is the later trajectory
   * start T, so the result does not depend on when it is computed; each ball's position and
   * velocity at T is computed by one expression (the ball's own), and the pair's relative ones as
   * their differences, which are exact negatives when p and q swap (IEEE subtraction is), while every
   * product and sum after them comes out the same: so the time does not depend on which ball asked,
   * without putting the pair in id order (a branch the processor mispredicted about every other check).
   */
  private examine(p: number, q: number): void {
    this.collisionChecks++;
    const R = this.trajectories, kp = 8 * p, kq = 8 * q;
    const tp = R[kp], tq = R[kq], g = this.g;
    const T = tp > tq ? tp : tq;
    const sp = T - tp, sq = T - tq;
    const vxp = R[kp + 4], vyp = R[kp + 5], vzp = R[kp + 6], vxq = R[kq + 4], vyq = R[kq + 5], vzq = R[kq + 6];
    const dx = (R[kq + 1] + vxq * sq) - (R[kp + 1] + vxp * sp);
    const dy = (R[kq + 2] + vyq * sq) - (R[kp + 2] + vyp * sp);
    const dz = (R[kq + 3] + vzq * sq - 0.5 * g * sq * sq) - (R[kp + 3] + vzp * sp - 0.5 * g * sp * sp);
    const ux = vxq - vxp, uy = vyq - vyp;
    const uz = (vzq - g * sq) - (vzp - g * sp);
    const b = dx * ux + dy * uy + dz * uz;
    if (b >= 0) return;
    const sigma = R[kp + 7] + R[kq + 7];
    const c = dx * dx + dy * dy + dz * dz - sigma * sigma;
    let t = T;
    if (c > 0) {
      const a = ux * ux + uy * uy + uz * uz;
      const D = b * b - a * c;
      if (D < 0) return;
      t = T + c / (Math.sqrt(D) - b);
    }
    if (t < this.now) t = this.now;
    this.queue.addPair(p, q, t, this.count[q]);
  }

  /**
   * examine(p, q) for every neighbour q of p but `skip`, with p's trajectory read once. p's
   * trajectory has just started (afterChange), so T is its start and p's state at T its
   * trajectory's: x + v·0 is x, so this is examine's arithmetic, value for value. A neighbour whose
   * trajectory started later (none does) would go to examine.
   */
  private examineNeighbours(p: number, skip: number): void {
    const nb = this.neighbours!, ids = nb.ids, end = nb.stride * p + nb.count[p];
    const R = this.trajectories, g = this.g, now = this.now, queue = this.queue, count = this.count, kp = 8 * p;
    const tp = R[kp], xp = R[kp + 1], yp = R[kp + 2], zp = R[kp + 3], vxp = R[kp + 4], vyp = R[kp + 5], vzp = R[kp + 6], rp = R[kp + 7];
    let checks = 0;
    for (let k = nb.stride * p; k < end; k++) {
      const q = ids[k];
      if (q === skip) continue;
      const kq = 8 * q, tq = R[kq];
      if (tq > tp) { this.examine(p, q); continue; }
      checks++;
      const s = tp - tq, vxq = R[kq + 4], vyq = R[kq + 5], vzq = R[kq + 6];
      const dx = (R[kq + 1] + vxq * s) - xp;
      const dy = (R[kq + 2] + vyq * s) - yp;
      const dz = (R[kq + 3] + vzq * s - 0.5 * g * s * s) - zp;
      const ux = vxq - vxp, uy = vyq - vyp;
      const uz = (vzq - g * s) - vzp;
      const b = dx * ux + dy * uy + dz * uz;
      if (b >= 0) continue;
      const sigma = rp + R[kq + 7];
      const c = dx * dx + dy * dy + dz * dz - sigma * sigma;
      let t = tp;
      if (c > 0) {
        const a = ux * ux + uy * uy + uz * uz;
        const D = b * b - a * c;
        if (D < 0) continue;
        t = tp + c / (Math.sqrt(D) - b);
      }
      if (t < now) t = now;
      queue.addPair(p, q, t, count[q]);
    }
    this.collisionChecks += checks;
  }

  private insertBox(s: SpatialIndex, i: number): void {
    const B = this.box, k = 4 * i, h = B[k + 3];
    if (this.dim === 2) s.insertBox(i, B[k], B[k + 2], 0, h, h + this.tall, 0);
    else s.insertBox(i, B[k], B[k + 1], B[k + 2], h, h, h + this.tall);
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
        const old = 2 * this.moveStamp;
        if (this.mark[j] === old) { this.mark[j] = old + 1; return; }
        this.examine(i, j);
        this.neighbours!.add(i, j);
      }
    }
  }

  /** Queues the time at which ball i's centre, inside its box now, leaves it (δ from the box centre
   *  on an axis). Computed from the state now: the trajectory may have started outside the box. */
  private scheduleExit(i: number, stateNow = false): void {
    const d = this.skin, g = this.g;
    if (!stateNow) this.stateAt(i, this.now);
    let tau = Infinity, u: number;
    const px = this.px, py = this.py, pz = this.pz, vx = this.qx, vy = this.qy, vz = this.qz;
    const B = this.box, bx = B[4 * i], by = B[4 * i + 1], bz = B[4 * i + 2];
    if (vx > 0) tau = (bx + d - px) / vx; else if (vx < 0) tau = (bx - d - px) / vx;
    if (this.dim === 3) {
      if (vy > 0) { u = (by + d - py) / vy; if (u < tau) tau = u; } else if (vy < 0) { u = (by - d - py) / vy; if (u < tau) tau = u; }
    }
    // Vertical: z(τ) = z + vz τ − g τ²/2 reaches the top plane (if it rises that far) or the bottom.
    const dz = this.verticalSkin;
    let up = bz + dz - pz, down = pz - (bz - dz);
    if (!(up > 0)) up = 0;
    if (!(down > 0)) down = 0;
    if (vz > 0) {
      const D = vz * vz - 2 * g * up;
      if (D >= 0) { u = (2 * up) / (vz + Math.sqrt(D)); if (u < tau) tau = u; }
    }
    if (g > 0) {
      const s = Math.sqrt(vz * vz + 2 * g * down);
      u = vz > 0 ? (vz + s) / g : s - vz > 0 ? (2 * down) / (s - vz) : 0;
      if (u < tau) tau = u;
    } else if (vz < 0) { u = down / -vz; if (u < tau) tau = u; }
    this.queue.setExit(i, tau === Infinity ? Infinity : tau > 0 ? this.now + tau : this.now);
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
/** How far a box centre may lead its ball vertically, in δ (0.8, 0.95 and 0.99 gave 87, 83 and 82 k
 *  box exits at 1,000 balls, 0.2 s; 1 stalls: exits at the placement). */
const LEAD = 0.95;
/** The vertical skin under gravity, in δ: boxes twice as tall in their skin. At 1,000 balls, 0.2 s
 *  (with the lead): 1, 1.5, 2 and 3 gave 83, 64, 56 and 49 k box exits against 1.78, 1.94, 2.11
 *  and 2.47 M checks; 2 was the fastest of 1, 1.5 and 2 at 10,000 balls. */
const VERTICAL_SKIN = 2;

/** Radii from the law, scaled to the solid fraction when one is asked for, into r. */
function drawRadii(p: BallmillParams, rnd: Random, r: Float64Array): void {
  const law = p.balls.radius, n = r.length;
  let measure = 0;
  for (let i = 0; i < n; i++) {
    r[i] = law.law === 'fixed' ? law.value : rnd.uniform(law.min, law.max);
    measure += p.dim === 2 ? Math.PI * r[i] * r[i] : (4 / 3) * Math.PI * r[i] * r[i] * r[i];
  }
  const target = p.balls.solidFraction;
  if (target !== null) {
    const s = root(target * vialMeasure(p) / measure, p.dim);
    for (let i = 0; i < n; i++) r[i] *= s;
  }
  const rMax = r.reduce((a, b) => Math.max(a, b), 0);
  const room = Math.min(p.vial.width, p.vial.height) / 4;
  if (rMax > room) {
    const why = `balls: the largest drawn ball has radius ${rMax.toPrecision(4)} mm, more than a quarter of the vial's smaller inner side (${room} mm)`;
    if (target === null) throw new RangeError(why);
    // check bounds the expected largest radius only; this draw's radii all scale with the
    // fraction's root, so the fraction that brings its largest one to the limit is known.
    const allowed = Math.floor(target * powInt(room / rMax, p.dim) * 1000) / 1000;
    throw new RangeError(`${why}: allowed balls.solidFraction ≤ ${allowed} for this draw (this seed's radii, all scaled by one factor; a larger vial scales them with it)`);
  }
}

/** Draws the radii into r and places the balls (placeBalls: the sweeps, -1 when cancelled). */
function drawAndPlace(p: BallmillParams, rnd: Random, r: Float64Array, x: Float64Array, y: Float64Array, z: Float64Array, cancelled: (stage: PlacementStage) => boolean): number {
  drawRadii(p, rnd, r);
  return placeBalls({ dim: p.dim, width: p.vial.width, height: p.vial.height }, r, rnd, x, y, z, cancelled);
}

/** Rounds of checkedAdvice: advised values tried, each lower than the last. */
const ADVICE_ROUNDS = 3;

/**
 * What to change after the balls could not be placed (error), checked: which sets place is not
 * monotone (1,000 spheres in a 20 mm cylinder place from seed 1 at 0.43 and 0.41, not at 0.44 nor
 * 0.40), so the densest placement found, less a margin, was advice that could fail again. Each
 * round places the balls as a run of the advised spec from this seed would (the same draws), within
 * as many sweeps in all as the failed placement took, so that a refusal takes at most twice as long;
 * a round that fails gives the next advice. The text says whether the advised value placed them (a
 * round may run out of sweeps: it says so). Null when `cancelled` said so meanwhile. A set placed in
 * one attempt is not checked: its refusal took few sweeps (a jam, a short bisection) and its advised
 * value, near its limit, places in more than twice as many (1,000 disks at 0.70 of a 20 mm wide strip:
 * refused after 1,649, the advised 0.524 places at sweep 4,007; 20,000 spheres at 0.5 of a 20 mm
 * cylinder: 708, 0.33 at sweep 2,120), so the check ran out of sweeps in
 * 5 of the 6 such sets measured and doubled the refusal's time to say so; and where it would place
 * them, a run at that value places them again, so the check would double that placement's time.
 */
function checkedAdvice(p: BallmillParams, seed: number, error: PlacementError, cancelled: (stage: SetupStage) => boolean): string | null {
  let left = error.sweeps, advice = placementAdvice(p, error.scale, error.reached);
  const n = p.balls.count;
  if (placedInOneAttempt(n)) return `${advice.text} (not checked: ${n} balls are placed in one attempt, which near their limit takes more than twice the sweeps of this refusal; a run at this value is its check)`;
  const r = new Float64Array(n), x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n);
  const failed: string[] = [];
  const spent = () => --left < 0;
  let stopped = false;
  for (let round = 0; round < ADVICE_ROUNDS && left > 0; round++) {
    let placed: number;
    try {
      const checking: SetupStage = { stage: 'checking', value: p.balls.solidFraction !== null ? `balls.solidFraction ${advice.value}` : advice.value };
      placed = drawAndPlace(advice.params, new Random(seed), r, x, y, z, () => (stopped = cancelled(checking)) || spent());
    } catch (e) {
      if (!(e instanceof PlacementError)) throw e;
      failed.push(advice.value);
      advice = placementAdvice(advice.params, e.scale, e.reached);
      continue;
    }
    if (placed >= 0) return `${advice.text} (checked: ${advice.value} places them from this seed)`;
    if (stopped) return null;
    break;
  }
  const tried = failed.length > 0 ? `${failed.join(', then ')} did not place them from this seed either` : 'it ran out of sweeps before it placed them from this seed or gave up';
  return `${advice.text} (not checked: ${tried})`;
}

