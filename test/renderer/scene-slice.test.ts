import { describe, it, expect } from 'vitest';
import { sliceToRgba, slicePorosity } from '../../renderer/src/scene/sliceImage';

describe('slice image', () => {
  it('draws void dark, particles in their colour with darker outlines, second axis up', () => {
    // 3 x 2 slice: bottom row (v = 0) is particle 1 everywhere, top row (v = 1) is void, void, particle 2
    const labels = Uint32Array.from([1, 1, 1, 0, 0, 2]);
    const colours = Float32Array.from([1, 0, 0, 1, 0, 1, 0, 1]); // particle 0 red, particle 1 green
    const out = new Uint8ClampedArray(3 * 2 * 4);
    sliceToRgba(labels, 3, 2, colours, out);
    const px = (u: number, row: number): number[] => Array.from(out.slice((row * 3 + u) * 4, (row * 3 + u) * 4 + 4));
    // image row 1 (bottom) holds v = 0: particle 1 (red); its top neighbour differs, so it is an outline
    expect(px(1, 1)[0]).toBeGreaterThan(100);
    expect(px(1, 1)[0]).toBeLessThan(255);
    expect(px(1, 1)[1]).toBe(0);
    // image row 0 (top) holds v = 1: void, void, particle 2 (green)
    expect(px(0, 0)[0]).toBeLessThan(40);
    expect(px(2, 0)[1]).toBeGreaterThan(100);
    expect(px(0, 0)[3]).toBe(255);
    expect(slicePorosity(labels)).toBeCloseTo(2 / 6);
  });

  it('colours labels beyond the colour table by id, and checks sizes', () => {
    const out = new Uint8ClampedArray(4);
    sliceToRgba(Uint32Array.from([9]), 1, 1, null, out);
    expect(out[0] + out[1] + out[2]).toBeGreaterThan(100);
    expect(() => sliceToRgba(Uint32Array.from([1, 2]), 3, 1, null, new Uint8ClampedArray(12))).toThrow(/expected 3 values/);
  });
});
