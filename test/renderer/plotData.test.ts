import { describe, expect, it } from 'vitest';
import { alignSeries, barXRange, yAxisSize } from '../../renderer/src/components/plotData';

describe('alignSeries', () => {
  it('passes series that share x through unchanged', () => {
    const x = new Float64Array([0, 1, 2]);
    const [xs, a, b] = alignSeries([
      { name: 'a', x, y: [1, 2, 3] },
      { name: 'b', x: [0, 1, 2], y: [4, 5, 6] },
    ]);
    expect(Array.from(xs)).toEqual([0, 1, 2]);
    expect(Array.from(a)).toEqual([1, 2, 3]);
    expect(Array.from(b)).toEqual([4, 5, 6]);
  });

  it('merges different x onto their sorted union with gaps as null', () => {
    const [xs, a, b] = alignSeries([
      { name: 'a', x: [0, 2, 4], y: [10, 12, 14] },
      { name: 'b', x: [3, 1, 2], y: [23, 21, 22] },
    ]);
    expect(Array.from(xs)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(a)).toEqual([10, null, 12, null, 14]);
    expect(Array.from(b)).toEqual([null, 21, 22, 23, null]);
  });

  it('agrees with a brute-force lookup on random series', () => {
    let s = 7;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let trial = 0; trial < 20; trial++) {
      const series = [0, 1, 2].map((k) => {
        const xs = new Set<number>();
        const n = 1 + Math.floor(rnd() * 30);
        while (xs.size < n) xs.add(Math.floor(rnd() * 50));
        const x = [...xs];
        return { name: `s${k}`, x, y: x.map((v) => v * 10 + k) };
      });
      const [ux, ...ys] = alignSeries(series);
      const union = [...new Set(series.flatMap((t) => t.x))].sort((p, q) => p - q);
      expect(Array.from(ux)).toEqual(union);
      series.forEach((t, k) => {
        union.forEach((xv, i) => {
          const j = t.x.indexOf(xv);
          expect(ys[k][i]).toBe(j >= 0 ? t.y[j] : null);
        });
      });
    }
  });

  it('returns an empty x for no series', () => {
    expect(alignSeries([])).toEqual([[]]);
  });
});

describe('barXRange', () => {
  it('pads half the smallest spacing beyond the outer bar centres', () => {
    expect(barXRange(Float64Array.of(2.5, 7.5, 12.5, 87.5))).toEqual([0, 90]);
    expect(barXRange([1])).toEqual([0.5, 1.5]);
    expect(barXRange([])).toBeNull();
  });
});

describe('y axis size', () => {
  // A chart whose font draws 6 px a character at pixel ratio 1 (12 px at ratio 2).
  const chart = (ratio: number) => ({
    ctx: { font: '', measureText: (t: string) => ({ width: t.length * 6 * ratio }) },
    axes: [{}, { font: ['11px sans-serif', 11], ticks: { size: 10 }, gap: 5 }] as { font?: unknown; ticks?: { size: number }; gap?: number; _size?: number }[],
  });

  it('fits the longest tick label, whatever the pixel ratio', () => {
    const u = chart(1);
    expect(yAxisSize(u, ['0', '5,000', '10,000'], 1, 1, 1)).toBe(10 + 5 + 6 * 6 + 2);
    expect(yAxisSize(chart(2), ['0', '5,000', '10,000'], 1, 1, 2)).toBe(10 + 5 + 6 * 6 + 2);
    expect(u.ctx.font).toBe('11px sans-serif');
    expect(yAxisSize(u, ['0', '1'], 1, 1, 1)).toBe(30); // short labels: not below 30 px
    expect(yAxisSize(u, ['-0.0005', '0', '0.0005'], 1, 1, 1)).toBeGreaterThan(10 + 5 + 7 * 6);
  });

  it('keeps the size of the first layout cycle in later ones', () => {
    const u = chart(1);
    u.axes[1]._size = 51;
    expect(yAxisSize(u, ['1,000,000'], 1, 2, 1)).toBe(51);
  });
});
