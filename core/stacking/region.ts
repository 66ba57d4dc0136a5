/**
 * The region the balls fill: a box (rectangle in 2D) [0, lx] × [0, ly] × [0, lz] with optional
 * periodic x and y, or an upright cylinder (circle in 2D) of radius R centred at (R, R). A ball is
 * inside when it lies wholly within the walls (to the tolerance); along a periodic axis there is
 * no wall and centres wrap into [0, l).
 *
 * Walls take part in contact positions like balls do: plane walls (axis, coordinate, which side is
 * inside) and the curved side of a cylinder or circle.
 */
import type { Random } from '../common/random';
import type { RegionParams } from './params';

/** A plane wall x_axis = at; the inside is at larger coordinates when inward = +1, smaller when -1. */
export interface PlaneWall {
  axis: 0 | 1 | 2;
  at: number;
  inward: 1 | -1;
}

export class Region {
  readonly dim: 2 | 3;
  readonly round: boolean;
  /** Bounding box edges (lz = 0 in 2D). */
  readonly lx: number;
  readonly ly: number;
  readonly lz: number;
  readonly periodicX: boolean;
  readonly periodicY: boolean;
  /** Cylinder or circle radius (0 for a box). */
  readonly radius: number;
  readonly volume: number;
  readonly planes: PlaneWall[] = [];

  constructor(p: RegionParams, dim: 2 | 3, readonly tol: number) {
    this.dim = dim;
    this.round = p.shape === 'cylinder' || p.shape === 'circle';
    switch (p.shape) {
      case 'box':
        [this.lx, this.ly, this.lz] = p.size;
        [this.periodicX, this.periodicY] = p.periodic;
        this.radius = 0;
        break;
      case 'rectangle':
        [this.lx, this.ly] = p.size;
        this.lz = 0;
        [this.periodicX, this.periodicY] = p.periodic;
        this.radius = 0;
        break;
      case 'cylinder':
        this.lx = this.ly = 2 * p.radius;
        this.lz = p.height;
        this.periodicX = this.periodicY = false;
        this.radius = p.radius;
        break;
      case 'circle':
        this.lx = this.ly = 2 * p.radius;
        this.lz = 0;
        this.periodicX = this.periodicY = false;
        this.radius = p.radius;
        break;
    }
    this.volume = this.round
      ? Math.PI * this.radius * this.radius * (dim === 3 ? this.lz : 1)
      : this.lx * this.ly * (dim === 3 ? this.lz : 1);
    if (!this.round) {
      if (!this.periodicX) this.planes.push({ axis: 0, at: 0, inward: 1 }, { axis: 0, at: this.lx, inward: -1 });
      if (!this.periodicY) this.planes.push({ axis: 1, at: 0, inward: 1 }, { axis: 1, at: this.ly, inward: -1 });
    }
    if (dim === 3) this.planes.push({ axis: 2, at: 0, inward: 1 }, { axis: 2, at: this.lz, inward: -1 });
  }

  /** True when the ball lies within the walls, to the tolerance (any x/y along periodic axes). */
  contains(x: number, y: number, z: number, r: number): boolean {
    const lim = r - this.tol;
    if (this.dim === 3 && (z < lim || z > this.lz - lim)) return false;
    if (this.round) {
      const dx = x - this.radius, dy = y - this.radius, R = this.radius - lim;
      return R >= 0 && dx * dx + dy * dy <= R * R;
    }
    if (!this.periodicX && (x < lim || x > this.lx - lim)) return false;
    if (!this.periodicY && (y < lim || y > this.ly - lim)) return false;
    return true;
  }

  /** Brings a centre along periodic axes back into [0, l). */
  wrapX(x: number): number {
    return this.periodicX ? x - this.lx * Math.floor(x / this.lx) : x;
  }

  wrapY(y: number): number {
    return this.periodicY ? y - this.ly * Math.floor(y / this.ly) : y;
  }

  /** A centre uniformly among those where a ball of radius r lies inside; false if there is none. */
  randomCentre(rng: Random, r: number, out: Float64Array): boolean {
    if (this.dim === 3) {
      if (this.lz < 2 * r) return false;
      out[2] = r + (this.lz - 2 * r) * rng.next();
    } else {
      out[2] = 0;
    }
    if (this.round) {
      const R = this.radius - r;
      if (R < 0) return false;
      const rho = R * Math.sqrt(rng.next()), phi = 2 * Math.PI * rng.next();
      out[0] = this.radius + rho * Math.cos(phi);
      out[1] = this.radius + rho * Math.sin(phi);
      return true;
    }
    const x0 = this.periodicX ? 0 : r, x1 = this.periodicX ? this.lx : this.lx - r;
    const y0 = this.periodicY ? 0 : r, y1 = this.periodicY ? this.ly : this.ly - r;
    if (x1 < x0 || y1 < y0) return false;
    out[0] = x0 + (x1 - x0) * rng.next();
    out[1] = y0 + (y1 - y0) * rng.next();
    return true;
  }
}
