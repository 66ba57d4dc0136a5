/**
 * The surface engine's stop rule, one code path for the engine and the particle editor's live
 * preview (so that the preview says 'uniform' only where a run would): the spacing is even
 * (SurfaceSampler.isUniform with stop.targetCV and stop.spacingTolerance) for stop.window
 * iterations in a row, and then every particle lies within stop.surfaceTolerance × spacing of the
 * surface; if one does not, the window starts again.
 */
import type { SurfaceParams } from './params';
import type { SurfaceSampler } from './sampler';

/** After an iteration: still sampling, evenly spaced for the window but a particle off the surface, or uniform. */
export type StopState = 'sampling' | 'offSurface' | 'uniform';

export class UniformStop {
  /** Iterations in a row the spacing has been even (back to 0 after an off-surface check). */
  inARow = 0;
  /** The largest distance of a particle from the surface at the last check that failed (0 before). */
  worstResidual = 0;

  constructor(private readonly stop: SurfaceParams['stop']) {}

  /** The distance from the surface a particle may have: stop.surfaceTolerance × the spacing. */
  tolerance(s: SurfaceSampler): number {
    return this.stop.surfaceTolerance * s.spacing;
  }

  /** Call after each s.step(). */
  update(s: SurfaceSampler): StopState {
    const st = this.stop;
    this.inARow = s.isUniform(st.targetCV, st.spacingTolerance) ? this.inARow + 1 : 0;
    if (this.inARow < st.window) return 'sampling';
    // Even spacing is not enough: the particles must lie on the surface too (on a superquadric
    // with ε = 2, 6-25 % of them stayed more than 0.01 off its edges and the run ended 'uniform').
    // Checked once a window (a pass of F over the particles), at the positions the run ends with.
    const worst = s.maxSurfaceResidual();
    if (worst <= this.tolerance(s)) return 'uniform';
    this.worstResidual = worst;
    this.inARow = 0;
    return 'offSurface';
  }
}
