/**
 * Every collision-detection optimisation replays direct's collision sequence: for the same seed,
 * each core/spatial structure must produce exactly the impacts (time, balls or ball and wall) that
 * checking every pair produces, in 2D and 3D, monosized and polysized, dilute and dense. This is
 * the ball mill's version of test/core/spatial/harness.ts: a structure that missed a pair, or a
 * box move that skipped a pair it should have checked, changes the sequence.
 */
import { describe, expect, it } from 'vitest';
import { BallMill, ballmillParamsSchema, CDO_NAMES } from '../../../core/ballmill/index';

type Impact = [number, number, number];

function impacts(p: Record<string, unknown>, cdo: string, seed: number): { seq: Impact[]; sim: BallMill } {
  const sim = new BallMill(ballmillParamsSchema.parse({ ...p, cdo, output: { frameRate: 0 } }), seed);
  const seq: Impact[] = [];
  sim.onImpact = (t, a, b) => { seq.push([t, a, b]); };
  expect(sim.run(() => {}, () => false)).toBe('duration');
  return { seq, sim };
}

const CASES: [string, Record<string, unknown>][] = [
  ['2D monosized 20 %', { dim: 2, balls: { count: 40, radius: { law: 'fixed', value: 4 }, solidFraction: 0.2 }, vial: { width: 120, height: 120 }, duration: 0.4 }],
  ['2D polysized 60 %', { dim: 2, balls: { count: 40, radius: { law: 'uniform', min: 1, max: 10 }, solidFraction: 0.6 }, vial: { width: 120, height: 120 }, duration: 0.15 }],
  ['3D monosized 30 %, Hertz', { dim: 3, balls: { count: 40, radius: { law: 'fixed', value: 5 }, solidFraction: 0.3 }, vial: { width: 60, height: 80 }, restitution: { model: 'hertz' }, duration: 0.3 }],
  ['3D polysized, no gravity, elastic', { dim: 3, balls: { count: 40, radius: { law: 'uniform', min: 2, max: 8 } }, vial: { width: 80, height: 80, amplitude: 0, frequency: 0 }, gravity: 0, restitution: { model: 'constant', value: 1 }, duration: 0.5 }],
];

describe('ball mill CDOs', () => {
  it.each(CASES)('every CDO replays direct\'s collision sequence exactly (%s)', (_, p) => {
    const reference = impacts(p, 'direct', 11);
    expect(reference.seq.length).toBeGreaterThan(300);
    expect(reference.sim.ballCollisions).toBeGreaterThan(50);
    for (const cdo of CDO_NAMES.filter((c) => c !== 'direct')) {
      for (const skin of [0.2, 1]) {
        const got = impacts({ ...p, skin }, cdo, 11);
        const first = got.seq.findIndex((e, k) => k >= reference.seq.length || e[0] !== reference.seq[k][0] || e[1] !== reference.seq[k][1] || e[2] !== reference.seq[k][2]);
        expect({ cdo, skin, first, length: got.seq.length }).toEqual({ cdo, skin, first: -1, length: reference.seq.length });
        expect(got.sim.boxExits).toBeGreaterThan(0);
        // The point of a structure: fewer pair checks than direct's (far fewer with a thin skin).
        expect(got.sim.collisionChecks).toBeLessThan(reference.sim.collisionChecks / (skin < 0.5 ? 2 : 1));
        // The neighbour sets at the end are exactly what the structure's own queries report.
        const s = got.sim.structure!, nb = got.sim.neighbours!;
        let pairs = 0;
        for (let i = 0; i < got.sim.n; i++) {
          const queried: number[] = [];
          s.queryObject(i, (j) => { if (j !== i) queried.push(j); });
          const listed = Array.from(nb.ids.subarray(nb.stride * i, nb.stride * i + nb.count[i]));
          expect(listed.sort((u, v) => u - v)).toEqual(queried.sort((u, v) => u - v));
          pairs += listed.length;
        }
        expect(pairs).toBeGreaterThan(0);
      }
    }
  });
});
