import { describe, expect, it } from 'vitest';
import { BitMatrix, markSelf, selfMaskWords } from '../../../core/voxel/bit-matrix';
import { IdMatrix } from '../../../core/voxel/id-matrix';
import { corner, type PackingMatrix } from '../../../core/voxel/matrix';
import { rotateRange } from '../../../core/voxel/rotation';
import { voxeliseShapeVoxels } from '../../../core/voxel/shapes';
import { Random } from '../../../core/common/random';

/** Reference: a plain Set of wrapped voxel keys. */
function key(x: number, y: number, z: number) {
  return `${x},${y},${z}`;
}
const mod = (a: number, n: number) => ((a % n) + n) % n;

function absolute(m: PackingMatrix, c: Int32Array, ox: number, oy: number, oz: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < c.length; k += 3) out.push(key(mod(ox + c[k], m.nx), mod(oy + c[k + 1], m.ny), oz + c[k + 2]));
  return out;
}

/** Bytes of one unit of the slab plan: a plane of rows or ids, a layer of 8 planes of bricks. */
const unitBytes = { 'bit rows': 3 * 4 * 45, 'bit bricks': 9 * 6 * 64, id: 70 * 45 * 4 };

describe.each([
  ['bit rows', (o: object) => new BitMatrix(70, 45, 60, { ...o, layout: 'rows' })],
  ['bit bricks', (o: object) => new BitMatrix(70, 45, 60, { ...o, layout: 'bricks' })],
  ['id', (o: object) => new IdMatrix(70, 45, 60, o)],
] as const)('%s matrix', (_name, make) => {
  for (const cheapModulus of [true, false]) {
    it(`agrees with a set reference over many slabs, wrapping x/y (cheapModulus ${cheapModulus})`, () => {
      // Tiny slabs (7 planes, or one layer of bricks), so particles straddle slab boundaries often.
      const m = make({ maxSlabBytes: (_name === 'bit bricks' ? 1 : 7) * unitBytes[_name] });
      m.cheapModulus = cheapModulus;
      expect(m.slabCount).toBeGreaterThan(5);
      const shape = voxeliseShapeVoxels({ kind: 'sphere' }, 13);
      const e = Math.ceil(shape.maxRadius + 0.5);
      const ref = new Set<string>();
      const rnd = new Random(7);
      let placed = 0;
      for (let t = 0; t < 400; t++) {
        const ox = rnd.int(70), oy = rnd.int(45), oz = rnd.int(60);
        const cells = absolute(m, shape.shell, ox, oy, oz);
        const outside = cells.some((s) => { const z = Number(s.split(',')[2]); return z < 0 || z >= 60; });
        const refHit = outside || cells.some((s) => ref.has(s));
        const hit = m.firstHit(shape.shell, 0, shape.shell.length / 3, ox, oy, oz, e, placed + 1);
        expect(hit >= 0).toBe(refHit);
        if (!refHit) {
          placed++;
          m.writeAll(shape.shell, 0, shape.shell.length / 3, ox, oy, oz, e, placed);
          for (const s of cells) ref.add(s);
        }
      }
      expect(placed).toBeGreaterThan(3);
      expect(m.countOccupied()).toBe(ref.size);
      for (const s of ref) {
        const [x, y, z] = s.split(',').map(Number);
        expect(m.test(x, y, z)).toBe(true);
      }
    });
  }

  it('clearAll removes exactly what writeAll wrote, including across the x/y edges', () => {
    const m = make({});
    const shape = voxeliseShapeVoxels({ kind: 'cuboid', b: 0.5, c: 0.5 }, 9);
    const e = Math.ceil(shape.maxRadius + 0.5);
    const n = shape.solid.length / 3;
    m.writeAll(shape.solid, 0, n, 1, 44, 30, e, 5);
    // Straddles x = 0 and y = 0: voxels appear at both ends of each axis.
    expect(m.test(0, 44, 30)).toBe(true);
    expect(m.test(69, 44, 30)).toBe(true);
    expect(m.test(1, 0, 30)).toBe(true);
    expect(m.countOccupied()).toBe(n);
    m.clearAll(shape.solid, 0, n, 1, 44, 30, e, 5);
    expect(m.countOccupied()).toBe(0);
  });
});

