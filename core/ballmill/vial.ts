/**
 * The vial and the exact times at which a ball meets its walls.
 *
 * Coordinates (mm): x, y horizontal, z vertical (up). 2D: the rectangle x ∈ [0, W] (y unused);
 * 3D: the cylinder of radius R = W/2 around the vertical axis x = y = R. At rest the floor is at
 * z = 0 and the ceiling at z = H; the vial oscillates rigidly, the floor at f(t) = A·sin(ωt),
 * ω = 2πf. The walls have infinite mass; at an impact a wall moves with velocity f'(t) (vertical,
 * so only the floor and the ceiling move along their normals).
 *
 * A ball moves on the parabola z(t) = z0 + vz·τ − g·τ²/2, x(t) = x0 + vx·τ (τ = t − t0).
 *
 * Side walls: the horizontal motion is linear, so a contact is the root of a linear (2D) or
 * quadratic (3D cylinder) equation, solved in closed form.
 *
 * Floor and ceiling: against a still vial the gap is a quadratic, solved in closed form. Against an
 * oscillating vial the gap h(t) = z(t) − r − f(t) (floor) or f(t) + H − r − z(t) (ceiling) has no
 * closed-form root, so its earliest root in the search window [a, b] is found by a bracketing search
 * that cannot skip a root: h'' is bounded, |h''| ≤ M = g + Aω², so on an interval [p, q]
 *   h(t) ≥ min(h(p), h(q)) − M (q − p)² / 8,
 * and an interval whose bound is positive has no root. The search first steps over the span where
 * h(a) + h'(a)τ − Mτ²/2 > 0, then bisects [a, b] depth first, earliest half first, dropping halves
 * with a positive bound. The first half found with h(q) ≤ 0 brackets the earliest root; as soon as
 * a bracket is known to be monotone (h'(p) + M (q − p) < 0) or is shorter than ε_t = 1e-10 s, the
 * root is refined by Illinois regula falsi, which keeps the bracket, to a width of a few ulps. The
 * event time returned is the bracket's left end, where the gap is still ≥ 0. An interval shorter
 * than ε_t that keeps a positive sign at both ends is a graze: the ball may dip into the wall by at
 * most M ε_t² / 8 (< 1e-14 mm for M < 10^7 mm/s², i.e. 1000 g), which counts as no contact.
 */

/** Wall ids. */
export const FLOOR = 0, CEILING = 1, SIDE = 2, LEFT = 2, RIGHT = 3;

/** Shortest interval the moving-wall search bisects to. */
export const GRAZE_TIME = 1e-10;

/** Largest M = g + Aω² (mm/s², about 1,000 g) a spec may ask for: the bound under which a graze
 *  dips less than 1e-14 mm into a wall (above). Shaker mills run at tens of g. */
export const MAX_WALL_ACCELERATION = 1e7;

/** Ball trajectories, one ball's next to each other: t0, x0, y0, z0, vx, vy, vz, r at [8 i ..]
 *  (the state at t0 and the radius; BallMill.trajectories). */
export const TRAJECTORY_STRIDE = 8;

export interface VialSpec {
  dim: 2 | 3;
  /** Inner width (2D) or diameter (3D), height, amplitude in mm; frequency in Hz; gravity in mm/s². */
  width: number;
  height: number;
  amplitude: number;
  frequency: number;
  gravity: number;
}

export class Vial {
  readonly dim: 2 | 3;
  readonly width: number;
  readonly height: number;
  /** Cylinder radius (3D). */
  readonly radius: number;
  readonly amplitude: number;
  readonly omega: number;
  readonly gravity: number;
  /** True when the floor and ceiling move. */
  readonly moving: boolean;
  /** Bound on |h''| of a floor or ceiling gap. */
  private readonly M: number;
  /** Result of the last search: wall id (or -1) and time. */
  hitWall = -1;
  hitTime = Infinity;
  /** Gap evaluations of the moving-wall search (its cost). */
  evaluations = 0;
  // The trajectory being searched, and which moving wall.
  private t0 = 0; private z0 = 0; private vz = 0; private r = 0; private ceiling = false;
  /** The search window [from, to] (s). */
  from = 0;
  to = 0;
  // The moving-wall search's end and result (fields rather than arguments and a return value,
  // which V8 would box as heap numbers across calls that are not inlined).
  private rootTo = 0; private root = Infinity;
  private readonly stack = new Float64Array(4 * 128);

