import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { FAKE_EXPORT_FORMATS, installFakeApi, makeRun, settle } from './fakeApi';
import { cancelled } from '../../main/api';
import { key, typeKeys } from './numberKeys';
import HistoryWorkspace from '../../renderer/src/workspaces/history/HistoryWorkspace.vue';
import RunCompare from '../../renderer/src/workspaces/history/RunCompare.vue';
import PlotPanel from '../../renderer/src/components/PlotPanel.vue';
import { PagedRuns } from '../../renderer/src/workspaces/history/pagedRuns';
import { compareRows, distinctNames, flatten } from '../../renderer/src/workspaces/history/compare';
import { draft } from '../../renderer/src/stores/draft';
import { dispatchShortcut } from '../../renderer/src/stores/shortcuts';
import { status } from '../../renderer/src/stores/status';
import { toasts } from '../../renderer/src/stores/toasts';

vi.mock('uplot', () => ({ default: class { static paths = {}; destroy() {} setSize() {} } }));

function makeRouter() {
  return createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div/>' } }] });
}

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
});

async function mountHistory(runs = 30) {
  const api = installFakeApi(Array.from({ length: runs }, (_, i) => makeRun(i, { engine: i % 3 ? 'toy' : 'voxel', status: i % 5 ? 'done' : 'failed' })));
  const router = makeRouter();
  const w = mount(HistoryWorkspace, { global: { plugins: [router] }, attachTo: document.body });
  wrappers.push(w);
  await settle(10);
  return { api, w, router };
}

const rows = (w: VueWrapper) => w.findAll('[data-testid^="history-row-"]');