describe('the x/y wrap (matrix.ts corner)', () => {
  it('needs only offsets within half the side, whatever the extent: one subtraction wraps every voxel', () => {
    let wrong = 0;
    for (let n = 1; n <= 48; n++) {
      for (let e = 0; e <= 3 * n; e++) {
        // Every offset the voxels may have: within ±e, and twice it within the side.
        const h = Math.min(e, n >> 1);
        for (let o = 0; o < n; o++) if (corner(o, e, n) - h < 0 || corner(o, e, n) + h >= 2 * n) wrong++;
      }
    }
    expect(wrong).toBe(0);
  });

  // An upright rod of 8 x 80 voxels: extent 41 (its bounding radius), offsets within ±4 on x and y,
  // in a box 12 wide. Shifting every centre below the extent put voxels at o + 12 + 4 ≥ 24.
  it.each([
    ['bit rows', () => new BitMatrix(12, 12, 100, { layout: 'rows' })],
    ['bit bricks', () => new BitMatrix(12, 12, 100, { layout: 'bricks' })],
    ['id', () => new IdMatrix(12, 12, 100)],
  ] as const)('%s: a particle whose extent passes the box side is written, tested and cleared across the x/y edges', (_name, make) => {
    const m = make(), rod = voxeliseShapeVoxels({ kind: 'cylinder', length: 10 }, 8);
    const e = Math.ceil(rod.maxRadius + 0.5), n = rod.shell.length / 3;
    expect(e).toBeGreaterThan(12);
    // Centres at and around the edges and the middle of the side.
    for (const ox of [0, 3, 6, 8, 11]) for (const oy of [0, 5, 11]) {
      m.writeAll(rod.shell, 0, n, ox, oy, 50, e, 1);
      const cells = new Set(absolute(m, rod.shell, ox, oy, 50));
      expect(m.countOccupied()).toBe(cells.size);
      expect([...cells].filter((c) => !m.test(...(c.split(',').map(Number) as [number, number, number])))).toEqual([]);
      expect(m.firstHit(rod.shell, 0, n, ox, oy, 50, e, 0)).toBe(0);
      m.clearAll(rod.shell, 0, n, ox, oy, 50, e, 1);
      expect(m.countOccupied()).toBe(0);
    }
  });
});

describe('matrix construction', () => {
  it('refuses a matrix over the memory budget before allocating, naming the size', () => {
    expect(() => new BitMatrix(4000, 4000, 4000, { memoryBudgetBytes: 2 ** 32 })).toThrow(/bit matrix 4000x4000x4000 needs 8000000000 bytes.*budget/);
    expect(() => new IdMatrix(100, 100, 0)).toThrow(/nz must be an integer/);
  });

  it('a bit matrix over 1 GiB splits into slabs; voxels on both sides of the boundary and a straddling particle work', () => {
    // 2048 x 2048 x 2100 voxels = 1.10e9 bytes of bits: two slabs, the boundary between z = 2047 and 2048.
    let m: BitMatrix | null = new BitMatrix(2048, 2048, 2100, { layout: 'bricks', kernels: 'js' });
    expect(m.bytes).toBeGreaterThan(2 ** 30);
    expect(m.slabCount).toBe(2);
    expect(m.planesPerSlab).toBe(2048);
    for (const z of [0, 2047, 2048, 2099]) {
      for (const [x, y] of [[0, 0], [2047, 0], [0, 2047], [2047, 2047], [31, 5], [32, 5]]) {
        expect(m.test(x, y, z)).toBe(false);
        m.set(x, y, z, 1);
        expect(m.test(x, y, z)).toBe(true);
      }
    }
    // Plane neighbours across the boundary stay independent.
    m.clear(31, 5, 2047);
    expect(m.test(31, 5, 2047)).toBe(false);
    expect(m.test(31, 5, 2048)).toBe(true);
    // A sphere straddling the slab boundary and the x/y edges.
    const shape = voxeliseShapeVoxels({ kind: 'sphere' }, 21);
    const e = Math.ceil(shape.maxRadius + 0.5);
    const n = shape.shell.length / 3;
    expect(m.firstHit(shape.shell, 0, n, 3, 2045, 2048, e, 1)).toBe(-1);
    m.writeAll(shape.shell, 0, n, 3, 2045, 2048, e, 1);
    for (let k = 0; k < shape.shell.length; k += 3) {
      expect(m.test(mod(3 + shape.shell[k], 2048), mod(2045 + shape.shell[k + 1], 2048), 2048 + shape.shell[k + 2])).toBe(true);
    }
    expect(m.firstHit(shape.shell, 0, n, 3, 2045, 2048, e, 1)).toBeGreaterThanOrEqual(0);
    m.clearAll(shape.shell, 0, n, 3, 2045, 2048, e, 1);
    expect(m.firstHit(shape.shell, 0, n, 3, 2045, 2048, e, 1)).toBe(-1);
    m = null; // let the 1.1 GB go
  });
});

