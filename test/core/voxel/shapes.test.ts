import { describe, expect, it, vi } from 'vitest';
import { sampleHalfExtents, shapeSchema, voxeliseShape, voxeliseShapeVoxels, type Shape } from '../../../core/voxel/shapes';
import { checkParams, voxelParamsSchema } from '../../../core/voxel/params';
import { voxelEngine } from '../../../core/voxel/index';
import type { EngineResult } from '../../../core/common/engine';
import { implicitFunction, type ImplicitFunction } from '../../../core/surface/implicit';

const shapes: Shape[] = [
  shapeSchema.parse({ kind: 'sphere' }),
  shapeSchema.parse({ kind: 'ellipsoid', b: 0.6, c: 0.3 }),
  shapeSchema.parse({ kind: 'cuboid', b: 0.5, c: 0.25 }),
  shapeSchema.parse({ kind: 'cylinder', length: 2 }),
  shapeSchema.parse({ kind: 'hexagonalPlate', thickness: 0.4 }),
  shapeSchema.parse({ kind: 'superellipsoid', b: 1, c: 1, e1: 0.3, e2: 0.3 }),
];
// Analytic volumes (in voxels^3) for characteristic size d.
const volume = (s: Shape, d: number): number => {
  const r = d / 2;
  switch (s.kind) {
    case 'sphere': return (4 / 3) * Math.PI * r ** 3;
    case 'ellipsoid': return (4 / 3) * Math.PI * r ** 3 * s.b * s.c;
    case 'cuboid': return d ** 3 * s.b * s.c;
    case 'cylinder': return Math.PI * r * r * d * s.length;
    case 'hexagonalPlate': return ((3 * Math.sqrt(3)) / 2) * r * r * d * s.thickness;
    default: return NaN;
  }
};

