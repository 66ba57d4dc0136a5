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

describe('ball mill CDOs: pairs that meet near the edges of their boxes', () => {
  // Two balls of radius 2 (skin 0.25: δ = 0.5 mm; δ_z = 1 mm under gravity) on a collision course
  // that touch when each has moved 98 % (diagonally) or some 95 % (vertically) of the way to its
  // box's far edge, before any box move: their boxes overlap from the start, just, so every
  // structure must have checked them then (vertically only with boxes taller by 2 (δ_z − δ) than
  // cubes of half edge r + δ, in the structure and in the hashed grid's shell and box tests).
  const r = 2, u = 1000, sigma = 2 * r, delta = 0.25 * r;
  const two = (gravity: number, a: number[], va: number[], b: number[], vb: number[]) => ({
    p: { dim: 3, gravity, skin: 0.25, balls: { count: 2, radius: { law: 'fixed', value: r } }, vial: { width: 100, height: 100, amplitude: 0, frequency: 0 }, duration: 0.004, timeStep: 0.005 },
    initial: { r: [r, r], x: [a[0], b[0]], y: [a[1], b[1]], z: [a[2], b[2]], vx: [va[0], vb[0]], vy: [va[1], vb[1]], vz: [va[2], vb[2]] },
  });
  // Diagonally, without gravity (boxes centred on the balls): 0.98 δ per axis each.
  const d = 2 * 0.98 * delta + sigma / Math.sqrt(3);
  // Vertically, under gravity: the falling ball at its box's top, the rising one at its bottom
  // (placeBox), each moving some 1.9 δ_z.
  const gap = 3.8 * 2 * delta;
  const CASES2: [string, ReturnType<typeof two>, number][] = [
    ['diagonal, no gravity', two(0, [40, 40, 40], [u, u, u], [40 + d, 40 + d, 40 + d], [-u, -u, -u]), (0.98 * delta) / u],
    ['vertical, gravity', two(9.81, [50, 50, 60], [0, 0, -u], [50, 50, 60 - sigma - gap], [0, 0, u]), gap / (2 * u)],
  ];
  it.each(CASES2)('every CDO predicts their collision (%s)', (_, c, expected) => {
    for (const cdo of CDO_NAMES) {
      const sim = new BallMill(ballmillParamsSchema.parse({ ...c.p, cdo, output: { frameRate: 0 } }), 1, c.initial);
      const seq: Impact[] = [];
      let exitsBefore = -1;
      sim.onImpact = (t, a, b) => { if (seq.length === 0) exitsBefore = sim.boxExits; seq.push([t, a, b]); };
      expect(sim.run(() => {}, () => false)).toBe('duration');
      expect({ cdo, first: seq[0]?.slice(1) }).toEqual({ cdo, first: [0, 1] });
      expect(seq[0][0]).toBeCloseTo(expected, 9);
      // Met in the boxes they had at the start.
      expect(exitsBefore).toBe(0);
    }
  });
});
