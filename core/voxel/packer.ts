/**
 * The Monte Carlo packer (seed §2.2, §3): particles enter at random (x, y) at the rising roof and,
 * every time step, each active particle tries one move of ±1 voxel on every axis (the upward z
 * component kept only with the rebound probability) plus a random rotation within its per-axis
 * limits. A move is checked against the packing matrix with early exit; in bit mode the
 * particle's own voxels are told apart by its self mask, so it is removed (with its saved rotated
 * voxels) only once the move is known to be free. Every t_f steps particles that did not move are
 * frozen. With `simdKernels` (and the switches they build on), particles move through the
 * WebAssembly SIMD kernels (wasm-kernels.ts), which keep their own state for each particle;
 * the JavaScript loops of bit-matrix.ts and fused.ts move the others.
 *
 * Deterministic for a seed, whatever the thread count: insertion draws from one Random of the
 * seed, every move from (seed, particle, time step) (mover.ts drawMove); each time step moves the
 * kernel particles colour by colour (on every thread, mover.ts), then the others in active order.
 */
import { Random } from '../common/random';
import type { Checkpoint } from '../common/engine';
import type { MatrixOptions, PackingMatrix } from './matrix';
import { BitMatrix, selfMaskLength } from './bit-matrix';
import { IdMatrix } from './id-matrix';
import { rotateFirstHit, rotateFirstHitBesides } from './fused';
import { rebaseVoxels, voxelWords, type KernelShape, type WasmKernels } from './wasm-kernels';
import { cellGrid, cellWidths, drawMove, MoveBoard, phaseSteps, SLOT_FIELDS as F, type HelperData, type Move } from './mover';
import { rotateRange, rotatedReach } from './rotation';
import { quantiseSize, voxeliseShapeVoxels, type VoxelisedShape } from './shapes';
import { alignedReachAcross, boxVoxels, maxSize, minSize, packsWithWholeShell, typicalSolidVoxels, type SizeLaw, type VoxelParams } from './params';

/** Voxels rotated ahead of each early-exit test: small enough that a collision wastes little rotation. */
const CHUNK = 64;
/** Columns per side of a cell of the frozen height map. */
const HEIGHT_CELL = 4;

export type StopReason = 'particles' | 'solidFraction' | 'full' | 'maxSteps' | 'cancelled' | 'stopped';

export interface PackerCounters {
  steps: number;
  moveAttempts: number;
  acceptedMoves: number;
  /** Collision tests: move attempts plus insertion attempts. */
  collisionTests: number;
  voxelChecks: number;
  insertionAttempts: number;
}

/** Draws one size (length units) from a law; normal and log-normal truncated at 4 sd. */
export function drawSize(law: SizeLaw, rng: Random): number {
  switch (law.law) {
    case 'fixed': return law.value;
    case 'uniform': return rng.uniform(law.min, law.max);
    case 'normal':
    case 'lognormal': {
      const lo = minSize(law), hi = maxSize(law);
      for (;;) {
        const s = law.law === 'normal' ? law.mean + law.sd * rng.normal() : law.median * Math.exp(law.sigma * rng.normal());
        if (s > 0 && s >= lo && s <= hi) return s;
      }
    }
    case 'table': {
      let total = 0;
      for (const w of law.weights) total += w;
      let u = rng.next() * total;
      for (let i = 0; i < law.sizes.length; i++) {
        u -= law.weights[i];
        if (u < 0 && law.weights[i] > 0) return law.sizes[i];
      }
      return law.sizes[law.weights.findLastIndex((w) => w > 0)];
    }
  }
}

function grow<T extends Int32Array | Int16Array | Uint16Array | Uint32Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

export class Packer {
  readonly matrix: PackingMatrix;
  readonly nx: number;
  readonly ny: number;
  /** Box height in voxels (the matrix may be taller for an open top). */
  readonly nz: number;
  readonly counters: PackerCounters = { steps: 0, moveAttempts: 0, acceptedMoves: 0, collisionTests: 0, voxelChecks: 0, insertionAttempts: 0 };

  // Distinct voxelisations: one per (type, size in voxels).
  readonly shapes: VoxelisedShape[] = [];
  readonly shapeType: number[] = [];
  readonly shapeSizeVoxels: number[] = [];
  /** The voxels moved through the matrix: the reduced shell (seed §3.2) or the whole shell. */
  private readonly packCoords: Int32Array[] = [];
  private readonly extent: number[] = [];
  /** Largest |x|, |y|, |z| of each shape's solid voxels before rotation (3 per shape): its footprint's source. */
  private readonly solidHalf: number[] = [];
  /** Self-mask bias per shape (extent + 1: a move's voxels lie within it), 0 = no self mask. */
  private readonly selfBias: number[] = [];
  /** How the SIMD kernels move each shape, or null (the JavaScript loops move it). */
  private readonly kernelShape: (KernelShape | null)[] = [];
  /** Largest angle change per move (degrees) per shape. */
  private readonly rotationStep: number[] = [];
  private readonly shapeKey = new Map<string, number>();

  // Particle state (structure of arrays, grown on insertion).
  count = 0;
  px = new Int32Array(256);
  py = new Int32Array(256);
  pz = new Int32Array(256);
  /** Current rotation (degrees in [0, 360)) and initial rotation. */
  ax = new Int16Array(256);
  ay = new Int16Array(256);
  az = new Int16Array(256);
  a0x = new Int16Array(256);
  a0y = new Int16Array(256);
  a0z = new Int16Array(256);
  type = new Uint16Array(256);
  shape = new Uint32Array(256);
  /** Position at the last freezing check (x = -1: none yet, inserted since). */
  private hx = new Int32Array(256);
  private hy = new Int32Array(256);
  private hz = new Int32Array(256);
  /** Saved rotated voxels of active particles (seed §3.2); null once frozen and for kernel particles. */
  private saved: (Int32Array | null)[] = [];
  /**
   * Active particles the SIMD kernels move: byte offsets in the kernels' memory of their voxels as
   * the kernels wrote them (matrix word, bit, mask bit; they play the saved rotation's part) and
   * of their self masks; 0 for all others.
   */
  private kVoxels = new Int32Array(256);
  private kMask = new Int32Array(256);
  /**
   * Bit mode, particles of the JavaScript loops: each active particle's current voxels as a self
   * mask (bit-matrix.ts selfMaskWords), so that a move is tested before the particle is removed;
   * null once frozen, in id mode, or for a particle too wide for the box (see selfBias).
   */
  private masks: (Int32Array | null)[] = [];
  private active = new Int32Array(256);
  activeCount = 0;
  /** Particles inserted (and then moved) by the SIMD kernels. */
  kernelParticles = 0;
  /** Kernel particles that left the kernels' window of a large matrix and moved on in JavaScript. */
  movedToJavaScript = 0;

