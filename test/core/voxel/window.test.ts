import { describe, expect, it } from 'vitest';
import { BitMatrix } from '../../../core/voxel/bit-matrix';
import { Packer, voxelParamsSchema } from '../../../core/voxel/index';
import { Random } from '../../../core/common/random';
import { rotation } from './rotation-reference';

/**
 * A matrix larger than the SIMD kernels' memory keeps a window of its planes there (bit-matrix.ts);
 * here the window is made small so that it moves through a small box.
 */
describe.each(['rows', 'bricks'] as const)('the kernels\' window of a large bit matrix (%s)', (layout) => {
  /** Bytes of a unit of a 40 x 40 box: 2 x 40 words of rows, or 5 x 5 x 16 words of bricks. */
  const unitBytes = layout === 'rows' ? 4 * 2 * 40 : 4 * 5 * 5 * 16;
  it('moving the window keeps every voxel, and a window address reads back as its voxel', () => {
    const [NX, NY, NZ] = [40, 24, 100];
    // Window: 3 units (3 planes of rows, 3 layers of bricks); slabs of 2 units.
    const unit = layout === 'rows' ? 2 * 4 * NY : 5 * 3 * 64;
    const m = new BitMatrix(NX, NY, NZ, { layout, windowBytes: 3 * unit, maxSlabBytes: 2 * unit });
    const ref = new BitMatrix(NX, NY, NZ, { layout, kernels: 'js' });
    expect(m.windowed).toBe(true);
    const rnd = new Random(1);
    const out = new Int32Array(3);
    for (let round = 0; round < 40; round++) {
      for (let k = 0; k < 50; k++) {
        const x = rnd.int(NX), y = rnd.int(NY), z = rnd.int(NZ);
        if (rnd.int(3) === 0) { m.clear(x, y, z); ref.clear(x, y, z); } else { m.set(x, y, z); ref.set(x, y, z); }
      }
      m.moveWindow(rnd.int(Math.ceil(NZ / m.planesPerUnit)));
      const [z0, z1] = m.windowPlanes();
      expect(z1 - z0).toBe(3 * m.planesPerUnit);
      // Every voxel of the window: its word in the kernels' memory reads back as that voxel.
      for (let z = z0; z < Math.min(z1, NZ); z += 1) {
        const x = rnd.int(NX), y = rnd.int(NY);
        expect(m.slabOf[z]).toBe(m.slabs.length - 1);
        m.voxelOfWindowWord(m.wordOf(x, y, z), m.yBit[y] + m.xBit[x], out);
        expect(Array.from(out)).toEqual([x, y, z]);
      }
    }
    expect(m.countOccupied()).toBe(ref.countOccupied());
    for (let z = 0; z < NZ; z++) for (let y = 0; y < NY; y++) for (let x = 0; x < NX; x++) {
      if (m.test(x, y, z) !== ref.test(x, y, z)) throw new Error(`voxel ${x} ${y} ${z} differs`);
    }
  });

  it('a packing through a small window (moving up) is the packing of a matrix held whole, bit for bit', () => {
    const params = voxelParamsSchema.parse({
      box: { size: [2.5, 2.5, 12], resolution: 16 },
      optimisations: { bricks: layout === 'bricks' },
      stop: { particles: 60 },
      analysis: { enabled: false },
      labelVolume: 'off',
    });
    const whole = new Packer(params, 4);
    // 40 x 40 voxels: a unit is 2 x 40 words of rows or 5 x 5 x 16 words of bricks; a window of 96 planes.
    const windowed = new Packer(params, 4, { windowBytes: (96 / (layout === 'rows' ? 1 : 8)) * unitBytes });
    const bits = windowed.matrix as BitMatrix;
    expect(bits.windowed).toBe(true);
    let moves = 0, unit = bits.windowUnit;
    while (whole.step()) {
      expect(windowed.step()).toBe(true);
      if (bits.windowUnit !== unit) { moves++; unit = bits.windowUnit; }
    }
    expect(windowed.step()).toBe(false);
    expect(windowed.count).toBe(60);
    expect(moves).toBeGreaterThan(1);
    expect(windowed.movedToJavaScript).toBe(0);
    expect(windowed.kernelParticles).toBe(whole.kernelParticles);
    for (const k of ['px', 'py', 'pz', 'ax', 'ay', 'az'] as const) expect(Array.from(windowed[k].subarray(0, 60))).toEqual(Array.from(whole[k].subarray(0, 60)));
    expect(windowed.counters).toEqual(whole.counters);
    const a = whole.matrix, b = windowed.matrix;
    expect(b.countOccupied()).toBe(a.countOccupied());
    for (let z = 0; z < a.nz; z++) for (let y = 0; y < a.ny; y++) for (let x = 0; x < a.nx; x++) {
      if (a.test(x, y, z) !== b.test(x, y, z)) throw new Error(`voxel ${x} ${y} ${z} differs`);
    }
  });

  it('particles left below a window move on in JavaScript, and the matrix holds exactly every particle\'s shell', () => {
    const params = voxelParamsSchema.parse({
      box: { size: [2.5, 2.5, 9], resolution: 16 },
      optimisations: { bricks: layout === 'bricks' },
      stop: { particles: 45 },
      analysis: { enabled: false },
      labelVolume: 'off',
    });
    // 56 planes: the active particles sometimes span more, and the lowest leave the kernels.
    const packer = new Packer(params, 3, { windowBytes: (56 / (layout === 'rows' ? 1 : 8)) * unitBytes });
    while (packer.step()) { /* pack */ }
    expect(packer.count).toBe(45);
    expect(packer.movedToJavaScript).toBeGreaterThan(0);
    // The shells rebuilt here with a rotation matrix (rounding ties, which single and double
    // precision may round apart, left out).
    const m = packer.matrix, shells = new Set<number>();
    let ties = 0;
    for (let i = 0; i < packer.count; i++) {
      const R = rotation(packer.ax[i], packer.ay[i], packer.az[i]), c = packer.packCoordsOf(i);
      for (let k = 0; k < c.length; k += 3) {
        const p = [0, 1, 2].map((r) => R[3 * r] * c[k] + R[3 * r + 1] * c[k + 1] + R[3 * r + 2] * c[k + 2]);
        if (p.some((v) => Math.abs(Math.abs(v - Math.floor(v)) - 0.5) < 1e-4)) { ties++; continue; }
        const x = (((packer.px[i] + Math.round(p[0])) % m.nx) + m.nx) % m.nx, y = (((packer.py[i] + Math.round(p[1])) % m.ny) + m.ny) % m.ny;
        shells.add(x + m.nx * (y + m.ny * (packer.pz[i] + Math.round(p[2]))));
      }
    }
    let missing = 0;
    for (const key of shells) if (!m.test(key % m.nx, Math.floor(key / m.nx) % m.ny, Math.floor(key / (m.nx * m.ny)))) missing++;
    expect(missing).toBe(0);
    expect(Math.abs(m.countOccupied() - shells.size)).toBeLessThanOrEqual(ties);
  });
});

