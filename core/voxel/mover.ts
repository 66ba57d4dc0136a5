/**
 * Moving the SIMD kernels' particles on several threads (issue 19, "all cores in one run").
 *
 * The x–y plane is cut into cells (cellGrid) at least as wide as the largest particle's reach in a
 * phase of k time steps (2e + 2k) plus a matrix word's width less one, and the cells are coloured
 * like a chess board in x and in y (up to four colours): two cells of one colour are a whole cell
 * apart, so the moves of their particles touch no common voxel and no common matrix word, and may
 * run at once without atomics. A phase moves a colour's particles for up to k time steps
 * (phaseSteps: as many as keep at least 4 cells along an axis), one step after the other within a
 * cell, so that the threads meet at a barrier once per colour every k steps, not every step; the
 * packer ends a phase early where an insertion, a freezing check or the end must come between two
 * steps. At each phase the run's thread lists the active kernel particles by colour and cell
 * (the *slots*, in the order of the active list within a cell), then for each colour all threads
 * take that colour's cells that hold particles one by one (an atomic counter) and move their
 * particles, and wait for each other (a barrier) before the next colour; a colour the run's
 * thread moves alone it moves without atomics. Insertion, freezing and the particles the
 * JavaScript loops move stay on the run's thread, between the colours' phases.
 *
 * Every move draws its randomness from (seed, particle, time step) (core/common/random streamKey),
 * not from a sequence, and a cell's particles move in a fixed order, so a packing does not depend
 * on which thread moved which cell: it is the same for every thread count, one included.
 *
 * The threads share everything through the kernels' WebAssembly.Memory (a SharedArrayBuffer): the
 * matrix or its window, every particle's voxels and self mask, and the *board* allocated in its
 * heap by the run's thread: a control block (phase counter, cell counter, barrier, the step, where
 * the other parts are), the slots, the busy cells (those holding particles: first and end slot), a
 * table of shapes, each thread's trial buffer per shape and each thread's counters. Helper threads get the memory, the board's address
 * and their index (voxelHelper, run through EngineContext.startHelpers).
 */
import { streamDraw, streamKey } from '../common/random';
import { wrapDegrees } from './rotation';
import { WasmKernels, type KernelLayout } from './wasm-kernels';

/** Int32 slots of the control block. */
const C = {
  /** Incremented to start a phase (helpers wait on it). */
  phase: 0,
  /** Next busy cell to take, and the end of the phase's busy cells. */
  claim: 1,
  end: 2,
  /** Helpers done with the phase. */
  done: 3,
  /** 1: helpers return. */
  quit: 4,
  /** The time step (for the draws). */
  step: 5,
  /** Incremented when the board's parts moved (helpers re-read them). */
  generation: 6,
  /** The first z-plane of the kernels' matrix words (the window). */
  zOrigin: 7,
  /** Byte offsets of the board's parts. */
  slots: 8,
  busy: 9,
  shapes: 10,
  trials: 11,
  counters: 12,
  shapeCapacity: 13,
  threads: 14,
  /** The seed's key (core/common/random streamKey) and the rebound probability · 2^32. */
  seed: 15,
  rebound: 16,
  /** 1: reboundRule 'move' (drawMove's stayUnlessRebound). */
  stay: 17,
  /** Time steps of the current phase (step .. step + steps - 1). */
  steps: 18,
} as const;
const CONTROL_WORDS = 32;

/** Int32 fields of a slot: one move of one particle. */
const SLOT = 16;
const S = { particle: 0, x: 1, y: 2, z: 3, ax: 4, ay: 5, az: 6, a0x: 7, a0y: 8, a0z: 9, shape: 10, voxels: 11, mask: 12, mx: 13, my: 14, mz: 15 } as const;

/** Int32 fields of a shape of the table. */
const SHAPE = 8;
const K = { n: 0, e: 1, b: 2, ms: 3, blocks: 4, step: 5, maskBytes: 6 } as const;

/** Int32 counters per thread, per time step. */
const COUNTERS = 4;
const N = { tests: 0, accepted: 1, checks: 2 } as const;