  /** Solid voxels of all particles (their voxelised volume). */
  solidVoxels = 0;
  private readonly typeAmount: Float64Array;
  private readonly typeShare: Float64Array;
  /** What one more particle of each type adds to its amount: 1 (number basis) or about its solid voxels (volume). */
  private readonly typeUnit: Float64Array;
  /** Rising roof (seed §3.6): insertion level in voxels, at least the frozen top, raised on failed insertions. */
  roof = 0;
  /** Highest top (centre z + extent) of a frozen particle. */
  private frozenTop = -1;
  /** Highest frozen particle top over each cell of HEIGHT_CELL x HEIGHT_CELL columns (-1 = none). */
  private readonly heights: Int32Array;
  private readonly hcx: number;
  private readonly hcy: number;
  /** Failed insertions in a row at the top of the box. */
  private failures = 0;
  private inserting = true;
  stopReason: StopReason | null = null;

  // Candidate for the next insertion (kept until it fits).
  private candType = -1;
  private candShape = -1;
  private candAx = 0;
  private candAy = 0;
  private candAz = 0;
  /** The candidate's kernel state (byte offsets), allocated up front (0: the JavaScript loops insert it). */
  private candVoxels = 0;
  private candMask = 0;

  /** The footprint footprint() found last: half-widths (voxels) on x and y. */
  private footX = 0;
  private footY = 0;

  private trial: Int32Array = new Int32Array(0);
  private old: Int32Array = new Int32Array(0);
  /** The matrix when it is a BitMatrix (for firstHitBesides). */
  private readonly bits: BitMatrix | null;
  /**
   * The SIMD kernels, when `simdKernels` is on and the matrix lives in their memory; they rotate
   * with tables and fast rounding, keep each particle's voxels and wrap cheaply, so they also
   * need those switches on (the ablation's rows before H run without them).
   */
  private readonly kernels: WasmKernels | null;
  /** The kernel particles' moves, colour by colour, on `threads` threads (mover.ts), or null. */
  private readonly board: MoveBoard | null;
  /** Per shape: its row on the board, or -1 for a shape the JavaScript loops move. */
  private readonly kernelRow: number[] = [];
  /** Largest extent any particle of the run can have (voxels): the window keeps room for it. */
  private readonly maxExtent: number;
  private readonly rng: Random;
  /** The run's seed: every move draws from (seed, particle, time step) (mover.ts drawMove). */
  private readonly seed: number;
  /** The rebound probability · 2^32. */
  private readonly rebound: number;
  private readonly draw: Move = { dx: 0, dy: 0, dz: 0, ax: 0, ay: 0, az: 0 };
  /**
   * One time step per step() call, never a phase of several (mover.ts): for studies that look at
   * every step (bench/voxel-scale --only moves). The moves' order differs, so the packing does too.
   */
  stepByStep = false;
  /** This step's kernel particles (active order). */
  private kernelList = new Int32Array(256);
  private readonly o: VoxelParams['optimisations'];

  /**
   * `matrix`: options for the packing matrix beyond the parameters (tests: small slabs, a small
   * kernel window).
   */
  constructor(readonly params: VoxelParams, seed: number, matrix: Pick<MatrixOptions, 'maxSlabBytes' | 'windowBytes'> = {}, threads = 1) {
    this.rng = new Random(seed);
    this.seed = seed;
    this.rebound = Math.min(4294967295, Math.floor(params.reboundProbability * 4294967296));
    this.o = params.optimisations;
    const { nx, ny, nz, nzMatrix } = boxVoxels(params);
    this.nx = nx;
    this.ny = ny;
    this.nz = nz;
    this.matrix = params.matrix === 'bit'
      ? new BitMatrix(nx, ny, nzMatrix, { ...matrix, kernels: this.o.simdKernels ? 'wasm' : 'js', layout: this.o.bricks ? 'bricks' : 'rows' })
      : new IdMatrix(nx, ny, nzMatrix, matrix);
    this.matrix.cheapModulus = this.o.cheapModulus;
    this.bits = this.matrix instanceof BitMatrix ? this.matrix : null;
    const o = this.o;
    const { maxExtent } = boxVoxels(params);
    this.maxExtent = Math.ceil(maxExtent / 2) + 1;
    // A window of the matrix must hold a move of the largest particle and an insertion above it.
    const roomy = this.bits === null || !this.bits.windowed || this.bits.windowUnits * this.bits.planesPerUnit >= 4 * this.maxExtent + 8;
    this.kernels = o.simdKernels && o.trigTables && o.fastRounding && o.savedRotations && o.cheapModulus && roomy ? (this.bits?.wasm ?? null) : null;
    if (this.kernels !== null) {
      const bits = this.bits!, layout = bits.layout;
      let k = phaseSteps(nx, ny, this.maxExtent, layout);
      // A window must also hold the k moves of a phase above and below (keepWindow).
      if (bits.windowed && bits.windowUnits * bits.planesPerUnit < 4 * (this.maxExtent + k) + 8) k = 1;
      const [wx, wy] = cellWidths(this.maxExtent, layout, k);
      this.board = new MoveBoard(this.kernels, cellGrid(nx, ny, wx, wy), k, threads, seed, params.reboundProbability, params.reboundRule === 'move');
    } else {
      this.board = null;
    }
    this.hcx = Math.ceil(nx / HEIGHT_CELL);
    this.hcy = Math.ceil(ny / HEIGHT_CELL);
    this.heights = new Int32Array(this.hcx * this.hcy).fill(-1);
    const types = params.mixture.types;
    this.typeAmount = new Float64Array(types.length);
    let total = 0;
    for (const t of types) total += t.fraction;
    this.typeShare = Float64Array.from(types, (t) => t.fraction / total);
    this.typeUnit = Float64Array.from(types, (t) => params.mixture.basis === 'volume' ? typicalSolidVoxels(t, params.box.resolution, params.reductionThreshold) : 1);
  }

