import { describe, expect, it } from 'vitest';
import { niceTicks, plotSvg, seriesCsv, tickText } from '../../renderer/src/components/figure';
import { spreadOf } from '../../renderer/src/components/spread';

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

  /** A sweep's two lines of replicates: at x = 1 three runs and one run, at x = 2 two runs each. */
  const replicates = [
    { name: 'k=a', x: [1, 2], y: [0.61, 2], spread: [spreadOf([0.61, 0.63, 0.59]), spreadOf([1, 3])] },
    { name: 'k=b, "q"', x: [1, 2], y: [0.5, 0.7], spread: [spreadOf([0.5]), spreadOf([0.7, 0.7])] },
  ];

  it('writes replicates one point a row: its line, x, n, mean, sample sd (empty for one run), min and max', () => {
    const rows = seriesCsv(replicates, 'rebound (1)').trim().split('\n');
    expect(rows[0]).toBe('line,rebound (1),n,mean,sd,min,max');
    const [line, x, n, mean, sd, min, max] = rows[1].split(',');
    expect([line, x, n, min, max]).toEqual(['k=a', '1', '3', '0.59', '0.63']);
    expect(Number(mean)).toBeCloseTo(0.61, 14);
    expect(Number(sd)).toBeCloseTo(0.02, 14);
    expect(rows.slice(2)).toEqual([`k=a,2,2,2,${Math.SQRT2},1,3`, '"k=b, ""q""",1,1,0.5,,0.5,0.5', '"k=b, ""q""",2,2,0.7,0,0.7,0.7']);
  });

  it('draws error bars of ± 1 sd with caps where a point has two runs or more, inside the y range, and says what they are', () => {
    const svg = plotSvg({ xLabel: 'x', yLabel: 'y', width: 600, height: 400, series: replicates });
    const bars = [...svg.matchAll(/<path class="error-bar" d="M([\d.]+) ([\d.]+)V([\d.]+)M/g)].map((m) => m.slice(1).map(Number));
    // k=a at 1 and 2, k=b at 2 only (one run at 1: no bar; two equal runs at 2: a bar of zero, caps only)
    expect(bars).toHaveLength(3);
    const [top, , h] = /<rect x="64" y="(\d+)" width="(\d+)" height="([\d.]+)" fill="none"/.exec(svg)!.slice(1).map(Number);
    for (const [, lo, hi] of bars) {
      expect(lo).toBeGreaterThanOrEqual(hi); // y grows downwards: mean − sd below mean + sd
      expect(hi).toBeGreaterThan(top);
      expect(lo).toBeLessThan(top + h);
    }
    // 2 ± √2 at x = 2 is √2 / 0.02 as long as 0.61 ± 0.02 at x = 1
    expect((bars[1][1] - bars[1][2]) / (bars[0][1] - bars[0][2])).toBeCloseTo(Math.SQRT2 / 0.02, 0);
    expect(bars[2][1]).toBe(bars[2][2]);
    // under the plot, in lines that fit its width
    const note = [...svg.matchAll(/<text class="error-bars-note" x="64" y="([\d.]+)"[^>]*>([^<]*)<\/text>/g)];
    expect(note.map((m) => m[2]).join(' ')).toBe('error bars: mean ± 1 standard deviation (sample) of the 1 to 3 runs at each point; none for one run');
    expect(note.length).toBe(2);
    for (const m of note) expect(Number(m[1])).toBeGreaterThan(top + h);
    expect(Number(note[1][1])).toBeLessThan(400);
    // plain series: no bars, no note
    const plain = plotSvg({ xLabel: 'x', yLabel: 'y', width: 600, height: 400, series: [{ name: 'A', x: [1, 2], y: [1, 2] }] });
    expect(plain).not.toContain('error-bar');
    expect(plain).not.toContain('error bars');
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
