import { describe, expect, it } from 'vitest';
import { BitMatrix, markSelf, selfMaskLength } from '../../../core/voxel/bit-matrix';
import { COS, SIN, rotateRange } from '../../../core/voxel/rotation';
import { voxeliseShapeVoxels } from '../../../core/voxel/shapes';
import { KERNELS_WASM_BASE64 } from '../../../core/voxel/kernels-wasm';
import { voxelWords, WASM_WINDOW_BYTES, WasmKernels } from '../../../core/voxel/wasm-kernels';
import { Random } from '../../../core/common/random';
import { compileKernels } from '../../../scripts/build-wasm.mjs';

/** Unrounded coordinate r (0 x, 1 y, 2 z) of (x, y, z) rotated as rotation.ts does, in double precision. */
function exact(x: number, y: number, z: number, a: number[], r: number): number {
  const y1 = COS[a[0]] * y - SIN[a[0]] * z, z1 = SIN[a[0]] * y + COS[a[0]] * z;
  const z2 = COS[a[1]] * z1 - SIN[a[1]] * x, x2 = SIN[a[1]] * z1 + COS[a[1]] * x;
  return [COS[a[2]] * x2 - SIN[a[2]] * y1, SIN[a[2]] * x2 + COS[a[2]] * y1, z2][r];
}

/** True when some voxel's rotated coordinate lies within 1e-4 of a half: single and double precision may round it apart. */
function nearTie(c: Int32Array, a: number[]): boolean {
  for (let k = 0; k < c.length; k += 3) {
    for (let r = 0; r < 3; r++) {
      const v = exact(c[k], c[k + 1], c[k + 2], a, r);
      if (Math.abs(Math.abs(v - Math.floor(v)) - 0.5) < 1e-4) return true;
    }
  }
  return false;
}