  private shapeFor(type: number, sizeVoxels: number): number {
    const key = `${type}:${sizeVoxels}`;
    let s = this.shapeKey.get(key);
    if (s !== undefined) return s;
    const v = voxeliseShapeVoxels(this.params.mixture.types[type].shape, sizeVoxels, this.params.reductionThreshold);
    s = this.shapes.length;
    this.shapes.push(v);
    this.shapeType.push(type);
    this.shapeSizeVoxels.push(sizeVoxels);
    // The whole shell where the reduced one's flat chessboards would pass through each other (params.ts).
    const coords = packsWithWholeShell(this.params.mixture.types[type], this.o, this.params.box.resolution) ? v.shell : v.reducedShell;
    this.packCoords.push(coords);
    // Every rotated, rounded coordinate lies within the shape's radius + 0.5 of the origin.
    const e = Math.ceil(v.maxRadius + 0.5);
    this.extent.push(e);
    // The solid's box (the shells lie in it, and so does what they enclose).
    const half = v.min.map((m, a) => Math.max(-m, m + v.dims[a] - 1));
    this.solidHalf.push(...half);
    // A self mask tells the particle's own voxels from others' only when its periodic images
    // cannot meet it: the box must be wider than every x or y offset difference of its voxels
    // before and after a move (2a + 1, a its reach across x and y under every rotation it can take:
    // e, or less for a type held 'aligned'; an upright rod of 8 x 80 voxels reaches 4, its extent
    // is 42). Without one (and so without the kernels, which need it) the particle is removed
    // before every test and written back on a collision (39 such rods in a 64² box: 7.1-7.9 CPU s,
    // 1.3 with a mask, in the kernels).
    const t = this.params.mixture.types[type];
    const across = t.orientation === 'aligned' ? Math.min(e, alignedReachAcross(t.maxRotation, half[0], half[1], half[2])) : e;
    this.selfBias.push(this.bits !== null && 2 * across + 1 < this.nx && 2 * across + 1 < this.ny ? e + 1 : 0);
    // Automatic step: the outermost voxel moves by about one voxel (r · step · π/180 ≈ 1).
    const rotationStep = t.rotationStep > 0 ? t.rotationStep : Math.max(1, Math.floor(180 / Math.PI / Math.max(1, v.maxRadius)));
    this.rotationStep.push(rotationStep);
    // Indexed by shape, not pushed by kernel shape: a mixture whose first shape is one the
    // JavaScript loops move (as wide as the box) took the next shape's row for its successor, and
    // the run read a trial buffer's address out of the matrix (wasm: memory access out of bounds).
    this.kernelRow.push(-1);
    this.kernelShape.push(this.selfBias[s] > 0 ? this.kernelShapeOf(s, coords, e, rotationStep) : null);
    if (coords.length > this.trial.length) {
      this.trial = new Int32Array(coords.length);
      this.old = new Int32Array(coords.length);
    }
    this.shapeKey.set(key, s);
    return s;
  }

  /**
   * The kernels' form of shape s with a trial buffer per thread and its row on the board, or null
   * (too wide for the box, or no room in the kernels' heap: the JavaScript loops move it).
   */
  private kernelShapeOf(s: number, coords: Int32Array, e: number, rotationStep: number): KernelShape | null {
    const k = this.kernels, board = this.board;
    if (k === null || board === null) return null;
    const n = coords.length / 3, ks = k.shape(coords, n, e);
    if (ks === null) return null;
    const trials: number[] = [];
    for (let t = 0; t < board.threads; t++) trials.push(k.allocVoxels(n));
    if (trials.includes(0)) {
      for (const at of trials) if (at !== 0) k.releaseVoxels(at, n);
      return null;
    }
    this.kernelRow[s] = board.addShape(n, e, ks.b, ks.ms, ks.blocks, rotationStep, ks.maskBytes, trials);
    return ks;
  }

  /** The data a helper thread needs to move kernel particles (voxelHelper), for each helper. */
  helperData(): HelperData[] {
    const board = this.board;
    if (board === null) return [];
    const k = this.kernels!;
    return board.scratch.map((scratch, t) => ({
      memory: k.memory, board: board.boardOffset, thread: t + 1, nx: k.nx, ny: k.ny, windowBytes: k.matrixBytes, layout: k.layout, scratch,
    }));
  }

  /**
   * Mean height (voxels) of the frozen bed: the highest frozen particle top over each cell of the
   * height map, averaged (0 where nothing froze yet). For the live view.
   */
  frozenBedHeight(): number {
    let sum = 0;
    for (let c = 0; c < this.heights.length; c++) sum += this.heights[c] + 1;
    return sum / this.heights.length;
  }

  /** Threads that move the kernel particles (1 without kernels). */
  get threads(): number {
    return this.board?.threads ?? 1;
  }

  /** Most time steps a colour phase of the kernel particles holds (mover.ts phaseSteps; 1 without kernels). */
  get phaseSteps(): number {
    return this.board?.phaseSteps ?? 1;
  }

  /** Colour phases the helper threads joined. */
  get parallelPhases(): number {
    return this.board?.parallelPhases ?? 0;
  }

  /** Lets the helper threads return (the run is over). */
  stopHelpers(): void {
    this.board?.quit();
  }

  /** The active particles (those still moved every time step), a view valid until the next step. */
  activeParticles(): Int32Array {
    return this.active.subarray(0, this.activeCount);
  }

  /** Extent (voxels) of particle i's shape: every rotated voxel lies within ±extent of its centre. */
  extentOf(i: number): number {
    return this.extent[this.shape[i]];
  }

  /** The voxels particle i is moved with (reduced shell or whole shell). */
  packCoordsOf(i: number): Int32Array {
    return this.packCoords[this.shape[i]];
  }

  /**
   * Picks the next candidate: the type whose particle brings the realised shares (number or volume)
   * closest to those asked, a size, an orientation. Closest: the least sum over the types of
   * |share × total − amount| once it is added (ties to the first type). So a type is drawn once it
   * is due about half a particle; taking the type furthest below its share gave a type asked at
   * 1e-6 the second particle of every run (0.55 % of the volume of 400 particles).
   */
  private nextCandidate(): void {
    const types = this.params.mixture.types, share = this.typeShare, amount = this.typeAmount, unit = this.typeUnit;
    let total = 0;
    for (let t = 0; t < types.length; t++) total += amount[t];
    let best = 0, bestError = Infinity;
    for (let t = 0; t < types.length; t++) {
      if (share[t] === 0) continue;
      const after = total + unit[t];
      let error = 0;
      for (let u = 0; u < types.length; u++) error += Math.abs(share[u] * after - amount[u] - (u === t ? unit[t] : 0));
      if (error < bestError) { bestError = error; best = t; }
    }
    const type = types[best];
    const sizeVoxels = quantiseSize(drawSize(type.size, this.rng), this.params.box.resolution);
    this.candType = best;
    this.candShape = this.shapeFor(best, sizeVoxels);
    const ks = this.kernelShape[this.candShape], k = this.kernels;
    if (ks !== null && k !== null) {
      // The kernels insert it only with room for its state; else the JavaScript loops do.
      const voxels = k.allocVoxels(ks.n), mask = voxels !== 0 ? k.allocBytes(ks.maskBytes) : 0;
      if (voxels !== 0 && mask !== 0) {
        this.candVoxels = voxels;
        this.candMask = mask;
      } else if (voxels !== 0) {
        k.releaseVoxels(voxels, ks.n);
      }
    }
    if (type.orientation === 'random') {
      this.candAx = this.rng.int(360);
      this.candAy = this.rng.int(360);
      this.candAz = this.rng.int(360);
    } else {
      this.candAx = this.candAy = this.candAz = 0;
    }
  }

