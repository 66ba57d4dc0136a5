import { describe, expect, it } from 'vitest';
import { Packer, voxelEngine, voxelParamsSchema, type VoxelParams } from '../../../core/voxel/index';
import type { ColumnTable, EngineResult } from '../../../core/common/engine';
import { drawMove, type Move } from '../../../core/voxel/mover';

/** The seed's packing rules seen from outside the packer: rebound probability, freezing, rising roof. */
const params = (extra: Record<string, unknown> = {}): VoxelParams =>
  voxelParamsSchema.parse({ box: { size: [4, 4, 4], resolution: 20 }, analysis: { enabled: false }, labelVolume: 'off', ...extra });

const run = (p: VoxelParams, seed: number) =>
  voxelEngine.run(p, { seed, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;

describe('voxel packer rules', () => {
  it('a higher rebound probability packs a full box denser (seed §2.2: upward moves let particles escape local minima)', () => {
    // 30 voxels a diameter: at much coarser resolutions the shells' discreteness dominates.
    for (const seed of [1, 2]) {
      const box = { box: { size: [4, 4, 4], resolution: 30 } };
      const low = run(params({ ...box, reboundProbability: 0 }), seed).metrics;
      const high = run(params({ ...box, reboundProbability: 0.3 }), seed).metrics;
      expect(high.particles as number).toBeGreaterThan(low.particles as number);
      expect(high.boxSolidFraction as number).toBeGreaterThan((low.boxSolidFraction as number) + 0.01);
      expect(high.bulkSolidFraction as number).toBeGreaterThan(low.bulkSolidFraction as number);
      // Upward moves are kept, so far more moves are needed to come to rest.
      expect(high.moveAttempts as number).toBeGreaterThan(2 * (low.moveAttempts as number));
    }
  });

  it('freezing (seed §3.5): only at every t_f steps, only particles back at their place of the last check, and frozen particles never move again', () => {
    // The last case freezes often (half the moves stay, no rebound) with an insertion just before every check.
    for (const [tf, extra] of [[20, {}], [80, {}], [2, { insertionInterval: 2, reboundProbability: 0, reboundRule: 'move' }]] as const) {
      const packer = new Packer(params({ freezingInterval: tf, ...extra, stop: { particles: 25 } }), 2);
      const checked = { x: new Int32Array(64), y: new Int32Array(64), z: new Int32Array(64), valid: new Uint8Array(64) };
      const frozenAt = new Int32Array(64).fill(-1);
      const fx = new Int32Array(64), fy = new Int32Array(64), fz = new Int32Array(64);
      let wasActive = new Set<number>();
      let frozen = 0;
      while (packer.step()) {
        const steps = packer.counters.steps;
        const active = new Set(packer.activeParticles());
        for (const i of wasActive) {
          if (active.has(i)) continue;
          // Frozen in this step: a check step, at the place of the previous check.
          expect(steps % tf).toBe(0);
          // Never before a check has seen it (inserted since the last one: it has no place of the last check).
          expect(checked.valid[i]).toBe(1);
          expect([packer.px[i], packer.py[i], packer.pz[i]]).toEqual([checked.x[i], checked.y[i], checked.z[i]]);
          frozenAt[i] = steps;
          fx[i] = packer.px[i]; fy[i] = packer.py[i]; fz[i] = packer.pz[i];
          frozen++;
        }
        for (let i = 0; i < packer.count; i++) {
          if (frozenAt[i] >= 0) expect([packer.px[i], packer.py[i], packer.pz[i]]).toEqual([fx[i], fy[i], fz[i]]);
          else if (steps % tf === 0) {
            checked.x[i] = packer.px[i]; checked.y[i] = packer.py[i]; checked.z[i] = packer.pz[i]; checked.valid[i] = 1;
          }
        }
        wasActive = active;
      }
      // With settling on, every particle ends frozen.
      expect(packer.activeCount).toBe(0);
      expect(frozen).toBe(packer.count);
      expect(packer.count).toBeGreaterThan(8);
    }
  });

  it("reboundRule 'move' drops the whole move whose upward component is not kept, where 'component' drops only that component", () => {
    const a: Move = { dx: 0, dy: 0, dz: 0, ax: 0, ay: 0, az: 0 }, b: Move = { ...a };
    const rebound = Math.floor(0.25 * 2 ** 32);
    const seen = { down: 0, up: 0, stays: 0 };
    for (let step = 0; step < 2000; step++) {
      drawMove(9, 3, step, rebound, false, 10, 20, 30, 0, 0, 0, 180, 180, 180, 10, a);
      const moves = drawMove(9, 3, step, rebound, true, 10, 20, 30, 0, 0, 0, 180, 180, 180, 10, b);
      // The same draw: the rules differ only where the upward component was dropped.
      expect(moves).toBe(a.dz !== 0);
      if (moves) expect(b).toEqual(a);
      seen[a.dz < 0 ? 'down' : a.dz > 0 ? 'up' : 'stays']++;
    }
    // Down half the time; up kept a quarter of the other half.
    expect(seen.down / 2000).toBeCloseTo(0.5, 1);
    expect(seen.up / (seen.up + seen.stays)).toBeCloseTo(0.25, 1);
    // In a packing: the particles that would slide sideways stay, so they come to rest sooner, looser.
    const box = { box: { size: [5, 5, 4], resolution: 20 }, freezingInterval: 50 };
    const component = run(params(box), 3).metrics;
    const move = run(params({ ...box, reboundRule: 'move' }), 3).metrics;
    expect(move.moveAttempts as number).toBeLessThan(0.8 * (component.moveAttempts as number));
    expect(move.bedSolidFraction as number).toBeLessThan(component.bedSolidFraction as number);
  });

  it('a longer freezing interval keeps particles moving longer', () => {
    const short = run(params({ freezingInterval: 20, stop: { particles: 30 } }), 4).metrics;
    const long = run(params({ freezingInterval: 200, stop: { particles: 30 } }), 4).metrics;
    expect(long.moveAttempts as number).toBeGreaterThan(3 * (short.moveAttempts as number));
  });

  it('the rising roof (seed §3.6) inserts just above the frozen bed, raised on failed insertions; without it particles enter at the top', () => {
    const heights = (risingRoof: boolean) => {
      const packer = new Packer(params({ optimisations: { risingRoof }, stop: { particles: 40 } }), 6);
      const z: number[] = [];
      let top = 0;
      let count = 0, roof = packer.roof;
      while (packer.step()) {
        if (packer.count > count) {
          count = packer.count;
          const i = count - 1, e = packer.extentOf(i);
          top = packer.nz - 1 - e;
          // Inserted this step and moved once since (one voxel at most in z).
          const expected = risingRoof ? Math.min(top, Math.max(e, roof + e + 1)) : top;
          expect(Math.abs(packer.pz[i] - expected)).toBeLessThanOrEqual(1);
          z.push(packer.pz[i]);
        }
        roof = packer.roof;
      }
      // Mean height fallen from insertion to rest.
      let fall = 0;
      for (let i = 0; i < z.length; i++) fall += (z[i] - packer.pz[i]) / z.length;
      return { z, fall, top };
    };
    const rising = heights(true), fixed = heights(false);
    expect(rising.z.length).toBe(40);
    // The first particles enter near the floor; the roof only rises.
    expect(rising.z[0]).toBeLessThan(rising.top / 3);
    // Particles entering lower fall less far to their place of rest.
    expect(rising.fall).toBeLessThan(fixed.fall / 3);
  });
  it('mixture: the next type is the one that brings the realised shares closest to those asked, so a tiny fraction gets no particle it is not due', () => {
    // A type asked at 1e-6 got the second particle of every run (it was the one "furthest below
    // its share", 1e-6 of one particle): 1 of 16 here, and in volume 0.55 % of 400 particles.
    const types = (basis: 'number' | 'volume', fractions: number[]) => voxelParamsSchema.parse({
      box: { size: [4, 4, 4], resolution: 10 },
      mixture: {
        basis,
        types: fractions.map((fraction, i) => ({
          shape: i === 0 ? { kind: 'sphere' } : { kind: 'cuboid', b: 0.5, c: 0.5 }, size: { law: 'fixed', value: i === 0 ? 1 : 1.6 }, fraction,
        })),
      },
      stop: { particles: 16, settle: false },
      finalSettling: false, analysis: { enabled: false }, labelVolume: 'off',
    });
    const counts = (p: VoxelParams) => {
      const type = (run(p, 3).artifacts[0] as ColumnTable).columns.type;
      const n = [0, 0];
      for (let i = 0; i < type.length; i++) n[type[i]]++;
      return n;
    };
    expect(counts(types('number', [1, 1e-6]))).toEqual([16, 0]);
    expect(counts(types('volume', [1, 1e-6]))).toEqual([16, 0]);
    // Shares a packing can hold are met particle for particle: 3 : 1 in number is 12 and 4 of 16.
    expect(counts(types('number', [3, 1]))).toEqual([12, 4]);
  });
});
