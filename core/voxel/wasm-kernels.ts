/**
 * The packer's inner loops in WebAssembly SIMD (kernels.wat): rotate and test a particle's voxels
 * with early exit, four a step, and write an accepted move. WebAssembly reaches only its own
 * memory, so a BitMatrix that uses these kernels keeps its matrix, or for a matrix larger than
 * WASM_WINDOW_BYTES a window of its z-planes (bit-matrix.ts), at the start of a shared
 * WebAssembly.Memory (its buffer is a SharedArrayBuffer like any other slab), and the packer keeps
 * the state of the particles the kernels move in the heap behind it: per shape its coordinates
 * as f32 blocks and a trial buffer per thread, per particle its voxels as the kernels wrote them
 * (matrix word, bit, mask bit: removing it needs no rotation, seed §3.2 D) and its self mask (the
 * layout of bit-matrix.ts selfMaskWords). The packer moves other particles (shapes as wide as the
 * box, a full heap, switches off) with BitMatrix's JavaScript loops.
 *
 * The heap is handed out by the run's thread only (allocBytes); helper threads attach their own
 * instance of the module to the same memory, with their own scratch block (mover.ts), and call the
 * kernels with byte offsets.
 */
import { KERNELS_WASM_BASE64 } from './kernels-wasm';
import { COS32, SIN32 } from './rotation';
import { corner } from './matrix';
import { powInt } from '../common/power';

/** The memory may grow to this many 64 KiB pages: 1 GiB, the largest buffer PackBench allocates. */
const MAX_PAGES = 16384;
const PAGE = 65536;
/**
 * The matrix, or the window of its planes the kernels reach, is at most this large, leaving at
 * least half of the memory to the heap.
 */
export const WASM_WINDOW_BYTES = (MAX_PAGES * PAGE) / 2;
/** Heap alignment (bytes): a cache line, so that no two buffers share one. */
const ALIGN = 64;
/** The kernels' own scratch space (their loop constants), after the matrix and its all-ones word. */
const SCRATCH_BYTES = 352;

/**
 * How the kernels address the bit matrix (bit-matrix.ts, kernels.wat): voxel (X, Y, Z) is in the
 * word at byte (Z >> zShift)·zBytes + (Y >> yShift)·yBytes + ((X >> xShift) << xUp) +
 * ((Z & zLow) << 3) + (Y & yLow), bit (Y << yBitShift) + (X & xLow) mod 32.
 */
export interface KernelLayout {
  zShift: number;
  zBytes: number;
  yShift: number;
  yBytes: number;
  xShift: number;
  xUp: number;
  zLow: number;
  yLow: number;
  yBitShift: number;
  xLow: number;
}

interface KernelExports {
  init(
    nx: number, ny: number, matrixBytes: number, scratch: number,
    zShift: number, zBytes: number, yShift: number, yBytes: number, xShift: number, xUp: number,
    zLow: number, yLow: number, yBitShift: number, xLow: number,
  ): void;
  test(
    n: number, src: number, dst: number,
    cx: number, sx: number, cy: number, sy: number, cz: number, sz: number,
    bx: number, by: number, oz: number,
    mw: number, ms: number, mx: number, my: number, mz: number,
  ): number;
  move(n: number, old: number, fresh: number, mask: number, maskBytes: number, delta: number): void;
}

/** A shape the kernels move: where its coordinates are and the size of its self mask. */
export interface KernelShape {
  /** Voxels moved (reduced shell or shell) and extent (every rotated voxel within ±e of the centre). */
  readonly n: number;
  readonly e: number;
  /** Byte offset of the voxels' coordinates as f32 x, y and z blocks (the rotation's input). */
  readonly blocks: number;
  /** The self mask's cube: side ms = 2b + 1, b = e + 1 (a move's old voxels, seen from the new centre, lie within ±b). */
  readonly b: number;
  readonly ms: number;
  /** Bytes of a self mask. */
  readonly maskBytes: number;
}

let compiled: WebAssembly.Module | null = null;

function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Uint8Array.from(atob(KERNELS_WASM_BASE64), (ch) => ch.charCodeAt(0)));
  return compiled;
}