describe('voxelisation', () => {
  it('every solid voxel lies in the box sampleHalfExtents gives before sampling (what the preview limits)', () => {
    const map = shapeSchema.parse({ kind: 'voxels', dims: [6, 3, 2], bits: Array.from({ length: 5 }, () => 255) });
    const implicit = shapeSchema.parse({ kind: 'implicit', surface: { kind: 'ellipsoid', semiAxes: [1, 0.7, 0.5] } });
    for (const s of [...shapes, shapeSchema.parse({ kind: 'cylinder', length: 7 }), map, implicit]) {
      for (const d of [1, 7, 40]) {
        const h = sampleHalfExtents(s, d);
        const v = voxeliseShapeVoxels(s, d);
        const reach = [0, 0, 0];
        for (let i = 0; i < v.solid.length; i++) reach[i % 3] = Math.max(reach[i % 3], Math.abs(v.solid[i]));
        expect(v.solid.length, `${s.kind} at ${d}`).toBeGreaterThan(0);
        reach.forEach((r, a) => expect(r, `${s.kind} at ${d}, axis ${a}`).toBeLessThanOrEqual(h[a]));
      }
    }
    // A cylinder's box grows with its length, not its size alone.
    expect(sampleHalfExtents(shapeSchema.parse({ kind: 'cylinder', length: 50 }), 40)).toEqual([21, 21, 1001]);
  });

  it.each(shapes.map((s) => [s.kind, s] as const))('%s: volume near the analytic one, coordinates centred, shell inside solid', (_k, s) => {
    const v = voxeliseShapeVoxels(s, 40);
    const n = v.solid.length / 3;
    const expected = volume(s, 40);
    if (!Number.isNaN(expected)) expect(Math.abs(n - expected) / expected).toBeLessThan(0.05);
    // Centred: the mean coordinate is near 0 on every axis.
    for (let a = 0; a < 3; a++) {
      let sum = 0;
      for (let i = a; i < v.solid.length; i += 3) sum += v.solid[i];
      expect(Math.abs(sum / n - v.centre[a])).toBeLessThan(0.05);
    }
    const solid = new Set<string>();
    for (let i = 0; i < v.solid.length; i += 3) solid.add(`${v.solid[i]},${v.solid[i + 1]},${v.solid[i + 2]}`);
    // Brute-force shell: solid voxels with an empty face neighbour.
    let shellCount = 0;
    for (const k of solid) {
      const [x, y, z] = k.split(',').map(Number);
      const nb = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
      if (nb.some(([dx, dy, dz]) => !solid.has(`${x + dx},${y + dy},${z + dz}`))) shellCount++;
    }
    expect(v.shell.length / 3).toBe(shellCount);
    for (let i = 0; i < v.reducedShell.length; i += 3) expect(solid.has(`${v.reducedShell[i]},${v.reducedShell[i + 1]},${v.reducedShell[i + 2]}`)).toBe(true);
  });

  it('shell reduction keeps 40-60 % of a sphere shell at the default threshold', () => {
    for (const d of [20, 40, 80]) {
      const v = voxeliseShapeVoxels({ kind: 'sphere' }, d);
      const kept = v.reducedShell.length / v.shell.length;
      expect(kept).toBeGreaterThan(0.4);
      expect(kept).toBeLessThan(0.6);
    }
  });

  it('an imported voxel map round-trips at its own size and scales', () => {
    // A 4 x 3 x 2 block with one corner missing, packed LSB first.
    const dims: [number, number, number] = [4, 3, 2];
    const on = Array.from({ length: 24 }, (_, i) => (i === 0 ? 0 : 1));
    const bytes = [0, 0, 0];
    on.forEach((b, i) => (bytes[i >> 3] |= b << (i & 7)));
    const asBase64 = btoa(String.fromCharCode(...bytes));
    const a = voxeliseShapeVoxels(shapeSchema.parse({ kind: 'voxels', dims, bits: bytes }), 4);
    const b = voxeliseShapeVoxels(shapeSchema.parse({ kind: 'voxels', dims, bits: asBase64 }), 4);
    expect(a.solid.length / 3).toBe(23);
    expect(Array.from(b.solid)).toEqual(Array.from(a.solid));
    const big = voxeliseShapeVoxels(shapeSchema.parse({ kind: 'voxels', dims, bits: bytes }), 8);
    expect(big.solid.length / 3).toBe(23 * 8);
  });

  it('refuses a voxel map without a solid voxel, naming bits, however it is written', () => {
    const dims: [number, number, number] = [3, 3, 3]; // 27 voxels: 4 bytes, 3 bits of the last used
    const issue = (bits: string | number[]) => shapeSchema.safeParse({ kind: 'voxels', dims, bits }).error?.issues[0];
    for (const empty of [[0, 0, 0, 0], 'AAAAAA==', [0, 0, 0, 0b11111000], [0, 0, 0, 0, 255]]) {
      expect(issue(empty), JSON.stringify(empty)).toMatchObject({ path: ['bits'], message: 'has no solid voxel in its 3 x 3 x 3 map; at least one bit must be 1' });
    }
    for (const solid of [[0, 0, 0, 0b100], btoa(String.fromCharCode(0, 0, 0, 4)), [1, 0, 0, 0]]) expect(issue(solid), JSON.stringify(solid)).toBeUndefined();
    // A large map whose only solid voxel is the last one is found (base64 decoded block by block).
    const n = 100_000, bytes = new Uint8Array(Math.ceil(n / 8));
    bytes[bytes.length - 1] = 1 << ((n - 1) % 8);
    const b64 = btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
    expect(shapeSchema.safeParse({ kind: 'voxels', dims: [100, 100, 10], bits: b64 }).success).toBe(true);
    bytes[bytes.length - 1] = 0;
    expect(shapeSchema.safeParse({ kind: 'voxels', dims: [100, 100, 10], bits: btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join('')) }).success).toBe(false);
  });

  it('a plate thinner than half a voxel is one voxel thick, not a single voxel', () => {
    // Offset by half a voxel on its thin axis, no sample fell inside: a hexagonal plate 10 voxels
    // across and 0.1 voxel thick was packed as one voxel.
    for (const [shape, across] of [[{ kind: 'hexagonalPlate', thickness: 0.01 }, [10, 9]], [{ kind: 'cuboid', b: 0.6, c: 1e-9 }, [10, 6]]] as const) {
      const thin = voxeliseShapeVoxels(shapeSchema.parse(shape), 10);
      expect(thin.dims).toEqual([...across, 1]);
      // The same voxels as a plate half a voxel thick.
      const halfVoxel = voxeliseShapeVoxels(shapeSchema.parse({ ...shape, [shape.kind === 'cuboid' ? 'c' : 'thickness']: 0.05 }), 10);
      expect(Array.from(thin.solid)).toEqual(Array.from(halfVoxel.solid));
    }
  });

  it('the editor entry point quantises the size and names bad input', () => {
    const v = voxeliseShape({ kind: 'sphere' }, 1, 20);
    expect(v.dims).toEqual([20, 20, 20]);
    expect(() => voxeliseShape({ kind: 'sphere' }, -1, 20)).toThrow(/size must be > 0/);
    expect(() => voxeliseShape({ kind: 'sphere' }, 1, 0)).toThrow(/resolution must be in/);
    expect(shapeSchema.safeParse({ kind: 'hexagonalPlate', thickness: 2 }).error?.issues[0].path).toEqual(['thickness']);
  });
});

