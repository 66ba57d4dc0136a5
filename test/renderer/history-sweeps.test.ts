/**
 * Sweeps people can read (issue 18): swept parameters as columns, the runs of a batch grouped and
 * filterable, a metric plotted against a swept parameter with one line per other swept value; metric
 * names suggested in the metric filter (a typo is named); the compare panel follows the selection.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { installFakeApi, makeRun, settle, type FakeApi } from './fakeApi';
import HistoryWorkspace from '../../renderer/src/workspaces/history/HistoryWorkspace.vue';
import PlotPanel from '../../renderer/src/components/PlotPanel.vue';
import { shortLabels, sweepColumns, sweepPlot } from '../../renderer/src/workspaces/history/sweeps';
import { MAX_LIST_PAGE, MAX_SWEEP_POINTS, type RunSummary } from '../../main/api';
import type { RunListParams } from '../../renderer/src/api';

vi.mock('uplot', () => ({ default: class { static paths = {}; destroy() {} setSize() {} } }));

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
});

/** Six runs of a 3 x 2 sweep (rebound x freezing) in batch b1, newest first, and four single runs. */
function sweepRuns(): RunSummary[] {
  const runs: RunSummary[] = [];
  let i = 0;
  for (const freezing of [50, 100]) {
    for (const rebound of [0.1, 0.2, 0.3]) {
      runs.push(makeRun(i++, {
        name: `mix [reboundProbability=${rebound}, freezingInterval=${freezing}]`,
        batchId: 'b1',
        sweep: { reboundProbability: rebound, freezingInterval: freezing },
        metrics: { solidFraction: 0.5 + rebound / 10 + freezing / 10_000, particles: 100 },
      }));
    }
  }
  for (let k = 0; k < 4; k++) runs.push(makeRun(i++, { name: `single ${k}`, metrics: { solidFraction: 0.4, porosity: 0.6 } }));
  return runs;
}

async function mountHistory(runs: RunSummary[], swept = ['reboundProbability', 'freezingInterval'], seeds = 0): Promise<{ api: FakeApi; w: VueWrapper }> {
  const api = installFakeApi(runs);
  api.batches = [{ id: 'b1', name: 'mix sweep', createdAt: runs[0].createdAt, finishedAt: null, counts: { queued: 0, running: 0, paused: 0, done: 6, failed: 0, cancelled: 0 }, swept, seeds }];
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div/>' } }] });
  const w = mount(HistoryWorkspace, { global: { plugins: [router] }, attachTo: document.body });
  wrappers.push(w);
  await settle(10);
  await new Promise((r) => setTimeout(r, 80)); // the batch names are fetched a moment after the rows
  await settle(5);
  return { api, w };
}

const row = (w: VueWrapper, id: string) => w.get(`[data-testid="history-row-${id}"]`);