/**
 * Spins on a shared word this many times before sleeping on it: about 140 µs (an Atomics.load in
 * this loop costs ~7 ns on the 2-core VM), longer than the gap between two colours of a phase, so
 * that a thread is still awake when the next phase starts. 2,000 (~14 µs) halved the CPU time of a
 * two-thread run on a machine loaded by other work (the spinning kept the awaited thread off the
 * cores), but on an idle one the threads then slept between phases and waited to be woken: the
 * standard set (voxel-scale --only standard, 400³) packed in 6.8-8.9 s on 2 threads instead of
 * 5.4 s (speed-up 1.15-1.26 instead of 1.46); a packing run is what the machine is for.
 */
const SPINS = 20000;
/**
 * A colour phase of fewer moves than this (particles × time steps), or of one busy cell (one
 * thread moves a cell), is moved by the run's thread alone: waking the helpers costs about as much
 * as a few moves (which thread moves a cell does not change the packing).
 */
const MIN_PARALLEL_MOVES = 8;
/** The run gives up on helper threads that have not finished a phase in this long. */
const HELPER_TIMEOUT_MS = 120_000;

/** The move of one particle: its displacement and its new angles. */
export interface Move {
  dx: number;
  dy: number;
  dz: number;
  ax: number;
  ay: number;
  az: number;
}

/**
 * The random part of one move attempt of particle i at a time step (seed §2.2): ±1 voxel on x and
 * on y, on z down or (kept with the rebound probability) up, and each angle changed by at most
 * ±step degrees within ±max of its initial angle (max 180 = free, 0 = fixed). `rebound` is the
 * probability · 2^32. An upward component that is not kept is dropped (the particle moves in x
 * and y only), or with `stayUnlessRebound` (reboundRule 'move') the whole move is: false is
 * returned and the particle stays where it is this time step, untested.
 */
export function drawMove(
  seed: number, i: number, step: number, rebound: number, stayUnlessRebound: boolean,
  ax: number, ay: number, az: number, a0x: number, a0y: number, a0z: number,
  mx: number, my: number, mz: number, rotationStep: number, out: Move,
): boolean {
  const key = streamKey(seed, i, step), bits = streamDraw(key, 0);
  out.dx = (bits & 1) !== 0 ? 1 : -1;
  out.dy = (bits & 2) !== 0 ? 1 : -1;
  out.dz = (bits & 4) !== 0 ? (streamDraw(key, 1) < rebound ? 1 : 0) : -1;
  if (out.dz === 0 && stayUnlessRebound) return false;
  out.ax = drawAngle(ax, a0x, mx, rotationStep, streamDraw(key, 2));
  out.ay = drawAngle(ay, a0y, my, rotationStep, streamDraw(key, 3));
  out.az = drawAngle(az, a0z, mz, rotationStep, streamDraw(key, 4));
  return true;
}

/** A rotation step of at most ±step degrees from a, kept within ±max of a0, from a uniform 32-bit draw. */
function drawAngle(a: number, a0: number, max: number, step: number, draw: number): number {
  if (max === 0) return a0;
  let next = a + Math.floor((draw * (2 * step + 1)) / 4294967296) - step;
  if (max < 180) {
    let d = wrapDegrees(next - a0);
    if (d >= 180) d -= 360;
    if (d > max) next = a0 + max;
    else if (d < -max) next = a0 - max;
  }
  return wrapDegrees(next);
}

/**
 * Cells of the x–y plane for the colour phases: per axis an even number of cells (periodic: a
 * chess board needs one) at least `width` voxels wide, or one cell when the box is too narrow for
 * two. Colour of cell (i, j): (i & 1) + 2 (j & 1) (fewer colours along an axis of one cell).
 */
export interface CellGrid {
  /** Cells along x and y, and the colours. */
  cx: number;
  cy: number;
  colours: number;
  /** cellX[x], cellY[y]: the cell column and row of a voxel. */
  cellX: Int32Array;
  cellY: Int32Array;
}