  /** One insertion attempt at random (x, y) at the roof (or the top). */
  private tryInsert(): void {
    if (this.candShape < 0) this.nextCandidate();
    const s = this.candShape, n = this.packCoords[s].length / 3, e = this.extent[s];
    const top = this.matrix.nz - 1 - e;
    const x = this.rng.int(this.nx), y = this.rng.int(this.ny);
    const z = this.o.risingRoof ? Math.min(top, Math.max(e, this.roof + e + 1)) : top;
    const id = this.count + 1;
    this.counters.insertionAttempts++;
    // A new particle appears out of nowhere, so unlike a one-voxel move it could land inside a
    // hollow shell: it must lie above every frozen particle and clear of every active one. Near
    // an active particle it waits (that is no sign of a full box).
    this.footprint(s, this.candAx, this.candAy, this.candAz);
    const fx = this.footX, fy = this.footY;
    if (!this.clearOfActive(x, y, z, e, fx, fy)) return;
    const kernel = this.candVoxels !== 0;
    const free = z - e > this.frozenHeight(x, y, fx, fy) && (kernel
      ? this.kernelFree(s, x, y, z, this.candAx, this.candAy, this.candAz)
      : this.collisionFree(s, x, y, z, this.candAx, this.candAy, this.candAz, id));
    if (!free) {
      if (z === top) this.failures++;
      else this.roof++; // seed §3.6: raise the roof on a failed insertion
      return;
    }
    this.failures = 0;
    const i = this.count++;
    if (i >= this.px.length) this.growParticles(2 * this.px.length);
    this.px[i] = x;
    this.py[i] = y;
    this.pz[i] = z;
    // No position history yet (no centre is at x = -1): the next freezing check records it, so a
    // particle freezes only after a whole freezing interval in one place (seed §3.5: "if they have
    // not moved since the last time"). With the insertion as its history, a particle inserted a
    // few steps before a check that happened to come back to where it appeared (about 1 in 200 of
    // those inserted 10 steps before) froze in mid-air, the roof (the highest frozen top) jumped
    // 2e + 1 above the bed with it, and every later particle fell that much further: at 1024² x 256
    // the roof reached the box top with the bed at a third of it.
    this.hx[i] = -1;
    this.hy[i] = y;
    this.hz[i] = z;
    this.ax[i] = this.a0x[i] = this.candAx;
    this.ay[i] = this.a0y[i] = this.candAy;
    this.az[i] = this.a0z[i] = this.candAz;
    this.type[i] = this.candType;
    this.shape[i] = s;
    if (kernel) {
      // The run's thread's trial buffer holds the tested voxels: it becomes the particle's, the
      // candidate's buffer the next trial buffer.
      const ks = this.kernelShape[s]!, board = this.board!, row = this.kernelRow[s], trial = board.trial(0, row);
      this.kernels!.write(ks, 0, trial, this.candMask, 0, 0, 0);
      this.kVoxels[i] = trial;
      board.setTrial(0, row, this.candVoxels);
      this.kMask[i] = this.candMask;
      this.masks[i] = null;
      this.saved[i] = null;
      this.candVoxels = this.candMask = 0;
      this.kernelParticles++;
    } else {
      const trial = this.trial;
      const bias = this.selfBias[s];
      const mask = bias > 0 ? new Int32Array(selfMaskLength(bias)) : null;
      if (mask !== null) this.bits!.writeAllMarking(trial, n, x, y, z, e, mask, bias);
      else this.matrix.writeAll(trial, 0, n, x, y, z, e, id);
      if (this.o.savedRotations) {
        // The trial buffer becomes the particle's saved rotation (so accepted moves can swap
        // buffers instead of copying) unless it is much larger than this particle needs.
        if (trial.length <= 6 * n) {
          this.saved[i] = trial;
          this.trial = new Int32Array(trial.length);
        } else {
          this.saved[i] = trial.slice(0, 3 * n);
        }
      } else {
        this.saved[i] = null;
      }
      this.kVoxels[i] = this.kMask[i] = 0;
      this.masks[i] = mask;
    }
    if (this.activeCount >= this.active.length) this.active = grow(this.active, 2 * this.active.length);
    this.active[this.activeCount++] = i;
    const solid = this.shapes[s].solid.length / 3;
    this.solidVoxels += solid;
    this.typeAmount[this.candType] += this.params.mixture.basis === 'volume' ? solid : 1;
    this.candShape = -1;
  }

  /**
   * Sets footX, footY: the largest |x| and |y| of shape s's voxels at rotation (ax, ay, az), at most
   * its extent. The horizontal footprint of insertion (frozen heights, active particles): an upright
   * rod of 8 x 80 voxels is 9 columns wide, where its extent (a bounding radius of 41) made it 83,
   * and 3 such rods froze over a 128² floor: the box was 'full'.
   */
  private footprint(s: number, ax: number, ay: number, az: number): void {
    const e = this.extent[s], h = this.solidHalf, k = 3 * s;
    this.footX = Math.min(e, rotatedReach(h[k], h[k + 1], h[k + 2], ax, ay, az, 0));
    this.footY = Math.min(e, rotatedReach(h[k], h[k + 1], h[k + 2], ax, ay, az, 1));
  }

  /** Visits the height-map cells under the rectangle of half-widths (fx, fy) around column (x, y), periodic. */
  private cellsUnder(x: number, y: number, fx: number, fy: number, visit: (cell: number) => void): void {
    const c0x = Math.floor((x - fx) / HEIGHT_CELL), c1x = Math.floor((x + fx) / HEIGHT_CELL);
    const c0y = Math.floor((y - fy) / HEIGHT_CELL), c1y = Math.floor((y + fy) / HEIGHT_CELL);
    const hcx = this.hcx, hcy = this.hcy, nx = this.nx, ny = this.ny;
    for (let cy = c0y; cy <= Math.min(c1y, c0y + hcy - 1); cy++) {
      // Wrap through the column coordinate so that a partial last cell stays correct.
      const wy = Math.floor(((((cy * HEIGHT_CELL) % ny) + ny) % ny) / HEIGHT_CELL);
      for (let cx = c0x; cx <= Math.min(c1x, c0x + hcx - 1); cx++) {
        const wx = Math.floor(((((cx * HEIGHT_CELL) % nx) + nx) % nx) / HEIGHT_CELL);
        visit(wx + hcx * wy);
      }
    }
  }

  /** Highest frozen top under the footprint (half-widths fx, fy) of a particle at column (x, y). */
  private frozenHeight(x: number, y: number, fx: number, fy: number): number {
    let h = -1;
    this.cellsUnder(x, y, fx, fy, (c) => { if (this.heights[c] > h) h = this.heights[c]; });
    return h;
  }