describe('implicit shapes (core/surface)', () => {
  it('an implicit ellipsoid has the analytic volume within 1 % at 40 voxels across', () => {
    const s = shapeSchema.parse({ kind: 'implicit', surface: { kind: 'ellipsoid', semiAxes: [1, 0.7, 0.5] } });
    const v = voxeliseShapeVoxels(s, 40);
    const exact = (4 / 3) * Math.PI * 20 * 14 * 10;
    expect(Math.abs(v.solid.length / 3 / exact - 1)).toBeLessThan(0.01);
    expect(v.dims).toEqual([40, 28, 20]);
    // The same solid as the voxel engine's own ellipsoid at that size.
    const own = voxeliseShapeVoxels(shapeSchema.parse({ kind: 'ellipsoid', b: 0.7, c: 0.5 }), 40);
    expect(Array.from(v.solid)).toEqual(Array.from(own.solid));
  });

  it('a blobby shape is centred on its box, its longest side the size', () => {
    const s = shapeSchema.parse({
      kind: 'implicit',
      surface: { kind: 'blobby', threshold: 0.5, blobs: [{ from: [3, 0, 0], to: [5, 0, 0], radius: 0.4 }, { from: [3, 0, 0], to: [3, 1.5, 0], radius: 0.4 }] },
    });
    const v = voxeliseShapeVoxels(s, 50);
    expect(Math.max(...v.dims)).toBeGreaterThanOrEqual(49);
    expect(Math.max(...v.dims)).toBeLessThanOrEqual(51);
    for (let a = 0; a < 3; a++) expect(Math.abs(v.min[a] + v.dims[a] / 2)).toBeLessThanOrEqual(1.5);
  });

  it('a blobby shape of 32 blobs has the same voxels as value() < 0 gives, with carving blobs and without', () => {
    // Segments on a fixed walk. Without carving, inside() stops summing early; with every fourth
    // blob carving (strength -0.6), the last one too, it must not stop before them. The reference
    // is the same voxelisation with inside() answering value() < 0, as it did before.
    const blobby = (carving: boolean): Extract<Shape, { kind: 'implicit' }> => {
      const blobs = Array.from({ length: 32 }, (_, i) => {
        const a = 0.7 * i, p = [Math.cos(a) * (1 + 0.02 * i), Math.sin(a), 0.03 * i];
        const q = [p[0] + 0.3 * Math.sin(3 * a), p[1] + 0.3, p[2] + 0.2 * Math.cos(a)];
        return { from: p, to: q, radius: 0.3, strength: carving && i % 4 === 3 ? -0.6 : 1, falloff: i % 2 ? 'polynomial' : 'gaussian' };
      });
      const s = shapeSchema.parse({ kind: 'implicit', surface: { kind: 'blobby', threshold: 0.5, blobs } });
      if (s.kind !== 'implicit') throw new Error('unreachable');
      return s;
    };
    for (const carving of [false, true]) {
      const s = blobby(carving);
      const v = voxeliseShapeVoxels(s, 40);
      const proto = Object.getPrototypeOf(implicitFunction(s.surface)) as ImplicitFunction;
      const spy = vi.spyOn(proto, 'inside').mockImplementation(function (this: ImplicitFunction, x, y, z) { return this.value(x, y, z) < 0; });
      try {
        const ref = voxeliseShapeVoxels(s, 40);
        expect(spy).toHaveBeenCalled();
        expect(v.solid.length / 3, `carving ${carving}`).toBeGreaterThan(1000);
        expect([v.dims, v.min, v.occupancy, v.solid]).toEqual([ref.dims, ref.min, ref.occupancy, ref.solid]);
      } finally {
        spy.mockRestore();
      }
    }
  });

  it('the voxel engine packs implicit shapes', () => {
    const p = voxelParamsSchema.parse({
      box: { size: [4, 4, 4], resolution: 10 },
      mixture: { types: [{ shape: { kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 0.4 } } }] },
      stop: { particles: 6 },
      analysis: { enabled: false },
    });
    const r = voxelEngine.run(p, { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} }) as EngineResult;
    expect(r.metrics.particles).toBe(6);
    expect(Number(r.metrics.overlapFraction)).toBeLessThan(0.05);
    // Six whole tori (size 1 = the torus box's longest side, 10 voxels at 10 voxels/unit), rotated
    // at finalisation (which resamples a few voxels) and counted once where they overlap.
    const solid = Number(r.metrics.boxSolidFraction) * 40 ** 3;
    const one = voxeliseShapeVoxels(p.mixture.types[0].shape, 10).solid.length / 3;
    expect(Math.abs(solid / (6 * one) - 1)).toBeLessThan(0.05);
  });

  it('the voxel engine refuses a torus thicker than its ring, naming the field', () => {
    const p = voxelParamsSchema.parse({ mixture: { types: [{ shape: { kind: 'implicit', surface: { kind: 'torus', majorRadius: 1, minorRadius: 1 } } }] } });
    expect(checkParams(p)).toEqual([{ path: 'mixture.types.0.shape.surface.minorRadius', message: 'must be less than majorRadius = 1 (a ring torus), got 1' }]);
  });
});