export function cellGrid(nx: number, ny: number, widthX: number, widthY: number): CellGrid {
  const along = (n: number, w: number): number => {
    const k = Math.floor(n / w) & ~1;
    return k >= 2 ? k : 1;
  };
  const cx = along(nx, widthX), cy = along(ny, widthY);
  const cellX = new Int32Array(nx), cellY = new Int32Array(ny);
  for (let x = 0; x < nx; x++) cellX[x] = Math.floor((x * cx) / nx);
  for (let y = 0; y < ny; y++) cellY[y] = Math.floor((y * cy) / ny);
  return { cx, cy, colours: (cx > 1 ? 2 : 1) * (cy > 1 ? 2 : 1), cellX, cellY };
}

/**
 * The smallest cell width along x and y for particles of extent e moved k time steps in a phase:
 * their voxels (within e + k of the centre at the phase's start) of two cells of one colour, a
 * cell apart, then never meet, nor share a matrix word (wordX × wordY voxels: 32 × 1 in rows,
 * 8 × 4 in bricks).
 */
export function cellWidths(e: number, layout: 'rows' | 'bricks', k = 1): [number, number] {
  const reach = 2 * (e + k) + 1;
  return layout === 'rows' ? [reach + 31, reach] : [reach + 7, reach + 3];
}

/** Longest phase (time steps) tried. */
const MAX_PHASE_STEPS = 10;
/** A longer phase may cost cells, down to this many along an axis (fewer cells: less for the threads to share). */
const MIN_CELLS = 4;

/**
 * Time steps a phase may hold for particles of extent e in an nx × ny box: the most (up to
 * MAX_PHASE_STEPS) whose wider cells leave at least MIN_CELLS cells along each axis, or as many as
 * phases of one step would (when those are fewer).
 */
export function phaseSteps(nx: number, ny: number, e: number, layout: 'rows' | 'bricks'): number {
  const cellsOf = (k: number) => {
    const [wx, wy] = cellWidths(e, layout, k), g = cellGrid(nx, ny, wx, wy);
    return [g.cx, g.cy];
  };
  const [bx, by] = cellsOf(1);
  for (let k = MAX_PHASE_STEPS; k > 1; k--) {
    const [cx, cy] = cellsOf(k);
    if (cx >= Math.min(bx, MIN_CELLS) && cy >= Math.min(by, MIN_CELLS)) return k;
  }
  return 1;
}

/** What a helper thread needs to join the moves: the memory, the board and the kernels' layout. */
export interface HelperData {
  memory: WebAssembly.Memory;
  board: number;
  thread: number;
  nx: number;
  ny: number;
  windowBytes: number;
  layout: KernelLayout;
  scratch: number;
}

/**
 * One thread's side of the moves: its own kernels instance (its scratch), views of the board,
 * and the loop that takes cells and moves their particles.
 */
class Mover {
  private ctl!: Int32Array;
  private slots!: Int32Array;
  private busy!: Int32Array;
  private shapes!: Int32Array;
  private trials!: Int32Array;
  private counters!: Int32Array;
  private generation = -1;
  private readonly move: Move = { dx: 0, dy: 0, dz: 0, ax: 0, ay: 0, az: 0 };

  constructor(private readonly kernels: WasmKernels, private readonly board: number, readonly thread: number) {
    this.refresh();
  }

  /** Views of the board's parts, made again when they moved (or the memory grew). */
  refresh(): void {
    const buffer = this.kernels.memory.buffer;
    if (this.ctl === undefined || this.ctl.buffer !== buffer) {
      this.ctl = new Int32Array(buffer, this.board, CONTROL_WORDS);
      this.generation = -1;
    }
    const g = Atomics.load(this.ctl, C.generation);
    if (g === this.generation) return;
    this.generation = g;
    const c = this.ctl;
    const view = (at: number) => new Int32Array(buffer, c[at]);
    this.slots = view(C.slots);
    this.busy = view(C.busy);
    this.shapes = view(C.shapes);
    this.trials = view(C.trials);
    this.counters = view(C.counters);
  }

