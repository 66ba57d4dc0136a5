/**
 * The ball mill's physics against hand-worked results and invariants, checked by code that does
 * not share the engine's shortcuts: head-on and glancing two-ball impacts, a ball on the moving
 * floor (its contact found here by dense sampling and bisection), Hertz restitution worked by hand,
 * the energy balance of a shaken run, energy conservation at restitution 1 over 10^5 impacts, no overlap at any event (brute force over all pairs and walls),
 * and an inelastic collapse that ends.
 */
import { describe, expect, it } from 'vitest';
import { BallMill, ballmillEngine, ballmillMetrics, ballmillParamsSchema, ballmillSeries, type BallmillParams } from '../../../core/ballmill/index';
import type { ColumnTable, EngineResult } from '../../../core/common/engine';
import type { InitialBalls } from '../../../core/ballmill/simulation';
import { frameCount, stepCount } from '../../../core/ballmill/params';

const params = (p: Record<string, unknown>): BallmillParams => ballmillParamsSchema.parse({
  restitution: { model: 'constant', value: 1 }, gravity: 0, vial: { width: 100, height: 100, amplitude: 0, frequency: 0 },
  output: { frameRate: 0 }, minimumRebound: 0, ...p,
});

const balls = (b: Partial<Record<keyof InitialBalls, number[]>>, n: number): InitialBalls => {
  const z = () => new Array<number>(n).fill(0);
  return { r: b.r ?? z(), x: b.x ?? z(), y: b.y ?? z(), z: b.z ?? z(), vx: b.vx ?? z(), vy: b.vy ?? z(), vz: b.vz ?? z() };
};

/** Runs until the first impact; returns its time and the parties. */
function firstImpact(sim: BallMill): { t: number; a: number; b: number } {
  let hit: { t: number; a: number; b: number } | null = null;
  const stop = { now: false };
  sim.onImpact = (t, a, b) => { if (!hit) { hit = { t, a, b }; stop.now = true; } };
  sim.run(() => {}, () => stop.now);
  if (!hit) throw new Error('no impact');
  return hit;
}

