import { mapColour } from '../../renderer/src/scene/colormap';
import { describe, it, expect } from 'vitest';
import { computeColours, percentileRange, resolveParticleColumns } from '../../renderer/src/workspaces/inspector/particleColumns';
import { Random } from '../../core/common/random';
import type { ParticleTableSpec } from '../../core/common/engine';
import { voxelEngine } from '../../core/voxel/index';
import { SPHERE_TABLE } from '../../core/io/csv';

const disks: ParticleTableSpec = {
  name: 'particles',
  centre: ['cx', 'cy', 'cz'],
  size: [{ column: 'rad', is: 'radius' }],
  glyph: { kind: 'disk-xy' },
  category: { column: 'class', label: 'Size class', namesFrom: 'classes' },
  quantities: [{ column: 'speed', label: 'Speed', unit: 'm/s' }],
};

describe('particle columns from the engine’s declaration', () => {
  it('reads centres, size, category names and the declared colourings, whatever the columns are called', () => {
    const cols = { cx: Float64Array.of(0, 1), cy: Float64Array.of(0, 1), cz: Float64Array.of(0, 4), rad: Float64Array.of(1, 2), class: Uint8Array.of(0, 1), speed: Float64Array.of(3, 5) };
    const p = resolveParticleColumns(cols, 2, { particleTable: disks, classes: ['coarse', 'fine'] });
    expect(Array.from(p.radius!)).toEqual([1, 2]);
    expect(p.glyph).toEqual({ kind: 'disk-xy' });
    expect(p.categoryNames).toEqual(['coarse', 'fine']);
    expect(p.colourings.map((c) => c.key)).toEqual(['class', 'height', 'speed', 'id']);
    const out = new Float32Array(8);
    expect(computeColours(p, 'speed', out)).toEqual({ kind: 'range', min: 3, max: 5, autoMin: 3, autoMax: 5, map: 'viridis' });
    expect(out[3]).toBe(1);
    expect(out[0]).not.toBe(out[4]); // slowest and fastest differ
    // Disks in the x-y plane: height is y (cy), not z.
    expect(p.colourings.find((c) => c.key === 'height')!.label).toBe('Height (cy)');
    expect(computeColours(p, 'height', out)).toEqual({ kind: 'range', min: 0, max: 1, autoMin: 0, autoMax: 1, map: 'viridis' });
    expect(computeColours(p, 'class', out)).toEqual({ kind: 'categories', values: [0, 1] });
    expect(p.categoryColumn).toBe('class');
  });

  it('says heights in the unit the table declares (a ball mill’s mm), else in length units', () => {
    const cols = { cx: Float64Array.of(0, 1), cy: Float64Array.of(0, 1), cz: Float64Array.of(0, 0), rad: Float64Array.of(1, 2) };
    const mm = resolveParticleColumns(cols, 2, { particleTable: disks, units: 'mm' });
    expect(mm.lengthUnit).toBe('mm');
    expect(mm.colourings.find((c) => c.key === 'height')!.unit).toBe('mm');
    const plain = resolveParticleColumns(cols, 2, { particleTable: disks });
    expect(plain.lengthUnit).toBe('length units');
    expect(plain.colourings.find((c) => c.key === 'height')!.unit).toBe('length units');
  });

  it('colours by a chosen map and range, clamping values outside it to the ends', () => {
    const cols = { cx: Float64Array.of(0, 1, 2), cy: Float64Array.of(0, 1, 2), cz: Float64Array.of(0, 4, 8), rad: Float64Array.of(1, 1, 1), speed: Float64Array.of(0, 5, 10) };
    const p = resolveParticleColumns(cols, 3, { particleTable: disks });
    const out = new Float32Array(12);
    expect(computeColours(p, 'speed', out, { map: 'cividis', range: [2, 8] })).toEqual({ kind: 'range', min: 2, max: 8, autoMin: 0, autoMax: 10, map: 'cividis' });
    const low = new Float32Array(3);
    const mid = new Float32Array(3);
    const high = new Float32Array(3);
    mapColour('cividis', 0, low, 0, 1);
    mapColour('cividis', 0.5, mid, 0, 1);
    mapColour('cividis', 1, high, 0, 1);
    expect(Array.from(out.subarray(0, 3))).toEqual(Array.from(low)); // 0 is below the range: its low end
    expect(Array.from(out.subarray(4, 7))).toEqual(Array.from(mid)); // 5 is the middle of [2, 8]
    expect(Array.from(out.subarray(8, 11))).toEqual(Array.from(high));
    // the three maps differ, and coolwarm is grey in the middle (a diverging map)
    const v = new Float32Array(3);
    mapColour('viridis', 0.5, v, 0, 1);
    expect(Array.from(v)).not.toEqual(Array.from(mid));
    const cw = new Float32Array(3);
    mapColour('coolwarm', 0.5, cw, 0, 255);
    for (const c of cw) expect(Math.abs(c - 221)).toBeLessThan(2); // (a 256-entry table: 0.5 falls between two)
    // cividis runs from dark blue to yellow (Nuñez et al.: no red-green contrast)
    const c0 = new Uint8ClampedArray(3);
    const c1 = new Uint8ClampedArray(3);
    mapColour('cividis', 0, c0, 0, 255);
    mapColour('cividis', 1, c1, 0, 255);
    expect(c0[2]).toBeGreaterThan(c0[0]);
    expect(c1[0]).toBeGreaterThan(200);
    expect(c1[1]).toBeGreaterThan(200);
    expect(c1[2]).toBeLessThan(100);
  });

  it('takes the first size column the table has (the voxel engine: equivalent diameter, else its size)', () => {
    const base = { x: Float64Array.of(0), y: Float64Array.of(0), z: Float64Array.of(0), size: Float64Array.of(2) };
    const meta = { particleTable: voxelEngine.particleTable };
    const analysed = resolveParticleColumns({ ...base, equivalentDiameter: Float64Array.of(1), coordination: Uint16Array.of(4) }, 1, meta);
    expect(analysed.radius![0]).toBe(0.5);
    expect(analysed.sizeFrom).toEqual({ column: 'equivalentDiameter', is: 'diameter' });
    expect(analysed.colourings.map((c) => c.key)).toEqual(['height', 'coordination', 'equivalentDiameter', 'id']);
    const plain = resolveParticleColumns(base, 1, meta);
    expect(plain.radius![0]).toBe(1);
    expect(plain.colourings.map((c) => c.key)).toEqual(['height', 'id']);
  });

  it('reads tangent-disk normals (surface samples) and sphere tables', () => {
    const spec: ParticleTableSpec = { ...disks, centre: ['x', 'y', 'z'], glyph: { kind: 'tangent-disk', normal: ['nx', 'ny', 'nz'] }, category: undefined, quantities: [] };
    const cols = { x: Float64Array.of(0), y: Float64Array.of(0), z: Float64Array.of(1), rad: Float64Array.of(0.1), nx: Float64Array.of(0), ny: Float64Array.of(0), nz: Float64Array.of(1) };
    expect(resolveParticleColumns(cols, 1, { particleTable: spec }).normal!.map((c) => c[0])).toEqual([0, 0, 1]);
    const { nz: _nz, ...withoutNormal } = cols;
    expect(() => resolveParticleColumns(withoutNormal, 1, { particleTable: spec })).toThrow(/normal columns \(nx, ny, nz\)/);
    const spheres = resolveParticleColumns({ id: Uint32Array.of(7), type: Uint16Array.of(2), x: Float64Array.of(0), y: Float64Array.of(0), z: Float64Array.of(0), r: Float64Array.of(3) }, 1, { particleTable: SPHERE_TABLE });
    expect(spheres.radius![0]).toBe(3);
    expect(spheres.id![0]).toBe(7);
    expect(spheres.colourings[0].key).toBe('type');
  });

  it('explains a table without a declaration or without its centres', () => {
    expect(() => resolveParticleColumns({ x: Float64Array.of(1) }, 1, {})).toThrow(/does not declare its columns.*x/);
    expect(() => resolveParticleColumns({ cx: Float64Array.of(1) }, 1, { particleTable: disks })).toThrow(/lacks its centre columns \(cx, cy, cz\); it has: cx/);
  });
});