  /**
   * Takes busy cells of the phase until none is left and moves their particles; `alone` (the
   * run's thread, the helpers asleep): all of them in order, without atomics.
   */
  work(alone = false): void {
    const ctl = this.ctl, busy = this.busy, end = Atomics.load(ctl, C.end);
    this.kernels.zOrigin = Atomics.load(ctl, C.zOrigin);
    const step = Atomics.load(ctl, C.step), steps = Atomics.load(ctl, C.steps), seed = Atomics.load(ctl, C.seed), rebound = Atomics.load(ctl, C.rebound) >>> 0;
    const stay = Atomics.load(ctl, C.stay) === 1;
    if (alone) {
      for (let cell = Atomics.load(ctl, C.claim); cell < end; cell++) this.moveCell(busy[2 * cell], busy[2 * cell + 1], step, steps, seed, rebound, stay);
      return;
    }
    for (let cell = Atomics.add(ctl, C.claim, 1); cell < end; cell = Atomics.add(ctl, C.claim, 1)) {
      this.moveCell(busy[2 * cell], busy[2 * cell + 1], step, steps, seed, rebound, stay);
    }
  }

  /** The phase's time steps of the particles in slots first .. last - 1 (one cell), step by step. */
  private moveCell(first: number, last: number, step: number, steps: number, seed: number, rebound: number, stay: boolean): void {
    for (let t = step, end = step + steps; t < end; t++) {
      for (let q = first; q < last; q++) this.moveSlot(q, t, seed, rebound, stay);
    }
  }

  /** One move attempt of the particle in slot q (seed Fig. 2), tested before removal with its self mask. */
  private moveSlot(q: number, step: number, seed: number, rebound: number, stay: boolean): void {
    const s = this.slots, o = q * SLOT, shape = s[o + S.shape], t = this.shapes, k = shape * SHAPE;
    const n = t[k + K.n], m = this.move;
    const moves = drawMove(
      seed, s[o + S.particle], step, rebound, stay, s[o + S.ax], s[o + S.ay], s[o + S.az], s[o + S.a0x], s[o + S.a0y], s[o + S.a0z],
      s[o + S.mx], s[o + S.my], s[o + S.mz], t[k + K.step], m,
    );
    if (!moves) return;
    const nx = this.kernels.nx, ny = this.kernels.ny;
    let x = s[o + S.x] + m.dx, y = s[o + S.y] + m.dy;
    if (x < 0) x += nx; else if (x >= nx) x -= nx;
    if (y < 0) y += ny; else if (y >= ny) y -= ny;
    const z = s[o + S.z] + m.dz, mask = s[o + S.mask], trialAt = this.thread * Atomics.load(this.ctl, C.shapeCapacity) + shape;
    const trial = this.trials[trialAt], counters = this.counters, co = this.thread * COUNTERS;
    const hit = this.kernels.testAt(n, t[k + K.e], t[k + K.b], t[k + K.ms], t[k + K.blocks], trial, m.ax, m.ay, m.az, x, y, z, mask, m.dx, m.dy, m.dz);
    counters[co + N.tests]++;
    counters[co + N.checks] += hit >= 0 ? hit + 1 : n;
    if (hit >= 0) return;
    const voxels = s[o + S.voxels];
    this.kernels.writeAt(n, voxels, trial, mask, t[k + K.maskBytes], t[k + K.ms], m.dx, m.dy, m.dz);
    // The tested voxels are the particle's now; its old buffer is this thread's next trial buffer.
    s[o + S.voxels] = trial;
    this.trials[trialAt] = voxels;
    s[o + S.x] = x;
    s[o + S.y] = y;
    s[o + S.z] = z;
    s[o + S.ax] = m.ax;
    s[o + S.ay] = m.ay;
    s[o + S.az] = m.az;
    counters[co + N.accepted]++;
  }
}

/** Waits (spinning first, then sleeping) until ctl[at] is no longer `value`, or until the deadline (ms since the epoch). */
function waitWhile(ctl: Int32Array, at: number, value: number, deadline = Infinity): void {
  for (let i = 0; i < SPINS; i++) if (Atomics.load(ctl, at) !== value) return;
  while (Atomics.load(ctl, at) === value && Date.now() < deadline) Atomics.wait(ctl, at, value, 1000);
}

