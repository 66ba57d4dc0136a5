/**
 * Coefficient of normal restitution ε of an impact (seed §2): constant, or from Hertz contact of
 * viscoelastic spheres (Brilliantov, Spahn, Hertzsch & Pöschel 1996; coefficients of Ramírez,
 * Pöschel, Brilliantov & Schwager 1999):
 *
 *   ε(v) = 1 − C1·A·α^(2/5)·v^(1/5) + C2·A²·α^(4/5)·v^(2/5),   C1 = 1.15344, C2 = 0.79826,
 *   α = (4/3)·E*·√R / m,   1/E* = (1 − ν1²)/E1 + (1 − ν2²)/E2,
 *
 * with v the normal impact speed, R = R1R2/(R1 + R2) and m = m1m2/(m1 + m2) the effective radius
 * and mass (a wall: R = the ball's radius, m = its mass), A the dissipative constant. Smaller balls
 * have a larger α and so dissipate more at the same speed. The series is an expansion in
 * x = A·α^(2/5)·v^(1/5); beyond x* = C1 / (2 C2), where it would turn upwards again, ε is held at
 * its minimum 1 − C1² / (4 C2) ≈ 0.583.
 *
 * Guard against inelastic collapse (`elasticBelow` = v_e, the restitution floor): an inelastic
 * impact (ε < 1) never leaves its balls separating slower than v_e, i.e. the rebound speed is
 * max(ε·v, v_e). A ball coming to rest on the floor therefore keeps hopping at v_e, every
 * 2 v_e / g or more often on a shaking floor but never infinitely often, and no cluster can collide
 * infinitely often in finite time (inelastic collapse needs rebound speeds that shrink without
 * bound). The energy this adds to impacts slower than v_e is counted apart (`added`). Elastic
 * impacts (ε = 1) are left alone: they cannot collapse, and energy stays conserved.
 */
import { pow } from '../common/power';
import type { Restitution } from './params';

export const C1 = 1.15344;
export const C2 = 0.79826;
const X_MIN = C1 / (2 * C2);

/** Everything the restitution of one impact needs, in SI units (m, kg, s, Pa). */
export class RestitutionModel {
  readonly constant: number;
  readonly hertz: boolean;
  /** A in s; E* ball–ball and ball–wall in Pa. */
  private readonly A: number;
  private readonly eBall: number;
  private readonly eWall: number;
  /** Collapse guard speed v_e in mm/s. */
  readonly elasticBelow: number;
  /** Impacts whose rebound the guard raised to v_e. */
  guarded = 0;

  constructor(r: Restitution, elasticBelow: number) {
    this.elasticBelow = elasticBelow;
    if (r.model === 'constant') {
      this.constant = r.value;
      this.hertz = false;
      this.A = 0; this.eBall = 0; this.eWall = 0;
    } else {
      this.constant = NaN;
      this.hertz = true;
      this.A = r.dissipation * 1e-6;
      const ball = (1 - r.poissonRatio * r.poissonRatio) / (r.youngModulus * 1e9);
      const wall = (1 - r.wallPoissonRatio * r.wallPoissonRatio) / (r.wallYoungModulus * 1e9);
      this.eBall = 1 / (2 * ball);
      this.eWall = 1 / (ball + wall);
    }
  }

  /** ε of the model at normal impact speed v (mm/s), effective radius R (mm) and mass m (kg). */
  epsilon(v: number, R: number, m: number, wall: boolean): number {
    if (!this.hertz) return this.constant;
    const E = wall ? this.eWall : this.eBall;
    const alpha = ((4 / 3) * E * Math.sqrt(R * 1e-3)) / m;
    // α^(2/5)·v^(1/5) = (α²·v)^(1/5): one power per impact (v in m/s).
    const x = Math.min(X_MIN, this.A * pow(alpha * alpha * (v * 1e-3), 0.2));
    return 1 - C1 * x + C2 * x * x;
  }

  /** Normal speed (mm/s) at which the two bodies separate after an impact at normal speed v. */
  rebound(v: number, R: number, m: number, wall: boolean): number {
    const e = this.epsilon(v, R, m, wall);
    const out = e * v;
    if (e < 1 && out < this.elasticBelow) {
      this.guarded++;
      return this.elasticBelow;
    }
    return out;
  }
}