describe('WebAssembly SIMD kernels', () => {
  it('kernels-wasm.ts is kernels.wat compiled (run npm run build:wasm after editing the .wat)', async () => {
    const bytes = await compileKernels();
    expect(KERNELS_WASM_BASE64).toBe(bytes.toString('base64'));
  });

  it.each(['rows', 'bricks'] as const)('give the JavaScript loops\' answers: inserts and moves (tests, matrix words, self masks) at the x/y edges, floor and ceiling (%s)', (layout) => {
    // 200 is not a multiple of 32: the row's last word is partial (x wraps over it); 45 and 60 are
    // not multiples of 8: padded bricks, solid padding planes above the box.
    const [NX, NY, NZ] = [200, 45, 60];
    const wasm = new BitMatrix(NX, NY, NZ, { layout });
    const js = new BitMatrix(NX, NY, NZ, { kernels: 'js', layout });
    const memory = new Int32Array(wasm.wasm!.memory.buffer);
    const k = wasm.wasm!;
    expect(js.wasm).toBeNull();
    const shape = voxeliseShapeVoxels({ kind: 'ellipsoid', b: 0.7, c: 0.5 }, 15);
    const coords = shape.reducedShell, n = coords.length / 3, e = Math.ceil(shape.maxRadius + 0.5), bias = e + 1;
    const ks = k.shape(coords, n, e)!;
    expect(ks).not.toBeNull();
    const same = () => expect(Buffer.from(wasm.slabs[0].buffer, 0, wasm.bytes).equals(Buffer.from(js.slabs[0].buffer, 0, js.bytes))).toBe(true);
    const block = voxelWords(n) / 3;
    // The test's voxel buffer (swapped with the particle's on a move, as the packer does).
    let trialAt = k.allocVoxels(n);
    const trialOf = () => k.view(trialAt, voxelWords(n));

    /**
     * The voxels the kernel's test left in its trial buffer (word address, bit, mask bit) against the
     * JavaScript rotation at (x, y, z), the mask made d from there, up to `upTo`.
     */
    const checkTrial = (rot: Int32Array, x: number, y: number, z: number, d: number[], upTo: number) => {
      const ms = ks.ms, [mx, my, mz] = d.map((v) => v + ks.b), trial = trialOf();
      for (let i = 0; i < upTo; i++) {
        const rx = rot[3 * i], ry = rot[3 * i + 1], rz = rot[3 * i + 2], Z = z + rz;
        expect(trial[2 * block + i]).toBe(((rz + mz) * ms + ry + my) * ms + rx + mx);
        // Outside the box in z: the all-ones word after the matrix, or a solid padding plane.
        if (Z < 0 || Z >= NZ) {
          expect((memory[trial[i] >> 2] >>> trial[block + i]) & 1).toBe(1);
          if (Z < 0 || layout === 'rows') expect(trial[i]).toBe(wasm.bytes);
          continue;
        }
        const X = (x + rx + NX) % NX, Y = (y + ry + NY) % NY;
        expect(trial[i]).toBe(4 * js.wordOf(X, Y, Z));
        expect(trial[block + i] & 31).toBe(js.yBit[Y] + js.xBit[X]);
      }
    };
    /** The kernel mask holds exactly the particle's voxels rot, as markSelf marks them. */
    const checkMask = (mask: Int32Array, rot: Int32Array) => {
      const expected = new Int32Array(selfMaskLength(ks.b));
      markSelf(expected, ks.b, rot, n);
      expect(Array.from(mask)).toEqual(Array.from(expected));
    };

    const rnd = new Random(5);
    const rot = new Int32Array(3 * n), rot2 = new Int32Array(3 * n), jsMask = new Int32Array(selfMaskLength(bias));
    let compared = 0, ties = 0, hits = 0, moved = 0, blocked = 0;
    for (let t = 0; t < 300; t++) {
      const a = [rnd.int(360), rnd.int(360), rnd.int(360)];
      // Anywhere in x/y (edges included); z from below the floor to above the ceiling.
      const x = rnd.int(NX), y = rnd.int(NY), z = rnd.int(NZ + 2 * e) - e;
      if (nearTie(coords, a)) { ties++; continue; }
      rotateRange(coords, rot, 0, n, a[0], a[1], a[2], true, true);
      // A new particle's mask, all zero: no voxel counts as its own.
      const maskAt = k.allocBytes(ks.maskBytes), mask = k.view(maskAt, ks.maskBytes / 4);
      const insertW = k.test(ks, trialAt, a[0], a[1], a[2], x, y, z, maskAt, 0, 0, 0);
      expect(insertW).toBe(js.firstHit(rot, 0, n, x, y, z, e));
      checkTrial(rot, x, y, z, [0, 0, 0], insertW < 0 ? n : insertW);
      compared++;
      if (insertW >= 0) {
        hits++;
        k.releaseBytes(maskAt, ks.maskBytes);
        continue;
      }
      // Insert it with its self mask, then move it twice by one voxel and a few degrees.
      k.write(ks, 0, trialAt, maskAt, 0, 0, 0);
      let voxels = trialAt;
      trialAt = k.allocVoxels(n);
      jsMask.fill(0);
      js.writeAllMarking(rot, n, x, y, z, e, jsMask, bias);
      same();
      checkMask(mask, rot);
      let [cx, cy, cz] = [x, y, z], b = a;
      for (let m = 0; m < 2; m++) {
        const d = [rnd.int(3) - 1, rnd.int(3) - 1, rnd.int(3) - 1];
        const b2 = [(b[0] + 1) % 360, (b[1] + 359) % 360, b[2]];
        if (nearTie(coords, b2)) { ties++; break; }
        rotateRange(coords, rot2, 0, n, b2[0], b2[1], b2[2], true, true);
        const nx = (cx + d[0] + NX) % NX, ny = (cy + d[1] + NY) % NY, nz = cz + d[2];
        // One move in three meets a planted foreign voxel (when the spot is empty and in the box).
        const j = rnd.int(n), px = (nx + rot2[3 * j] + NX) % NX, py = (ny + rot2[3 * j + 1] + NY) % NY, pz = nz + rot2[3 * j + 2];
        if (rnd.int(3) === 0 && pz >= 0 && pz < NZ && !js.test(px, py, pz)) {
          wasm.set(px, py, pz);
          js.set(px, py, pz);
        }
        const moveW = k.test(ks, trialAt, b2[0], b2[1], b2[2], nx, ny, nz, maskAt, d[0], d[1], d[2]);
        expect(moveW).toBe(js.firstHitBesides(rot2, 0, n, nx, ny, nz, e, jsMask, bias, d[0], d[1], d[2]));
        if (moveW >= 0) { blocked++; break; }
        checkTrial(rot2, nx, ny, nz, d, n);
        k.write(ks, voxels, trialAt, maskAt, d[0], d[1], d[2]);
        [voxels, trialAt] = [trialAt, voxels];
        js.clearAll(rot, 0, n, cx, cy, cz, e);
        jsMask.fill(0);
        js.writeAllMarking(rot2, n, nx, ny, nz, e, jsMask, bias);
        same();
        checkMask(mask, rot2);
        rot.set(rot2);
        [cx, cy, cz, b] = [nx, ny, nz, b2];
        moved++;
      }
      // Two in three particles stay: the crowd grows; the others are removed again (in both).
      if (t % 3 === 0) {
        const v = k.view(voxels, voxelWords(n));
        for (let i = 0; i < n; i++) wasm.slabs[0][v[i] >> 2] &= ~(1 << (v[block + i] & 31));
        js.clearAll(rot, 0, n, cx, cy, cz, e);
        same();
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect(ties).toBeLessThan(100);
    expect(hits).toBeGreaterThan(50);
    expect(moved).toBeGreaterThan(50);
    expect(blocked).toBeGreaterThan(20);
    expect(wasm.countOccupied()).toBeGreaterThan(0);
    // Cross-check of the reference itself: the JavaScript self mask holds the last particle.
    const reference = new Int32Array(selfMaskLength(bias));
    markSelf(reference, bias, rot, n);
    expect(reference.some((w) => w !== 0)).toBe(true);
  });

  it('take a shape whose extent passes the box and wrap its voxels as the matrix does (matrix.ts corner)', () => {
    // An upright rod of 8 x 80 voxels: extent 42, 4 across x and y. The packer gives it the kernels
    // in a box 40 wide, where its periodic images cannot meet (packer.ts selfBias); shifted by the
    // side below its extent, as the kernels did, a centre at x = 39 put voxels at 39 + 40 + 4 = 83,
    // past the one subtraction's reach (2 × 40).
    const [NX, NY, NZ] = [40, 40, 100];
    const wasm = new BitMatrix(NX, NY, NZ), js = new BitMatrix(NX, NY, NZ, { kernels: 'js' });
    const k = wasm.wasm!;
    const rod = voxeliseShapeVoxels({ kind: 'cylinder', length: 10 }, 8);
    const coords = rod.shell, n = coords.length / 3, e = Math.ceil(rod.maxRadius + 0.5);
    expect(2 * e + 3).toBeGreaterThan(NX);
    const ks = k.shape(coords, n, e)!;
    const block = voxelWords(n) / 3, trialAt = k.allocVoxels(n), maskAt = k.allocBytes(ks.maskBytes);
    let wrong = 0;
    for (let x = 0; x < NX; x++) {
      for (const y of [0, 3, 20, 37, 39]) {
        expect(k.test(ks, trialAt, 0, 0, 0, x, y, 50, maskAt, 0, 0, 0)).toBe(-1);
        const trial = k.view(trialAt, voxelWords(n));
        for (let i = 0; i < n; i++) {
          const X = (x + coords[3 * i] + NX) % NX, Y = (y + coords[3 * i + 1] + NY) % NY, Z = 50 + coords[3 * i + 2];
          if (trial[i] !== 4 * js.wordOf(X, Y, Z) || (trial[block + i] & 31) !== js.yBit[Y] + js.xBit[X]) wrong++;
        }
      }
    }
    expect(wrong).toBe(0);
  });

  it('hand out heap buffers that grow the memory, are reused after release, and fall back when it is full', () => {
    const k = new BitMatrix(64, 64, 64).wasm!;
    const before = k.memory.buffer.byteLength;
    const big = k.allocBytes(4 << 20); // 4 MiB: more than the first heap
    expect(big).toBeGreaterThan(0);
    expect(k.memory.buffer.byteLength).toBeGreaterThan(before);
    k.view(big, 8)[5] = 7;
    k.releaseBytes(big, 4 << 20);
    const again = k.allocBytes(4 << 20);
    expect(again).toBe(big);
    expect(k.view(again, 8)[5]).toBe(0); // zeroed on reuse
    expect(k.allocBytes(2 ** 31)).toBe(0); // 2 GiB: past the 1 GiB maximum
    const layout = { zShift: 0, zBytes: 0, yShift: 0, yBytes: 0, xShift: 0, xUp: 0, zLow: 0, yLow: 0, yBitShift: 0, xLow: 0 };
    expect(() => new WasmKernels(64, 64, WASM_WINDOW_BYTES + 4, layout)).toThrow(/over/);
  });
});