describe('History with sweeps', () => {
  it('shows the swept parameters as columns and groups the runs of a batch under its name', async () => {
    const { w } = await mountHistory(sweepRuns());
    expect(w.get('[data-testid="history-sweep-col-reboundProbability"]').text()).toBe('reboundProbability');
    expect(w.get('[data-testid="history-sweep-col-freezingInterval"]').text()).toBe('freezingInterval');
    // newest first: r9..r6 single, r5 (rebound 0.3, freezing 100) first of the batch
    const cells = (id: string) => row(w, id).findAll('.swept').map((c) => c.text());
    expect(cells('r5')).toEqual(['0.3', '100']);
    expect(cells('r0')).toEqual(['0.1', '50']);
    expect(cells('r9')).toEqual(['—', '—']);
    expect(row(w, 'r5').classes()).toContain('batch-first');
    expect(row(w, 'r4').classes()).toContain('batch-more');
    expect(row(w, 'r9').classes()).not.toContain('batch-first');
    expect(w.get('[data-testid="history-batch-r5"]').text()).toBe('mix sweep');
  });

  it('shows one batch on a click of its name, and plots a metric against a swept parameter, one line per other swept value', async () => {
    const { api, w } = await mountHistory(sweepRuns());
    await w.get('[data-testid="history-batch-r3"]').trigger('click');
    await new Promise((r) => setTimeout(r, 300));
    await settle(5);
    expect(api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params).toMatchObject({ filter: { batchId: 'b1' } });
    expect(w.get('[data-testid="history-batch-filter"]').text()).toContain('mix sweep');
    expect(w.get('[data-testid="history-total"]').text()).toBe('6 runs');
    await w.get('[data-testid="history-sweep-plot"]').trigger('click');
    await settle(10);
    const panel = w.get('[data-testid="sweep-plot"]');
    expect((panel.get('[data-testid="sweep-metric"]').element as HTMLSelectElement).value).toBe('solidFraction');
    expect((panel.get('[data-testid="sweep-x"]').element as HTMLSelectElement).value).toBe('reboundProbability');
    const series = panel.findComponent(PlotPanel).props('series') as { name: string; x: Float64Array; y: Float64Array }[];
    expect(series.map((s) => s.name)).toEqual(['freezingInterval=50', 'freezingInterval=100']);
    expect([...series[0].x]).toEqual([0.1, 0.2, 0.3]);
    expect([...series[1].y].map((v) => v.toFixed(3))).toEqual(['0.520', '0.530', '0.540']);
    // against the other parameter: one line per rebound probability
    await panel.get('[data-testid="sweep-x"]').setValue('freezingInterval');
    const again = panel.findComponent(PlotPanel).props('series') as { name: string }[];
    expect(again.map((s) => s.name)).toEqual(['reboundProbability=0.1', 'reboundProbability=0.2', 'reboundProbability=0.3']);
  });

  it('counts a failed point re-run in the batch apart from the runs not plotted', async () => {
    // rebound 0.2 failed and its re-run (same seed and value) joined the batch; rebound 0.4 is still queued.
    const runs = [
      makeRun(0, { batchId: 'b1', seed: 1, sweep: { reboundProbability: 0.1 } }),
      makeRun(1, { batchId: 'b1', seed: 2, sweep: { reboundProbability: 0.2 }, status: 'failed' }),
      makeRun(2, { batchId: 'b1', seed: 3, sweep: { reboundProbability: 0.3 } }),
      makeRun(3, { batchId: 'b1', seed: 4, sweep: { reboundProbability: 0.4 }, status: 'queued' }),
      makeRun(4, { batchId: 'b1', seed: 2, sweep: { reboundProbability: 0.2 } }),
    ].map((r): RunSummary => ({ ...r, metrics: r.status === 'done' ? { solidFraction: 0.5 } : {} }));
    const { w } = await mountHistory(runs, ['reboundProbability']);
    await w.get('[data-testid="history-batch-r4"]').trigger('click');
    await new Promise((r) => setTimeout(r, 300));
    await settle(5);
    await w.get('[data-testid="history-sweep-plot"]').trigger('click');
    await settle(10);
    // It read '3 of 5 runs plotted (the others are not done or lack solidFraction)'.
    expect(w.get('[data-testid="sweep-used"]').text()).toBe('3 of 5 runs plotted (1 failed or cancelled, re-run in the batch; 1 not done or without solidFraction)');
  });

  it('labels the sweep plot\'s axes with the units the engine declares', async () => {
    const runs = [0, 1].map((i) => makeRun(i, { batchId: 'b1', sweep: { 'box.lx': 10 + i }, metrics: { solidFraction: 0.5 + i / 10 } }));
    const { w } = await mountHistory(runs, ['box.lx']);
    await w.get('[data-testid="history-batch-r1"]').trigger('click');
    await new Promise((r) => setTimeout(r, 300));
    await settle(5);
    await w.get('[data-testid="history-sweep-plot"]').trigger('click');
    await settle(10);
    const plot = w.get('[data-testid="sweep-plot"]').findComponent(PlotPanel);
    expect([plot.props('xLabel'), plot.props('yLabel')]).toEqual(['box.lx (unit)', 'solidFraction (fraction)']);
  });

  it('sums up a batch that sweeps only its seed (replicates): each metric\'s n, mean, sd, min and max of the runs that finished, saved as CSV', async () => {
    const runs = [
      makeRun(0, { batchId: 'b1', seed: 1, sweep: { seed: 1 }, metrics: { solidFraction: 0.5, particles: 100 } }),
      makeRun(1, { batchId: 'b1', seed: 2, sweep: { seed: 2 }, metrics: { solidFraction: 0.6, particles: 100 } }),
      makeRun(2, { batchId: 'b1', seed: 3, sweep: { seed: 3 }, metrics: { solidFraction: 0.7 } }),
      makeRun(3, { batchId: 'b1', seed: 4, sweep: { seed: 4 }, status: 'failed', metrics: { solidFraction: 0.1 } }),
      makeRun(4, { batchId: 'b1', seed: 5, sweep: { seed: 5 }, status: 'running', metrics: {} }),
    ];
    const { w } = await mountHistory(runs, [], 5);
    await row(w, 'r2').trigger('click');
    await settle(5);
    const open = w.get('[data-testid="history-sweep-plot"]');
    expect(open.text()).toBe('Replicates');
    await open.trigger('click');
    await settle(10);
    expect(w.find('[data-testid="sweep-plot"]').exists()).toBe(false);
    const panel = w.get('[data-testid="replicates"]');
    expect(panel.get('[data-testid="replicates-counted"]').text()).toBe('3 of 5 seeds counted (the others failed, were cancelled or have not finished)');
    const cells = (m: string) => panel.get(`[data-testid="replicates-row-${m}"]`).findAll('td').map((c) => c.text());
    // 0.5, 0.6, 0.7: mean 0.6, sample sd 0.1; the failed run's 0.1 is not counted
    expect(cells('solidFraction')).toEqual(['solidFraction', 'fraction', '3', '0.6', '0.1', '0.5', '0.7']);
    expect(cells('particles')).toEqual(['particles', '', '2', '100', '0', '100', '100']);
    const saved: { blob?: Blob; name?: string } = {};
    const urls = URL as unknown as Record<string, unknown>;
    urls.createObjectURL = (b: Blob) => { saved.blob = b; return 'blob:csv'; };
    urls.revokeObjectURL = () => {};
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) { saved.name = this.download; });
    try {
      await panel.get('[data-testid="replicates-csv"]').trigger('click');
    } finally {
      click.mockRestore();
      delete urls.createObjectURL;
      delete urls.revokeObjectURL;
    }
    expect(saved.name).toBe('mix_sweep-replicates.csv');
    const [head, ...lines] = (await saved.blob!.text()).trim().split('\n');
    expect(head).toBe('metric,unit,n,mean,sd,min,max');
    expect(lines[0]).toBe('particles,,2,100,0,100,100');
    const [name, unit, n, mean, sd, min, max] = lines[1].split(',');
    expect([name, unit, n, min, max]).toEqual(['solidFraction', 'fraction', '3', '0.5', '0.7']);
    expect([Number(mean), Number(sd)].map((v) => v.toFixed(12))).toEqual(['0.600000000000', '0.100000000000']);
  });

  it('counts a seed whose failed run was re-run in its batch once, by its re-run', async () => {
    // seed 3 failed, and its re-run joined the batch in its place (JobQueue.rerun) and finished
    const runs = [1, 2, 3].map((seed, i) => makeRun(i, { batchId: 'b1', seed, sweep: { seed }, status: seed === 3 ? 'failed' : 'done' }));
    runs.push(makeRun(3, { batchId: 'b1', seed: 3, sweep: { seed: 3 } }));
    const { w } = await mountHistory(runs, [], 3);
    await row(w, 'r3').trigger('click');
    await settle(5);
    await w.get('[data-testid="history-sweep-plot"]').trigger('click');
    await settle(10);
    const panel = w.get('[data-testid="replicates"]');
    expect(panel.get('[data-testid="replicates-counted"]').text()).toBe('3 of 3 seeds counted (1 re-run)');
    expect(panel.get('[data-testid="replicates-row-particles"]').findAll('td')[2].text()).toBe('3');
    // the re-run waits again: the seed is not counted until it ends
    runs[3].status = 'queued';
    await w.get('[data-testid="replicates-close"]').trigger('click');
    await w.get('[data-testid="history-sweep-plot"]').trigger('click');
    await settle(10);
    expect(w.get('[data-testid="replicates-counted"]').text()).toBe('2 of 3 seeds counted (1 re-run; the others failed, were cancelled or have not finished)');
  });

  it('sums up every run of a batch, beyond one page of runs.list: a 10,000-seed batch with a re-run joined', async () => {
    // 10,000 replicates (the most a sweep makes), seed 10000's failed, and its re-run joined the batch
    // (JobQueue.rerun): 10,001 runs, one more than a page holds; the re-run is the newest.
    const runs = Array.from({ length: MAX_SWEEP_POINTS + 1 }, (_, i) => {
      const seed = Math.min(i + 1, MAX_SWEEP_POINTS);
      return makeRun(i, { batchId: 'b1', seed, sweep: { seed }, status: i === MAX_SWEEP_POINTS - 1 ? 'failed' : 'done' });
    });
    const { api, w } = await mountHistory(runs, [], MAX_SWEEP_POINTS);
    await row(w, `r${MAX_SWEEP_POINTS}`).trigger('click');
    await settle(5);
    await w.get('[data-testid="history-sweep-plot"]').trigger('click');
    await settle(10);
    const lists = api.calls.filter((c) => c.method === 'runs.list').map((c) => c.params as RunListParams);
    expect(lists.every((p) => p.limit! <= MAX_LIST_PAGE)).toBe(true); // the service refuses more
    const cells = w.get('[data-testid="replicates-row-particles"]').findAll('td').map((c) => c.text());
    // particles 100 + i: the re-run's 10100 is the largest, and 10,000 runs finished
    expect([cells[2], cells[6]]).toEqual(['10000', '10,100']);
  });

  it('shows a replicate\'s swept seed once, in the Seed column', async () => {
    const runs = [1, 2].flatMap((seed) => [0.1, 0.2].map((rebound) => ({ seed, rebound })))
      .map(({ seed, rebound }, i) => makeRun(i, { batchId: 'b1', seed, sweep: { reboundProbability: rebound, seed } }));
    const { w } = await mountHistory(runs, ['reboundProbability'], 2);
    expect(w.findAll('[data-testid^="history-sweep-col-"]').map((c) => c.text())).toEqual(['reboundProbability']);
    expect(w.findAll('[data-testid="history-head"] .th').map((c) => c.text()).filter((t) => /seed/i.test(t))).toEqual(['Seed']);
    expect(row(w, 'r3').findAll('.num').map((c) => c.text()).slice(1, 4)).toEqual(['2', '0', '0.2']);
  });

  it('suggests the metric names of every run in the metric filter, and names a metric no run has', async () => {
    const { w } = await mountHistory(sweepRuns());
    const options = w.findAll('#history-metrics option').map((o) => o.attributes('value'));
    expect(options).toEqual(['particles', 'porosity', 'solidFraction']);
    await w.get('[data-testid="history-metric"]').setValue('porosty');
    expect(w.get('[data-testid="history-metric-unknown"]').text()).toBe('no run has a metric “porosty”; known: particles, porosity, solidFraction');
    await w.get('[data-testid="history-metric"]').setValue('poros');
    expect(w.get('[data-testid="history-metric-unknown"]').text()).toBe('no run has a metric “poros”; known: porosity');
    await w.get('[data-testid="history-metric"]').setValue('porosity');
    expect(w.find('[data-testid="history-metric-unknown"]').exists()).toBe(false);
  });

  it('compares the current selection: the panel follows it, and closes when fewer than two runs are selected', async () => {
    const { w } = await mountHistory(sweepRuns());
    await row(w, 'r9').trigger('click');
    await row(w, 'r8').trigger('click', { ctrlKey: true });
    await w.get('[data-testid="history-compare"]').trigger('click');
    await settle(10);
    expect(w.get('[data-testid="compare"]').text()).toContain('Compare 2 runs');
    await row(w, 'r7').trigger('click', { ctrlKey: true });
    await settle(10);
    expect(w.get('[data-testid="compare"]').text()).toContain('Compare 3 runs');
    expect(w.get('[data-testid="compare-metrics"] thead').text()).toContain('single 1');
    await row(w, 'r6').trigger('click');
    await settle(10);
    expect(w.find('[data-testid="compare"]').exists()).toBe(false);
    expect(w.find('[data-testid="run-details"]').exists()).toBe(true);
  });
});