/** The body of a helper thread: joins every phase until told to quit. */
export function voxelHelper(data: HelperData): void {
  const kernels = new WasmKernels(data.nx, data.ny, data.windowBytes, data.layout, data.memory, data.scratch);
  const mover = new Mover(kernels, data.board, data.thread);
  const ctl = new Int32Array(data.memory.buffer, data.board, CONTROL_WORDS);
  let phase = 0;
  for (;;) {
    waitWhile(ctl, C.phase, phase);
    phase = Atomics.load(ctl, C.phase);
    if (Atomics.load(ctl, C.quit) === 1) return;
    mover.refresh();
    mover.work();
    Atomics.add(ctl, C.done, 1);
    Atomics.notify(ctl, C.done);
  }
}

/** A particle for the board: what a slot holds. */
export interface SlotParticle {
  i: number;
  x: number;
  y: number;
  z: number;
  ax: number;
  ay: number;
  az: number;
}

/**
 * The run's side: the board in the kernels' heap, the schedule of a time step, the phases, and
 * the helpers' part of the counters.
 */
export class MoveBoard {
  readonly threads: number;
  /** Colour phases the helpers joined (a colour with few particles is moved by the run's thread alone). */
  parallelPhases = 0;
  private readonly ctl: Int32Array;
  private readonly main: Mover;
  private slotCapacity = 0;
  private cellCount: number;
  private shapeCapacity = 0;
  private shapeCount = 0;
  /** Per-thread scratch blocks of the helpers' kernels instances. */
  readonly scratch: number[] = [];
  /** Per colour: its first cell in the schedule (cells are listed colour by colour). */
  private readonly colourStart: Int32Array;
  /** Schedule work arrays (run's thread only). */
  private order = new Int32Array(0);
  private place = new Int32Array(0);
  /** Per colour: its first busy cell this time step. */
  private readonly colourBusy: Int32Array;
  private readonly cellCounts: Int32Array;

  /**
   * `grid`: cells wide enough for phases of `phaseSteps` time steps (cellWidths); run() may
   * be asked for fewer.
   */
  constructor(
    private readonly kernels: WasmKernels, readonly grid: CellGrid, readonly phaseSteps: number, threads: number, seed: number, reboundProbability: number, stayUnlessRebound: boolean,
  ) {
    this.threads = threads;
    const ctlOffset = kernels.allocBytes(4 * CONTROL_WORDS);
    this.ctl = new Int32Array(kernels.memory.buffer, ctlOffset, CONTROL_WORDS);
    this.ctl[C.threads] = threads;
    this.ctl[C.seed] = seed;
    this.ctl[C.rebound] = Math.min(4294967295, Math.floor(reboundProbability * 4294967296)) | 0;
    this.ctl[C.stay] = stayUnlessRebound ? 1 : 0;
    const cells = grid.cx * grid.cy;
    this.cellCount = cells;
    // Cells listed colour by colour; within a colour row by row.
    this.colourStart = new Int32Array(grid.colours + 1);
    const rankOf = new Int32Array(cells);
    let r = 0;
    for (let colour = 0; colour < grid.colours; colour++) {
      this.colourStart[colour] = r;
      for (let j = 0; j < grid.cy; j++) for (let i = 0; i < grid.cx; i++) {
        if (this.colourOf(i, j) === colour) rankOf[i + grid.cx * j] = r++;
      }
    }
    this.colourStart[grid.colours] = r;
    this.cellRank = rankOf;
    this.cellCounts = new Int32Array(cells);
    this.colourBusy = new Int32Array(grid.colours + 1);
    this.ctl[C.busy] = kernels.allocBytes(4 * 2 * cells);
    this.ctl[C.counters] = kernels.allocBytes(4 * COUNTERS * threads);
    for (let t = 1; t < threads; t++) this.scratch.push(kernels.allocScratch());
    this.growSlots(256);
    this.growShapes(8);
    this.main = new Mover(kernels, ctlOffset, 0);
    this.boardOffset = ctlOffset;
  }