  /**
   * True when a particle of extent e and footprint (fx, fy) at (x, y, z) clears every active particle
   * (periodic in x, y): their bounding spheres miss, or their boxes (footprint by 2 e + 1 high) do.
   */
  private clearOfActive(x: number, y: number, z: number, e: number, fx: number, fy: number): boolean {
    const nx = this.nx, ny = this.ny;
    for (let j = 0; j < this.activeCount; j++) {
      const i = this.active[j], s = this.shape[i];
      let dx = Math.abs(this.px[i] - x), dy = Math.abs(this.py[i] - y);
      if (dx > nx / 2) dx = nx - dx;
      if (dy > ny / 2) dy = ny - dy;
      const dz = this.pz[i] - z, r = e + this.extent[s] + 1;
      if (dx * dx + dy * dy + dz * dz >= r * r) continue;
      this.footprint(s, this.ax[i], this.ay[i], this.az[i]);
      if (dx > fx + this.footX || dy > fy + this.footY) continue;
      return false;
    }
    return true;
  }

  /**
   * Rotates shape s to (ax, ay, az) into the trial buffer, a chunk ahead of the test at (x, y, z)
   * with early exit (seed §3.4), so that a collision wastes little rotation.
   */
  private collisionFree(s: number, x: number, y: number, z: number, ax: number, ay: number, az: number, id: number): boolean {
    return this.collisionFreeBesides(s, x, y, z, ax, ay, az, id, null, null, 0, 0, 0);
  }

  /**
   * collisionFree of the insertion candidate in the SIMD kernels (its all-zero self mask; the
   * voxels go to the run's thread's trial buffer of the shape).
   */
  private kernelFree(s: number, x: number, y: number, z: number, ax: number, ay: number, az: number): boolean {
    const ks = this.kernelShape[s]!, c = this.counters;
    c.collisionTests++;
    const hit = this.kernels!.test(ks, this.board!.trial(0, this.kernelRow[s]), ax, ay, az, x, y, z, this.candMask, 0, 0, 0);
    c.voxelChecks += hit >= 0 ? hit + 1 : ks.n;
    return hit < 0;
  }