  constructor(s: VialSpec) {
    this.dim = s.dim;
    this.width = s.width;
    this.height = s.height;
    this.radius = s.width / 2;
    this.amplitude = s.amplitude;
    this.omega = 2 * Math.PI * s.frequency;
    this.gravity = s.gravity;
    this.moving = s.amplitude > 0 && s.frequency > 0;
    this.M = s.gravity + s.amplitude * this.omega * this.omega;
  }

  /** Floor height f(t) and the vial's velocity f'(t). */
  floorAt(t: number): number { return this.moving ? this.amplitude * Math.sin(this.omega * t) : 0; }
  floorVelocity(t: number): number { return this.moving ? this.amplitude * this.omega * Math.cos(this.omega * t) : 0; }

  /**
   * Earliest wall contact in [from, to] of ball i of `balls` (its trajectory and radius at
   * balls[8 i ..]: t0; x0, y0, z0; vx, vy, vz; r). Sets hitWall (-1 when none) and hitTime. A contact that round-off put
   * before `from` is reported at `from`. The window is passed in fields and the ball by index, so
   * that no double crosses a call (V8 boxes those).
   */
  search(balls: Float64Array, i: number): void {
    const a = this.from, b = this.to, k = TRAJECTORY_STRIDE * i;
    const t0 = balls[k], x0 = balls[k + 1], y0 = balls[k + 2], z0 = balls[k + 3];
    const vx = balls[k + 4], vy = balls[k + 5], vz = balls[k + 6], r = balls[k + 7];
    let best = Infinity, wall = -1;
    // Side walls.
    if (this.dim === 2) {
      if (vx < 0) { const t = t0 + (r - x0) / vx; if (t < best) { best = t; wall = LEFT; } }
      else if (vx > 0) { const t = t0 + (this.width - r - x0) / vx; if (t < best) { best = t; wall = RIGHT; } }
    } else {
      const qx = x0 - this.radius, qy = y0 - this.radius, rho = this.radius - r;
      const A = vx * vx + vy * vy;
      if (A > 0) {
        const B = qx * vx + qy * vy, C = qx * qx + qy * qy - rho * rho;
        const D = B * B - A * C;
        if (D >= 0) {
          // The larger root: where the ball, inside, reaches the wall moving outwards.
          const s = Math.sqrt(D);
          const tau = B <= 0 ? (s - B) / A : -C / (B + s);
          const t = t0 + tau;
          if (t < best) { best = t; wall = SIDE; }
        }
      }
    }
    // Floor and ceiling.
    const g = this.gravity;
    if (!this.moving) {
      // Floor: z(τ) = r, the root after the apex (g > 0) or the one ahead when falling (g = 0).
      const h = z0 - r;
      let tf = Infinity;
      if (g > 0) {
        const s = Math.sqrt(Math.max(0, vz * vz + 2 * g * h));
        // Written so that nothing cancels; a ball resting on the floor (h = vz = 0) touches it now.
        tf = vz > 0 ? (vz + s) / g : s - vz > 0 ? (2 * h) / (s - vz) : 0;
      } else if (vz < 0) tf = h / -vz;
      if (t0 + tf < best) { best = t0 + tf; wall = FLOOR; }
      // Ceiling: z(τ) = H − r, the first root, if the ball rises that high.
      const c = this.height - r - z0;
      let tc = Infinity;
      if (vz > 0) {
        const D = vz * vz - 2 * g * c;
        if (D >= 0) tc = (2 * c) / (vz + Math.sqrt(D));
      }
      if (t0 + tc < best) { best = t0 + tc; wall = CEILING; }
    } else {
      // Cheap rejection by the ball's height range over [a, min(b, best)].
      const end = Math.min(b, best);
      if (end >= a) {
        const ta = a - t0, tb = end - t0;
        const za = z0 + vz * ta - 0.5 * g * ta * ta;
        const zb = z0 + vz * tb - 0.5 * g * tb * tb;
        let zHigh = Math.max(za, zb);
        const apex = g > 0 ? t0 + vz / g : Infinity;
        if (apex > a && apex < end) zHigh = z0 + (0.5 * vz * vz) / g;
        const zLow = Math.min(za, zb);
        this.t0 = t0; this.z0 = z0; this.vz = vz; this.r = r;
        if (zLow - r - this.amplitude <= 0) {
          this.ceiling = false;
          this.rootTo = end;
          this.movingRoot();
          if (this.root < best) { best = this.root; wall = FLOOR; }
        }
        if (this.height - this.amplitude - r - zHigh <= 0) {
          this.ceiling = true;
          this.rootTo = Math.min(end, best);
          this.movingRoot();
          if (this.root < best) { best = this.root; wall = CEILING; }
        }
      }
    }
    if (best > b) { this.hitWall = -1; this.hitTime = Infinity; return; }
    this.hitWall = wall;
    this.hitTime = best < a ? a : best;
  }

