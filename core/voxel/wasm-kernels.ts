/**
 * The packer's inner loops in WebAssembly SIMD (kernels.wat): rotate and test with early exit,
 * set or clear, rebuild a self mask, four voxels a step. WebAssembly reaches only its own memory,
 * so a BitMatrix that uses these kernels keeps its one slab at the start of a shared
 * WebAssembly.Memory (its buffer is a SharedArrayBuffer like any other slab) and the packer takes
 * its coordinate buffers and self masks from the heap behind it (alloc / release). BitMatrix
 * calls the kernels when every array of a call lives in that memory and the particle is narrower
 * than half the box; otherwise its JavaScript loops do the same work on the same arrays.
 */
import { KERNELS_WASM_BASE64 } from './kernels-wasm';

/** The memory may grow to this many 64 KiB pages: 1 GiB, the largest buffer PackBench allocates. */
const MAX_PAGES = 16384;
const PAGE = 65536;
/** A matrix up to this size uses the kernels, leaving at least half of the memory to the heap. */
export const WASM_MATRIX_LIMIT_BYTES = (MAX_PAGES * PAGE) / 2;
/** Heap alignment (bytes): a cache line, so that no two buffers share one. */
const ALIGN = 64;
/** The kernels' own scratch space (their loop constants), right after the zero word. */
const SCRATCH_BYTES = 512;

interface KernelExports {
  init(nx: number, ny: number, nz: number, wpr: number, wpp: number, scratch: number): void;
  test(
    n: number, src: number, dst: number, rot: number,
    cx: number, sx: number, cy: number, sy: number, cz: number, sz: number,
    bx: number, by: number, oz: number,
    mw: number, en: number, ms: number, mx: number, my: number, mz: number,
  ): number;
  apply(n: number, src: number, bx: number, by: number, oz: number, on: number, mw: number, mbytes: number, ms: number, b: number): void;
}

let compiled: WebAssembly.Module | null = null;

function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Uint8Array.from(atob(KERNELS_WASM_BASE64), (ch) => ch.charCodeAt(0)));
  return compiled;
}

/** Words of interleaved (x, y, z) coordinates for n voxels, padded to whole SIMD steps of 4 voxels. */
export function coordWords(n: number): number {
  return 3 * ((n + 3) & ~3);
}

export class WasmKernels {
  readonly memory: WebAssembly.Memory;
  /** The matrix words (byte 0 of the memory). */
  readonly matrix: Int32Array;
  private readonly k: KernelExports;
  /** Buffers of the memory views were made on (a grown shared memory hands out a new one). */
  private readonly buffers: ArrayBufferLike[] = [];
  private top: number;
  private readonly freeLists = new Map<number, number[]>();
  /** A zero word: the self mask of a test without one. */
  private readonly zero: number;
  /**
   * The rotation's input: each source array's coordinates as f32 x, y and z blocks (n padded to
   * 4), made on its first rotation. Sources are the packer's shape coordinates, which never change.
   */
  private readonly blocks = new WeakMap<Int32Array, Float32Array>();