  /**
   * collisionFree, two extensions for moves. `rotated`: the voxels already rotated to (ax, ay, az)
   * (the saved ones, when the rotation did not change), tested without rotating. `mask` (bit
   * mode, the particle still in the matrix): its own voxels do not count, the move being
   * (dx, dy, dz) from them.
   */
  private collisionFreeBesides(
    s: number, x: number, y: number, z: number, ax: number, ay: number, az: number, id: number,
    rotated: Int32Array | null, mask: Int32Array | null, dx: number, dy: number, dz: number,
  ): boolean {
    const coords = this.packCoords[s], n = coords.length / 3, e = this.extent[s];
    const trial = this.trial, m = this.matrix, c = this.counters, tt = this.o.trigTables, fr = this.o.fastRounding;
    const bits = this.bits, bias = this.selfBias[s];
    c.collisionTests++;
    if (rotated !== null) {
      const hit = mask !== null ? bits!.firstHitBesides(rotated, 0, n, x, y, z, e, mask, bias, dx, dy, dz) : m.firstHit(rotated, 0, n, x, y, z, e, id);
      c.voxelChecks += hit >= 0 ? hit + 1 : n;
      return hit < 0;
    }
    if (tt && fr && bits !== null) {
      // Rotate and test voxel by voxel in one loop (-2: off the fast paths, chunks below).
      const hit = mask !== null
        ? rotateFirstHitBesides(bits, coords, trial, n, ax, ay, az, x, y, z, e, mask, bias, dx, dy, dz)
        : rotateFirstHit(bits, coords, trial, n, ax, ay, az, x, y, z, e);
      if (hit !== -2) {
        c.voxelChecks += hit >= 0 ? hit + 1 : n;
        return hit < 0;
      }
    }
    for (let from = 0; from < n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK);
      rotateRange(coords, trial, from, to, ax, ay, az, tt, fr);
      const hit = mask !== null ? bits!.firstHitBesides(trial, from, to, x, y, z, e, mask, bias, dx, dy, dz) : m.firstHit(trial, from, to, x, y, z, e, id);
      if (hit >= 0) {
        c.voxelChecks += hit + 1;
        return false;
      }
      c.voxelChecks += to - from;
    }
    return true;
  }

  private growParticles(n: number): void {
    this.kVoxels = grow(this.kVoxels, n); this.kMask = grow(this.kMask, n);
    this.px = grow(this.px, n); this.py = grow(this.py, n); this.pz = grow(this.pz, n);
    this.ax = grow(this.ax, n); this.ay = grow(this.ay, n); this.az = grow(this.az, n);
    this.a0x = grow(this.a0x, n); this.a0y = grow(this.a0y, n); this.a0z = grow(this.a0z, n);
    this.hx = grow(this.hx, n); this.hy = grow(this.hy, n); this.hz = grow(this.hz, n);
    this.type = grow(this.type, n); this.shape = grow(this.shape, n);
  }

  /** One move attempt of particle i in the JavaScript loops (seed Fig. 2; the kernels' are in mover.ts). */
  private move(i: number): void {
    const m = this.matrix, c = this.counters;
    const s = this.shape[i], n = this.packCoords[s].length / 3, e = this.extent[s];
    const [mx, my, mz] = this.params.mixture.types[this.type[i]].maxRotation, d = this.draw;
    const moves = drawMove(
      this.seed, i, c.steps, this.rebound, this.params.reboundRule === 'move', this.ax[i], this.ay[i], this.az[i], this.a0x[i], this.a0y[i], this.a0z[i],
      mx, my, mz, this.rotationStep[s], d,
    );
    if (!moves) {
      c.moveAttempts++;
      return;
    }
    const dx = d.dx, dy = d.dy, bx = d.ax, by = d.ay, bz = d.az;
    let nx = this.px[i] + dx;
    let ny = this.py[i] + dy;
    if (nx < 0) nx += this.nx; else if (nx >= this.nx) nx -= this.nx;
    if (ny < 0) ny += this.ny; else if (ny >= this.ny) ny -= this.ny;
    const nz = this.pz[i] + d.dz;
    const ox = this.px[i], oy = this.py[i], oz = this.pz[i], id = i + 1;
    c.moveAttempts++;

    const bitMode = m.kind === 'bit';
    const mask = this.masks[i], saved = this.saved[i];
    // Rotation unchanged (always so for a particle whose maximum rotation is 0): the saved voxels
    // (§3.2) are the new ones, moved as they are, without rotating.
    const kept = saved !== null && bx === this.ax[i] && by === this.ay[i] && bz === this.az[i] ? saved : null;
    if (mask !== null) {
      // Bit mode cannot tell the particle's own voxels from others' (§3.7); its self mask can, so
      // the move is tested before the particle is removed: a collision (most moves) costs no
      // removal and no write-back, and the same answer as removing first.
      if (!this.collisionFreeBesides(s, nx, ny, nz, bx, by, bz, id, kept, mask, dx, dy, nz - oz)) return;
      m.clearAll(this.currentVoxels(i), 0, n, ox, oy, oz, e, id);
    } else if (bitMode) {
      // No self mask (a particle as wide as the box across x or y may meet its own periodic image): remove it first.
      const current = this.currentVoxels(i);
      m.clearAll(current, 0, n, ox, oy, oz, e, id);
      if (!this.collisionFreeBesides(s, nx, ny, nz, bx, by, bz, id, kept, null, 0, 0, 0)) {
        m.writeAll(current, 0, n, ox, oy, oz, e, id); // collision: write it back
        return;
      }
    } else {
      // Id mode: the particle's own ids do not count, it is removed only after a successful test.
      if (!this.collisionFreeBesides(s, nx, ny, nz, bx, by, bz, id, kept, null, 0, 0, 0)) return;
      m.clearAll(this.currentVoxels(i), 0, n, ox, oy, oz, e, id);
    }
    if (kept !== null) {
      // Same voxels relative to the centre: the saved rotation and the self mask stay as they are.
      m.writeAll(kept, 0, n, nx, ny, nz, e, id);
      this.accept(i, nx, ny, nz, bx, by, bz);
      return;
    }
    const trial = this.trial;
    if (mask !== null) this.bits!.writeAllMarking(trial, n, nx, ny, nz, e, mask, this.selfBias[s]);
    else m.writeAll(trial, 0, n, nx, ny, nz, e, id);
    if (saved !== null) {
      // Keep the accepted rotation: swap buffers when they are interchangeable, else copy.
      if (saved.length === trial.length) {
        this.saved[i] = trial;
        this.trial = saved;
      } else {
        for (let k = 0, end = 3 * n; k < end; k++) saved[k] = trial[k];
      }
    }
    this.accept(i, nx, ny, nz, bx, by, bz);
  }

  /** Particle i's accepted move: its new centre and angles. */
  private accept(i: number, x: number, y: number, z: number, ax: number, ay: number, az: number): void {
    this.px[i] = x;
    this.py[i] = y;
    this.pz[i] = z;
    this.ax[i] = ax;
    this.ay[i] = ay;
    this.az[i] = az;
    this.counters.acceptedMoves++;
  }

  /** Particle i's current voxels: saved (§3.2), or rotated again into this.old. */
  private currentVoxels(i: number): Int32Array {
    const saved = this.saved[i];
    if (saved !== null) return saved;
    const s = this.shape[i];
    rotateRange(this.packCoords[s], this.old, 0, this.packCoords[s].length / 3, this.ax[i], this.ay[i], this.az[i], this.o.trigTables, this.o.fastRounding);
    return this.old;
  }

  /**
   * For a matrix larger than the kernels' window (bit-matrix.ts): keeps in the window every plane
   * a kernel particle's next moves (a phase of at most k time steps: k voxels on each axis) or the
   * next insertion may touch. The window moves up with the
   * roof, its bottom at the lowest kernel particle; a kernel particle that sinks below it (or
   * would be left below it, when the active particles span more than the window) continues in
   * the JavaScript loops (toJavaScript).
   */
  private keepWindow(k: number): void {
    const bits = this.bits!, nz = this.matrix.nz;
    let [z0, z1] = bits.windowPlanes();
    // An insertion reaches from the roof to the roof + 2e + 2 (without a rising roof: the top of
    // the box), and its particle then moves in the phase.
    const needTop = this.o.risingRoof ? Math.min(nz, this.roof + 2 * this.maxExtent + 2 + k) : nz;
    let lo = needTop - 2 * this.maxExtent - 2 - 2 * k, hi = 0;
    for (let j = 0; j < this.activeCount; j++) {
      const i = this.active[j];
      if (this.kVoxels[i] === 0) continue;
      const e = this.extent[this.shape[i]] + k;
      lo = Math.min(lo, this.pz[i] - e);
      hi = Math.max(hi, this.pz[i] + e + 1);
    }
    if (needTop > z1 || hi > z1) {
      // The bottom at the lowest particle (the most room above), unless the top must be higher.
      const unit = bits.planesPerUnit, height = z1 - z0, top = Math.max(needTop, hi);
      let first = Math.floor(Math.max(0, lo, top - height) / unit);
      if (first * unit + height < top) first++;
      const delta = bits.moveWindow(first);
      if (delta !== 0) {
        for (let j = 0; j < this.activeCount; j++) {
          const i = this.active[j], n = this.kernelShape[this.shape[i]]?.n ?? 0;
          if (this.kVoxels[i] !== 0) rebaseVoxels(this.kernels!.view(this.kVoxels[i], n), n, delta);
        }
        [z0, z1] = bits.windowPlanes();
      }
    }
    if (lo >= Math.max(z0, 0) || z0 === 0) return;
    for (let j = 0; j < this.activeCount; j++) {
      const i = this.active[j];
      if (this.kVoxels[i] !== 0 && this.pz[i] - this.extent[this.shape[i]] - k < z0) this.toJavaScript(i);
    }
  }

  /**
   * Particle i leaves the kernels: its voxels, read back from the matrix addresses the kernels
   * hold (not rotated again: the kernels' single-precision rotation may round otherwise), become
   * its saved rotation, its self mask an ordinary array (the same layout).
   */
  private toJavaScript(i: number): void {
    const s = this.shape[i], ks = this.kernelShape[s]!, n = ks.n, k = this.kernels!;
    const voxels = k.view(this.kVoxels[i], voxelWords(n)), mask = k.view(this.kMask[i], ks.maskBytes / 4), block = voxelWords(n) / 3;
    const saved = new Int32Array(3 * n), v = new Int32Array(3), nx = this.nx, ny = this.ny;
    for (let j = 0; j < n; j++) {
      this.bits!.voxelOfWindowWord(voxels[j] >> 2, voxels[block + j], v);
      // Relative to the centre, unwrapped across the periodic x/y edges.
      let rx = v[0] - this.px[i], ry = v[1] - this.py[i];
      if (rx > nx / 2) rx -= nx; else if (rx < -nx / 2) rx += nx;
      if (ry > ny / 2) ry -= ny; else if (ry < -ny / 2) ry += ny;
      saved[3 * j] = rx;
      saved[3 * j + 1] = ry;
      saved[3 * j + 2] = v[2] - this.pz[i];
    }
    this.saved[i] = saved;
    this.masks[i] = mask.slice();
    this.releaseKernelState(i);
    this.movedToJavaScript++;
  }

  /** Returns particle i's voxel buffer and self mask to the kernels' heap. */
  private releaseKernelState(i: number): void {
    const ks = this.kernelShape[this.shape[i]]!, k = this.kernels!;
    k.releaseVoxels(this.kVoxels[i], ks.n);
    k.releaseBytes(this.kMask[i], ks.maskBytes);
    this.kVoxels[i] = this.kMask[i] = 0;
  }

  /** Seed §3.5: freeze the particles that have not moved since the last check. */
  private freeze(): void {
    let k = 0;
    for (let j = 0; j < this.activeCount; j++) {
      const i = this.active[j];
      if (this.px[i] === this.hx[i] && this.py[i] === this.hy[i] && this.pz[i] === this.hz[i]) {
        if (this.kVoxels[i] !== 0) this.releaseKernelState(i);
        this.saved[i] = null;
        this.masks[i] = null;
        const s = this.shape[i], top = this.pz[i] + this.extent[s];
        this.frozenTop = Math.max(this.frozenTop, top);
        this.footprint(s, this.ax[i], this.ay[i], this.az[i]);
        this.cellsUnder(this.px[i], this.py[i], this.footX, this.footY, (c) => { if (this.heights[c] < top) this.heights[c] = top; });
        this.roof = Math.max(this.roof, this.frozenTop);
        continue;
      }
      this.hx[i] = this.px[i];
      this.hy[i] = this.py[i];
      this.hz[i] = this.pz[i];
      this.active[k++] = i;
    }
    this.activeCount = k;
  }

  private shouldStopInserting(): StopReason | null {
    const st = this.params.stop;
    if (st.particles > 0 && this.count >= st.particles) return 'particles';
    if (st.solidFraction > 0 && this.solidVoxels >= st.solidFraction * this.nx * this.ny * this.nz) return 'solidFraction';
    // Full: this many insertions in a row failed at the very top of the box.
    if (this.failures >= this.params.insertionTries) return 'full';
    return null;
  }

  /**
   * One time step, or a phase of several (mover.ts) when only kernel particles move and no
   * insertion, freezing check or end comes between them; false once the packing is finished.
   */
  step(): boolean {
    if (this.stopReason !== null && !this.inserting && this.activeCount === 0) return false;
    const c = this.counters, bound = this.phaseBound();
    if (this.kernels !== null && this.bits!.windowed) this.keepWindow(bound);
    if (this.inserting) {
      const reason = this.shouldStopInserting();
      if (reason !== null) {
        this.stopReason = reason;
        this.inserting = false;
        if (!this.params.stop.settle) return false;
      } else if (c.steps % this.params.insertionInterval === 0) {
        this.tryInsert();
      }
    }
    if (!this.inserting && this.activeCount === 0) return false;
    const steps = this.phaseLength(bound);
    // The kernel particles colour by colour, on every thread (mover.ts); then the others, here.
    if (this.board !== null) this.moveKernelParticles(steps);
    if (steps === 1) {
      for (let j = 0; j < this.activeCount; j++) {
        const i = this.active[j];
        if (this.kVoxels[i] === 0) this.move(i);
      }
    }
    c.steps += steps;
    if (c.steps % this.params.freezingInterval === 0) this.freeze();
    if (c.steps >= this.params.stop.maxSteps) {
      if (this.stopReason === null) this.stopReason = 'maxSteps';
      return false;
    }
    return true;
  }

  /**
   * Time steps from this one the kernel particles may move in one phase (mover.ts), as far as the
   * step count tells: up to the board's phaseSteps, stopping before the next insertion, after the
   * next freezing check and at maxSteps.
   */
  private phaseBound(): number {
    const board = this.board, c = this.counters;
    if (board === null || board.phaseSteps === 1 || this.stepByStep) return 1;
    const f = this.params.freezingInterval, n = this.params.insertionInterval;
    let steps = Math.min(board.phaseSteps, this.params.stop.maxSteps - c.steps, f - (c.steps % f));
    if (this.inserting) steps = Math.min(steps, n - (c.steps % n));
    return Math.max(1, steps);
  }

  /**
   * This phase's time steps, at most `bound` (phaseBound), after this step's insertion: one when
   * particles of the JavaScript loops move too (they move step by step after the kernel particles)
   * or when inserting stops at the next step.
   */
  private phaseLength(bound: number): number {
    if (bound === 1) return 1;
    for (let j = 0; j < this.activeCount; j++) if (this.kVoxels[this.active[j]] === 0) return 1;
    return this.inserting && this.shouldStopInserting() !== null ? 1 : bound;
  }

  /** The moves of the kernel particles in time steps from this one, on the board (mover.ts). */
  private moveKernelParticles(steps: number): void {
    let count = 0;
    if (this.kernelList.length < this.activeCount) this.kernelList = new Int32Array(this.active.length);
    const list = this.kernelList;
    for (let j = 0; j < this.activeCount; j++) {
      const i = this.active[j];
      if (this.kVoxels[i] !== 0) list[count++] = i;
    }
    if (count === 0) return;
    const grid = this.board!.grid, types = this.params.mixture.types;
    const r = this.board!.run(
      this.counters.steps, steps, this.kernels!.zOrigin, count,
      (k) => grid.cellX[this.px[list[k]]] + grid.cx * grid.cellY[this.py[list[k]]],
      (slots, o, k) => {
        const i = list[k], rot = types[this.type[i]].maxRotation;
        slots[o + F.particle] = i;
        slots[o + F.x] = this.px[i];
        slots[o + F.y] = this.py[i];
        slots[o + F.z] = this.pz[i];
        slots[o + F.ax] = this.ax[i];
        slots[o + F.ay] = this.ay[i];
        slots[o + F.az] = this.az[i];
        slots[o + F.a0x] = this.a0x[i];
        slots[o + F.a0y] = this.a0y[i];
        slots[o + F.a0z] = this.a0z[i];
        slots[o + F.shape] = this.kernelRow[this.shape[i]];
        slots[o + F.voxels] = this.kVoxels[i];
        slots[o + F.mask] = this.kMask[i];
        slots[o + F.mx] = rot[0];
        slots[o + F.my] = rot[1];
        slots[o + F.mz] = rot[2];
      },
      (slots, o, k) => {
        const i = list[k];
        this.px[i] = slots[o + F.x];
        this.py[i] = slots[o + F.y];
        this.pz[i] = slots[o + F.z];
        this.ax[i] = slots[o + F.ax];
        this.ay[i] = slots[o + F.ay];
        this.az[i] = slots[o + F.az];
        this.kVoxels[i] = slots[o + F.voxels];
      },
    );
    const c = this.counters;
    c.moveAttempts += count * steps;
    c.collisionTests += r.tests;
    c.acceptedMoves += r.accepted;
    c.voxelChecks += r.checks;
  }

  /**
   * The packer's whole state between two time steps, for a checkpoint (EngineContext.checkpoints):
   * the matrix, the particles, the active particles' voxels and self masks (the kernels' or the
   * JavaScript loops'), the insertion candidate, the roof and height map, the counters and the
   * generator's state. restore() continues from it exactly as this packer would.
   */
  checkpoint(): Checkpoint {
    const n = this.count, act = this.activeCount, k = this.kernels;
    const arrays: Checkpoint['arrays'] = {};
    this.matrix.saveSlabs().forEach((slab, i) => { arrays[`slab${i}`] = new Uint8Array(slab.buffer, slab.byteOffset, slab.byteLength); });
    for (const [name, a] of Object.entries({ px: this.px, py: this.py, pz: this.pz, ax: this.ax, ay: this.ay, az: this.az, a0x: this.a0x, a0y: this.a0y, a0z: this.a0z, type: this.type, shape: this.shape, hx: this.hx, hy: this.hy, hz: this.hz })) {
      arrays[name] = a.slice(0, n);
    }
    arrays.active = this.active.slice(0, act);
    arrays.heights = this.heights;
    arrays.typeAmount = this.typeAmount;
    arrays.rng = this.rng.getState();
    // Per active particle, in active order: its kernel voxels and mask, or its saved voxels and mask.
    const kernel = new Uint8Array(act), parts: Int32Array[] = [];
    for (let j = 0; j < act; j++) {
      const i = this.active[j], s = this.shape[i];
      if (this.kVoxels[i] !== 0) {
        const ks = this.kernelShape[s]!;
        kernel[j] = 1;
        parts.push(k!.view(this.kVoxels[i], voxelWords(ks.n)), k!.view(this.kMask[i], ks.maskBytes / 4));
      } else {
        parts.push(this.saved[i] ?? new Int32Array(0), this.masks[i] ?? new Int32Array(0));
      }
    }
    arrays.kernel = kernel;
    arrays.lengths = Int32Array.from(parts, (p) => p.length);
    const all = new Int32Array(parts.reduce((t, p) => t + p.length, 0));
    let at = 0;
    for (const p of parts) { all.set(p, at); at += p.length; }
    arrays.voxels = all;
    return {
      meta: {
        counters: { ...this.counters }, count: n, kernelParticles: this.kernelParticles, movedToJavaScript: this.movedToJavaScript,
        solidVoxels: this.solidVoxels, roof: this.roof, frozenTop: this.frozenTop, failures: this.failures, inserting: this.inserting,
        stopReason: this.stopReason, shapes: this.shapeType.map((t, s) => [t, this.shapeSizeVoxels[s]]),
        candidate: [this.candType, this.candShape, this.candAx, this.candAy, this.candAz],
        windowUnit: this.bits?.windowed ? this.bits.windowUnit : 0,
      },
      arrays,
    };
  }

  /** Continues from a checkpoint() of a packer of the same parameters and seed (on any thread count: the moves do not depend on it). */
  restore(c: Checkpoint): void {
    const m = c.meta as ReturnType<Packer['checkpoint']>['meta'] & { shapes: [number, number][]; candidate: number[]; counters: PackerCounters; stopReason: StopReason | null };
    const a = c.arrays;
    if (this.count !== 0 || this.shapes.length !== 0) throw new Error('restore: the packer has already packed');
    // The shapes in their first order (their kernel rows and heap blocks follow from it).
    for (const [type, size] of m.shapes) this.shapeFor(type, size);
    const n = m.count as number;
    if (n > this.px.length) this.growParticles(Math.max(n, 256));
    for (const name of ['px', 'py', 'pz', 'ax', 'ay', 'az', 'a0x', 'a0y', 'a0z', 'type', 'shape', 'hx', 'hy', 'hz'] as const) {
      (this[name as 'px'] as Int32Array).set(a[name] as Int32Array);
    }
    this.count = n;
    // The window where it was: the kernel particles' matrix addresses are relative to it.
    if (this.bits?.windowed) this.bits.moveWindow(m.windowUnit as number);
    const slabs: ArrayBufferView[] = [];
    for (let i = 0; `slab${i}` in a; i++) slabs.push(a[`slab${i}`]);
    this.matrix.loadSlabs(slabs);
    const active = a.active as Int32Array, kernel = a.kernel as Uint8Array, lengths = a.lengths as Int32Array, voxels = a.voxels as Int32Array;
    if (active.length > this.active.length) this.active = new Int32Array(2 * active.length);
    this.active.set(active);
    this.activeCount = active.length;
    let at = 0;
    for (let j = 0; j < active.length; j++) {
      const i = active[j], s = this.shape[i], v = voxels.subarray(at, at + lengths[2 * j]), mask = voxels.subarray(at + lengths[2 * j], at + lengths[2 * j] + lengths[2 * j + 1]);
      at += lengths[2 * j] + lengths[2 * j + 1];
      if (kernel[j] === 1) {
        const k = this.kernels!, ks = this.kernelShape[s]!;
        this.kVoxels[i] = k.allocVoxels(ks.n);
        this.kMask[i] = k.allocBytes(ks.maskBytes);
        if (this.kVoxels[i] === 0 || this.kMask[i] === 0) throw new Error('restore: no room in the kernels\' heap');
        k.view(this.kVoxels[i], v.length).set(v);
        k.view(this.kMask[i], mask.length).set(mask);
      } else {
        this.saved[i] = v.length > 0 ? v.slice() : null;
        this.masks[i] = mask.length > 0 ? mask.slice() : null;
      }
    }
    this.heights.set(a.heights as Int32Array);
    this.typeAmount.set(a.typeAmount as Float64Array);
    this.rng.setState(a.rng as Uint32Array);
    Object.assign(this.counters, m.counters);
    this.kernelParticles = m.kernelParticles as number;
    this.movedToJavaScript = m.movedToJavaScript as number;
    this.solidVoxels = m.solidVoxels as number;
    this.roof = m.roof as number;
    this.frozenTop = m.frozenTop as number;
    this.failures = m.failures as number;
    this.inserting = m.inserting as boolean;
    this.stopReason = m.stopReason;
    const [candType, candShape, candAx, candAy, candAz] = m.candidate;
    this.candType = candType;
    this.candShape = candShape;
    this.candAx = candAx;
    this.candAy = candAy;
    this.candAz = candAz;
    const ks = candShape >= 0 ? this.kernelShape[candShape] : null;
    if (ks !== null && this.kernels !== null) {
      // As nextCandidate: the kernels insert it when there is room for its state.
      const k = this.kernels, v = k.allocVoxels(ks.n), mask = v !== 0 ? k.allocBytes(ks.maskBytes) : 0;
      if (v !== 0 && mask !== 0) {
        this.candVoxels = v;
        this.candMask = mask;
      } else if (v !== 0) {
        k.releaseVoxels(v, ks.n);
      }
    }
  }

  /** Stops as cancelled (the caller saw ctx.cancelled()). */
  cancel(): void {
    this.stopReason = 'cancelled';
    this.inserting = false;
  }

  /**
   * Stops as at maxSteps, by the user (the caller saw ctx.stopRequested()): no more insertions, the
   * moving particles stay where they are, and the packing is finalised as a finished one.
   */
  stopByUser(): void {
    this.stopReason = 'stopped';
    this.inserting = false;
  }
}
