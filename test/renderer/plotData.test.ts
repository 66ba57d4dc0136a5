import { describe, expect, it } from 'vitest';
import { alignSeries, barXRange } from '../../renderer/src/components/plotData';

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
