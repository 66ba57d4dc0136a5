import { describe, it, expect } from 'vitest';
import { importMesh, importRaw } from '../../renderer/src/workspaces/editor/shapeImport';
import { shapeSchema, voxeliseShapeVoxels } from '../../core/voxel/shapes';

/** ASCII STL of an axis-aligned box [0, a] x [0, b] x [0, c], two outward triangles a face. */
function boxStl(a: number, b: number, c: number): Uint8Array {
  const v = (x: number, y: number, z: number): number[] => [x * a, y * b, z * c];
  const quads = [
    [v(0, 0, 0), v(0, 1, 0), v(1, 1, 0), v(1, 0, 0)], [v(0, 0, 1), v(1, 0, 1), v(1, 1, 1), v(0, 1, 1)],
    [v(0, 0, 0), v(1, 0, 0), v(1, 0, 1), v(0, 0, 1)], [v(0, 1, 0), v(0, 1, 1), v(1, 1, 1), v(1, 1, 0)],
    [v(0, 0, 0), v(0, 0, 1), v(0, 1, 1), v(0, 1, 0)], [v(1, 0, 0), v(1, 1, 0), v(1, 1, 1), v(1, 0, 1)],
  ];
  const tri = (p: number[][]): string => `facet normal 0 0 0\nouter loop\n${p.map((q) => `vertex ${q.join(' ')}`).join('\n')}\nendloop\nendfacet\n`;
  const body = quads.map((q) => tri([q[0], q[1], q[2]]) + tri([q[0], q[2], q[3]])).join('');
  return new TextEncoder().encode(`solid box\n${body}endsolid box\n`);
}

describe('shape import', () => {
  it('voxelises a closed STL box with the given voxels along its longest side, as a shape the engine accepts', () => {
    const s = importMesh('brick.stl', boxStl(2, 1, 0.5), 20);
    expect(s.name).toBe('brick');
    expect(s.shape.dims).toEqual([20, 10, 5]);
    expect(s.solidVoxels).toBe(1000);
    const shape = shapeSchema.parse(s.shape);
    // at 20 voxels across, the engine's voxel map keeps every solid voxel
    expect(voxeliseShapeVoxels(shape, 20).solid.length / 3).toBe(1000);
  });

  it('reads a raw volume with its header, any non-zero sample solid', () => {
    const data = Uint8Array.of(0, 3, 0, 0, 1, 0, 0, 9);
    const s = importRaw('grain.raw', data, JSON.stringify({ dims: [2, 2, 2], dtype: 'uint8' }));
    expect(s.solidVoxels).toBe(3);
    expect(atob(s.shape.bits).charCodeAt(0)).toBe(0b10010010);
  });

  it('explains what it cannot import', () => {
    expect(() => importMesh('part.step', new Uint8Array(10), 20)).toThrow(/\.stl and \.obj/);
    expect(() => importMesh('brick.stl', boxStl(1, 1, 1), 1)).toThrow(/voxels across must be an integer in \[2, 1024\]/);
    const open = new TextEncoder().encode('solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n');
    expect(() => importMesh('open.stl', open, 10)).toThrow(/open\.stl/);
    expect(() => importRaw('v.raw', Uint8Array.of(0, 0), JSON.stringify({ dims: [2, 1, 1], dtype: 'uint8' }))).toThrow(/no solid voxel/);
    // One long face fanned into more triangles than its size allows (as the services refuse it; 40 MB of such faces aborted the page).
    const fan = new TextEncoder().encode(`v 0 0 0\nv 1 0 0\nv 0 1 0\nf ${'1 2 '.repeat(550001)}\n`);
    expect(() => importMesh('fan.obj', fan, 10)).toThrow(/^OBJ has 1100000 triangles, more than the 1048576/);
  });
});