  /** Gap between the ball and the moving floor or ceiling at t. */
  private gap(t: number): number {
    this.evaluations++;
    const tau = t - this.t0;
    const z = this.z0 + this.vz * tau - 0.5 * this.gravity * tau * tau;
    const f = this.amplitude * Math.sin(this.omega * t);
    return this.ceiling ? f + this.height - this.r - z : z - this.r - f;
  }

  /** d(gap)/dt at t. */
  private gapRate(t: number): number {
    const vz = this.vz - this.gravity * (t - this.t0);
    const fv = this.amplitude * this.omega * Math.cos(this.omega * t);
    return this.ceiling ? fv - vz : vz - fv;
  }

  /** Earliest root of the gap in [from, rootTo] (see the file comment) into `root` (Infinity: none). */
  private movingRoot(): void {
    let a = this.from;
    const b = this.rootTo;
    this.root = Infinity;
    if (!(b >= a)) return;
    const M = this.M;
    const ha = this.gap(a), ra = this.gapRate(a);
    if (ha <= 0) {
      // Touching: a contact now if approaching; if separating, the gap stays positive at least
      // while ra·τ − Mτ²/2 > 0.
      if (ra <= 0) { this.root = a; return; }
      a += (2 * ra) / M;
    } else {
      a += (ra + Math.sqrt(ra * ra + 2 * M * ha)) / M;
    }
    if (a > b) return;
    const S = this.stack;
    S[0] = a; S[1] = b; S[2] = this.gap(a); S[3] = this.gap(b);
    let top = 1;
    while (top > 0) {
      top--;
      const o = 4 * top;
      const p = S[o], q = S[o + 1], hp = S[o + 2], hq = S[o + 3];
      if (hp <= 0) { this.root = p; return; }
      const L = q - p;
      if (Math.min(hp, hq) - (M * L * L) / 8 > 0) continue;
      if (hq <= 0 && (L <= GRAZE_TIME || this.gapRate(p) + M * L < 0)) {
        // Illinois regula falsi on the bracket S[o..o+3], h(p) > 0 ≥ h(q), to a few ulps.
        let side = 0;
        for (let k = 0; k < 200; k++) {
          const P = S[o], Q = S[o + 1], HP = S[o + 2], HQ = S[o + 3];
          if (Q - P <= 4 * Number.EPSILON * Math.max(1, Math.abs(Q))) break;
          let m = (P * HQ - Q * HP) / (HQ - HP);
          if (!(m > P && m < Q)) m = 0.5 * (P + Q);
          const hm = this.gap(m);
          if (hm > 0) {
            S[o] = m; S[o + 2] = hm;
            if (side === -1) S[o + 3] = 0.5 * HQ;
            side = -1;
          } else {
            S[o + 1] = m; S[o + 3] = hm;
            if (side === 1) S[o + 2] = 0.5 * HP;
            side = 1;
          }
        }
        this.root = S[o];
        return;
      }
      if (L <= GRAZE_TIME) continue;
      const m = 0.5 * (p + q), hm = this.gap(m);
      // Later half below, earlier half on top.
      S[o] = m; S[o + 1] = q; S[o + 2] = hm; S[o + 3] = hq;
      const o2 = o + 4;
      S[o2] = p; S[o2 + 1] = m; S[o2 + 2] = hp; S[o2 + 3] = hm;
      top += 2;
    }
  }
}
