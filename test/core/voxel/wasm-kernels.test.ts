import { describe, expect, it } from 'vitest';
import { BitMatrix, markSelf, selfMaskLength, selfMaskWords } from '../../../core/voxel/matrix';
import { COS, SIN, rotateRange } from '../../../core/voxel/rotation';
import { voxeliseShapeVoxels } from '../../../core/voxel/shapes';
import { KERNELS_WASM_BASE64 } from '../../../core/voxel/kernels-wasm';
import { coordWords, WasmKernels } from '../../../core/voxel/wasm-kernels';
import { Random } from '../../../core/common/random';
import { compileKernels } from '../../../scripts/build-wasm.mjs';

/** Unrounded coordinate r (0 x, 1 y, 2 z) of (x, y, z) rotated as rotation.ts does, in double precision. */
function exact(x: number, y: number, z: number, a: number[], r: number): number {
  const y1 = COS[a[0]] * y - SIN[a[0]] * z, z1 = SIN[a[0]] * y + COS[a[0]] * z;
  const z2 = COS[a[1]] * z1 - SIN[a[1]] * x, x2 = SIN[a[1]] * z1 + COS[a[1]] * x;
  return [COS[a[2]] * x2 - SIN[a[2]] * y1, SIN[a[2]] * x2 + COS[a[2]] * y1, z2][r];
}

