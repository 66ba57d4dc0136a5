import { describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import { nextTick } from 'vue';

// happy-dom has no 2D canvas, so uPlot itself is replaced by a recorder of what it was given.
const made: {
  opts: {
    series: { label?: string; paths?: unknown }[];
    axes: { label?: string }[];
    hooks: { setCursor: ((u: unknown) => void)[]; draw?: ((u: unknown) => void)[] };
    scales: { y?: { range?: (u: unknown, min: number, max: number) => [number, number] } };
  };
  data: unknown[];
  destroyed: boolean;
}[] = [];
const saved: { name: string; type: string; text: string }[] = [];
vi.mock('../../renderer/src/components/figure', async (original) => ({
  ...(await original<typeof import('../../renderer/src/components/figure')>()),
  downloadBlob: (blob: Blob, name: string) => void blob.text().then((text) => saved.push({ name, type: blob.type, text })),
}));
vi.mock('uplot', () => {
  class FakePlot {
    static paths = { bars: () => 'bars-path' };
    static pxRatio = 1;
    static rangeNum = (min: number, max: number) => [min, max];
    rec: (typeof made)[number];
    constructor(opts: (typeof made)[number]['opts'], data: unknown[]) {
      this.rec = { opts, data, destroyed: false };
      made.push(this.rec);
    }
    destroy() {
      this.rec.destroyed = true;
    }
    setSize() {}
  }
  return { default: FakePlot };
});

const { default: PlotPanel } = await import('../../renderer/src/components/PlotPanel.vue');
const { spreadOf } = await import('../../renderer/src/components/spread');

describe('PlotPanel', () => {
  it('shows an empty state without data and builds a plot with labelled axes and series', async () => {
    const w = mount(PlotPanel, { props: { series: [], xLabel: 'step', yLabel: 'particles' }, attachTo: document.body });
    expect(w.text()).toContain('No data to plot');
    expect(w.find('.plot-ylabel').exists()).toBe(false);
    expect(made.length).toBe(0);

    await w.setProps({
      series: [
        { name: 'run A', x: [0, 1, 2], y: [0, 5, 9] },
        { name: 'run B', x: [0, 2], y: [0, 7] },
      ],
      title: 'Particles',
    });
    await nextTick();
    expect(w.text()).toContain('Particles');
    const last = made.at(-1)!;
    // The x label sits on its axis; the y label is a caption above the plot (a rotated label
    // along the short y axis was cut at both ends).
    expect(last.opts.axes.map((a) => a.label)).toEqual(['step', undefined]);
    expect(w.get('.plot-ylabel').text()).toBe('particles');
    expect(last.opts.series.map((s) => s.label)).toEqual(['step', 'run A', 'run B']);
    expect(Array.from(last.data[0] as ArrayLike<number>)).toEqual([0, 1, 2]);
    expect(Array.from(last.data[2] as ArrayLike<number | null>)).toEqual([0, null, 7]);

    await w.setProps({ bars: true });
    await nextTick();
    expect(made.at(-2)!.destroyed).toBe(true);
    expect(made.at(-1)!.opts.series[1].paths).toBe('bars-path');
    w.unmount();
    expect(made.at(-1)!.destroyed).toBe(true);
  });
});

describe('PlotPanel hover and export', () => {
  it('shows the values under the cursor and saves the data as CSV and the figure as SVG', async () => {
    const series = [{ name: 'run A', x: [0, 1, 2], y: [0, 5, 9] }, { name: 'run B', x: [0, 2], y: [0, 7] }];
    const w = mount(PlotPanel, { props: { series, xLabel: 'step', yLabel: 'particles', title: 'Particles in the box' }, attachTo: document.body });
    await nextTick();
    const plot = made.at(-1)!;
    plot.opts.hooks.setCursor[0]({ cursor: { idx: 2 }, data: plot.data });
    await nextTick();
    expect(w.get('[data-testid="plot-hover"]').text()).toBe('step = 2 · run A 9 · run B 7');
    plot.opts.hooks.setCursor[0]({ cursor: { idx: null }, data: plot.data });
    await nextTick();
    expect(w.get('[data-testid="plot-hover"]').text()).toBe('');

    await w.get('[data-testid="plot-export-csv"]').trigger('click');
    await w.get('[data-testid="plot-export-svg"]').trigger('click');
    await new Promise((r) => setTimeout(r, 10));
    expect(saved.map((x) => [x.name, x.type])).toEqual([['Particles_in_the_box.csv', 'text/csv'], ['Particles_in_the_box.svg', 'image/svg+xml']]);
    expect(saved[0].text).toBe('step,run A,run B\n0,0,0\n1,5,\n2,9,7\n');
    expect(saved[1].text).toContain('Particles in the box');
    expect(saved[1].text.match(/<polyline/g)).toHaveLength(2);
    w.unmount();
  });
});

describe('PlotPanel with replicates', () => {
  it('draws error bars where a point has two runs or more, ranges y over them, and tables n, mean, sd, min and max at the cursor', async () => {
    const series = [
      { name: 'k=a', x: [1, 2], y: [2, 0.42], spread: [spreadOf([1, 3]), spreadOf([0.42])] },
      { name: 'k=b', x: [1, 2], y: [5, 6], spread: [spreadOf([2, 4, 4, 4, 5, 5, 7, 9]), spreadOf([6])] },
    ];
    const w = mount(PlotPanel, { props: { series, xLabel: 'rebound', yLabel: 'porosity' }, attachTo: document.body });
    await nextTick();
    const plot = made.at(-1)!;
    // the y range holds the bars' ends, 2 − √2 and 5 + √(32/7) (the fake rangeNum returns what it is given)
    expect(plot.opts.scales.y!.range!(null, 1, 5)).toEqual([2 - Math.SQRT2, 5 + Math.sqrt(32 / 7)]);
    expect(plot.opts.scales.y!.range!(null, 0.42, 6)).toEqual([0.42, 5 + Math.sqrt(32 / 7)]);
    expect(plot.opts.scales.y!.range!(null, 0, 10)).toEqual([0, 10]);
    // drawn on the canvas, value = pixel here: a bar and two caps at x = 1 for each line, none at x = 2 (one run)
    const strokes: number[][][] = [];
    let path: number[][] = [];
    const ctx = {
      save() {}, restore() {}, rect() {}, clip() {},
      beginPath() { path = []; },
      moveTo(x: number, y: number) { path.push([x, y]); },
      lineTo(x: number, y: number) { path.push([x, y]); },
      stroke() { strokes.push(path); },
    };
    plot.opts.hooks.draw![0]({ ctx, bbox: { left: 0, top: 0, width: 100, height: 100 }, series: [{ show: true }, { show: true }, { show: true }], valToPos: (v: number) => v });
    expect(strokes.length).toBe(2); // one stroke per line
    expect(strokes[0]).toEqual([[1, 2 - Math.SQRT2], [1, 2 + Math.SQRT2], [-2, 2 - Math.SQRT2], [4, 2 - Math.SQRT2], [-2, 2 + Math.SQRT2], [4, 2 + Math.SQRT2]]);
    expect(strokes[1].map(([x]) => x)).toEqual([1, 1, -2, 4, -2, 4]);
    const rows = () => w.findAll('[data-testid="plot-spread"] tbody tr').map((r) => r.findAll('td').map((c) => c.text()));
    expect(rows()).toEqual([['k=a', '—', '—', '—', '—', '—'], ['k=b', '—', '—', '—', '—', '—']]);
    plot.opts.hooks.setCursor[0]({ cursor: { idx: 0 }, data: plot.data });
    await nextTick();
    expect(w.get('[data-testid="plot-spread"] caption').text()).toBe('rebound = 1');
    expect(rows()).toEqual([['k=a', '2', '2', '1.41421', '1', '3'], ['k=b', '8', '5', '2.13809', '2', '9']]);
    // one run: no standard deviation
    plot.opts.hooks.setCursor[0]({ cursor: { idx: 1 }, data: plot.data });
    await nextTick();
    expect(rows()).toEqual([['k=a', '1', '0.42', '—', '0.42', '0.42'], ['k=b', '1', '6', '—', '6', '6']]);
    expect(w.get('[data-testid="plot-spread-note"]').text()).toBe('error bars: mean ± 1 standard deviation (sample) of the 1 to 8 runs at each point; none for one run');
    w.unmount();
  });

  it('draws no bars, no y range of its own and no table for series without spreads', async () => {
    const w = mount(PlotPanel, { props: { series: [{ name: 'A', x: [1, 2], y: [1, 2] }], xLabel: 'x', yLabel: 'y' }, attachTo: document.body });
    await nextTick();
    const plot = made.at(-1)!;
    expect(plot.opts.hooks.draw).toBeUndefined();
    expect(plot.opts.scales.y).toBeUndefined();
    expect(w.find('[data-testid="plot-spread"]').exists()).toBe(false);
    w.unmount();
  });
});
