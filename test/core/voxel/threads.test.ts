import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runnableEntry } from '../../../main/services/pool';
import { finalise, pack, voxelParamsSchema } from '../../../core/voxel/index';
import type { EngineContext } from '../../../core/common/engine';
import { Packer } from '../../../core/voxel/packer';
import type { MoveBoard } from '../../../core/voxel/mover';

/** Helper threads as the worker runtime starts them: the real worker entry, told it is a helper. */
const entry = await runnableEntry(fileURLToPath(new URL('../../../main/workers/engine.ts', import.meta.url)));
const ctx = (threads: number): EngineContext => ({
  seed: 7, threads, progress() {}, cancelled: () => false, log() {},
  startHelpers(data) {
    const workers = data.map((d) => new Worker(entry, { workerData: { helper: true, engineId: 'voxel', data: d } }));
    return { stop: () => { for (const w of workers) void w.terminate(); } };
  },
});

/** Particle state and matrix of a finished packer, for comparison. */
function state(p: Packer) {
  const n = p.count;
  return {
    n,
    counters: { ...p.counters },
    arrays: (['px', 'py', 'pz', 'ax', 'ay', 'az'] as const).map((k) => Array.from(p[k].subarray(0, n))),
    occupied: p.matrix.countOccupied(),
  };
}

describe('voxel packer on several threads', () => {
  it('two threads give the packing of one, bit for bit (so it is deterministic and never holds an overlap a serial run could not)', () => {
    // 128 x 128 voxels: 4 x 4 cells, four colours, enough active particles for phases on both threads.
    const params = voxelParamsSchema.parse({ box: { size: [8, 8, 4], resolution: 16 }, stop: { particles: 150 }, analysis: { enabled: false }, labelVolume: 'off' });
    const one = pack(params, ctx(1)).packer;
    const two = pack(params, ctx(2)).packer;
    expect(one.threads).toBe(1);
    expect(two.threads).toBe(2);
    expect(two.parallelPhases).toBeGreaterThan(100);
    expect(two.kernelParticles).toBe(150);
    expect(state(two)).toEqual(state(one));
    const m1 = one.matrix, m2 = two.matrix;
    for (let z = 0; z < m1.nz; z++) for (let y = 0; y < m1.ny; y++) for (let x = 0; x < m1.nx; x++) {
      if (m1.test(x, y, z) !== m2.test(x, y, z)) throw new Error(`voxel ${x} ${y} ${z} differs`);
    }
    // The exact finalisation of the two-thread packing: overlaps only where rotated hollow shells
    // meet (the seed's < 0.1 % at 40 voxels; here 16 voxels a diameter).
    const f = finalise(two, true);
    expect(f.overlapVoxels / f.writtenVoxels).toBeLessThan(0.01);
  });

  it("with reboundRule 'move' too (the helpers read the rule from the board)", () => {
    const params = voxelParamsSchema.parse({ box: { size: [8, 8, 4], resolution: 16 }, reboundRule: 'move', stop: { particles: 100 }, analysis: { enabled: false }, labelVolume: 'off' });
    const one = pack(params, ctx(1)).packer;
    const two = pack(params, ctx(2)).packer;
    expect(two.parallelPhases).toBeGreaterThan(50);
    expect(state(two)).toEqual(state(one));
    // Not the packing of the default rule.
    const component = pack({ ...params, reboundRule: 'component' }, ctx(1)).packer;
    expect(state(component).counters.moveAttempts).not.toBe(state(one).counters.moveAttempts);
  });

  it('phases of several time steps between insertions (an insertion every 10 steps) give the packing of one thread', () => {
    const params = voxelParamsSchema.parse({ box: { size: [9, 9, 4], resolution: 16 }, insertionInterval: 10, stop: { particles: 60 }, analysis: { enabled: false }, labelVolume: 'off' });
    const one = pack(params, ctx(1)).packer;
    const two = pack(params, ctx(2)).packer;
    // 144 x 144 voxels keep 4 x 4 cells for phases of 3 steps (mover.ts phaseSteps).
    expect(two.phaseSteps).toBe(3);
    expect(two.parallelPhases).toBeGreaterThan(50);
    expect(state(two)).toEqual(state(one));
    const f = finalise(two, true);
    expect(f.overlapVoxels / f.writtenVoxels).toBeLessThan(0.01);
  });
});

describe('MoveBoard.run', () => {
  it('refuses a phase longer than its cells allow before it touches a slot', () => {
    const params = voxelParamsSchema.parse({ box: { size: [8, 8, 4], resolution: 16 }, analysis: { enabled: false }, labelVolume: 'off' });
    const board = (new Packer(params, 1) as unknown as { board: MoveBoard }).board;
    let filled = 0;
    const run = (steps: number) => board.run(0, steps, 0, 1, () => 0, () => { filled++; }, () => {});
    expect(() => run(board.phaseSteps + 1)).toThrow(/a phase of \d+ time steps, cells are wide enough for 1 to/);
    expect(() => run(0)).toThrow(RangeError);
    expect(filled).toBe(0);
  });
});
