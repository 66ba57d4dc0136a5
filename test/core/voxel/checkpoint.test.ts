import { describe, expect, it } from 'vitest';
import { Packer, pack, voxelParamsSchema } from '../../../core/voxel/index';
import type { Checkpoint, CheckpointStore, EngineContext } from '../../../core/common/engine';

/** A checkpoint as it comes back from disk: arrays copied, meta through JSON. */
function stored(c: Checkpoint): Checkpoint {
  return { meta: JSON.parse(JSON.stringify(c.meta)), arrays: Object.fromEntries(Object.entries(c.arrays).map(([k, a]) => [k, a.slice()])) };
}

function state(p: Packer) {
  const n = p.count, m = p.matrix;
  let bits = '';
  for (let z = 0; z < m.nz; z++) for (let y = 0; y < m.ny; y++) for (let x = 0; x < m.nx; x++) bits += m.test(x, y, z) ? '1' : '0';
  return {
    n, stop: p.stopReason, counters: { ...p.counters }, roof: p.roof,
    arrays: (['px', 'py', 'pz', 'ax', 'ay', 'az'] as const).map((k) => Array.from(p[k].subarray(0, n))),
    bits,
  };
}

describe('voxel packer checkpoints', () => {
  const base = { box: { size: [2.5, 2.5, 12], resolution: 16 }, stop: { particles: 60 }, analysis: { enabled: false }, labelVolume: 'off' };
  it.each([
    ['SIMD kernels, bricks', {}, {}],
    ['SIMD kernels through a small window', {}, { windowBytes: 12 * 4 * 5 * 5 * 16 }],
    ['JavaScript loops, rows', { optimisations: { simdKernels: false, bricks: false } }, {}],
    ['id matrix', { matrix: 'id' }, {}],
    ['a small box filled until full, insertions tried at the top over the frozen height map', { box: { size: [2.5, 2.5, 3], resolution: 16 }, stop: { particles: 0 }, optimisations: { risingRoof: false } }, {}],
  ] as const)('resuming from a checkpoint gives the packing of an uninterrupted run (%s)', (_, extra, matrix) => {
    const params = voxelParamsSchema.parse({ ...base, ...extra });
    const uninterrupted = new Packer(params, 5, matrix);
    let cp: Checkpoint | null = null;
    let at = 0;
    while (uninterrupted.step()) {
      // A checkpoint in the middle of the packing, with particles active (and, through the small
      // window, the window moved up).
      if (cp === null && uninterrupted.count >= (params.stop.particles > 0 ? 40 : 12)) {
        cp = stored(uninterrupted.checkpoint());
        at = uninterrupted.counters.steps;
        expect(uninterrupted.activeCount).toBeGreaterThan(2);
        if ('windowBytes' in matrix) expect(cp.meta.windowUnit).toBeGreaterThan(0);
      }
    }
    expect(cp).not.toBeNull();
    const resumed = new Packer(params, 5, matrix);
    resumed.restore(cp!);
    expect(resumed.counters.steps).toBe(at);
    while (resumed.step()) { /* pack on */ }
    expect(state(resumed)).toEqual(state(uninterrupted));
  });

  it('pack() resumes from a checkpoint of another thread count (the packing does not depend on it), fingerprinted as before 2026-11-27 too', () => {
    const params = voxelParamsSchema.parse(base);
    const log: string[] = [];
    const ctx = (checkpoints?: CheckpointStore, cancelled = () => false): EngineContext => ({ seed: 5, threads: 1, progress() {}, cancelled, log: (l) => log.push(l), checkpoints });
    const whole = pack(params, ctx()).packer;
    // A checkpoint at every step; the first with 40 particles kept, and the run ended there.
    let cp = null as Checkpoint | null;
    const keep = (c: Checkpoint) => { if (cp === null && (c.meta.count as number) >= 40) cp = stored(c); };
    pack(params, ctx({ intervalSeconds: 1e-9, load: () => null, save: keep }, () => cp !== null));
    expect(cp).not.toBeNull();
    // As a two-thread run of an older version wrote it: the thread count in its fingerprint.
    cp!.meta.fingerprint = JSON.stringify({ params, seed: 5, threads: 2 });
    const resumed = pack(params, ctx({ intervalSeconds: 0, load: () => cp, save() {} }));
    expect(resumed.resumedFromStep, log.join('\n')).toBe((cp!.meta.counters as { steps: number }).steps);
    expect(state(resumed.packer)).toEqual(state(whole));
  });
});
