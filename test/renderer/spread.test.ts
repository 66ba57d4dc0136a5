/** Replicates' spread (spread.ts): cases worked by hand. */
import { describe, expect, it } from 'vitest';
import { errorBarExtent, errorBars, errorBarsNote, spreadAt, spreadOf } from '../../renderer/src/components/spread';

describe('spreadOf', () => {
  it('gives n, mean, sample standard deviation, min and max', () => {
    // mean 40 / 8 = 5; squared deviations 9 1 1 1 0 0 4 16 = 32; sample sd √(32 / 7) (the population's would be 2)
    expect(spreadOf([2, 4, 4, 4, 5, 5, 7, 9])).toEqual({ n: 8, mean: 5, sd: Math.sqrt(32 / 7), min: 2, max: 9 });
    // porosities of three seeds: deviations 0, 0.02, -0.02; 0.0008 / 2 = 0.0004; sd 0.02
    const p = spreadOf([0.61, 0.63, 0.59]);
    expect([p.n, p.min, p.max]).toEqual([3, 0.59, 0.63]);
    expect(p.mean).toBeCloseTo(0.61, 14);
    expect(p.sd).toBeCloseTo(0.02, 14);
    // two runs: mean 2, deviations ±1, 2 / 1 = 2, sd √2
    expect(spreadOf([1, 3])).toEqual({ n: 2, mean: 2, sd: Math.SQRT2, min: 1, max: 3 });
    // the same result twice: a true zero spread
    expect(spreadOf([0.5, 0.5]).sd).toBe(0);
  });

  it('has no standard deviation for one run (not 0)', () => {
    expect(spreadOf([0.42])).toEqual({ n: 1, mean: 0.42, sd: null, min: 0.42, max: 0.42 });
    expect(() => spreadOf([])).toThrow(/no values/);
  });

  it('keeps a small scatter about a large mean (sums of squares lose it)', () => {
    // 1e9 + 1, 2, 3: mean 1e9 + 2, deviations -1, 0, 1, sd 1; Σx² − n·mean² gives 0 or worse here
    expect(spreadOf([1e9 + 1, 1e9 + 2, 1e9 + 3])).toEqual({ n: 3, mean: 1e9 + 2, sd: 1, min: 1e9 + 1, max: 1e9 + 3 });
  });
});

describe('error bars', () => {
  const series = {
    name: 'freezingInterval=50',
    x: [0.1, 0.2, 0.3],
    y: [2, 0.42, 5],
    spread: [spreadOf([1, 3]), spreadOf([0.42]), spreadOf([2, 4, 4, 4, 5, 5, 7, 9])],
  };

  it('spans mean ± sd at each point of two runs or more, none at a point of one run', () => {
    expect(errorBars(series)).toEqual([{ x: 0.1, lo: 2 - Math.SQRT2, hi: 2 + Math.SQRT2 }, { x: 0.3, lo: 5 - Math.sqrt(32 / 7), hi: 5 + Math.sqrt(32 / 7) }]);
    expect(errorBars({ name: 'no spread', x: [1], y: [1] })).toEqual([]);
    expect(errorBarExtent([series])).toEqual([2 - Math.SQRT2, 5 + Math.sqrt(32 / 7)]);
    expect(errorBarExtent([{ ...series, spread: [spreadOf([1]), spreadOf([2]), spreadOf([3])] }])).toBeNull();
    expect(spreadAt(series, 0.2)).toEqual({ n: 1, mean: 0.42, sd: null, min: 0.42, max: 0.42 });
    expect(spreadAt(series, 0.25)).toBeUndefined();
  });

  it('says what the bars show and over how many runs, nothing without bars', () => {
    expect(errorBarsNote([series])).toBe('error bars: mean ± 1 standard deviation (sample) of the 1 to 8 runs at each point; none for one run');
    expect(errorBarsNote([{ ...series, spread: [spreadOf([1, 2, 3]), spreadOf([1, 2, 3]), spreadOf([4, 5, 6])] }])).toBe('error bars: mean ± 1 standard deviation (sample) of the 3 runs at each point');
    expect(errorBarsNote([{ ...series, spread: [spreadOf([1]), spreadOf([2]), spreadOf([3])] }])).toBe('');
    expect(errorBarsNote([{ name: 'a', x: [1], y: [1] }])).toBe('');
  });
});