describe('ball mill physics', () => {
  it.each(['direct', 'spatialTree'] as const)('head-on impact of unequal balls (%s): time and Eq. 3 velocities as worked by hand', (cdo) => {
    // Ball 0 (r = 4, mass 8m) at x = 20 moving +x at 300 mm/s; ball 1 (r = 2, mass m) at x = 50
    // moving -x at 100 mm/s, both at z = 50. Contact when the gap 30 - 6 = 24 mm closes at
    // 400 mm/s: t = 0.06 s. With ε = 0.5, Eq. 3: A = 1.5·8/9 = 4/3;
    // v0' = (A - ε)·300 + (1 - A + ε)·(-100) = (5/6)·300 + (1/6)·(-100) = 233.33…;
    // v1' = A·300 + (1 - A)·(-100) = 400 + 33.33… = 433.33….
    const p = params({ cdo, balls: { count: 2, radius: { law: 'fixed', value: 4 } }, restitution: { model: 'constant', value: 0.5 }, duration: 0.07 });
    const sim = new BallMill(p, 1, balls({ r: [4, 2], x: [20, 50], z: [50, 50], vx: [300, -100] }, 2));
    const hit = firstImpact(sim);
    expect(hit.a).toBe(0);
    expect(hit.b).toBe(1);
    expect(hit.t).toBeCloseTo(0.06, 14);
    expect(sim.trajectories[8 * 0 + 4]).toBeCloseTo(700 / 3, 10);
    expect(sim.trajectories[8 * 1 + 4]).toBeCloseTo(1300 / 3, 10);
    expect(sim.trajectories[8 * 0 + 6]).toBe(0);
    // Momentum kept: 8·300 - 100 = 2300 = 8·233.33 + 433.33.
    expect(8 * sim.trajectories[8 * 0 + 4] + sim.trajectories[8 * 1 + 4]).toBeCloseTo(2300, 9);
  });

  it.each(['direct', 'hashedGrid'] as const)('glancing impact of equal balls (%s): the struck ball leaves along the line of centres', (cdo) => {
    // Ball 0 (r = 5) at (20, 50) moving +x at 200 mm/s; ball 1 (r = 5) at rest at (60, 56). Contact
    // when the centres are 10 apart: x-gap sqrt(100 - 36) = 8, so at t = (40 - 8)/200 = 0.16 s,
    // normal n = (8, 6)/10. Elastic, equal masses: ball 1 takes the normal part (200·0.8 along n),
    // ball 0 keeps the tangential part.
    const p = params({ cdo, balls: { count: 2, radius: { law: 'fixed', value: 5 } }, duration: 0.2 });
    const sim = new BallMill(p, 1, balls({ r: [5, 5], x: [20, 60], z: [50, 56], vx: [200, 0] }, 2));
    const hit = firstImpact(sim);
    expect(hit.t).toBeCloseTo(0.16, 14);
    expect(sim.trajectories[8 * 1 + 4]).toBeCloseTo(160 * 0.8, 10);
    expect(sim.trajectories[8 * 1 + 6]).toBeCloseTo(160 * 0.6, 10);
    expect(sim.trajectories[8 * 0 + 4]).toBeCloseTo(200 - 128, 10);
    expect(sim.trajectories[8 * 0 + 6]).toBeCloseTo(-96, 10);
    // At right angles, energy kept.
    expect(sim.trajectories[8 * 0 + 4] * sim.trajectories[8 * 1 + 4] + sim.trajectories[8 * 0 + 6] * sim.trajectories[8 * 1 + 6]).toBeCloseTo(0, 9);
  });

  it('a ball on the oscillating floor: contact time by an independent search, rebound with the wall velocity', () => {
    // Floor at f(t) = A sin(ωt), A = 4 mm, f = 20 Hz; ball r = 3 falling from z = 20 at 150 mm/s
    // under gravity. Gap h(t) = z(t) - r - f(t).
    const A = 4, w = 2 * Math.PI * 20, g = 9810, e = 0.7;
    const p = params({
      balls: { count: 1, radius: { law: 'fixed', value: 3 } }, gravity: 9.81, restitution: { model: 'constant', value: e },
      vial: { width: 100, height: 100, amplitude: A, frequency: 20 }, duration: 0.5,
    });
    const sim = new BallMill(p, 1, balls({ r: [3], x: [50], z: [20], vz: [-150] }, 1));
    const hit = firstImpact(sim);
    expect(hit.b).toBe(-1); // wall 0, the floor
    const h = (t: number) => 20 - 150 * t - 0.5 * g * t * t - 3 - A * Math.sin(w * t);
    // First sign change on a 1 µs grid, then bisection.
    let lo = 0, hi = 0;
    for (let t = 0; t < 0.5; t += 1e-6) if (h(t + 1e-6) <= 0) { lo = t; hi = t + 1e-6; break; }
    for (let k = 0; k < 100; k++) { const m = (lo + hi) / 2; if (h(m) > 0) lo = m; else hi = m; }
    expect(Math.abs(hit.t - lo)).toBeLessThan(1e-12);
    // Rebound: v' = u + ε (u - v) with u = f'(t), v = the ball's velocity at t.
    const u = A * w * Math.cos(w * lo), v = -150 - g * lo;
    expect(sim.trajectories[8 * 0 + 6]).toBeCloseTo(u + e * (u - v), 6);
  });

  it('Hertz restitution: rebounds as worked by hand, less elastic for faster impacts and smaller balls, held at its minimum', () => {
    // Steel on steel (E = 200 GPa, ν = 0.3, A = 1 µs), density 7800, no gravity, still vial. By hand
    // in SI: 1/E* = 2(1 − ν²)/E, E* = 1.0989e11 Pa; a ball of r = 5 mm has m = 7800·(4/3)π(0.005)³
    // = 4.084e-3 kg. On the floor (R = r, m): α = (4/3)E*√R/m = 2.5368e12, x = A α^(2/5) v^(1/5)
    // = 0.091562 at v = 1 m/s, ε = 1 − 1.15344x + 0.79826x² = 0.900081; at 4 m/s x = 0.120817,
    // ε = 0.872297; r = 2.5 mm at 1 m/s: α = 1.4350e13, ε = 0.815546. Two r = 5 mm balls head-on
    // at 1 m/s relative (R = 2.5 mm, m/2): α = 3.5876e12, ε = 0.887515. A = 1 ms puts x beyond
    // the series' minimum: ε = 1 − C1²/(4 C2) = 0.583336.
    const hertz = (dissipation = 1) => ({ model: 'hertz', dissipation, youngModulus: 200, poissonRatio: 0.3, wallYoungModulus: 200, wallPoissonRatio: 0.3 });
    const floor = (r: number, v: number, dissipation?: number) => {
      const p = params({ dim: 3, balls: { count: 1, radius: { law: 'fixed', value: r }, density: 7800 }, restitution: hertz(dissipation), duration: 0.1 });
      const sim = new BallMill(p, 1, balls({ r: [r], x: [50], y: [50], z: [20], vz: [-v] }, 1));
      const hit = firstImpact(sim);
      expect([hit.b, hit.t]).toEqual([-1, (20 - r) / v]);
      return sim.trajectories[6] / v;
    };
    expect(floor(5, 1000)).toBeCloseTo(0.9010809388, 9);
    expect(floor(5, 4000)).toBeCloseTo(0.8722969463, 9);
    expect(floor(2.5, 1000)).toBeCloseTo(0.8155464858, 9);
    expect(floor(5, 1000, 1000)).toBeCloseTo(0.5833363085, 9);
    const p = params({ dim: 3, balls: { count: 2, radius: { law: 'fixed', value: 5 }, density: 7800 }, restitution: hertz(), duration: 0.1 });
    const sim = new BallMill(p, 1, balls({ r: [5, 5], x: [30, 60], y: [50, 50], z: [50, 50], vx: [500, -500] }, 2));
    expect(firstImpact(sim)).toEqual({ t: 0.02, a: 0, b: 1 });
    expect((sim.trajectories[8 * 1 + 4] - sim.trajectories[8 * 0 + 4]) / 1000).toBeCloseTo(0.8875149466, 9);
  });

  it('energy balance: finalEnergy − initialEnergy = wallWork − dissipatedEnergy + guardEnergy to round-off (shaken vial, restitution floor at work)', () => {
    for (const [dim, restitution] of [[3, { model: 'hertz', dissipation: 5 }], [2, { model: 'constant', value: 0.5 }]] as const) {
      const p = ballmillParamsSchema.parse({
        dim, cdo: 'hashedGrid', balls: { count: 60, radius: { law: 'uniform', min: 2, max: 5 }, initialSpeed: 50 }, vial: { width: 80, height: 80, amplitude: 3, frequency: 20 },
        restitution, minimumRebound: 30, duration: 0.3, output: { frameRate: 0 },
      });
      const sim = new BallMill(p, 4);
      sim.run(() => {}, () => false);
      const m = ballmillMetrics(sim, 1) as Record<string, number>;
      // Every term is at work: the vial gives energy, impacts take it, the floor on slow rebounds adds some.
      expect([m.wallWork, m.dissipatedEnergy, m.guardEnergy].every((e) => e > 0), JSON.stringify(m)).toBe(true);
      const scale = m.initialEnergy + m.wallWork + m.dissipatedEnergy;
      expect(Math.abs(m.finalEnergy - m.initialEnergy - (m.wallWork - m.dissipatedEnergy + m.guardEnergy)) / scale).toBeLessThan(1e-12);
    }
  });

  it('the milling intensity: impacts and dissipated power per simulated second, and per kilogram of balls', () => {
    // A researcher comparing mills had the totals only (collisions, dissipatedEnergy), which grow
    // with the duration, and the balls' mass to work out from their radii and density.
    const p = ballmillParamsSchema.parse({
      dim: 3, cdo: 'hashedGrid', balls: { count: 60, radius: { law: 'uniform', min: 2, max: 5 }, density: 7800, initialSpeed: 50 },
      vial: { width: 80, height: 80, amplitude: 3, frequency: 20 }, duration: 0.3, output: { frameRate: 0 },
    });
    const result = ballmillEngine.run(p, { seed: 4, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    const m = result.metrics as Record<string, number>;
    const table = result.artifacts.find((a) => a.kind === 'table' && a.name === 'particles') as ColumnTable;
    const kg = Array.from(table.columns.r as Float64Array).reduce((s, r) => s + 7800 * (4 / 3) * Math.PI * (r * 1e-3) ** 3, 0);
    expect(m.simulatedSeconds).toBe(0.3);
    expect(m.impactRate).toBeCloseTo(m.collisions / 0.3, 9);
    expect(m.dissipatedPower).toBeGreaterThan(0);
    expect(m.dissipatedPower).toBeCloseTo(m.dissipatedEnergy / 0.3, 12);
    expect(m.specificPower / (m.dissipatedPower / kg)).toBeCloseTo(1, 12);
    expect([ballmillEngine.metrics?.impactRate.unit, ballmillEngine.metrics?.dissipatedPower.unit, ballmillEngine.metrics?.specificPower.unit]).toEqual(['1/s', 'W', 'W/kg']);
  });

  it('restitution 1 in a still vial with gravity keeps the energy to round-off over 10^5 impacts', () => {
    const p = ballmillParamsSchema.parse({
      dim: 2, cdo: 'hashedGrid', balls: { count: 60, radius: { law: 'uniform', min: 2, max: 6 }, initialSpeed: 800 },
      vial: { width: 200, height: 200, amplitude: 0, frequency: 0 }, restitution: { model: 'constant', value: 1 },
      duration: 100, output: { frameRate: 0 },
    });
    const sim = new BallMill(p, 3);
    const e0 = sim.energyAt(0);
    let impacts = 0;
    const stop = { now: false };
    sim.onImpact = () => { if (++impacts >= 1e5) stop.now = true; };
    sim.run(() => {}, () => stop.now);
    expect(impacts).toBeGreaterThanOrEqual(1e5);
    expect(sim.ballCollisions).toBeGreaterThan(2e4);
    expect(Math.abs(sim.energyAt(sim.now) - e0) / e0).toBeLessThan(1e-11);
    expect(sim.dissipated).toBe(0);
  });

  it.each([
    ['2D shaken, polysized, spatial tree', { dim: 2, cdo: 'spatialTree', balls: { count: 80, radius: { law: 'uniform', min: 2, max: 12 }, solidFraction: 0.45 } }],
    ['3D shaken, sweep and prune', { dim: 3, cdo: 'sweepAndPrune', balls: { count: 60, radius: { law: 'uniform', min: 3, max: 6 } }, vial: { width: 80, height: 80, amplitude: 4, frequency: 25 }, duration: 0.5 }],
    ['2D dense, direct', { dim: 2, cdo: 'direct', balls: { count: 60, radius: { law: 'fixed', value: 5 }, solidFraction: 0.65 }, restitution: { model: 'hertz' } }],
  ])('no overlap beyond round-off at any event (%s): brute force over every pair and wall', (_, extra) => {
    const p = ballmillParamsSchema.parse({ duration: 0.15, output: { frameRate: 0 }, ...extra });
    const sim = new BallMill(p, 7);
    const n = sim.n, pos = new Float64Array(3 * n), V = sim.vial, v = p.vial;
    let worst = 0, checked = 0;
    sim.onImpact = (t) => {
      for (let i = 0; i < n; i++) sim.positionAt(i, t, pos, i);
      const vert = p.dim === 2 ? 1 : 2, f = V.floorAt(t);
      for (let i = 0; i < n; i++) {
        const r = sim.r[i], x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + vert];
        worst = Math.max(worst, f + r - z, z + r - (f + v.height));
        if (p.dim === 2) worst = Math.max(worst, r - x, x + r - v.width);
        else worst = Math.max(worst, Math.hypot(x - v.width / 2, y - v.width / 2) + r - v.width / 2);
        for (let j = i + 1; j < n; j++) {
          const d = Math.hypot(x - pos[3 * j], pos[3 * i + 1] - pos[3 * j + 1], pos[3 * i + 2] - pos[3 * j + 2]);
          worst = Math.max(worst, r + sim.r[j] - d);
        }
      }
      checked++;
    };
    sim.run(() => {}, () => false);
    expect(checked).toBeGreaterThan(1000);
    expect(worst).toBeLessThan(1e-9);
  });

  it('an inelastic collapse ends: with the restitution floor the run finishes; without it, it stops as stalled or at its event budget', () => {
    const base = {
      dim: 2, cdo: 'hashedGrid', balls: { count: 80, radius: { law: 'fixed', value: 6 }, solidFraction: 0.5, initialSpeed: 500 },
      vial: { width: 150, height: 150, amplitude: 0, frequency: 0 }, restitution: { model: 'constant', value: 0.2 }, output: { frameRate: 0 },
    };
    const guarded = new BallMill(ballmillParamsSchema.parse({ ...base, duration: 0.5, minimumRebound: 10 }), 2);
    expect(guarded.run(() => {}, () => false)).toBe('duration');
    expect(guarded.restitution.guarded).toBeGreaterThan(0);
    expect(guarded.guardEnergy).toBeGreaterThan(0);
    // Without the floor, touching balls collapse at once (infinitely many impacts before t = 1e-10 s).
    const unguarded = new BallMill(ballmillParamsSchema.parse({ ...base, duration: 0.5, minimumRebound: 0 }), 2);
    expect(unguarded.run(() => {}, () => false)).toBe('stalled');
    expect(unguarded.now).toBeLessThan(1e-6);
  });

  it('a run that stops before its duration says so in its log, with the simulated time reached and the parameter to change', () => {
    const base = {
      dim: 2, cdo: 'hashedGrid', balls: { count: 80, radius: { law: 'fixed', value: 6 }, solidFraction: 0.5, initialSpeed: 500 },
      vial: { width: 150, height: 150, amplitude: 0, frequency: 0 }, restitution: { model: 'constant', value: 0.2 }, duration: 0.5, output: { frameRate: 0 },
    };
    const logOf = (p: Record<string, unknown>) => {
      const lines: string[] = [];
      const res = ballmillEngine.run(ballmillParamsSchema.parse({ ...base, ...p }), { seed: 2, threads: 1, progress() {}, cancelled: () => false, log: (l) => lines.push(l) }) as EngineResult;
      return { lines, metrics: res.metrics };
    };
    const stalled = logOf({ minimumRebound: 0 });
    expect(stalled.metrics.stopReason).toBe('stalled');
    expect(stalled.lines).toEqual([expect.stringMatching(/^stopped at [\d.e-]+ s of 0\.5 s simulated: stalled \(.*collapse.*minimumRebound \(0 mm\/s now\)/)]);
    const budget = logOf({ minimumRebound: 10, maxEvents: 5000 });
    expect(budget.metrics.stopReason).toBe('maxEvents');
    expect(budget.lines).toEqual([expect.stringMatching(/^stopped at [\d.e-]+ s of 0\.5 s simulated: the event budget maxEvents = 5000 was used up; raise maxEvents/)]);
    expect(logOf({ minimumRebound: 10, duration: 0.05 }).lines).toEqual([]);
  });

  it("the 'energy' series ends where the run ends, at finalEnergy: a duration between two time steps, a cancel", () => {
    const p = params({ dim: 2, gravity: 9.81, balls: { count: 20, radius: { law: 'fixed', value: 3 }, initialSpeed: 300 }, restitution: { model: 'constant', value: 0.8 }, duration: 0.0123, timeStep: 0.005 });
    const cases: [string, () => boolean][] = [['duration', () => false], ['cancelled', () => true]];
    for (const [reason, cancelled] of cases) {
      const sim = new BallMill(p, 1);
      expect(sim.run(() => {}, cancelled)).toBe(reason);
      const m = ballmillMetrics(sim, 1), energy = ballmillSeries(sim).find((s) => s.name === 'energy')!;
      expect([energy.x.at(-1), energy.y.at(-1)], reason).toEqual([m.simulatedSeconds, m.finalEnergy]);
      expect(energy.x[0]).toBe(0);
    }
  });

  it('the last time step, and its frame, is taken at the duration even where k·Δt rounds above it', () => {
    // 0.7 s at Δt = 5 ms: step 140 fell at 140 × 0.005 = 0.7000000000000001 > 0.7 and was never
    // taken: 35 frames of the 36 declared (the last at 0.68 s), and 139 updates a ball, not 141.
    for (const duration of [0.7, 1.4, 0.4]) {
      const p = params({ dim: 2, balls: { count: 4, radius: { law: 'fixed', value: 3 }, initialSpeed: 100 }, duration, timeStep: 0.005, output: { frameRate: 50 } });
      const sim = new BallMill(p, 1);
      sim.run(() => {}, () => false);
      expect(sim.frames.count, `${duration} s`).toBe(frameCount(p));
      expect(sim.frames.time[sim.frames.count - 1]).toBe(duration);
      expect(sim.trajectoryUpdates).toBe(4 * (stepCount(p) + 1));
    }
  });

  it('the trajectories end with the final state: at the duration between two frames, and where a stopped run stopped', () => {
    // 1 s at 30 frames/s (Δt = 5 ms): frames every 7 steps, 0.035 s apart; the last step's frame is at
    // 0.980 s and playing the run back ended there, short of the final table at 1 s.
    const run = (duration: number, stopAfter: number) => {
      const p = params({ dim: 2, balls: { count: 6, radius: { law: 'fixed', value: 3 }, initialSpeed: 300 }, duration, timeStep: 0.005, output: { frameRate: 30 } });
      let polls = 0;
      const result = ballmillEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {}, stopRequested: () => ++polls > stopAfter }) as EngineResult;
      const [final, traj] = result.artifacts as ColumnTable[];
      const meta = traj.meta!, n = meta.frameRows as number, frames = meta.frames as number, times = meta.frameTimes as number[];
      expect(frames).toBe(times.length);
      expect(traj.columns.x.length).toBe(frames * n);
      // The last frame is the final table (in the frames' float32).
      for (const c of ['x', 'y', 'speed', 'impacts']) {
        expect(Array.from(traj.columns[c].subarray((frames - 1) * n)), c).toEqual(Array.from(Float32Array.from(final.columns[c])));
      }
      return { p, frames, times, end: final.meta!.time as number };
    };
    const whole = run(1, Infinity);
    expect(whole.times.at(-2)).toBeCloseTo(0.98, 12);
    expect(whole.times.at(-1)).toBe(1);
    expect(whole.end).toBe(1);
    // frameCount (memory estimate, row limit) counts this frame, and no more.
    expect(whole.frames).toBe(frameCount(whole.p));
    // A duration that is a frame's time gets no second frame there.
    const onFrame = run(0.7, Infinity);
    expect(onFrame.times.at(-2)).toBeCloseTo(0.665, 12);
    expect(onFrame.times.at(-1)).toBe(0.7);
    expect(onFrame.frames).toBe(frameCount(onFrame.p));
    // Stopped after 10 steps' polls, between two frames: its last frame is where it stopped.
    const stopped = run(1, 10);
    expect(stopped.end).toBeLessThan(1);
    expect(stopped.times.at(-1)).toBe(stopped.end);
    expect(stopped.times.at(-2)).toBeLessThan(stopped.end);
  });

  it('a frame rate that is not a whole number of time steps is named in the log with the rate taken', () => {
    const logOf = (frameRate: number) => {
      const lines: string[] = [];
      const p = params({ dim: 2, balls: { count: 4, radius: { law: 'fixed', value: 3 } }, duration: 0.1, timeStep: 0.005, output: { frameRate } });
      ballmillEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log: (l) => lines.push(l) });
      return lines;
    };
    // 30 frames/s at Δt = 5 ms: a frame every round(6.67) = 7 steps, 35 ms apart, 28.57 frames/s.
    expect(logOf(30)).toEqual(['output.frameRate: 30 frames/s asked, 28.57 taken: frames are taken at time steps, here every 7 steps of 0.005 s (0.035 s apart)']);
    expect(logOf(50)).toEqual([]);
    expect(logOf(0)).toEqual([]);
  });

  it('a cancel is seen within some 16,000 impacts and box moves, not only at the next time step', () => {
    // A time step of 20,000 balls took up to 1.7 s, and the flag was read only between steps.
    const p = ballmillParamsSchema.parse({
      dim: 2, cdo: 'hashedGrid', balls: { count: 300, radius: { law: 'fixed', value: 2 }, initialSpeed: 2000 },
      vial: { width: 150, height: 150 }, duration: 0.5, timeStep: 0.5, output: { frameRate: 2 },
    });
    const sim = new BallMill(p, 1);
    let asked = 0;
    expect(sim.run(() => {}, () => (asked++, false))).toBe('duration');
    const moves = sim.ballCollisions + sim.wallCollisions + sim.boxExits;
    expect(moves).toBeGreaterThan(80_000);
    expect(asked).toBeGreaterThan(moves / 32_768);
    // Cancelled at the third look: within the first of the run's two time steps.
    const cancelled = new BallMill(p, 1);
    let looks = 0;
    expect(cancelled.run(() => {}, () => ++looks >= 3)).toBe('cancelled');
    expect(cancelled.now).toBeLessThan(0.5);
  });

  it('every impact is in the energy histogram or counted beside it, below 1e-12 J or above 1e3 J', () => {
    // Light slow balls hit with ~1e-13 J, heavy fast ones with ~1e3 J: both ends of the bins.
    for (const [density, radius, speed, width, side] of [[1, 1, 10, 20, 'impactsBelowHistogram'], [1e5, 10, 1e5, 200, 'impactsAboveHistogram']] as const) {
      const vial = { width, height: width, amplitude: 0, frequency: 0 };
      const sim = new BallMill(params({ dim: 3, duration: 1, balls: { count: 30, density, radius: { law: 'fixed', value: radius }, initialSpeed: speed }, vial, maxEvents: 20_000 }), 5);
      sim.run(() => {}, () => false);
      const m = ballmillMetrics(sim, 1);
      const inBins = ballmillSeries(sim).find((s) => s.name === 'impact energy')!.y.reduce((a, b) => a + b, 0);
      expect(m[side] as number, side).toBeGreaterThan(0);
      expect(inBins + (m.impactsBelowHistogram as number) + (m.impactsAboveHistogram as number)).toBe(m.collisions);
    }
  });
});