describe('WebAssembly SIMD kernels', () => {
  it('kernels-wasm.ts is kernels.wat compiled (run npm run build:wasm after editing the .wat)', async () => {
    const bytes = await compileKernels();
    expect(KERNELS_WASM_BASE64).toBe(bytes.toString('base64'));
  });

  it('give the JavaScript loops\' answers: tests, writes, clears and self masks, at the x/y edges, floor and ceiling', () => {
    const [NX, NY, NZ] = [70, 45, 60];
    const wasm = new BitMatrix(NX, NY, NZ);
    const js = new BitMatrix(NX, NY, NZ, { kernels: 'js' });
    expect(wasm.wasm).not.toBeNull();
    expect(js.wasm).toBeNull();
    const shape = voxeliseShapeVoxels({ kind: 'ellipsoid', b: 0.7, c: 0.5 }, 15);
    const n = shape.reducedShell.length / 3, e = Math.ceil(shape.maxRadius + 0.5), bias = e + 1;
    // The wasm matrix's arrays live in its heap (so the kernels run), the js matrix's are plain.
    const buffers = (m: BitMatrix) => {
      const src = m.allocWords(coordWords(n));
      src.set(shape.reducedShell);
      return { src, old: m.allocWords(coordWords(n)), trial: m.allocWords(coordWords(n)), mask: m.allocWords(selfMaskLength(bias)) };
    };
    const W = buffers(wasm), J = buffers(js);
    expect(wasm.wasm!.owns(W.trial) && !wasm.wasm!.owns(J.trial)).toBe(true);
    const same = () => expect(Buffer.from(wasm.slabs[0].buffer, 0, wasm.bytes).equals(Buffer.from(js.slabs[0].buffer, 0, js.bytes))).toBe(true);
    /** The JavaScript answer, through the chunked path where the fused loop declines (-2), as the packer does. */
    const jsTest = (a: number[], x: number, y: number, z: number, mask: Int32Array | null, d: number[]) => {
      const hit = mask === null
        ? js.rotateFirstHit(J.src, J.trial, n, a[0], a[1], a[2], x, y, z, e)
        : js.rotateFirstHitBesides(J.src, J.trial, n, a[0], a[1], a[2], x, y, z, e, mask, bias, d[0], d[1], d[2]);
      if (hit !== -2) return hit;
      rotateRange(J.src, J.trial, 0, n, a[0], a[1], a[2], true, true);
      return mask === null ? js.firstHit(J.trial, 0, n, x, y, z, e) : js.firstHitBesides(J.trial, 0, n, x, y, z, e, mask, bias, d[0], d[1], d[2]);
    };

    const rnd = new Random(5);
    let compared = 0, ties = 0, hits = 0, free = 0;
    for (let t = 0; t < 400; t++) {
      const a = [rnd.int(360), rnd.int(360), rnd.int(360)];
      // Anywhere in x/y (edges included); z from below the floor to above the ceiling.
      const x = rnd.int(NX), y = rnd.int(NY), z = rnd.int(NZ + 2 * e) - e;
      const insertW = wasm.rotateFirstHit(W.src, W.trial, n, a[0], a[1], a[2], x, y, z, e);
      const insertJ = jsTest(a, x, y, z, null, [0, 0, 0]);
      // Where the two differ, a rotated coordinate lay within 1e-4 of a half (single vs double precision).
      const upTo = 3 * (Math.min(insertW, insertJ) < 0 ? n : Math.max(insertW, insertJ) + 1);
      let tie = false;
      for (let k = 0; k < Math.min(upTo, 3 * n); k++) {
        if (W.trial[k] === J.trial[k]) continue;
        const v = exact(shape.reducedShell[k - (k % 3)], shape.reducedShell[k - (k % 3) + 1], shape.reducedShell[k - (k % 3) + 2], a, k % 3);
        expect(Math.abs(Math.abs(v - Math.trunc(v)) - 0.5)).toBeLessThan(1e-4);
        tie = true;
      }
      if (tie) { ties++; continue; }
      expect(insertW).toBe(insertJ);
      compared++;
      if (insertW >= 0) { hits++; continue; }
      free++;
      // Insert it (with its self mask), then move it one voxel and a few degrees.
      W.old.set(W.trial.subarray(0, 3 * n));
      J.old.set(J.trial.subarray(0, 3 * n));
      wasm.writeAllMarking(W.old, n, x, y, z, e, W.mask, bias);
      js.writeAllMarking(J.old, n, x, y, z, e, J.mask, bias);
      same();
      expect(Array.from(W.mask)).toEqual(Array.from(J.mask));
      const reference = selfMaskWords(bias);
      markSelf(reference, bias, J.old, n);
      expect(Array.from(J.mask)).toEqual(Array.from(reference));
      const d = [rnd.int(3) - 1, rnd.int(3) - 1, rnd.int(3) - 1];
      const b = [(a[0] + 1) % 360, (a[1] + 359) % 360, a[2]];
      const nx = (x + d[0] + NX) % NX, ny = (y + d[1] + NY) % NY, nz = z + d[2];
      const moveW = wasm.rotateFirstHitBesides(W.src, W.trial, n, b[0], b[1], b[2], nx, ny, nz, e, W.mask, bias, d[0], d[1], d[2]);
      const moveJ = jsTest(b, nx, ny, nz, J.mask, d);
      if (W.trial.subarray(0, 3 * n).some((v, k) => v !== J.trial[k])) ties++;
      else expect(moveW).toBe(moveJ);
      // The same voxels moved without rotating (saved rotation kept), with and without the mask.
      expect(wasm.firstHitBesides(W.old, 0, n, nx, ny, nz, e, W.mask, bias, d[0], d[1], d[2])).toBe(js.firstHitBesides(J.old, 0, n, nx, ny, nz, e, J.mask, bias, d[0], d[1], d[2]));
      expect(wasm.firstHit(W.old, 0, n, nx, ny, nz, e)).toBe(js.firstHit(J.old, 0, n, nx, ny, nz, e));
      // Half of the inserted particles stay: the crowd grows; the others are cleared again.
      if (t % 2 === 0) {
        wasm.clearAll(W.old, 0, n, x, y, z, e);
        js.clearAll(J.old, 0, n, x, y, z, e);
        same();
      }
    }
    expect(compared).toBeGreaterThan(300);
    expect(ties).toBeLessThan(20);
    expect(hits).toBeGreaterThan(50);
    expect(free).toBeGreaterThan(50);
    expect(wasm.countOccupied()).toBeGreaterThan(0);
  });

  it('hand out heap buffers that grow the memory, are reused after release, and fall back when it is full', () => {
    const k = new WasmKernels(64, 64, 64, 2, 128);
    const before = k.memory.buffer.byteLength;
    const big = k.alloc(1 << 20)!; // 4 MiB: more than the first heap
    expect(k.memory.buffer.byteLength).toBeGreaterThan(before);
    expect(k.owns(big) && !k.owns(new Int32Array(4))).toBe(true);
    big[5] = 7;
    k.release(big);
    const again = k.alloc(1 << 20)!;
    expect(again.byteOffset).toBe(big.byteOffset);
    expect(again[5]).toBe(0); // zeroed on reuse
    expect(k.alloc(2 ** 29)).toBeNull(); // 2 GiB of words: past the 1 GiB maximum
    expect(() => new WasmKernels(4096, 4096, 4096, 128, 128 * 4096)).toThrow(/over/);
  });
});
