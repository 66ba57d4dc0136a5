/**
 * The constrained move with adaptive σ (SurfaceSampler.advance) over a range of particles: each
 * particle's step reads and writes only its own entries, so ranges may run on several threads
 * at once (board.ts); the grid is told of the new positions afterwards, on the run's thread.
 */
import type { ImplicitFunction } from './implicit';

/** The per-particle arrays the move reads and writes (in SharedArrayBuffers when threads share it). */
export interface MoveArrays {
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  sigma: Float64Array;
  /** D_i, E_i and ∂E_i/∂σ_i of the last repulsion pass. */
  dx: Float64Array;
  dy: Float64Array;
  dz: Float64Array;
  energy: Float64Array;
  dEnergy: Float64Array;
  /** Written: |P_i'| and the unit normal at the position before the step. */
  speed: Float64Array;
  nx: Float64Array;
  ny: Float64Array;
  nz: Float64Array;
}

/** Float64 slots of a move's parameters (MovePass.params): Δt, φ, σ's bounds, β/σ̂, ρ, Ê, and the
 *  particles and ranges of the move. */
export const M = { dt: 0, phi: 1, lo: 2, hi: 3, beta: 4, rate: 5, target: 6, n: 7, chunks: 8 } as const;
export const MOVE_SLOTS = 10;

/**
 * A particle farther than this many σ_i from the surface (|F|/|∇F|) is not moved by its repulsion
 * until the feedback has brought it back. Beyond a rim of small radius of curvature (a flat
 * ellipsoid's, c²/a; the edges of a superquadric with ε near 2) the level sets of F are as flat as
 * the faces, so the tangent plane of a particle that the Euler step took past the rim holds the
 * outward direction: the repulsion of the particles on the faces pushed it on outwards, while the
 * feedback along ∇F (across the faces) barely pulled it back. An ellipsoid (1, 1, 0.075) at spacing
 * 0.1 (the thinnest the checks allow) kept 40 particles up to 0.14 off its rim and ran to
 * maxIterations; a superquadric (1, 1, 0.1) with ε 2 ran away to 12,437 particles in 2,000
 * iterations, 4,805 of them off the surface. With this: the ellipsoid uniform after 342-355
 * iterations (seeds 1, 2), the superquadric 270-280 particles, none off. 0.05 against 0.02, 0.1
 * and 0.2 (both seeds): the ellipsoid uniform sooner than at 0.1 and 0.2 (0.02: not within 800
 * iterations), fewer particles off the edges of superquadrics of ε 1.5 and 2.
 */
export const STRAY_SIGMAS = 0.05;

/** One thread's moves: the arrays, the implicit function (compiled on that thread), the parameters. */
export class MovePass {
  private readonly g = new Float64Array(3);

  constructor(readonly a: MoveArrays, readonly fn: ImplicitFunction, readonly params: Float64Array) {}

  /** Chunk t of the move's `chunks` equal ranges of its n particles. */
  task(t: number): void {
    const p = this.params, n = p[M.n], chunks = p[M.chunks];
    this.range(Math.floor((t * n) / chunks), Math.floor(((t + 1) * n) / chunks));
  }

  /**
   * Witkin & Heckbert's constrained move of particles i0 .. i1 − 1 for a still surface:
   * P_i' = D_i − ((∇F·D_i + φF) / |∇F|²) ∇F (the repulsion projected onto the tangent plane, and
   * feedback φ pulling the particle back to F = 0), and σ_i' = −ρ (E_i − Ê) / (∂E_i/∂σ_i + β/σ̂)
   * (the adaptive radius, kept within [lo, hi]), both by one Euler step of Δt.
   */
  range(i0: number, i1: number): void {
    const p = this.params, dt = p[M.dt], phi = p[M.phi], lo = p[M.lo], hi = p[M.hi], beta = p[M.beta], rate = p[M.rate], target = p[M.target];
    const a = this.a, g = this.g, fn = this.fn;
    const x = a.x, y = a.y, z = a.z, sigma = a.sigma, dx = a.dx, dy = a.dy, dz = a.dz, energy = a.energy, dEnergy = a.dEnergy;
    const speed = a.speed, nx = a.nx, ny = a.ny, nz = a.nz;
    for (let i = i0; i < i1; i++) {
      const F = fn.valueAndGradient(x[i], y[i], z[i], g);
      const gx = g[0], gy = g[1], gz = g[2];
      const g2 = gx * gx + gy * gy + gz * gz, gl = Math.sqrt(g2);
      // A particle off the surface (|F|/|∇F| over STRAY_SIGMAS σ_i) takes the feedback step alone.
      const stray = g2 > 0 && Math.abs(F) > STRAY_SIGMAS * sigma[i] * gl;
      const Dx = stray ? 0 : dx[i], Dy = stray ? 0 : dy[i], Dz = stray ? 0 : dz[i];
      const k = g2 > 0 ? (gx * Dx + gy * Dy + gz * Dz + phi * F) / g2 : 0;
      const vx = Dx - k * gx, vy = Dy - k * gy, vz = Dz - k * gz;
      speed[i] = Math.sqrt(vx * vx + vy * vy + vz * vz);
      if (gl > 0) { nx[i] = gx / gl; ny[i] = gy / gl; nz[i] = gz / gl; }
      x[i] += dt * vx; y[i] += dt * vy; z[i] += dt * vz;
      const s = sigma[i] - (dt * rate * (energy[i] - target)) / (dEnergy[i] + beta);
      sigma[i] = s < lo ? lo : s > hi ? hi : s;
    }
  }
}
