import { describe, expect, it } from 'vitest';
import { BitMatrix, markSelf, selfMaskWords } from '../../../core/voxel/bit-matrix';
import { rotateFirstHit, rotateFirstHitBesides } from '../../../core/voxel/fused';
import { rotateRange } from '../../../core/voxel/rotation';
import { voxeliseShapeVoxels } from '../../../core/voxel/shapes';
import { Random } from '../../../core/common/random';

/**
 * The fused rotate-and-test loops against their two halves done apart: rotation.ts rotateRange
 * (the rotated voxels, bit for bit) and the matrix's firstHitBesides / firstHit on them (the hit).
 */
describe.each(['rows', 'bricks'] as const)('fused rotate-and-test loops (%s)', (layout) => {
  const NX = 70, NY = 45, NZ = 40;
  /** Slabs of 7 planes, or of one layer of bricks. */
  const tinySlab = layout === 'rows' ? 7 * 3 * 4 * NY : 9 * 6 * 64;
  const shape = voxeliseShapeVoxels({ kind: 'ellipsoid', b: 0.8, c: 0.6 }, 13);
  const c = shape.reducedShell, n = c.length / 3;
  const e = Math.ceil(shape.maxRadius + 0.5), bias = e + 1;

  /** A matrix with a crowd of rotated particles to collide with. */
  function crowded(rnd: Random, options = {}): BitMatrix {
    const m = new BitMatrix(NX, NY, NZ, { kernels: 'js', layout, ...options });
    const rot = new Int32Array(c.length);
    for (let t = 0; t < 30; t++) {
      rotateRange(c, rot, 0, n, rnd.int(360), rnd.int(360), rnd.int(360), true, true);
      const ox = rnd.int(NX), oy = rnd.int(NY), oz = rnd.int(NZ);
      if (m.firstHit(rot, 0, n, ox, oy, oz, e) < 0) m.writeAll(rot, 0, n, ox, oy, oz, e);
    }
    return m;
  }

  it('rotate each voxel as rotateRange does, in free space, on every path (inside, x/y edge, floor and ceiling)', () => {
    const m = new BitMatrix(NX, NY, NZ, { kernels: 'js', layout });
    const rnd = new Random(3);
    const expected = new Int32Array(c.length), fused = new Int32Array(c.length), plain = new Int32Array(c.length);
    const mask = selfMaskWords(bias);
    const paths = new Set<string>();
    for (let t = 0; t < 400; t++) {
      const [ax, ay, az] = [rnd.int(360), rnd.int(360), rnd.int(360)];
      const ox = rnd.int(NX), oy = rnd.int(NY);
      // Mostly inside in z (an empty matrix: no hit at all), sometimes across the floor or ceiling.
      const oz = t % 4 === 0 ? rnd.int(NZ) : e + rnd.int(NZ - 2 * e);
      const zOut = oz - e < 0 || oz + e >= NZ;
      paths.add(zOut ? 'z' : ox < e || ox + e >= NX || oy < e || oy + e >= NY ? 'edge' : 'inside');
      rotateRange(c, expected, 0, n, ax, ay, az, true, true);
      fused.fill(7);
      const hit = rotateFirstHitBesides(m, c, fused, n, ax, ay, az, ox, oy, oz, e, mask, bias, 0, 0, 0);
      const reference = m.firstHitBesides(expected, 0, n, ox, oy, oz, e, mask, bias, 0, 0, 0);
      expect(hit).toBe(reference);
      const done = 3 * (hit < 0 ? n : hit + 1);
      expect(Array.from(fused.subarray(0, done))).toEqual(Array.from(expected.subarray(0, done)));
      if (!zOut) {
        // Off the floor and ceiling nothing is hit: every voxel was rotated.
        expect(hit).toBe(-1);
        plain.fill(7);
        expect(rotateFirstHit(m, c, plain, n, ax, ay, az, ox, oy, oz, e)).toBe(-1);
        expect(Array.from(plain)).toEqual(Array.from(expected));
      }
    }
    expect([...paths].sort()).toEqual(['edge', 'inside', 'z']);
  });

  for (const tiny of [false, true]) {
    it(`give the hit of rotateRange + firstHitBesides / firstHit in a crowded matrix (${tiny ? 'tiny slabs: -2 across a slab boundary' : 'one slab'})`, () => {
      const rnd = new Random(tiny ? 5 : 4);
      const m = crowded(rnd, tiny ? { maxSlabBytes: tinySlab } : {});
      const old = new Int32Array(c.length), expected = new Int32Array(c.length), fused = new Int32Array(c.length);
      let hits = 0, free = 0, skipped = 0;
      for (let t = 0; t < 300; t++) {
        const a = [rnd.int(360), rnd.int(360), rnd.int(360)];
        rotateRange(c, old, 0, n, a[0], a[1], a[2], true, true);
        const ox = rnd.int(NX), oy = rnd.int(NY), oz = e + rnd.int(NZ - 2 * e);
        // The moving particle is in the matrix with its self mask; the move is one voxel and a few degrees.
        m.writeAll(old, 0, n, ox, oy, oz, e);
        const mask = selfMaskWords(bias);
        markSelf(mask, bias, old, n);
        const d = [rnd.int(3) - 1, rnd.int(3) - 1, rnd.int(3) - 1];
        const b = [(a[0] + 3) % 360, (a[1] + 359) % 360, (a[2] + 2) % 360];
        const x = (ox + d[0] + NX) % NX, y = (oy + d[1] + NY) % NY, z = oz + d[2];
        rotateRange(c, expected, 0, n, b[0], b[1], b[2], true, true);
        const reference = m.firstHitBesides(expected, 0, n, x, y, z, e, mask, bias, d[0], d[1], d[2]);
        const hit = rotateFirstHitBesides(m, c, fused, n, b[0], b[1], b[2], x, y, z, e, mask, bias, d[0], d[1], d[2]);
        m.clearAll(old, 0, n, ox, oy, oz, e);
        if (hit === -2) skipped++;
        else {
          expect(hit).toBe(reference);
          const done = 3 * (hit < 0 ? n : hit + 1);
          expect(Array.from(fused.subarray(0, done))).toEqual(Array.from(expected.subarray(0, done)));
          // Without a mask, with the particle removed: the plain loop gives firstHit's answer.
          const plain = rotateFirstHit(m, c, fused, n, b[0], b[1], b[2], x, y, z, e);
          if (plain !== -2) expect(plain).toBe(m.firstHit(expected, 0, n, x, y, z, e));
        }
        if (reference < 0) free++; else hits++;
      }
      expect(hits).toBeGreaterThan(20);
      expect(free).toBeGreaterThan(20);
      if (tiny) expect(skipped).toBeGreaterThan(20);
      else expect(skipped).toBe(0);
    });
  }
});