describe('the colour range of a frame', () => {
  /** What the inspector computed before percentileRange: ranks of a sorted copy. */
  function bySort(values: ArrayLike<number>, n: number): [number, number] {
    const v = Float64Array.from({ length: n }, (_, i) => values[i]).sort();
    const lo = v[Math.floor(0.02 * (n - 1))], hi = v[Math.ceil(0.98 * (n - 1))];
    return hi > lo ? [lo, hi] : [v[0], v[n - 1]];
  }

  it('is the 2nd to 98th percentile a sort gives, ties and all; min to max when those meet', () => {
    const rnd = new Random(3);
    for (const n of [1, 2, 3, 50, 51, 1000, 4099]) {
      // Speeds with many balls at rest (ties at 0), a few fast ones; impacts as small integers.
      const speeds = Float32Array.from({ length: n }, () => (rnd.next() < 0.3 ? 0 : rnd.next() > 0.97 ? 5000 * rnd.next() : 100 * rnd.next()));
      const impacts = Uint32Array.from({ length: n }, () => rnd.int(4));
      for (const c of [speeds, impacts]) expect(percentileRange(c, n), `n = ${n}`).toEqual(bySort(c, n));
    }
    // 99 balls at rest and one moving: the percentiles meet at 0, so min to max.
    const still = new Float32Array(100);
    still[7] = 12;
    expect(percentileRange(still, 100)).toEqual([0, 12]);
    expect(percentileRange(new Float32Array(0), 0)).toEqual([0, 0]);
  });
});