describe('HistoryWorkspace', () => {
  it('pages 100,000 runs from the service and renders only the rows in view', async () => {
    const { api, w } = await mountHistory(100_000);
    expect(w.find('[data-testid="history-total"]').text()).toBe('100,000 runs');
    const lists = api.calls.filter((c) => c.method === 'runs.list');
    expect(lists.length).toBe(1);
    expect(lists[0].params).toMatchObject({ offset: 0, limit: 200, sort: { field: 'createdAt', dir: 'desc' } });
    expect(rows(w).length).toBeLessThan(60);
    expect(rows(w)[0].attributes('data-testid')).toBe('history-row-r99999');

    // Jump far down: only the pages in view load, and the rows there are drawn.
    const vp = w.find('[data-testid="history-viewport"]').element as HTMLDivElement;
    vp.scrollTop = 26 * 70_000;
    await w.find('[data-testid="history-viewport"]').trigger('scroll');
    await settle(10);
    // The first page there by offset, the next after it (from where it ends).
    const far = api.calls.filter((c) => c.method === 'runs.list').slice(1).map((c) => c.params as { offset?: number; after?: string });
    expect(far[0].offset).toBeGreaterThanOrEqual(69_800);
    expect(far.every((p) => p.after !== undefined || (p.offset! >= 69_800 && p.offset! <= 70_200))).toBe(true);
    expect(rows(w).some((r) => r.attributes('data-testid') === 'history-row-r29999')).toBe(true);
  });

  it('sends filters and sorting to the service', async () => {
    const { api, w } = await mountHistory();
    await w.find('[data-testid="history-search"]').setValue('run 1');
    await w.find('[data-testid="history-engine"]').setValue('toy');
    await w.find('[data-testid="history-status-failed"]').setValue(true);
    await w.find('[data-testid="history-metric"]').setValue('solidFraction');
    await w.find('[data-testid="history-metric-min"]').setValue('0.5');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    const last = api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params as { filter: unknown };
    expect(last.filter).toEqual({ text: 'run 1', engine: 'toy', status: ['failed'], metric: { name: 'solidFraction', min: 0.5 } });
    // Failed toy runs are the multiples of 5 that are not multiples of 3; of those only r10 contains 'run 1'.
    expect(rows(w).map((r) => r.attributes('data-testid'))).toEqual(['history-row-r10']);
    await w.find('[data-testid="history-sort-created"]').trigger('click');
    await settle();
    expect((api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params as { sort: unknown }).sort).toEqual({ field: 'createdAt', dir: 'asc' });
    // A min typed as '1e' (an exponent not finished) is no number: the browser empties the value and flags it.
    // Refused at the field; the list keeps its last filter instead of dropping the bound.
    const min = w.find('[data-testid="history-metric-min"]');
    Object.defineProperty(min.element, 'validity', { configurable: true, value: { badInput: true } });
    const listed = api.calls.filter((c) => c.method === 'runs.list').length;
    await min.setValue('');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.get('[data-testid="history-filter-error"]').text()).toBe('metric min must be a number (decimals with a point: 0.4)');
    expect(min.attributes('aria-invalid')).toBe('true');
    expect(api.calls.filter((c) => c.method === 'runs.list').length).toBe(listed);
    // The list on screen is the last valid filter's: said so and dimmed, not to be read as the typed one's.
    expect(w.get('[data-testid="history-stale"]').text()).toBe('These are the runs of the last valid filter: correct the filter above to list its runs.');
    expect(w.get('[role="grid"]').classes()).toContain('stale');
    // A run that ends refetches the list: still the last valid filter's, not the refused one's.
    const before = api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params as { filter: unknown };
    api.emit('run.updated', makeRun(500, { status: 'done' }));
    await new Promise((r) => setTimeout(r, 1100));
    await settle();
    const after = api.calls.filter((c) => c.method === 'runs.list');
    expect(after.length).toBeGreaterThan(listed);
    expect((after.at(-1)!.params as { filter: unknown }).filter).toEqual(before.filter);
  });

  it("a metric bound typed with a decimal comma ('0,4') is refused at the field; Clear filters then lists every run", async () => {
    const { api, w } = await mountHistory();
    await w.find('[data-testid="history-metric"]').setValue('solidFraction');
    const min = w.find('[data-testid="history-metric-min"]');
    await typeKeys(min.element as HTMLInputElement, '0,4');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.get('[data-testid="history-filter-error"]').text()).toBe('metric min must be a number (decimals with a point: 0.4)');
    expect(min.attributes('aria-invalid')).toBe('true');
    expect(api.calls.filter((c) => c.method === 'runs.list').some((c) => JSON.stringify(c.params).includes('"min":4'))).toBe(false);
    await w.findAll('button').find((b) => b.text() === 'Clear filters')!.trigger('click');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.find('[data-testid="history-filter-error"]').exists()).toBe(false);
    expect(w.find('[data-testid="history-stale"]').exists()).toBe(false);
    expect((min.element as HTMLInputElement).value).toBe('');
    expect(min.attributes('aria-invalid')).toBeUndefined();
    expect((api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params as { filter: unknown }).filter).toEqual({});
    // The box, emptied by Clear filters, reads what is typed next.
    await w.find('[data-testid="history-metric"]').setValue('solidFraction');
    await (min.element as HTMLInputElement).focus();
    for (const k of '0.5') await key(min.element as HTMLInputElement, k);
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect((api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params as { filter: unknown }).filter).toEqual({ metric: { name: 'solidFraction', min: 0.5 } });
  });

  it('shift-click selects a range of runs without selecting the page text between them', async () => {
    const { w } = await mountHistory();
    const mousedown = (shiftKey: boolean) => {
      const e = new MouseEvent('mousedown', { shiftKey, bubbles: true, cancelable: true });
      rows(w)[3].element.dispatchEvent(e);
      return e.defaultPrevented;
    };
    expect(mousedown(true)).toBe(true);
    expect(mousedown(false)).toBe(false);
  });

  it('filters imported sphere sets by their engine, which engines.list does not name', async () => {
    const { api, w } = await mountHistory();
    const engine = w.find('[data-testid="history-engine"]');
    expect(engine.findAll('option').map((o) => o.attributes('value'))).toContain('spheres');
    await engine.setValue('spheres');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect((api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params as { filter: unknown }).filter).toEqual({ engine: 'spheres' });
  });

  it('sorts by a metric column in the service, a page at a time, runs without the metric last', async () => {
    const { api, w } = await mountHistory();
    // r3 has no solidFraction: last in both directions
    api.runs[3].metrics = { particles: 1 };
    const heads = () => w.findAll('[data-testid^="history-sort-metric-"]').map((h) => h.attributes('data-testid'));
    const before = heads();
    // The sorted page held back: while it loads, the columns stay (the table narrowed and its sideways scroll fell back).
    const call = api.call;
    let release = () => {};
    api.call = (method, params) => (method === 'runs.list' ? new Promise((resolve) => { release = () => resolve(call(method, params)); }) : call(method, params)) as never;
    await w.find('[data-testid="history-sort-metric-solidFraction"]').trigger('click');
    await settle(2);
    expect(rows(w).length).toBe(0);
    expect(heads()).toEqual(before);
    api.call = call;
    release();
    await settle(10);
    const lists = () => api.calls.filter((c) => c.method === 'runs.list').map((c) => c.params as { offset: number; limit: number });
    expect(lists().at(-1)).toMatchObject({ offset: 0, limit: 200, sort: { metric: 'solidFraction', dir: 'desc' } });
    const ids = () => rows(w).map((r) => r.attributes('data-testid')!.slice('history-row-'.length));
    // solidFraction is 0.5 + (i % 10) / 100: highest 0.59 (r29, r19, r9, ties newest first)
    expect(ids().slice(0, 3)).toEqual(['r29', 'r19', 'r9']);
    expect(ids().at(-1)).toBe('r3');
    expect(w.find('[data-testid="history-sort-metric-solidFraction"]').text()).toContain('▼');
    // The header names the unit its engine declares (particles declares none), the sort mark beside the name.
    expect(w.find('[data-testid="history-sort-metric-solidFraction"] .metric-head').text()).toBe('solidFraction ▼');
    expect(w.find('[data-testid="history-metric-unit-solidFraction"]').text()).toBe('fraction');
    expect(w.find('[data-testid="history-sort-metric-particles"]').exists() && !w.find('[data-testid="history-metric-unit-particles"]').exists()).toBe(true);
    await w.find('[data-testid="history-sort-metric-solidFraction"]').trigger('click');
    await settle(10);
    expect(ids().slice(0, 3)).toEqual(['r20', 'r10', 'r0']);
    expect(ids().at(-1)).toBe('r3');
    expect(lists().at(-1)).toMatchObject({ offset: 0, limit: 200, sort: { metric: 'solidFraction', dir: 'asc' } });
    // a service column sorts in the service again
    await w.find('[data-testid="history-sort-created"]').trigger('click');
    await settle(10);
    expect(lists().at(-1)).toMatchObject({ offset: 0, limit: 200, sort: { field: 'createdAt', dir: 'desc' } });
    expect(w.find('[data-testid="history-sort-metric-solidFraction"]').text()).not.toContain('▲');
  });

  it('sorts 100,000 runs by a metric: the service orders them and sends the page in view', async () => {
    const { api, w } = await mountHistory(100_000);
    const head = w.find('[data-testid="history-sort-metric-solidFraction"]');
    expect(head.attributes('disabled')).toBeUndefined();
    await head.trigger('click');
    await settle(10);
    const list = api.calls.filter((c) => c.method === 'runs.list').at(-1)!.params;
    expect(list).toMatchObject({ offset: 0, limit: 200, sort: { metric: 'solidFraction', dir: 'desc' } });
    expect(w.find('[data-testid="history-total"]').text()).toBe('100,000 runs');
    // solidFraction is 0.5 + (i % 10) / 100: the newest run of the highest value first.
    expect(rows(w)[0].attributes('data-testid')).toBe('history-row-r99999');
  });

  it('says what to do when nothing matches', async () => {
    const { w } = await mountHistory(0);
    expect(w.find('[data-testid="history-empty"]').text()).toContain('No runs yet');
  });

  it('shows the record of a single selected run', async () => {
    const { w } = await mountHistory();
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    await settle(10);
    const d = w.find('[data-testid="run-details"]');
    expect(d.text()).toContain('run 29');
    expect(d.find('[data-testid="details-params"]').text()).toContain('box.lx');
    expect(d.find('[data-testid="details-metrics"]').text()).toContain('solidFraction');
    // A metric's name says what it measures, as its engine declares it.
    const head = d.findAll('[data-testid="details-metrics"] th').find((th) => th.text() === 'solidFraction')!;
    expect(head.attributes('title')).toBe('solidFraction (fraction): solid volume / box volume');
    expect(w.find('[data-testid="history-sort-metric-solidFraction"]').attributes('title')).toMatch(/^solidFraction \(fraction\): solid volume \/ box volume\n/);
    expect(d.text()).toContain('2.0 KiB');
    // Values carry the units their engine declares: a researcher copying 39 from the record knows 39 of what.
    const row = (table: string, key: string) => d.findAll(`[data-testid="${table}"] tr`).find((tr) => tr.find('th').text() === key)!.find('td');
    expect([row('details-params', 'box.lx').text(), row('details-params', 'resolution').text(), row('details-metrics', 'solidFraction').find('.unit').text()])
      .toEqual(['39unit', '4voxels/unit', 'fraction']);
  });

  it('shows — for what a run that has not started does not have yet: its version and threads too', async () => {
    installFakeApi([makeRun(1, { status: 'queued', startedAt: null, finishedAt: null, wallSeconds: null, metrics: {} }), makeRun(2)]);
    const w = mount(HistoryWorkspace, { global: { plugins: [makeRouter()] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    const record = async (id: string) => {
      await w.find(`[data-testid="history-row-${id}"]`).trigger('click');
      await settle(10);
      return Object.fromEntries(w.findAll('[data-testid="run-details"] .wraps tr').map((tr) => [tr.find('th').text(), tr.find('td').text()]));
    };
    const queued = await record('r1');
    expect([queued.started, queued.finished, queued['wall time'], queued.threads, queued.PackBench, queued.host]).toEqual(['—', '—', '—', '—', '—', '—']);
    const done = await record('r2');
    expect([done.threads, done.PackBench]).toEqual(['1', '0.1.0']);
  });

  it('says that a run that failed or was cancelled has no metrics, not that they come when it is done', async () => {
    installFakeApi([makeRun(1, { status: 'failed', metrics: {}, error: 'boom' }), makeRun(2, { status: 'cancelled', metrics: {} }), makeRun(3, { status: 'queued', metrics: {} })]);
    const w = mount(HistoryWorkspace, { global: { plugins: [makeRouter()] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    const said: string[] = [];
    for (const id of ['r1', 'r2', 'r3']) {
      await w.find(`[data-testid="history-row-${id}"]`).trigger('click');
      await settle(10);
      said.push(w.find('[data-testid="details-no-metrics"]').text());
    }
    expect(said).toEqual(['No metrics: the run failed.', 'No metrics: the run was cancelled.', 'No metrics until the run is done.']);
  });

  it('compares selected runs side by side', async () => {
    const { w } = await mountHistory();
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    await w.find('[data-testid="history-row-r28"]').trigger('click', { ctrlKey: true });
    await w.find('[data-testid="history-compare"]').trigger('click');
    await settle(10);
    const params = w.find('[data-testid="compare-params"]').text();
    expect(params).toContain('box.lx');
    expect(params).toContain('39'); // lx = 10 + run index
    expect(params).toContain('38');
    expect(params).not.toContain('box.ly'); // equal in both: hidden while "only differences" is on
    expect(w.find('[data-testid="compare-metrics"]').text()).toContain('solidFraction');
    expect(w.findAll('[data-testid="compare-metrics"] td').find((td) => td.text() === 'solidFractionfraction')!.attributes('title')).toBe('solidFraction (fraction): solid volume / box volume');
    expect(w.findAll('[data-testid="compare-params"] td.mono').map((td) => td.text())).toContain('box.lxunit');
    expect(w.find('[data-testid="compare-series"]').exists()).toBe(true);
    // Plain names stay whole in the column heads.
    expect(w.find('[data-testid="compare-params"] thead').text()).toContain('run 29');
  });

  it("overlays a series only where the runs plot it against the same quantity, naming the others", async () => {
    const api = installFakeApi([makeRun(1), makeRun(2), makeRun(3)]);
    const call = api.call.bind(api);
    // Run 3 records 'particles' against iteration (as a surface run does), runs 1 and 2 against step.
    api.call = (async (method: string, params: { id: string }) => {
      if (method === 'runs.series' && params.id === 'r3') return [{ name: 'particles', xLabel: 'iteration', yLabel: 'particles', kind: 'line', x: new Float64Array([0, 1]), y: new Float64Array([5, 9]) }];
      return call(method as never, params as never);
    }) as typeof api.call;
    const w = mount(RunCompare, { props: { ids: ['r1', 'r2', 'r3'] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    const plot = w.findComponent(PlotPanel);
    expect(plot.props('xLabel')).toBe('step');
    expect((plot.props('series') as { name: string }[]).map((x) => x.name)).toEqual(['run 1', 'run 2']);
    expect(w.find('[data-testid="compare-series-apart"]').text()).toBe('Not drawn, on other axes: run 3 (particles against iteration).');
  });

  it('says which compared runs lack the series drawn, and that none has a series only when none has one', async () => {
    const api = installFakeApi([makeRun(1), makeRun(2), makeRun(3)]);
    const call = api.call.bind(api);
    let without = ['r2'];
    api.call = (async (method: string, params: { id: string }) => {
      if (method === 'runs.series' && without.includes(params.id)) return [];
      return call(method as never, params as never);
    }) as typeof api.call;
    const w = mount(RunCompare, { props: { ids: ['r1', 'r2', 'r3'] }, attachTo: document.body });
    wrappers.push(w);
    await settle(10);
    expect((w.findComponent(PlotPanel).props('series') as { name: string }[]).map((x) => x.name)).toEqual(['run 1', 'run 3']);
    expect(w.find('[data-testid="compare-series-missing"]').text()).toBe('Not recorded by run 2.');
    expect(w.text()).not.toContain('recorded no series');

    without = ['r1', 'r2', 'r3'];
    await w.setProps({ ids: ['r1', 'r2'] });
    await settle(10);
    expect(w.findComponent(PlotPanel).exists()).toBe(false);
    expect(w.text()).toContain('These runs recorded no series.');
    expect(w.find('[data-testid="compare-series-missing"]').exists()).toBe(false);
  });

  it('offers the export formats the service lists, and exports in the chosen one', async () => {
    const { api, w } = await mountHistory();
    expect(api.calls.filter((c) => c.method === 'exports.formats')).toHaveLength(1);
    api.artifacts.r29 = [{ id: 2, kind: 'volume', name: 'heightmap', path: '/runs/r29/heightmap.pbv', bytes: 4096, checksum: 'cd', meta: {} }];
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    await settle();
    const select = w.find('[data-testid="history-export-format"]');
    const options = select.findAll('option');
    // r29 (a height map only) has no trajectories: that format is marked.
    expect(options.map((o) => o.text())).toEqual(FAKE_EXPORT_FORMATS.map((f) => (f.needs === 'trajectory' ? `${f.label} (not for this run)` : f.label)));
    expect(options[1].attributes('title')).toBe('.tif: voxel packings with a height map');
    await select.setValue('heightmap-tiff');
    // jsdom has no object URLs; the download itself is the browser's business.
    const urls = URL as unknown as Record<string, unknown>;
    urls.createObjectURL = () => 'blob:export';
    urls.revokeObjectURL = () => {};
    try {
      await w.find('[data-testid="history-export"]').trigger('click');
      await settle();
    } finally {
      delete urls.createObjectURL;
      delete urls.revokeObjectURL;
    }
    expect(api.calls.find((c) => c.method === 'runs.export')!.params).toEqual({ id: 'r29', format: 'heightmap-tiff' });
  });

  it('says an export is being made, and takes no second click, until its download starts', async () => {
    const { api, w } = await mountHistory();
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    await settle();
    let answer = (_: unknown) => {};
    const call = api.call.bind(api);
    vi.spyOn(api, 'call').mockImplementation(((method: string, params: unknown) =>
      method === 'runs.export' ? new Promise((resolve) => { answer = resolve; }) : call(method as never, params as never)) as never);
    const urls = URL as unknown as Record<string, unknown>;
    urls.createObjectURL = () => 'blob:export';
    urls.revokeObjectURL = () => {};
    try {
      await w.find('[data-testid="history-export"]').trigger('click');
      await settle();
      expect(w.find('[data-testid="history-export-making"]').text()).toContain('Exporting “run 29”');
      expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeDefined();
      answer({ fileName: 'r29.json', mime: 'application/json', bytes: new Uint8Array(2) });
      await settle();
      expect(w.find('[data-testid="history-export-making"]').exists()).toBe(false);
      expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeUndefined();
    } finally {
      delete urls.createObjectURL;
      delete urls.revokeObjectURL;
      vi.restoreAllMocks();
    }
  });

  it('marks the export formats the selected run has no data for, and says why', async () => {
    const { api, w } = await mountHistory();
    // r28 has only its particle table (the fake's default): no height map to export.
    await w.find('[data-testid="history-row-r28"]').trigger('click');
    await settle();
    const option = () => w.findAll('[data-testid="history-export-format"] option')[1];
    expect(option().attributes('disabled')).toBeDefined();
    expect(option().text()).toBe('Height map as TIFF (not for this run)');
    expect(option().attributes('title')).toBe('Not for this run: it has no height map (this format is for voxel packings with a height map)');
    expect(w.findAll('[data-testid="history-export-format"] option')[0].attributes('disabled')).toBeUndefined();
    await w.find('[data-testid="history-export-format"]').setValue('heightmap-tiff');
    expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeDefined();
    expect(w.find('[data-testid="history-export"]').attributes('title')).toContain('it has no height map');

    // A run with a height map: offered, and exported.
    api.artifacts.r27 = [{ id: 2, kind: 'volume', name: 'heightmap', path: '/runs/r27/heightmap.pbv', bytes: 4096, checksum: 'cd', meta: {} }];
    await w.find('[data-testid="history-row-r27"]').trigger('click');
    await settle();
    expect(option().attributes('disabled')).toBeUndefined();
    expect(option().text()).toBe('Height map as TIFF');
    expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeUndefined();
  });

  it("marks the trajectory dump for a run without a ball mill's trajectories, and offers it for one with them", async () => {
    const { api, w } = await mountHistory();
    const option = () => w.find('[data-testid="history-export-format"] option[value="lammps-trajectory"]');
    // r28 has only its particle table (the fake's default): a ball mill run with output.frameRate 0.
    await w.find('[data-testid="history-row-r28"]').trigger('click');
    await settle();
    expect(option().attributes('disabled')).toBeDefined();
    expect(option().text()).toBe('Trajectories as a multi-frame LAMMPS dump (not for this run)');
    expect(option().attributes('title')).toBe('Not for this run: it has no trajectories (this format is for ball mill runs with output.frameRate > 0)');
    api.artifacts.r27 = [
      { id: 1, kind: 'table', name: 'particles', path: '/runs/r27/particles.pbt', bytes: 2048, checksum: 'ab', meta: {} },
      { id: 2, kind: 'table', name: 'trajectories', path: '/runs/r27/trajectories.pbt', bytes: 8192, checksum: 'cd', meta: { frames: 4, frameRows: 12 } },
    ];
    await w.find('[data-testid="history-row-r27"]').trigger('click');
    await settle();
    expect(option().attributes('disabled')).toBeUndefined();
    expect(option().text()).toBe('Trajectories as a multi-frame LAMMPS dump');
    // A volume named otherwise is no trajectories table.
    api.artifacts.r26 = [{ id: 3, kind: 'volume', name: 'trajectories', path: '/runs/r26/trajectories.pbv', bytes: 8192, checksum: 'ef', meta: {} }];
    await w.find('[data-testid="history-row-r26"]').trigger('click');
    await settle();
    expect(option().attributes('disabled')).toBeDefined();
  });

  it('with several runs selected, offers a format only when every one has its data, and names the runs that lack it', async () => {
    const { api, w } = await mountHistory();
    const heightmap = (id: string) => [{ id: 2, kind: 'volume' as const, name: 'heightmap', path: `/runs/${id}/heightmap.pbv`, bytes: 4096, checksum: 'cd', meta: {} }];
    api.artifacts.r29 = heightmap('r29');
    api.artifacts.r27 = heightmap('r27');
    // r28 has only its particle table (the fake's default).
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    await w.find('[data-testid="history-row-r28"]').trigger('click', { ctrlKey: true });
    await w.find('[data-testid="history-row-r27"]').trigger('click', { ctrlKey: true });
    await settle();
    const option = () => w.findAll('[data-testid="history-export-format"] option')[1];
    expect(option().attributes('disabled')).toBeDefined();
    expect(option().text()).toBe('Height map as TIFF (not for all selected runs)');
    expect(option().attributes('title')).toBe('Not for 1 of the 3 selected runs: “run 28” has no height map (this format is for voxel packings with a height map)');
    await w.find('[data-testid="history-export-format"]').setValue('heightmap-tiff');
    expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeDefined();
    // Every selected run has a particle table: its formats stay offered.
    expect(w.findAll('[data-testid="history-export-format"] option')[0].attributes('disabled')).toBeUndefined();

    // Unselect the run that lacks it: offered again.
    await w.find('[data-testid="history-row-r28"]').trigger('click', { ctrlKey: true });
    await settle();
    expect(option().attributes('disabled')).toBeUndefined();
    expect(option().text()).toBe('Height map as TIFF');
    expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeUndefined();
    // One light artifact-records call per selected run (and the details panel's for the first while it
    // was the only one), none again for a run already asked.
    expect(api.calls.filter((c) => c.method === 'runs.artifacts').map((c) => (c.params as { id: string }).id).sort()).toEqual(['r27', 'r28', 'r29', 'r29']);
  });

  it('shows a failed export at the export control, and fetches only a too-large one from the download route', async () => {
    const { api, w } = await mountHistory();
    // The page a web host served (an earlier test's download may have left jsdom at about:blank).
    vi.stubGlobal('location', new URL('http://127.0.0.1:5000/?token=tok'));
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.getAttribute('href') ?? '');
    });
    try {
      api.artifacts.r29 = [{ id: 2, kind: 'volume', name: 'heightmap', path: '/runs/r29/heightmap.pbv', bytes: 4096, checksum: 'cd', meta: {} }];
      await w.find('[data-testid="history-row-r29"]').trigger('click');
      await settle();
      await w.find('[data-testid="history-export-format"]').setValue('heightmap-tiff');
      const message = 'cannot export run r29 as heightmap-tiff: its height map file is damaged';
      api.failNext('runs.export', { code: 'conflict', message });
      await w.find('[data-testid="history-export"]').trigger('click');
      await settle();
      expect(clicked).toEqual([]);
      expect(w.find('[data-testid="history-export-error"]').text()).toContain(`“run 29”: ${message}`);

      api.failNext('runs.export', { code: 'too_large', message: 'the export is 300000000 bytes; use the CLI' });
      await w.find('[data-testid="history-export"]').trigger('click');
      await settle();
      expect(clicked).toEqual(['/api/runs/r29/export?format=heightmap-tiff&token=tok']);
      expect(w.find('[data-testid="history-export-error"]').exists()).toBe(false);
    } finally {
      click.mockRestore();
      vi.unstubAllGlobals();
    }
  });

  it('in the app, saves each export where the user chooses (runs.saveExport), showing its progress, never as bytes in the window', async () => {
    const { api, w } = await mountHistory();
    const info = status.info;
    status.info = { version: '0.1.0', dataDir: '/data/pb', cores: 2, totalMemoryBytes: 1 << 30, platform: 'linux', electron: true, readOnlyBecause: null, fullDisk: false, recoveredRuns: 0 };
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const call = api.call;
    api.call = (async (method: string, params: unknown) => {
      if (method === 'runs.saveExport') await gate;
      return call(method as never, params as never);
    }) as typeof api.call;
    try {
      api.artifacts.r29 = [{ id: 2, kind: 'volume', name: 'heightmap', path: '/runs/r29/heightmap.pbv', bytes: 4096, checksum: 'cd', meta: {} }];
      await w.find('[data-testid="history-row-r29"]').trigger('click');
      await w.find('[data-testid="history-export-format"]').setValue('heightmap-tiff');
      await w.find('[data-testid="history-export"]').trigger('click');
      await settle();
      expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeDefined();
      api.emit('export.progress', { id: 'r29', format: 'heightmap-tiff', path: '/home/u/r29.tif', fraction: 0.42 });
      await settle();
      expect(w.find('[data-testid="history-export-saving"]').text()).toBe('Saving /home/u/r29.tif: 42 %');
      release();
      await settle();
      expect(w.find('[data-testid="history-export-saving"]').exists()).toBe(false);
      expect(w.find('[data-testid="history-export"]').attributes('disabled')).toBeUndefined();
      expect(api.calls.filter((c) => c.method === 'runs.saveExport').map((c) => c.params)).toEqual([{ id: 'r29', format: 'heightmap-tiff' }]);
      expect(api.calls.some((c) => c.method === 'runs.export')).toBe(false);
      expect(toasts.map((t) => t.text)).toContain('Saved /home/u/r29.heightmap-tiff');

      // A failure shows at the export control, as in the browser.
      const message = 'run r29 is running: only finished runs can be exported';
      api.failNext('runs.saveExport', { code: 'conflict', message });
      release();
      await w.find('[data-testid="history-export"]').trigger('click');
      await settle();
      expect(w.find('[data-testid="history-export-error"]').text()).toContain(`“run 29”: ${message}`);
    } finally {
      status.info = info;
    }
  });

  it('does not send a run of an engine that does not run (an imported sphere set) to the batch manager', async () => {
    const { w, router } = await mountHistory();
    await router.push('/history');
    await w.find('[data-testid="history-row-r27"]').trigger('click'); // engine 'voxel': not in this fake's engine list
    await w.find('[data-testid="history-rerun"]').trigger('click');
    await settle();
    expect(draft.pending).toBeNull();
    expect(router.currentRoute.value.path).toBe('/history');
  });

  it('re-runs with changes through the batch manager, and deletes after confirmation', async () => {
    const { api, w, router } = await mountHistory();
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    await w.find('[data-testid="history-rerun"]').trigger('click');
    await settle();
    expect(draft.pending).toMatchObject({ engine: 'toy', name: 'run 29 (re-run)', params: { box: { lx: 39 } } });
    expect(router.currentRoute.value.path).toBe('/batch');
    draft.pending = null;

    await w.find('[data-testid="history-delete"]').trigger('click');
    expect(api.runs.length).toBe(30);
    await w.find('[data-testid="history-delete-confirm"]').trigger('click');
    await settle();
    expect(api.calls.find((c) => c.method === 'runs.delete')!.params).toEqual({ id: 'r29' });
  });
});

describe('HistoryWorkspace from the keyboard', () => {
  it('asks before deleting with the focus on Keep, so that the answer is a key away', async () => {
    const { api, w } = await mountHistory();
    await w.find('[data-testid="history-row-r29"]').trigger('click');
    dispatchShortcut(new KeyboardEvent('keydown', { key: 'Delete' }));
    await settle();
    expect(w.find('[data-testid="history-confirm-delete"]').exists()).toBe(true);
    expect((document.activeElement as HTMLElement | null)?.dataset.testid).toBe('history-delete-keep');
    expect(api.calls.some((c) => c.method === 'runs.delete')).toBe(false);
  });
});

describe('history helpers', () => {
  it('PagedRuns keeps a bounded cache and drops stale answers after a reset', async () => {
    let resolveSlow: (() => void) | null = null;
    const fetched: number[] = [];
    const pages = new PagedRuns(
      async (offset, limit) => {
        fetched.push(offset);
        if (offset === 0 && !resolveSlow) await new Promise<void>((r) => (resolveSlow = r));
        return { total: 10_000, rows: Array.from({ length: limit }, (_, i) => makeRun(offset + i)), next: null };
      },
      () => {},
      100,
      5,
    );
    const slow = pages.ensure(0, 10);
    pages.reset();
    await pages.ensure(0, 10);
    resolveSlow!();
    await slow;
    expect(pages.row(5)!.id).toBe('r5');
    for (let p = 0; p < 20; p++) await pages.ensure(p * 100, p * 100 + 50);
    expect(pages.cachedPages()).toBeLessThanOrEqual(5);
    expect(pages.row(1950)!.id).toBe('r1950');
  });

  it('PagedRuns asks for the page after a cached one from where that one ends: a run deleted meanwhile makes it skip none', async () => {
    // The service's runs, newest first; a page's next is its last run's id, and after reads on from
    // that run's place in the order though it has been deleted since (as the store's seq does).
    const order = Array.from({ length: 50 }, (_, i) => `r${49 - i}`);
    const gone = new Set<string>();
    const asked: string[] = [];
    const deleteRun = (id: string) => gone.add(id);
    let onPage0: () => void = () => {};
    const pages = new PagedRuns(
      async (offset, limit, after) => {
        asked.push(after === undefined ? `offset ${offset}` : `after ${after}`);
        const live = (ids: string[]) => ids.filter((id) => !gone.has(id));
        const rest = after === undefined ? live(order).slice(offset) : live(order.slice(order.indexOf(after) + 1));
        const rows = rest.slice(0, limit).map((id) => makeRun(Number(id.slice(1))));
        if (offset === 0) onPage0();
        return { total: live(order).length, rows, next: rows.at(-1)?.id ?? null };
      },
      () => {},
      10,
    );
    await pages.ensure(0, 5);
    // A run of the first page is deleted while it is on screen, then the table is scrolled on.
    deleteRun('r45');
    await pages.ensure(10, 15);
    expect([pages.row(9)!.id, pages.row(10)!.id]).toEqual(['r40', 'r39']);
    // Two pages asked for at once (a reset): the second waits for the first's end; a run deleted
    // between the two answers skips none either.
    pages.reset();
    onPage0 = () => deleteRun('r44');
    await pages.ensure(0, 15);
    expect([pages.row(9)!.id, pages.row(10)!.id]).toEqual(['r39', 'r38']);
    expect(asked).toEqual(['offset 0', 'after r40', 'offset 0', 'after r39']);
  });

  it('heads sweep runs by their [field=value] part only', () => {
    expect(distinctNames(['walk [p=0.5]', 'walk [p=0.1]'])).toEqual(['[p=0.5]', '[p=0.1]']);
    expect(distinctNames(['walk [p=0.5, q=1]', 'walk [p=0.5, q=2]'])).toEqual(['[p=0.5, q=1]', '[p=0.5, q=2]']);
    expect(distinctNames(['count 0', 'count 1'])).toEqual(['count 0', 'count 1']);
    expect(distinctNames(['a [x=1]', 'b [x=1]'])).toEqual(['a [x=1]', 'b [x=1]']);
  });

  it('flattens params and marks differing rows', () => {
    expect(flatten({ a: { b: 1, c: [2, 3] }, d: [] })).toEqual({ 'a.b': 1, 'a.c.0': 2, 'a.c.1': 3, d: '[]' });
    expect(compareRows([{ x: 1, y: 2 }, { x: 1, y: 3, z: 4 }])).toEqual([
      { key: 'x', values: [1, 1], differs: false },
      { key: 'y', values: [2, 3], differs: true },
      { key: 'z', values: [undefined, 4], differs: true },
    ]);
  });
});

describe('Import spheres', () => {
  async function chooseFile(w: VueWrapper, name: string, text: string): Promise<void> {
    const input = w.find('[data-testid="sphere-import-file"]');
    Object.defineProperty(input.element, 'files', { value: [new File([text], name, { type: 'text/csv' })], configurable: true });
    await input.trigger('change');
  }

  it('sends the chosen CSV to runs.importSpheres and selects the new run', async () => {
    const { api, w } = await mountHistory(3);
    expect(w.find('[data-testid="sphere-import"]').exists()).toBe(false);
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    expect(w.find('[data-testid="sphere-import-submit"]').attributes('disabled')).toBeDefined();
    await chooseFile(w, 'bed.csv', 'x,y,z,r\n1,1,1,0.5\n2,2,1,0.5\n');
    expect((w.find('[data-testid="sphere-import-name"]').element as HTMLInputElement).value).toBe('bed');
    await w.findAll('.box input')[0].setValue('4');
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    expect(w.find('[data-testid="sphere-import-error"]').text()).toContain('box: give all three sides');
    for (const k of [1, 2]) await w.findAll('.box input')[k].setValue('4');
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    await settle(10);
    const call = api.calls.find((c) => c.method === 'runs.importSpheres');
    expect(call?.params).toEqual({ name: 'bed', csv: 'x,y,z,r\n1,1,1,0.5\n2,2,1,0.5\n', source: 'bed.csv', box: [4, 4, 4], analysis: { periodic: [true, true, false] } });
    expect(w.find('[data-testid="sphere-import"]').exists()).toBe(false);
    expect(w.find('[data-testid="history-total"]').text()).toBe('4 runs · 1 selected');
    expect(w.find('[data-testid="history-row-r100000"]').classes()).toContain('selected');
  });

  it('says how far the import is (parsing, then analysing) from its own import.progress events', async () => {
    const { api, w } = await mountHistory(3);
    let finish = () => {};
    const call = api.call;
    api.call = (async (method: string, params: unknown) => {
      if (method === 'runs.importSpheres') await new Promise<void>((resolve) => (finish = resolve));
      return call(method as never, params as never);
    }) as typeof api.call;
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    await chooseFile(w, 'bed.csv', 'x,y,z,r\n1,1,1,0.5\n');
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    await settle(10);
    const status = () => w.find('[data-testid="sphere-import-progress"]');
    expect(status().text()).toBe('Reading the file…');
    api.emit('import.progress', { name: 'bed', source: 'bed.csv', phase: 'parsing', fraction: 0.42 });
    await settle(2);
    expect(status().text()).toBe('Parsing: 42 %');
    expect((status().find('progress').element as HTMLProgressElement).value).toBeCloseTo(0.42, 12);
    // Another window's import of another file is not this one's.
    api.emit('import.progress', { name: 'other', source: 'other.csv', phase: 'analysing', fraction: 0.9 });
    api.emit('import.progress', { name: 'bed', source: 'bed.csv', phase: 'analysing', fraction: 0.25 });
    await settle(2);
    expect(status().text()).toBe('Analysing: 25 %');
    finish();
    await settle(10);
    expect(w.find('[data-testid="sphere-import"]').exists()).toBe(false);
    expect(w.find('[data-testid="history-total"]').text()).toBe('4 runs · 1 selected');
  });

  it('Cancel during an import aborts its call in the services and says so; nothing is imported, no error shown', async () => {
    // Before, Cancel only closed the panel: the import went on in the services and its run was stored.
    const { api, w } = await mountHistory(3);
    let abortCall = (_callId: number) => {};
    const call = api.call;
    api.call = (async (method: string, params: unknown, callId?: number) => {
      if (method !== 'runs.importSpheres') return call(method as never, params as never);
      // The services' side of an abort: the call under way rejects, cancelled.
      return new Promise((_resolve, reject) => (abortCall = (id) => id === callId && reject(cancelled(method))));
    }) as typeof api.call;
    api.abort = (callId) => abortCall(callId);
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    await chooseFile(w, 'bed.csv', 'x,y,z,r\n1,1,1,0.5\n');
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    await settle(10);
    expect(w.find('[data-testid="sphere-import-progress"]').exists()).toBe(true);
    const cancel = () => w.findAll('[data-testid="sphere-import"] button').find((b) => b.text() === 'Cancel')!;
    await cancel().trigger('click');
    await settle(10);
    expect(w.find('[data-testid="sphere-import"]').exists()).toBe(true);
    expect(w.find('[data-testid="sphere-import-notice"]').text()).toBe('Import of bed.csv cancelled: nothing was stored.');
    expect(w.find('[data-testid="sphere-import-error"]').exists()).toBe(false);
    expect(w.find('[data-testid="sphere-import-progress"]').exists()).toBe(false);
    expect(w.find('[data-testid="sphere-import-submit"]').attributes('disabled')).toBeUndefined();
    expect(w.find('[data-testid="history-total"]').text()).toBe('3 runs');
    // Nothing under way: Cancel closes the panel.
    await cancel().trigger('click');
    expect(w.find('[data-testid="sphere-import"]').exists()).toBe(false);
  });

  it("a side of the box typed with a decimal comma ('0,4') is refused at the field, not imported as 4", async () => {
    const { api, w } = await mountHistory(3);
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    await chooseFile(w, 'bed.csv', 'x,y,z,r\n1,1,1,0.5\n');
    const sides = w.findAll('.box input');
    await typeKeys(sides[0].element as HTMLInputElement, '0,4');
    for (const k of [1, 2]) await typeKeys(sides[k].element as HTMLInputElement, '4');
    expect(sides[0].attributes('aria-invalid')).toBe('true');
    expect(w.find('[data-testid="sphere-import-error"]').text()).toContain('box x: enter a number > 0');
    expect(w.find('[data-testid="sphere-import-submit"]').attributes('disabled')).toBeDefined();
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    await settle(10);
    expect(api.calls.some((c) => c.method === 'runs.importSpheres')).toBe(false);
  });

  it('sends the periodic sides chosen, as `import spheres --periodic` names them', async () => {
    const { api, w } = await mountHistory(3);
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    await chooseFile(w, 'bed.csv', 'x,y,z,r\n1,1,1,0.5\n');
    const select = w.find('[data-testid="sphere-import-periodic"]');
    expect(select.findAll('option').map((o) => o.attributes('value'))).toEqual(['x,y', 'none', 'x,y,z']);
    await select.setValue('none');
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    await settle(10);
    expect(api.calls.find((c) => c.method === 'runs.importSpheres')?.params).toMatchObject({ analysis: { periodic: [false, false, false] } });
  });

  it('names the import after the file chosen last, unless the user typed a name', async () => {
    const { w } = await mountHistory(3);
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    const name = () => (w.find('[data-testid="sphere-import-name"]').element as HTMLInputElement).value;
    await chooseFile(w, 'first.csv', 'x,y,z,r\n1,1,1,0.5\n');
    expect(name()).toBe('first');
    await chooseFile(w, 'second.csv', 'x,y,z,r\n1,1,1,0.5\n');
    expect(name()).toBe('second');
    await w.find('[data-testid="sphere-import-name"]').setValue('my bed');
    await chooseFile(w, 'third.csv', 'x,y,z,r\n1,1,1,0.5\n');
    expect(name()).toBe('my bed');
  });

  it('shows the service\'s message for a bad file and keeps the panel open', async () => {
    const { api, w } = await mountHistory(3);
    await w.find('[data-testid="history-import-spheres"]').trigger('click');
    await chooseFile(w, 'bad.csv', 'x,y,z,r\n1,1,oops,0.5\n');
    await w.find('[data-testid="sphere-import"]').trigger('submit');
    await settle(10);
    expect(api.calls.filter((c) => c.method === 'runs.importSpheres').length).toBe(1);
    expect(w.find('[data-testid="sphere-import-error"]').text()).toBe('bad.csv: line 2: expected numbers x, y, z, r');
    expect(w.find('[data-testid="history-total"]').text()).toBe('3 runs');
  });
});
