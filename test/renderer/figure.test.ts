import { describe, expect, it } from 'vitest';
import { niceTicks, plotSvg, seriesCsv, tickText } from '../../renderer/src/components/figure';

describe('figure export', () => {
  it('picks round ticks covering the range', () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0.13, 0.87, 4)).toEqual([0.2, 0.4, 0.6, 0.8]);
    expect(niceTicks(-3, 17, 4)).toEqual([0, 5, 10, 15]);
    expect(tickText(0.30000000000000004)).toBe('0.3');
    expect(tickText(2.5e-5)).toBe('2.5e-5');
  });

  it('writes the data as CSV on the union of the series\' x, blank where a series has no sample', () => {
    const csv = seriesCsv([{ name: 'rebound 0.1', x: [1, 2], y: [0.5, 0.6] }, { name: 'a "b", c', x: [2, 3], y: [0.7, 0.8] }], 'freezing interval');
    expect(csv).toBe('freezing interval,rebound 0.1,"a ""b"", c"\n1,0.5,\n2,0.6,0.7\n3,,0.8\n');
  });

  it('draws each series as a polyline in plot coordinates, with title, labels and a legend', () => {
    const svg = plotSvg({ title: 'Porosity <bed>', xLabel: 'x', yLabel: 'y', width: 400, height: 300, series: [{ name: 'A', x: [0, 1, 2], y: [0, 1, 2] }, { name: 'B', x: [0, 2], y: [2, 0] }] });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('Porosity &lt;bed&gt;');
    const lines = [...svg.matchAll(/<polyline[^>]*points="([^"]+)"/g)].map((m) => m[1].split(' ').map((p) => p.split(',').map(Number)));
    expect(lines).toHaveLength(2);
    const [a, b] = lines;
    // linear in both axes, y up, shared x and y values at the same places
    expect(a[1][0]).toBeCloseTo((a[0][0] + a[2][0]) / 2, 1);
    expect(a[1][1]).toBeCloseTo((a[0][1] + a[2][1]) / 2, 1);
    expect(a[0][1]).toBeGreaterThan(a[2][1]);
    expect([b[0][0], b[1][0]]).toEqual([a[0][0], a[2][0]]);
    expect([b[0][1], b[1][1]]).toEqual([a[2][1], a[0][1]]);
    // inside the plot frame (left 64, right 400 - 16, top 30), not on it: the ends have room
    const frame = /<rect x="64" y="30" width="(\d+)" height="(\d+)" fill="none"/.exec(svg)!;
    const [fw, fh] = [Number(frame[1]), Number(frame[2])];
    expect(fw).toBe(320);
    for (const [x, y] of [...a, ...b]) {
      expect(x).toBeGreaterThan(64);
      expect(x).toBeLessThan(64 + fw);
      expect(y).toBeGreaterThan(30);
      expect(y).toBeLessThan(30 + fh);
    }
    // the legend sits under the plot, not over the data
    const legendY = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" fill="#1f2328">[AB]<\/text>/g)].map((m) => Number(m[1]));
    expect(legendY).toHaveLength(2);
    for (const y of legendY) expect(y).toBeGreaterThan(30 + fh);
    expect(svg).toMatch(/<text[^>]*>A<\/text>/);
    expect(svg).toMatch(/<text[^>]*>B<\/text>/);
  });
});
