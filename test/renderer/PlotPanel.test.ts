import { describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import { nextTick } from 'vue';

// happy-dom has no 2D canvas, so uPlot itself is replaced by a recorder of what it was given.
const made: { opts: { series: { label?: string; paths?: unknown }[]; axes: { label?: string }[]; hooks: { setCursor: ((u: unknown) => void)[] } }; data: unknown[]; destroyed: boolean }[] = [];
const saved: { name: string; type: string; text: string }[] = [];
vi.mock('../../renderer/src/components/figure', async (original) => ({
  ...(await original<typeof import('../../renderer/src/components/figure')>()),
  downloadBlob: (blob: Blob, name: string) => void blob.text().then((text) => saved.push({ name, type: blob.type, text })),
}));
vi.mock('uplot', () => {
  class FakePlot {
    static paths = { bars: () => 'bars-path' };
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
