import { describe, expect, it } from 'vitest';
import { voxelEngine, voxelParamsSchema, voxeliseShapeVoxels, type VoxelParams } from '../../../core/voxel/index';
import { rotateRange, rotatedReach } from '../../../core/voxel/rotation';
import type { ColumnTable, EngineResult, LabelVolume } from '../../../core/common/engine';
import { rebuildLabels } from './rebuild';

/**
 * Elongated particles (rods, fibres, platelets) held in an orientation: their insertion footprint
 * follows their real width across x and y, not their bounding sphere.
 */

/** Upright rods of 8 x 80 voxels (cylinders of diameter 8, length 10 diameters) that never rotate. */
const rods = (side: number, extra: Record<string, unknown> = {}): VoxelParams => voxelParamsSchema.parse({
  box: { size: [side, side, 80], resolution: 1, top: 'open' },
  mixture: { types: [{ shape: { kind: 'cylinder', length: 10 }, size: { law: 'fixed', value: 8 }, orientation: 'aligned', maxRotation: [0, 0, 0] }] },
  // The whole shell: with the reduced one, two upright rods' flat chessboard walls in one plane of
  // voxels interleave (an overlap of the shell reduction, not of insertion; see the report of voxel22).
  optimisations: { shellReduction: false },
  // At rest where they land (no sliding on the floor): the run takes a few hundred steps.
  reboundProbability: 0, reboundRule: 'move', freezingInterval: 20,
  finalSettling: false,
  analysis: { enabled: false },
  ...extra,
});

const run = (p: VoxelParams) => voxelEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;

/** Voxels claimed twice, counted by the tests' own rebuild of the particle table (rebuild.ts). */
function independentOverlap(p: VoxelParams, table: ColumnTable, labels: LabelVolume): number {
  const rebuilt = rebuildLabels(p, table.columns, labels.dims);
  // The engine's labels are the rebuilt ones (a tie may round otherwise: a few voxels at most).
  let mismatched = 0;
  for (let k = 0; k < rebuilt.labels.length; k++) if (rebuilt.labels[k] !== labels.labels[k]) mismatched++;
  expect(mismatched).toBeLessThanOrEqual(rebuilt.written * 1e-4 + 2);
  return rebuilt.overlap;
}

describe('elongated particles held upright', () => {
  it('fill an open box: the insertion footprint is their width across, not their bounding sphere', () => {
    // Each frozen rod kept a square of 83 columns (its bounding radius 41 each way) clear of new
    // particles, so 3 rods covered a 128² floor and the box was 'full' at 3 particles.
    const p = rods(128, { stop: { particles: 40 } });
    const r = run(p);
    expect(r.metrics.stopReason).toBe('particles');
    expect(r.metrics.particles).toBe(40);
    expect(independentOverlap(p, r.artifacts[0] as ColumnTable, r.artifacts[1] as LabelVolume)).toBe(0);
    expect(r.metrics.overlapFraction).toBe(0);
  });

  it('the packer\'s footprint bounds every voxel of every rotation within maxRotation', () => {
    const cases: [Record<string, unknown>, number, [number, number, number]][] = [
      [{ kind: 'cylinder', length: 10 }, 8, [0, 0, 0]],
      [{ kind: 'cylinder', length: 10 }, 8, [20, 20, 0]],
      [{ kind: 'cylinder', length: 4 }, 9, [10, 30, 180]],
      [{ kind: 'hexagonalPlate', thickness: 0.2 }, 40, [0, 0, 180]],
      [{ kind: 'hexagonalPlate', thickness: 0.2 }, 40, [90, 15, 45]],
      [{ kind: 'cuboid', b: 0.3, c: 0.1 }, 30, [5, 5, 5]],
    ];
    const angles = (m: number) => [...new Set([-m, -m / 2, -1, 0, 1, m / 2, m].map((a) => ((Math.round(a) % 360) + 360) % 360))];
    for (const [shape, size, maxRotation] of cases) {
      const type = voxelParamsSchema.parse({ mixture: { types: [{ shape, size: { law: 'fixed', value: size }, orientation: 'aligned', maxRotation }] } }).mixture.types[0];
      const v = voxeliseShapeVoxels(type.shape, size), n = v.solid.length / 3;
      const half = [0, 1, 2].map((a) => Math.max(-v.min[a], v.min[a] + v.dims[a] - 1));
      const out = new Int32Array(v.solid.length);
      let footprintShort = 0;
      for (const ax of angles(maxRotation[0])) for (const ay of angles(maxRotation[1])) for (const az of angles(maxRotation[2])) {
        rotateRange(v.solid, out, 0, n, ax, ay, az, true, true);
        let mx = 0, my = 0;
        for (let k = 0; k < out.length; k += 3) { mx = Math.max(mx, Math.abs(out[k])); my = Math.max(my, Math.abs(out[k + 1])); }
        if (mx > rotatedReach(half[0], half[1], half[2], ax, ay, az, 0) || my > rotatedReach(half[0], half[1], half[2], ax, ay, az, 1)) footprintShort++;
      }
      expect(footprintShort).toBe(0);
    }
  });
});