  /** The board's address (for the helpers). */
  readonly boardOffset: number;
  /** cellRank[cell]: its place in the schedule. */
  private readonly cellRank: Int32Array;

  private colourOf(i: number, j: number): number {
    return (this.grid.cx > 1 ? i & 1 : 0) + (this.grid.cx > 1 ? 2 : 1) * (this.grid.cy > 1 ? j & 1 : 0);
  }

  private growSlots(capacity: number): void {
    if (this.slotCapacity > 0) this.kernels.releaseBytes(this.ctl[C.slots], 4 * SLOT * this.slotCapacity);
    this.ctl[C.slots] = this.kernels.allocBytes(4 * SLOT * capacity);
    this.slotCapacity = capacity;
    Atomics.add(this.ctl, C.generation, 1);
  }

  private growShapes(capacity: number): void {
    const k = this.kernels, old = this.shapeCapacity;
    const shapes = k.allocBytes(4 * SHAPE * capacity), trials = k.allocBytes(4 * this.threads * capacity);
    if (old > 0) {
      const buffer = k.memory.buffer;
      new Int32Array(buffer, shapes, SHAPE * old).set(new Int32Array(buffer, this.ctl[C.shapes], SHAPE * old));
      for (let t = 0; t < this.threads; t++) {
        new Int32Array(buffer, trials + 4 * t * capacity, old).set(new Int32Array(buffer, this.ctl[C.trials] + 4 * t * old, old));
      }
      k.releaseBytes(this.ctl[C.shapes], 4 * SHAPE * old);
      k.releaseBytes(this.ctl[C.trials], 4 * this.threads * old);
    }
    this.ctl[C.shapes] = shapes;
    this.ctl[C.trials] = trials;
    this.ctl[C.shapeCapacity] = capacity;
    this.shapeCapacity = capacity;
    Atomics.add(this.ctl, C.generation, 1);
  }

  /**
   * Enters a kernel shape (n voxels, extent e, mask cube b / ms, f32 blocks at `blocks`, rotation
   * step) with a trial buffer per thread; returns its row.
   */
  addShape(n: number, e: number, b: number, ms: number, blocks: number, rotationStep: number, maskBytes: number, trials: number[]): number {
    if (this.shapeCount === this.shapeCapacity) this.growShapes(2 * this.shapeCapacity);
    const row = this.shapeCount++, buffer = this.kernels.memory.buffer;
    new Int32Array(buffer, this.ctl[C.shapes] + 4 * SHAPE * row, SHAPE).set([n, e, b, ms, blocks, rotationStep, maskBytes, 0]);
    for (let t = 0; t < this.threads; t++) new Int32Array(buffer, this.ctl[C.trials] + 4 * (t * this.shapeCapacity + row), 1)[0] = trials[t];
    Atomics.add(this.ctl, C.generation, 1);
    return row;
  }