describe.each(['rows', 'bricks'] as const)('bit matrix (%s): testing a move before removing the particle', (layout) => {
  for (const [cheapModulus, oneSlab] of [[true, false], [false, false], [true, true]]) {
    it(`firstHitBesides gives the index firstHit gives after removing the particle (cheapModulus ${cheapModulus}, ${oneSlab ? 'one slab' : 'tiny slabs'})`, () => {
      // Tiny slabs and a small box: moves straddle slab boundaries, the x/y edges, floor and ceiling.
      const m = new BitMatrix(70, 45, 40, { layout, ...(oneSlab ? {} : { maxSlabBytes: unitBytes[`bit ${layout}`] * (layout === 'rows' ? 7 : 1) }) });
      m.cheapModulus = cheapModulus;
      const shape = voxeliseShapeVoxels({ kind: 'sphere' }, 13);
      const c = shape.reducedShell, n = c.length / 3;
      const e = Math.ceil(shape.maxRadius + 0.5), bias = e + 1;
      const rnd = new Random(11);
      const old = new Int32Array(c.length), trial = new Int32Array(c.length);
      // A crowd of particles to collide with.
      for (let t = 0; t < 40; t++) {
        rotateRange(c, trial, 0, n, rnd.int(360), rnd.int(360), rnd.int(360), true, true);
        const ox = rnd.int(70), oy = rnd.int(45), oz = rnd.int(40);
        if (m.firstHit(trial, 0, n, ox, oy, oz, e) < 0) m.writeAll(trial, 0, n, ox, oy, oz, e);
      }
      let free = 0, hits = 0;
      for (let t = 0; t < 300; t++) {
        // The moving particle, written at its old place with its old rotation.
        const a = [rnd.int(360), rnd.int(360), rnd.int(360)];
        rotateRange(c, old, 0, n, a[0], a[1], a[2], true, true);
        const ox = rnd.int(70), oy = rnd.int(45), oz = e + rnd.int(40 - 2 * e);
        m.writeAll(old, 0, n, ox, oy, oz, e);
        const before = m.countOccupied();
        const mask = selfMaskWords(bias);
        markSelf(mask, bias, old, n);
        // A move of one voxel on each axis and a few degrees.
        const d = [rnd.int(3) - 1, rnd.int(3) - 1, rnd.int(3) - 1];
        rotateRange(c, trial, 0, n, (a[0] + 2) % 360, a[1], (a[2] + 358) % 360, true, true);
        const nx = (ox + d[0] + 70) % 70, ny = (oy + d[1] + 45) % 45, nz = oz + d[2];
        const besides = m.firstHitBesides(trial, 0, n, nx, ny, nz, e, mask, bias, d[0], d[1], d[2]);
        expect(m.countOccupied()).toBe(before);
        m.clearAll(old, 0, n, ox, oy, oz, e);
        const removed = m.firstHit(trial, 0, n, nx, ny, nz, e);
        expect(besides).toBe(removed);
        if (removed < 0) free++; else hits++;
        // Every other free particle stays at its old place: the crowd grows.
        if (removed >= 0 || t % 2 === 0) continue;
        m.writeAll(old, 0, n, ox, oy, oz, e);
      }
      expect(free).toBeGreaterThan(10);
      expect(hits).toBeGreaterThan(10);
    });
  }
});