  constructor(nx: number, ny: number, nz: number, wordsPerRow: number, wordsPerPlane: number) {
    const matrixBytes = wordsPerPlane * nz * 4;
    if (matrixBytes > WASM_MATRIX_LIMIT_BYTES) throw new RangeError(`WasmKernels: a matrix of ${matrixBytes} bytes is over ${WASM_MATRIX_LIMIT_BYTES}`);
    // The matrix plus 1 MiB of heap to begin with; the heap grows by doubling.
    const pages = Math.ceil(matrixBytes / PAGE) + 16;
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });
    this.k = new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } }).exports as unknown as KernelExports;
    this.buffers.push(this.memory.buffer);
    this.matrix = new Int32Array(this.memory.buffer, 0, wordsPerPlane * nz);
    this.top = Math.ceil(matrixBytes / ALIGN) * ALIGN;
    this.zero = this.top;
    this.top += ALIGN;
    this.k.init(nx, ny, nz, wordsPerRow, wordsPerPlane, this.top);
    this.top += SCRATCH_BYTES;
  }

  /**
   * A zeroed Int32Array of `words` in the heap, or null when the memory cannot grow any more (the
   * caller then uses an ordinary array and the JavaScript loops).
   */
  alloc(words: number): Int32Array | null {
    const bytes = Math.ceil((4 * words) / ALIGN) * ALIGN;
    const reuse = this.freeLists.get(bytes)?.pop();
    if (reuse !== undefined) {
      const a = new Int32Array(this.memory.buffer, reuse, words);
      a.fill(0);
      return a;
    }
    const end = this.top + bytes;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const want = Math.min(MAX_PAGES, Math.max(Math.ceil(end / PAGE), Math.ceil((2 * have) / PAGE)));
      if (want * PAGE < end) return null;
      this.memory.grow(want - have / PAGE);
      this.buffers.push(this.memory.buffer);
    }
    const a = new Int32Array(this.memory.buffer, this.top, words);
    this.top = end;
    return a;
  }

  /** Returns a buffer from alloc to the heap (others are ignored). */
  release(a: Int32Array): void {
    if (!this.owns(a)) return;
    const bytes = Math.ceil(a.byteLength / ALIGN) * ALIGN;
    let list = this.freeLists.get(bytes);
    if (list === undefined) this.freeLists.set(bytes, (list = []));
    list.push(a.byteOffset);
  }

  /** True when `a` is a view of this memory (so the kernels can reach it). */
  owns(a: Int32Array): boolean {
    const b = a.buffer;
    for (let i = 0; i < this.buffers.length; i++) if (this.buffers[i] === b) return true;
    return false;
  }

  /** src's first n voxels as f32 blocks in the heap (null when the heap is full). */
  private blocksOf(src: Int32Array, n: number): Float32Array | null {
    let f = this.blocks.get(src);
    if (f === undefined || f.length !== 3 * ((n + 3) & ~3)) {
      const words = this.alloc(coordWords(n));
      if (words === null) return null;
      f = new Float32Array(words.buffer, words.byteOffset, words.length);
      const block = words.length / 3;
      for (let i = 0; i < n; i++) {
        f[i] = src[3 * i];
        f[block + i] = src[3 * i + 1];
        f[2 * block + i] = src[3 * i + 2];
      }
      this.blocks.set(src, f);
    }
    return f;
  }

  /**
   * First hit of n voxels (kernels.wat `test`), src rotated by the given cosines and sines into
   * dst when `rot`, else tested as they are; mask null: every set bit is a hit. -2, having done
   * nothing, when the heap has no room for src's f32 blocks (the caller rotates in JavaScript).
   */
  test(
    src: Int32Array, dst: Int32Array, n: number, rot: boolean,
    cx: number, sx: number, cy: number, sy: number, cz: number, sz: number,
    bx: number, by: number, oz: number,
    mask: Int32Array | null, ms: number, mx: number, my: number, mz: number,
  ): number {
    const blocks = rot ? this.blocksOf(src, n) : null;
    if (rot && blocks === null) return -2;
    const from = blocks !== null ? blocks.byteOffset : src.byteOffset;
    // Without a mask: the zero word, its index forced to 0 (en = 0), so no voxel counts as its own.
    const mw = mask !== null ? mask.byteOffset : this.zero, en = mask !== null ? -1 : 0;
    return this.k.test(n, from, dst.byteOffset, rot ? 1 : 0, cx, sx, cy, sy, cz, sz, bx, by, oz, mw, en, ms, mx, my, mz);
  }

  /** Sets (on) or clears n voxels at (bx, by, oz); with a mask, rebuilds it to hold exactly them. */
  apply(src: Int32Array, n: number, bx: number, by: number, oz: number, on: boolean, mask: Int32Array | null, bias: number): void {
    if (mask === null) this.k.apply(n, src.byteOffset, bx, by, oz, on ? -1 : 0, 0, 0, 0, 0);
    else this.k.apply(n, src.byteOffset, bx, by, oz, on ? -1 : 0, mask.byteOffset, mask.byteLength, 2 * bias + 1, bias);
  }
}
