import { describe, it, expect } from 'vitest';
import { colourModes, computeColours, resolveParticleColumns } from '../../renderer/src/workspaces/inspector/particleColumns';

describe('particle columns', () => {
  it('finds centres, radius from a diameter column, and the colourings the table supports', () => {
    const cols = { x: Float64Array.of(0, 1), y: Float64Array.of(0, 1), z: Float64Array.of(0, 4), diameter: Float64Array.of(2, 4), type: Int32Array.of(0, 1) };
    const p = resolveParticleColumns(cols, 2);
    expect(Array.from(p.radius!)).toEqual([1, 2]);
    expect(colourModes(p)).toEqual(['type', 'height', 'id']);
    const out = new Float32Array(8);
    const legend = computeColours(p, 'height', out);
    expect(legend).toEqual({ kind: 'range', min: 0, max: 4 });
    expect(out[3]).toBe(1);
    expect(out[0]).not.toBe(out[4]); // lowest and highest differ
    expect(computeColours(p, 'type', out)).toEqual({ kind: 'categories', values: [0, 1] });
  });

  it('explains a table without centres', () => {
    expect(() => resolveParticleColumns({ radius: Float64Array.of(1) }, 1)).toThrow(/no centre columns.*radius/);
  });
});

describe('orientation from rotations', () => {
  it('derives the tilt of the particle z axis from rx, ry (independent of rz)', () => {
    const cols = { x: Float64Array.of(0, 0, 0), y: Float64Array.of(0, 0, 0), z: Float64Array.of(0, 0, 0), rx: Int16Array.of(0, 90, 60), ry: Int16Array.of(0, 0, 0), rz: Int16Array.of(45, 10, 0) };
    const p = resolveParticleColumns(cols, 3);
    expect(Array.from(p.orientation!).map((v) => Math.round(v))).toEqual([0, 90, 60]);
    expect(colourModes(p)).toContain('orientation');
  });
});

describe('analysis columns', () => {
  it('prefers the equivalent diameter for spheres and the principal-axis tilt for orientation', () => {
    const cols = { x: Float64Array.of(0), y: Float64Array.of(0), z: Float64Array.of(0), size: Float64Array.of(2), equivalentDiameter: Float64Array.of(1), principalTilt: Float32Array.of(30), rx: Int16Array.of(90), ry: Int16Array.of(0), coordination: Uint16Array.of(4) };
    const p = resolveParticleColumns(cols, 1);
    expect(p.radius![0]).toBe(0.5);
    expect(p.names.diameter).toBe('equivalentDiameter');
    expect(p.orientation![0]).toBe(30);
    expect(colourModes(p)).toEqual(['height', 'orientation', 'coordination', 'id']);
  });
});