/** Words of three blocks of n voxels padded to whole SIMD steps of 4 (a shape's f32 coordinates, a particle's voxels). */
export function voxelWords(n: number): number {
  return 3 * ((n + 3) & ~3);
}

/** Words of a self mask of cube side 2b + 1 (bit-matrix.ts selfMaskLength). */
function maskWords(b: number): number {
  return Math.ceil(powInt(2 * b + 1, 3) / 32);
}

export class WasmKernels {
  readonly memory: WebAssembly.Memory;
  /** The matrix words, or those of the window of its planes (byte 0 of the memory). */
  readonly matrix: Int32Array;
  /** The first z-plane in the matrix words (0 unless they are a window of a larger matrix). */
  zOrigin = 0;
  private readonly k: KernelExports;
  /** The heap's end and its free blocks by size (the run's thread only). */
  private top = 0;
  private readonly freeLists = new Map<number, number[]>();

  /**
   * A new memory holding a matrix (window) of matrixBytes; or, with `memory`, an instance of the
   * kernels on another thread's memory (a helper), with its own scratch block at `scratch`.
   */
  constructor(
    readonly nx: number, readonly ny: number, readonly matrixBytes: number, readonly layout: KernelLayout,
    memory?: WebAssembly.Memory, scratch?: number,
  ) {
    if (matrixBytes > WASM_WINDOW_BYTES) throw new RangeError(`WasmKernels: a matrix window of ${matrixBytes} bytes is over ${WASM_WINDOW_BYTES}`);
    // The matrix plus 1 MiB of heap to begin with; the heap grows by doubling.
    this.memory = memory ?? new WebAssembly.Memory({ initial: Math.ceil(matrixBytes / PAGE) + 16, maximum: MAX_PAGES, shared: true });
    this.k = new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } }).exports as unknown as KernelExports;
    this.matrix = new Int32Array(this.memory.buffer, 0, matrixBytes / 4);
    if (memory === undefined) {
      // The word right after the matrix is all ones: the kernels read it for voxels outside the
      // box in z (a hit), so that their address needs one unsigned min rather than a compare and select.
      new Int32Array(this.memory.buffer, matrixBytes, 1)[0] = -1;
      this.top = Math.ceil((matrixBytes + 4) / ALIGN) * ALIGN;
    }
    this.init(scratch ?? this.allocScratch());
  }

  private init(scratch: number): void {
    const l = this.layout;
    this.k.init(this.nx, this.ny, this.matrixBytes, scratch, l.zShift, l.zBytes, l.yShift, l.yBytes, l.xShift, l.xUp, l.zLow, l.yLow, l.yBitShift, l.xLow);
  }

  /** A scratch block for an instance of the kernels (each thread needs its own). */
  allocScratch(): number {
    const at = this.allocBytes(SCRATCH_BYTES);
    if (at === 0) throw new RangeError('WasmKernels: no room for a scratch block');
    return at;
  }

  /**
   * Byte offset of `bytes` zeroed bytes in the heap (aligned to a cache line), or 0 when the
   * memory cannot grow any more (the caller then uses an ordinary array and the JavaScript loops).
   */
  allocBytes(bytes: number): number {
    bytes = Math.ceil(bytes / ALIGN) * ALIGN;
    const reuse = this.freeLists.get(bytes)?.pop();
    if (reuse !== undefined) {
      new Uint8Array(this.memory.buffer, reuse, bytes).fill(0);
      return reuse;
    }
    const end = this.top + bytes;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const want = Math.min(MAX_PAGES, Math.max(Math.ceil(end / PAGE), Math.ceil((2 * have) / PAGE)));
      if (want * PAGE < end) return 0;
      this.memory.grow(want - have / PAGE);
    }
    const at = this.top;
    this.top = end;
    return at;
  }

  /** Returns `bytes` at `at` (from allocBytes) to the heap. */
  releaseBytes(at: number, bytes: number): void {
    bytes = Math.ceil(bytes / ALIGN) * ALIGN;
    let list = this.freeLists.get(bytes);
    if (list === undefined) this.freeLists.set(bytes, (list = []));
    list.push(at);
  }

  /** A view of `words` at byte offset `at` (made on the memory's current buffer). */
  view(at: number, words: number): Int32Array {
    return new Int32Array(this.memory.buffer, at, words);
  }

  /** A particle's voxel buffer (voxelWords(n)), or 0 when the heap is full. */
  allocVoxels(n: number): number {
    return this.allocBytes(4 * voxelWords(n));
  }

  releaseVoxels(at: number, n: number): void {
    this.releaseBytes(at, 4 * voxelWords(n));
  }

  /**
   * How the kernels move a shape of n voxels (interleaved coords) and extent e, or null when the
   * heap is full. Only for shapes with a self mask: the packer asks for no other (packer.ts selfBias).
   */
  shape(coords: Int32Array, n: number, e: number): KernelShape | null {
    const b = e + 1, ms = 2 * b + 1;
    const at = this.allocVoxels(n);
    if (at === 0) return null;
    // The padding lanes repeat the last voxel: they hit only where it does, after it.
    const words = voxelWords(n), blocks = new Float32Array(this.memory.buffer, at, words), block = words / 3;
    for (let i = 0; i < block; i++) {
      const v = 3 * Math.min(i, n - 1);
      blocks[i] = coords[v];
      blocks[block + i] = coords[v + 1];
      blocks[2 * block + i] = coords[v + 2];
    }
    return { n, e, blocks: at, b, ms, maskBytes: 4 * maskWords(b) };
  }

  /**
   * First hit (or -1) of shape s rotated to (ax, ay, az) degrees at centre (x, y, z); its voxels
   * go to the voxel buffer at `trial`. Every plane of z ± (e + 1) in the box must lie in the
   * matrix words (a window's planes; the packer sees to it): the kernels take planes beyond them
   * for the floor or ceiling. mask: the particle's self mask (maskBytes), made at its current
   * centre (x - dx, y - dy, z - dz); for a particle not yet in the matrix, the all-zero mask it
   * will have, with d = 0.
   */
  test(s: KernelShape, trial: number, ax: number, ay: number, az: number, x: number, y: number, z: number, mask: number, dx: number, dy: number, dz: number): number {
    return this.testAt(s.n, s.e, s.b, s.ms, s.blocks, trial, ax, ay, az, x, y, z, mask, dx, dy, dz);
  }

  /** test with the shape's numbers given one by one (the movers read them from a shared table). */
  testAt(
    n: number, e: number, b: number, ms: number, blocks: number, trial: number,
    ax: number, ay: number, az: number, x: number, y: number, z: number, mask: number, dx: number, dy: number, dz: number,
  ): number {
    return this.k.test(
      n, blocks, trial, COS32[ax], SIN32[ax], COS32[ay], SIN32[ay], COS32[az], SIN32[az],
      corner(x, e, this.nx), corner(y, e, this.ny), z - this.zOrigin,
      mask, ms, dx + b, dy + b, dz + b,
    );
  }

  /**
   * Writes the particle at the voxels of the last test into `trial` (all free, with this mask):
   * clears its voxels `old` (0: a new particle) and rebuilds its mask around the new centre, the
   * test's centre minus (dx, dy, dz) being the one the mask was made at. `trial` then holds the
   * particle's matrix words and bits; the caller makes it the particle's voxel buffer.
   */
  write(s: KernelShape, old: number, trial: number, mask: number, dx: number, dy: number, dz: number): void {
    this.writeAt(s.n, old, trial, mask, s.maskBytes, s.ms, dx, dy, dz);
  }

  writeAt(n: number, old: number, trial: number, mask: number, maskBytes: number, ms: number, dx: number, dy: number, dz: number): void {
    this.k.move(n, old, trial, mask, maskBytes, (dz * ms + dy) * ms + dx);
  }
}

/**
 * Shifts the matrix addresses of a particle's voxels (the first n words of `voxels`, as `test`
 * left them) by `bytes`: its window of the matrix moved by -bytes.
 */
export function rebaseVoxels(voxels: Int32Array, n: number, bytes: number): void {
  for (let i = 0; i < n; i++) voxels[i] += bytes;
}