  /**
   * The moves of time steps step .. step + steps - 1 (at most phaseSteps) of the kernel particles
   * `particles` (listed in active order), by colour and cell; `fill(slot, k)` writes particle k's
   * slot, `back(slot, k)` reads it back. Returns the summed counters.
   */
  run(step: number, steps: number, zOrigin: number, count: number, cellOf: (k: number) => number, fill: (slots: Int32Array, o: number, k: number) => void, back: (slots: Int32Array, o: number, k: number) => void): { tests: number; accepted: number; checks: number } {
    if (steps < 1 || steps > this.phaseSteps) throw new RangeError(`MoveBoard.run: a phase of ${steps} time steps, cells are wide enough for 1 to ${this.phaseSteps}`);
    const ctl = this.ctl;
    if (count > this.slotCapacity) this.growSlots(Math.max(count, 2 * this.slotCapacity));
    // Counting sort by schedule rank, stable (active order within a cell).
    const counts = this.cellCounts;
    counts.fill(0);
    if (this.order.length < count) this.order = new Int32Array(Math.max(count, 2 * this.order.length));
    const rank = this.order;
    for (let k = 0; k < count; k++) counts[(rank[k] = this.cellRank[cellOf(k)])]++;
    this.main.refresh();
    const buffer = this.kernels.memory.buffer;
    const busy = new Int32Array(buffer, ctl[C.busy], 2 * this.cellCount), slots = new Int32Array(buffer, ctl[C.slots], SLOT * this.slotCapacity);
    // The busy cells (first and end slot), colour by colour; counts[r] becomes cell r's next slot.
    let at = 0, b = 0;
    for (let colour = 0; colour < this.grid.colours; colour++) {
      this.colourBusy[colour] = b;
      for (let r = this.colourStart[colour]; r < this.colourStart[colour + 1]; r++) {
        const n = counts[r];
        if (n === 0) continue;
        counts[r] = at;
        busy[2 * b] = at;
        at += n;
        busy[2 * b++ + 1] = at;
      }
    }
    this.colourBusy[this.grid.colours] = b;
    if (this.place.length < count) this.place = new Int32Array(this.order.length);
    const place = this.place;
    for (let k = 0; k < count; k++) {
      const q = counts[rank[k]]++;
      place[k] = q;
      fill(slots, q * SLOT, k);
    }
    Atomics.store(ctl, C.step, step);
    Atomics.store(ctl, C.steps, steps);
    Atomics.store(ctl, C.zOrigin, zOrigin);
    const counters = new Int32Array(buffer, ctl[C.counters], COUNTERS * this.threads);
    counters.fill(0);
    for (let colour = 0; colour < this.grid.colours; colour++) {
      const first = this.colourBusy[colour], end = this.colourBusy[colour + 1];
      if (first === end) continue;
      const slots = busy[2 * end - 1] - busy[2 * first];
      Atomics.store(ctl, C.claim, first);
      Atomics.store(ctl, C.end, end);
      Atomics.store(ctl, C.done, 0);
      const parallel = this.threads > 1 && end - first >= 2 && slots * steps >= MIN_PARALLEL_MOVES;
      if (parallel) {
        this.parallelPhases++;
        Atomics.add(ctl, C.phase, 1);
        Atomics.notify(ctl, C.phase);
      }
      this.main.work(!parallel);
      if (!parallel) continue;
      // The barrier: every helper has finished this colour.
      const deadline = Date.now() + HELPER_TIMEOUT_MS;
      for (let done = Atomics.load(ctl, C.done); done < this.threads - 1; done = Atomics.load(ctl, C.done)) {
        if (Date.now() > deadline) throw new Error(`voxel packer: ${this.threads - 1 - done} of ${this.threads - 1} helper threads did not finish a phase in ${HELPER_TIMEOUT_MS / 1000} s`);
        waitWhile(ctl, C.done, done, deadline);
      }
    }
    for (let k = 0; k < count; k++) back(slots, place[k] * SLOT, k);
    let tests = 0, accepted = 0, checks = 0;
    for (let t = 0; t < this.threads; t++) {
      tests += counters[t * COUNTERS + N.tests];
      accepted += counters[t * COUNTERS + N.accepted];
      checks += counters[t * COUNTERS + N.checks];
    }
    return { tests, accepted, checks };
  }

  /** Thread t's trial buffer of shape row `row` (byte offset), and setting it. */
  trial(t: number, row: number): number {
    return new Int32Array(this.kernels.memory.buffer, this.ctl[C.trials] + 4 * (t * this.shapeCapacity + row), 1)[0];
  }

  setTrial(t: number, row: number, at: number): void {
    new Int32Array(this.kernels.memory.buffer, this.ctl[C.trials] + 4 * (t * this.shapeCapacity + row), 1)[0] = at;
  }

  /** Tells the helpers to return. */
  quit(): void {
    Atomics.store(this.ctl, C.quit, 1);
    Atomics.add(this.ctl, C.phase, 1);
    Atomics.notify(this.ctl, C.phase);
  }
}

export { SLOT, S as SLOT_FIELDS };