describe('sweeps.ts', () => {
  it('labels columns by their last path segment, longer only where two would read the same', () => {
    expect(shortLabels(['box.size', 'mixture.types.0.size.value', 'mixture.types.1.size.value'])).toEqual(['size', '0.size.value', '1.size.value']);
    expect(shortLabels(['reboundProbability', 'stop.particles'])).toEqual(['reboundProbability', 'particles']);
    // a list's element by its list and index: a box's height swept read '2'
    expect(shortLabels(['box.size.2', 'mixture.types.0.maxRotation.1', 'a.0'])).toEqual(['size.2', 'maxRotation.1', 'a.0']);
    const rows = [makeRun(1, { sweep: { a: 1, 'x.b': 2 } }), undefined, makeRun(2, { sweep: { c: 3 } })];
    expect(sweepColumns(rows, 2).map((c) => c.label)).toEqual(['a', 'b']);
  });

  it('plots only done runs with the metric, each point the mean of its runs with their spread', () => {
    const runs = [
      // replicates: the batch's swept paths are its params', the seed varies within a point
      makeRun(1, { sweep: { x: 1, k: 'a', seed: 1 }, metrics: { m: 1 } }),
      makeRun(2, { sweep: { x: 1, k: 'a', seed: 2 }, metrics: { m: 3 } }),
      makeRun(3, { sweep: { x: 2, k: 'a', seed: 1 }, metrics: { m: 5 } }),
      makeRun(4, { sweep: { x: 2, k: 'a', seed: 2 }, status: 'failed', metrics: {} }),
      makeRun(5, { sweep: { x: 1, k: 'b', seed: 1 }, metrics: { other: 1 } }),
      makeRun(6, { sweep: { x: 1, k: 'a', seed: 3 }, metrics: { m: 5 } }),
    ];
    const p = sweepPlot(runs, ['x', 'k'], 'x', 'm');
    expect(p.used).toBe(4);
    expect(p.averaged).toBe(1);
    // at x = 1: 1, 3, 5, mean 3, deviations -2, 0, 2, 8 / 2 = 4, sd 2; at x = 2 one run, no sd
    expect(p.series.map((s) => [s.name, Array.from(s.x), Array.from(s.y), s.spread])).toEqual([
      ['k=a', [1, 2], [3, 5], [{ n: 3, mean: 3, sd: 2, min: 1, max: 5 }, { n: 1, mean: 5, sd: null, min: 5, max: 5 }]],
    ]);
  });
});
