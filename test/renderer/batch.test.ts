import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { installFakeApi, makeRun, settle, toyEngine } from './fakeApi';
import RunComposer from '../../renderer/src/workspaces/batch/RunComposer.vue';
import QueueTable from '../../renderer/src/workspaces/batch/QueueTable.vue';
import { draft, sendToBatch } from '../../renderer/src/stores/draft';
import { toasts } from '../../renderer/src/stores/toasts';
import { status } from '../../renderer/src/stores/status';
import { reorder, queueOrder } from '../../renderer/src/workspaces/batch/queueModel';
import { ETA_AFTER_SECONDS, remainingSeconds } from '../../main/api';
import { key, typeKeys } from './numberKeys';

function router() {
  return createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div/>' } }] });
}

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
});

async function mountComposer() {
  const w = mount(RunComposer, { global: { plugins: [router()] }, attachTo: document.body });
  wrappers.push(w);
  await settle();
  return w;
}

describe('RunComposer', () => {
  it('renders the engine schema with units, ranges, nested fieldsets and lists', async () => {
    installFakeApi();
    const w = await mountComposer();
    expect(w.find('[data-testid="field-box"] legend').text()).toBe('box');
    const lx = w.find('[data-testid="field-box.lx"]');
    expect((lx.element as HTMLInputElement).value).toBe('20');
    expect(w.text()).toContain('voxels/unit');
    expect(w.text()).toContain('[1, 64]');
    expect(w.find('[data-testid="field-packing"]').element.tagName).toBe('SELECT');
    // The list of types: add one, the union select shows the size law.
    await w.find('[data-testid="field-types-add"]').trigger('click');
    expect(w.findAll('[data-testid="field-types.1.size-variant"]').length).toBe(1);
    expect(w.find('[data-testid="run-count"]').text()).toBe('1 run');
  });

  it('shows inline validation and blocks enqueue until fixed', async () => {
    installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-resolution"]').setValue('100');
    expect(w.find('[data-testid="field-resolution-error"]').text()).toBe('must be in [1, 64]');
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    await w.find('[data-testid="field-resolution"]').setValue('8');
    expect(w.find('[data-testid="field-resolution-error"]').exists()).toBe(false);
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeUndefined();
  });

  it('turns fields into sweeps, counts the runs and enqueues the $sweep form', async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-resolution-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-resolution-sweep-list"]').setValue('2, 4, 8');
    await w.find('[data-testid="field-box.lx-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-box.lx-sweep"] select').setValue('range');
    await w.find('[data-testid="field-box.lx-sweep-from"]').setValue('10');
    await w.find('[data-testid="field-box.lx-sweep-to"]').setValue('40');
    await w.find('[data-testid="field-box.lx-sweep-steps"]').setValue('4');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 12 runs');
    await w.find('[data-testid="run-name"]').setValue('res sweep');
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    const call = api.calls.find((c) => c.method === 'runs.enqueue')!.params as { spec: { name: string; params: { resolution: unknown; box: { lx: unknown; ly: unknown } } }; batchName?: string };
    expect(call.spec.name).toBe('res sweep');
    expect(call.batchName).toBe('res sweep');
    expect(call.spec.params.resolution).toEqual({ $sweep: [2, 4, 8] });
    expect(call.spec.params.box.lx).toEqual({ $sweep: { from: 10, to: 40, steps: 4 } });
    expect(call.spec.params.box.ly).toBe(20);
  });

  it('sweeps the seed (replicates): every point at each seed, counted, checked at the field, enqueued as a $sweep; an opened spec\'s range of seeds shows as its list', async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="run-seed"]').setValue('7');
    await w.find('[data-testid="run-seed-sweep-toggle"]').trigger('click');
    const list = () => w.find('[data-testid="run-seed-sweep-list"]');
    expect((list().element as HTMLInputElement).value).toBe('7');
    await w.find('[data-testid="field-resolution-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-resolution-sweep-list"]').setValue('2, 4');
    await list().setValue('1, 2.5, 3');
    expect(list().attributes('aria-invalid')).toBe('true');
    expect(list().element.closest('.sf-control')!.querySelector('.error-text')!.textContent).toBe('seed 2 (2.5): must be a whole number in [0, 4294967295]');
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    // A seed twice is the same run twice: refused at the field, as the service refuses it.
    await list().setValue('1, 2, 1');
    expect(list().attributes('aria-invalid')).toBe('true');
    expect(list().element.closest('.sf-control')!.querySelector('.error-text')!.textContent).toBe('seed 3 (1) repeats seed 1: each seed must differ, the same seed and params make the same run');
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    await list().setValue('1, 2, 3');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 6 runs');
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    const call = api.calls.find((c) => c.method === 'runs.enqueue')!.params as { spec: { seed: unknown }; batchName?: string };
    expect(call.spec.seed).toEqual({ $sweep: [1, 2, 3] });
    expect(call.batchName).toBeDefined();
    // 'single' keeps the first seed.
    await w.find('[data-testid="run-seed-sweep-toggle"]').trigger('click');
    expect((w.find('[data-testid="run-seed"]').element as HTMLInputElement).value).toBe('1');
    const file = new File([JSON.stringify({ engine: 'toy', name: 'reps', seed: { $sweep: { from: 4, to: 6, steps: 3 } }, params: {} })], 'reps.json', { type: 'application/json' });
    const input = w.find('[data-testid="spec-open"]');
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await settle(10);
    expect((list().element as HTMLInputElement).value).toBe('4, 5, 6');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 3 runs');
  });

  it("brings a sweep back when 'single' was pressed by mistake, until the single value is changed", async () => {
    installFakeApi();
    const w = await mountComposer();
    const toggle = () => w.find('[data-testid="field-resolution-sweep-toggle"]').trigger('click');
    await toggle();
    await w.find('[data-testid="field-resolution-sweep-list"]').setValue('2, 4, 8, 16');
    await toggle();
    expect((w.find('[data-testid="field-resolution"]').element as HTMLInputElement).value).toBe('2');
    await toggle();
    expect((w.find('[data-testid="field-resolution-sweep-list"]').element as HTMLInputElement).value).toBe('2, 4, 8, 16');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 4 runs');
    // A single value typed since is a new start: a sweep of it.
    await toggle();
    await w.find('[data-testid="field-resolution"]').setValue('5');
    await toggle();
    expect((w.find('[data-testid="field-resolution-sweep-list"]').element as HTMLInputElement).value).toBe('5');
  });

  it('sweeps a tuple field over a list of tuples', async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-origin-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-origin-sweep-list"]').setValue('0 0 0; 1 2 3');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 2 runs');
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    const call = api.calls.find((c) => c.method === 'runs.enqueue')!.params as { spec: { params: { origin: unknown } } };
    expect(call.spec.params.origin).toEqual({ $sweep: [[0, 0, 0], [1, 2, 3]] });
  });

  it("sweeps a field of a list's item (a particle type's size and fraction), as the service expands it", async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    // The sizes of a size-ratio study and the share of a type: only a spec file written by hand could sweep them.
    await w.find('[data-testid="field-types.0.size.value-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-types.0.size.value-sweep-list"]').setValue('1, 2, 4');
    await w.find('[data-testid="field-types.0.fraction-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-types.0.fraction-sweep-list"]').setValue('0.2, 2');
    expect(w.find('[data-testid="field-types.0.fraction-error"]').text()).toBe('sweep value 2: must be in [0, 1]');
    await w.find('[data-testid="field-types.0.fraction-sweep-list"]').setValue('0.2, 0.8');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 6 runs');
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    const call = api.calls.find((c) => c.method === 'runs.enqueue')!.params as { spec: { params: { types: unknown[] } } };
    expect(call.spec.params.types).toEqual([{ shape: 'sphere', size: { law: 'fixed', value: { $sweep: [1, 2, 4] } }, fraction: { $sweep: [0.2, 0.8] } }]);
  });

  it('refuses a tuple sweep list it cannot read at the field, naming the form it takes', async () => {
    installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-origin-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-origin-sweep-list"]').setValue('a b c');
    const form = "write each value as its 3 numbers separated by spaces, and the values separated by ';' (e.g. 1 1 1; 2 2 2)";
    expect(w.find('[data-testid="field-origin-error"]').text()).toBe(`value 1 of the list is not 3 numbers: ${form}`);
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    expect(w.find('[data-testid="enqueue-reason"]').text()).toContain('origin: value 1 of the list is not 3 numbers');
    await w.find('[data-testid="field-origin-sweep-list"]').setValue('0,0,0, 1,1,1');
    expect(w.find('[data-testid="field-origin-error"]').text()).toBe(`value 1 of the list is not 3 numbers: ${form}`);
    await w.find('[data-testid="field-origin-sweep-list"]').setValue('0,0,0; 1 1 1');
    expect(w.find('[data-testid="field-origin-error"]').exists()).toBe(false);
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 2 runs');
  });

  it('shows the service field errors at the field and others above the button', async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    api.failNext('runs.enqueue', { code: 'invalid', message: 'invalid', issues: [{ path: 'params.spec.params.box.ly', message: 'too big for memory' }, { path: 'params.priority', message: 'nope' }] });
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    expect(w.find('[data-testid="field-box.ly-error"]').text()).toBe('too big for memory');
    expect(w.find('[data-testid="composer-error"]').text()).toBe('params.priority: nope');
    // Editing clears the service's verdict.
    await w.find('[data-testid="field-box.ly"]').setValue('30');
    expect(w.find('[data-testid="field-box.ly-error"]').exists()).toBe(false);
  });

  it('saves and loads presets', async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-box.lx"]').setValue('33');
    await w.find('[data-testid="preset-save"]').trigger('click');
    await w.find('[data-testid="preset-name"]').setValue('wide box');
    await w.find('[data-testid="preset-save-confirm"]').trigger('click');
    await settle();
    expect(api.presets[0].name).toBe('wide box');
    expect((api.presets[0].spec.params as { box: { lx: number } }).box.lx).toBe(33);
    await w.find('[data-testid="field-box.lx"]').setValue('50');
    await w.find('[data-testid="preset-select"]').setValue('p1');
    await settle();
    expect((w.find('[data-testid="field-box.lx"]').element as HTMLInputElement).value).toBe('33');
  });

  it("a seed or priority typed with a decimal comma ('1,5') is refused at its field, not read as 15", async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    for (const [id, name, range] of [['run-seed', 'seed', '[0, '], ['run-priority', 'priority', '[-1000, 1000]']] as const) {
      const input = w.find(`[data-testid="${id}"]`);
      await typeKeys(input.element as HTMLInputElement, '1,5');
      expect(input.attributes('aria-invalid')).toBe('true');
      expect(input.element.closest('.sf-control')!.querySelector('.error-text')!.textContent).toContain(`must be a whole number in ${range}`);
      expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
      expect(w.find('[data-testid="enqueue"]').element.parentElement!.textContent).toContain(`${name}: must be a whole number`);
      await typeKeys(input.element as HTMLInputElement, '3');
    }
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    const call = api.calls.find((c) => c.method === 'runs.enqueue')!.params as { spec: { seed: number }; priority: number };
    expect([call.spec.seed, call.priority]).toEqual([3, 3]);
  });

  it('opens the spec file chooser from a button, which Tab reaches', async () => {
    installFakeApi();
    const w = await mountComposer();
    const chooser = vi.spyOn(w.find('[data-testid="spec-open"]').element as HTMLInputElement, 'click');
    const button = w.find('[data-testid="spec-open-button"]');
    // It was a label around the hidden file input: clickable with the mouse only.
    expect(button.element.tagName).toBe('BUTTON');
    await button.trigger('click');
    expect(chooser).toHaveBeenCalledOnce();
  });

  it("opens the engine's description, cut to two lines, from the keyboard", async () => {
    installFakeApi();
    const w = await mountComposer();
    const desc = w.find('[data-testid="engine-desc"]');
    // It opened on a click only, and Tab did not reach it.
    expect(desc.attributes('tabindex')).toBe('0');
    await desc.trigger('keydown', { key: 'Enter' });
    expect([desc.classes('open'), desc.attributes('aria-expanded')]).toEqual([true, 'true']);
  });

  it('opens a spec file into the form', async () => {
    installFakeApi();
    const w = await mountComposer();
    const file = new File([JSON.stringify({ engine: 'toy', name: 'from file', seed: 9, params: { resolution: 16 } })], 'spec.json', { type: 'application/json' });
    const input = w.find('[data-testid="spec-open"]');
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await settle(10);
    expect((w.find('[data-testid="run-name"]').element as HTMLInputElement).value).toBe('from file');
    expect((w.find('[data-testid="run-seed"]').element as HTMLInputElement).value).toBe('9');
    expect((w.find('[data-testid="field-resolution"]').element as HTMLInputElement).value).toBe('16');
    expect(w.find('[data-testid="composer-origin"]').text()).toBe('Prefilled from spec.json.');
  });

  it('names where an opened spec file stops being JSON, by line and column, and keeps the form', async () => {
    installFakeApi();
    const w = await mountComposer();
    const file = new File(['{\n  "engine": "toy",\n  "name": "x"\n  "seed": 1\n}'], 'broken.json', { type: 'application/json' });
    const input = w.find('[data-testid="spec-open"]');
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await settle(10);
    expect(toasts.map((t) => t.text)).toContain("broken.json: not valid JSON at line 4, column 3: Expected ',' or '}' after property value");
    expect(w.find('[data-testid="composer-origin"]').exists()).toBe(false);
  });

  it("refuses an opened spec whose seed, name or top-level field is typed wrong, naming each, and keeps the form", async () => {
    installFakeApi();
    const w = await mountComposer();
    // The seed as text and a misspelt field were dropped: the form kept its own seed, without a word.
    const file = new File([JSON.stringify({ engine: 'toy', name: 'typed', seed: '9', sed: 4, params: { resolution: 16 } })], 'typed.json', { type: 'application/json' });
    const input = w.find('[data-testid="spec-open"]');
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await settle(10);
    expect(toasts.map((t) => t.text)).toContain("typed.json: sed: unknown field 'sed' (did you mean 'seed'?); seed: must be a whole number in [0, 4294967295], got the text \"9\" (write numbers without quotes)");
    expect(w.find('[data-testid="composer-origin"]').exists()).toBe(false);
    expect((w.find('[data-testid="run-name"]').element as HTMLInputElement).value).not.toBe('typed');
  });

  it("shows an opened spec's unknown fields at their places, each with its message and a remove button", async () => {
    installFakeApi();
    const w = await mountComposer();
    const params = { resolutoin: 16, resolution: 8, box: { lx: 30, lz: 5 } };
    const file = new File([JSON.stringify({ engine: 'toy', name: 'old spec', seed: 3, params })], 'old.json', { type: 'application/json' });
    const input = w.find('[data-testid="spec-open"]');
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await settle(10);
    expect(w.find('[data-testid="field-resolutoin-error"]').text()).toBe("unknown field 'resolutoin' (did you mean 'resolution'?)");
    // box.lz in the box's fieldset, after its known fields
    expect(w.find('[data-testid="field-box"] [data-testid="field-box.lz"]').text()).toContain('lz');
    expect(w.find('[data-testid="field-box.lz-error"]').text()).toBe("unknown field 'lz' (did you mean 'lx'?)");
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    await w.find('[data-testid="field-resolutoin-remove"]').trigger('click');
    expect(w.find('[data-testid="field-resolutoin"]').exists()).toBe(false);
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeDefined();
    await w.find('[data-testid="field-box.lz-remove"]').trigger('click');
    expect(w.find('[data-testid="field-box.lz"]').exists()).toBe(false);
    // Everything else of the spec is kept.
    expect((w.find('[data-testid="field-box.lx"]').element as HTMLInputElement).value).toBe('30');
    expect((w.find('[data-testid="field-resolution"]').element as HTMLInputElement).value).toBe('8');
    expect((w.find('[data-testid="run-name"]').element as HTMLInputElement).value).toBe('old spec');
    expect(w.find('[data-testid="enqueue"]').attributes('disabled')).toBeUndefined();
  });

  it('saves the form as a spec file named after the run', async () => {
    installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="run-name"]').setValue('my run / 2');
    await w.find('[data-testid="field-resolution"]').setValue('16');
    const saved: { blob?: Blob; name?: string } = {};
    const urls = URL as unknown as Record<string, unknown>;
    urls.createObjectURL = (b: Blob) => { saved.blob = b; return 'blob:spec'; };
    urls.revokeObjectURL = () => {};
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) { saved.name = this.download; });
    try {
      await w.find('[data-testid="spec-save"]').trigger('click');
    } finally {
      click.mockRestore();
      delete urls.createObjectURL;
      delete urls.revokeObjectURL;
    }
    expect(saved.name).toBe('my-run-2.json');
    expect(saved.blob!.type).toBe('application/json');
    expect(JSON.parse(await saved.blob!.text())).toMatchObject({ engine: 'toy', name: 'my run / 2', seed: 1, params: { resolution: 16 } });
  });

  it('takes a draft from another workspace, merged over the defaults', async () => {
    installFakeApi();
    const w = await mountComposer();
    sendToBatch({ engine: 'toy', name: 'from editor', params: { box: { lx: 12 } }, origin: 'from the particle editor' });
    await settle();
    expect((w.find('[data-testid="run-name"]').element as HTMLInputElement).value).toBe('from editor');
    expect((w.find('[data-testid="field-box.lx"]').element as HTMLInputElement).value).toBe('12');
    expect((w.find('[data-testid="field-box.ly"]').element as HTMLInputElement).value).toBe('20');
    expect(w.text()).toContain('Prefilled from the particle editor');
  });

  it('merges a keepOthers draft (the editor\'s mixture) into the form, other params and sweeps kept', async () => {
    installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-box.lx"]').setValue('33');
    await w.find('[data-testid="field-resolution-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-resolution-sweep-list"]').setValue('2, 4');
    sendToBatch({ engine: 'toy', params: { types: [{ shape: 'cuboid', size: { law: 'fixed', value: 3 }, fraction: 1 }] }, keepOthers: true, origin: 'from the particle editor' });
    await settle();
    expect((w.find('[data-testid="field-box.lx"]').element as HTMLInputElement).value).toBe('33');
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 2 runs');
    expect((w.find('[data-testid="field-types.0.shape"]').element as HTMLSelectElement).value).toBe('cuboid');
    // The editor's draft also sets the resolution its shapes were saved at: the form's sweep of it
    // stays (it was replaced by the one value, the 2 runs became 1), and the form says so.
    sendToBatch({ engine: 'toy', params: { resolution: 16, box: { ly: 40 } }, keepOthers: true, origin: 'from the particle editor: resolution 16' });
    await settle();
    expect(w.find('[data-testid="run-count"]').text()).toBe('This sweep makes 2 runs');
    expect((w.find('[data-testid="field-resolution-sweep-list"]').element as HTMLInputElement).value).toBe('2, 4');
    expect((w.find('[data-testid="field-box.ly"]').element as HTMLInputElement).value).toBe('40');
    expect(w.find('[data-testid="composer-origin"]').text()).toBe('Prefilled from the particle editor: resolution 16; resolution keeps its sweep from the form.');
    // a whole spec (re-run from the history) still starts from the defaults
    sendToBatch({ engine: 'toy', name: 'r-1 (re-run)', params: { resolution: 8 } });
    await settle();
    expect((w.find('[data-testid="field-box.lx"]').element as HTMLInputElement).value).toBe('20');
    expect(w.find('[data-testid="run-count"]').text()).toBe('1 run');
  });
});

describe('QueueTable', () => {
  it('lists active runs in queue order, updates live and moves finished runs to recent', async () => {
    const api = installFakeApi([
      makeRun(1, { status: 'queued', priority: 0, finishedAt: null }),
      makeRun(2, { status: 'running', progress: { done: 3, total: 10, phase: 'packing', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 }, finishedAt: null, wallSeconds: null }),
      makeRun(3, { status: 'queued', priority: 5, finishedAt: null }),
      makeRun(4, { status: 'done' }),
    ]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    const ids = () => w.findAll('tbody tr[data-testid^="queue-row-"]').map((r) => r.attributes('data-testid')!.slice(10));
    expect(ids()).toEqual(['r2', 'r3', 'r1', 'r4']);
    expect(w.find('[data-testid="queue-row-r2"]').text()).toContain('30% · packing');

    api.emit('run.updated', { ...api.runs[1], progress: { done: 8, total: 10, phase: 'packing', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } });
    await settle(1);
    expect(w.find('[data-testid="queue-row-r2"]').text()).toContain('80%');
    // A phase at its end (the packing before the settling, 99.6 % of the analysis) is not the run done.
    api.emit('run.updated', { ...api.runs[1], progress: { done: 10, total: 10, phase: 'packing', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } });
    await settle(1);
    expect(w.find('[data-testid="queue-row-r2"]').text()).toContain('99% · packing');
    api.emit('run.updated', { ...api.runs[1], progress: { done: 996, total: 1000, phase: 'analysis: contacts', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } });
    await settle(1);
    expect(w.find('[data-testid="queue-row-r2"]').text()).toContain('99% · analysis: contacts');

    api.runs[1].status = 'done';
    api.emit('run.updated', { ...api.runs[1] });
    await settle(1);
    expect(w.find('[data-testid="queue-row-r2"]').attributes('data-status')).toBe('done');
    expect(ids()).toEqual(['r3', 'r1', 'r2', 'r4']);
  });

  it("gives a finished run's metrics with the units its engine declares, whole in the cell's title", async () => {
    installFakeApi([makeRun(4, { status: 'done', metrics: { solidFraction: 0.54, particles: 104 } })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    // toyEngine declares solidFraction's unit ('fraction') and nothing for particles.
    expect(w.find('[data-testid="queue-metrics-r4"]').text()).toBe('solidFraction 0.54 fraction · particles 104');
    expect(w.find('[data-testid="queue-row-r4"] td.c-progress').attributes('title')).toBe('solidFraction 0.54 fraction · particles 104');
  });

  it('shows the swept parameters of a sweep\'s runs as columns', async () => {
    installFakeApi([
      makeRun(1, { status: 'queued', finishedAt: null, batchId: 'b', sweep: { reboundProbability: 0.1, 'stop.particles': 50 } }),
      makeRun(2, { status: 'queued', finishedAt: null, batchId: 'b', sweep: { reboundProbability: 0.2, 'stop.particles': 50 } }),
      makeRun(3, { status: 'done' }),
    ]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    expect(w.find('[data-testid="queue-sweep-col-reboundProbability"]').text()).toBe('reboundProbability');
    expect(w.find('[data-testid="queue-sweep-col-stop.particles"]').text()).toBe('particles');
    expect(w.find('[data-testid="queue-row-r2"]').findAll('td.swept').map((c) => c.text())).toEqual(['0.2', '50']);
    expect(w.find('[data-testid="queue-row-r3"]').findAll('td.swept').map((c) => c.text())).toEqual(['—', '—']);
  });

  it("says the warnings of a re-queued run's spec (runs.rerun's: a field with no effect) in the warning colour, and how to change them in the form, until dismissed", async () => {
    const api = installFakeApi([makeRun(3, { status: 'done' }), makeRun(4, { status: 'failed' })]);
    api.warn = (spec) => (spec.engine === 'toy' ? [{ path: 'params.skin', message: "has no effect with cdo 'direct'" }] : []);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    await w.find('[data-testid="rerun-r3"]').trigger('click');
    await settle();
    const notes = w.find('[data-testid="rerun-warnings"]');
    // Warnings are not all 'no effect' (a voxel freezingInterval under 10 works against the run): the heading counts them.
    expect(notes.text()).toContain('Re-queued “run 3” with a warning about its spec');
    const lines = w.findAll('[data-testid="rerun-warning"]');
    // The field as the form names it. The app's user has no --set: nothing says 'override it, or remove
    // it with null' (the services' message said so to every surface); the form is where to change it.
    expect(lines.map((l) => [l.text(), l.classes('warn-text')])).toEqual([["skin: has no effect with cdo 'direct'", true]]);
    expect(notes.text()).not.toMatch(/override|null/);
    await w.find('[data-testid="rerun-edit"]').trigger('click');
    await settle();
    expect(draft.pending).toMatchObject({ engine: 'toy', name: 'run 3 (re-run)', params: { box: { lx: 13 } } });
    draft.pending = null;
    expect(w.find('[data-testid="rerun-warnings"]').exists()).toBe(false);
    await w.find('[data-testid="rerun-r3"]').trigger('click');
    await settle();
    await w.find('[data-testid="rerun-warnings-dismiss"]').trigger('click');
    expect(w.find('[data-testid="rerun-warnings"]').exists()).toBe(false);
    // A re-run that warns of nothing leaves no note.
    api.warn = () => [];
    await w.find('[data-testid="rerun-r4"]').trigger('click');
    await settle();
    expect(w.find('[data-testid="rerun-warnings"]').exists()).toBe(false);
    // Refused (a value of an older PackBench's spec out of today's range): the field in the error colour, and the form to fix it.
    api.failNext('runs.rerun', { code: 'invalid', message: 'invalid request', issues: [{ path: 'params.steps', message: 'must be in [1, 1000], got -1' }] });
    await w.find('[data-testid="rerun-r4"]').trigger('click');
    await settle();
    expect(w.find('[data-testid="rerun-warnings"]').text()).toContain('“run 4” was not re-queued: its spec does not pass the checks now');
    expect(w.findAll('[data-testid="rerun-warning"]').map((l) => [l.text(), l.classes('error-text')])).toEqual([['steps: must be in [1, 1000], got -1', true]]);
    await w.find('[data-testid="rerun-edit"]').trigger('click');
    await settle();
    expect(draft.pending).toMatchObject({ engine: 'toy', name: 'run 4 (re-run)' });
    draft.pending = null;
  });

  it("says where a batch's re-queued run goes: a failed replicate into its batch, in its place; a done one outside it, and why", async () => {
    installFakeApi([makeRun(3, { status: 'failed', batchId: 'b1' }), makeRun(4, { status: 'done', batchId: 'b1' }), makeRun(5, { status: 'failed' })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    for (const id of ['r3', 'r4', 'r5']) {
      await w.find(`[data-testid="rerun-${id}"]`).trigger('click');
      await settle();
    }
    expect(toasts.map((t) => t.text)).toEqual(expect.arrayContaining([
      'Re-queued “run 3” (1 run) in its batch, in its place',
      'Re-queued “run 4” (1 run), not in its batch: the batch has a run of this point done or still to run',
      'Re-queued “run 5” (1 run)',
    ]));
  });

  it("lists a sweep's runs, created in the same millisecond, in the order the queue starts them", async () => {
    // The service lists equal priorities in the queue's order (here r9, r5, r7); their ids say nothing.
    const created = new Date(Date.UTC(2026, 0, 1)).toISOString();
    installFakeApi([9, 5, 7].map((i) => makeRun(i, { status: 'queued', createdAt: created, finishedAt: null, startedAt: null })));
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    expect(w.findAll('tbody tr[data-testid^="queue-row-"]').map((r) => r.attributes('data-testid'))).toEqual(['queue-row-r9', 'queue-row-r5', 'queue-row-r7']);
  });

  it('counts a paused run in the queue\'s summary', async () => {
    installFakeApi([makeRun(1, { status: 'paused', finishedAt: null }), makeRun(2, { status: 'queued', finishedAt: null })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    expect(w.find('[data-testid="queue-summary"]').text()).toBe('0 running · 1 paused · 1 queued');
  });

  it("stands a paused run's time and ETA still, and goes on from there when it is resumed", async () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const at = (s: number) => new Date(start + s * 1000).toISOString();
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    try {
      vi.setSystemTime(start + 100_000);
      // Started at 0 s, paused 10 s to 30 s, paused again at 50 s: it has worked 30 s for 60 % of its steps.
      const run = makeRun(1, { status: 'paused', startedAt: at(0), finishedAt: null, wallSeconds: null, pausedAt: at(50), pausedSeconds: 20, progress: { done: 60, total: 100, phase: '', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } });
      installFakeApi([run]);
      const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
      wrappers.push(w);
      await settle();
      const times = () => w.findAll('[data-testid="queue-row-r1"] td').slice(4, 6).map((c) => c.text());
      expect(times()).toEqual(['0:30', '0:20']);
      vi.advanceTimersByTime(5000);
      await settle();
      expect(times()).toEqual(['0:30', '0:20']);
      // Resumed at 105 s (its pauses now 75 s): 10 s later it has worked 40 s.
      Object.assign(run, { status: 'running', pausedAt: null, pausedSeconds: 75 });
      await (w.vm as unknown as { reload(): Promise<void> }).reload();
      vi.advanceTimersByTime(10_000);
      await settle();
      expect(times()).toEqual(['0:40', '0:27']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('opens a started run in the inspector, paused too; a run that never started has nothing to show', async () => {
    const started = new Date().toISOString();
    installFakeApi([
      makeRun(1, { status: 'running', startedAt: started, finishedAt: null }),
      makeRun(2, { status: 'paused', startedAt: started, finishedAt: null }),
      makeRun(3, { status: 'paused', startedAt: null, finishedAt: null }),
      makeRun(4, { status: 'queued', startedAt: null, finishedAt: null }),
    ]);
    const r = router();
    const w = mount(QueueTable, { global: { plugins: [r] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    expect(w.findAll('[data-testid^="live-inspect-"]').map((b) => b.attributes('data-testid'))).toEqual(['live-inspect-r1', 'live-inspect-r2']);
    await w.find('[data-testid="live-inspect-r2"]').trigger('click');
    await settle();
    expect(r.currentRoute.value.path).toBe('/inspector/r2');
  });

  it('opens a failed run in the inspector, where its error and log are, as a done one', async () => {
    installFakeApi([makeRun(1, { status: 'failed', error: 'worker crashed' }), makeRun(2, { status: 'done' }), makeRun(3, { status: 'cancelled' })]);
    const r = router();
    const w = mount(QueueTable, { global: { plugins: [r] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    expect(w.findAll('[data-testid^="inspect-"]').map((b) => b.attributes('data-testid')).sort()).toEqual(['inspect-r1', 'inspect-r2']);
    await w.find('[data-testid="inspect-r1"]').trigger('click');
    await settle();
    expect(r.currentRoute.value.path).toBe('/inspector/r1');
  });

  it('offers Stop and keep for started runs of engines that allow it, disabled with the reason for one that does not', async () => {
    const api = installFakeApi([
      makeRun(1, { status: 'running', finishedAt: null }),
      makeRun(2, { status: 'queued', startedAt: null, finishedAt: null }),
      makeRun(3, { status: 'paused', finishedAt: null }),
      makeRun(4, { status: 'running', finishedAt: null, engine: 'plain' }),
    ]);
    const list = api.call.bind(api);
    api.call = (async (method: string, params: unknown) =>
      method === 'engines.list' ? [toyEngine, { ...toyEngine, id: 'plain', stopAndKeep: null }] : list(method as never, params as never)) as typeof api.call;
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    // Not for a queued run (nothing to keep yet: Cancel takes it out of the queue).
    expect(w.findAll('[data-testid^="stop-"]').map((b) => b.attributes('data-testid'))).toEqual(['stop-r1', 'stop-r3', 'stop-r4']);
    const plain = w.find('[data-testid="stop-r4"]');
    expect(plain.attributes('disabled')).toBeDefined();
    expect(plain.attributes('title')).toBe('Stop and keep is not offered for plain runs: an early end gives no meaningful result (Cancel ends it and keeps no artifacts)');
    const stop = w.find('[data-testid="stop-r1"]');
    expect(stop.attributes('title')).toBe('Stop and keep: end now, as if its end condition were reached, and keep the particles placed so far (Cancel keeps no artifacts)');
    await stop.trigger('click');
    await settle();
    expect(api.calls.filter((c) => c.method === 'runs.stop').map((c) => c.params)).toEqual([{ id: 'r1' }]);
    expect(api.runs[0].status).toBe('done');
  });

  it('pauses, cancels, re-prioritises and controls the queue', async () => {
    const api = installFakeApi([makeRun(1, { status: 'queued', finishedAt: null }), makeRun(2, { status: 'queued', finishedAt: null })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    // r1 is ahead (same priority, created first); moving r2 up gives it priority 1.
    await w.find('[data-testid="queue-row-r2"] button[title="Move up the queue"]').trigger('click');
    await settle();
    expect(api.calls.filter((c) => c.method === 'runs.setPriority').map((c) => c.params)).toEqual([{ id: 'r2', priority: 1 }]);
    await w.find('[data-testid="cancel-r1"]').trigger('click');
    await settle();
    expect(api.runs[0].status).toBe('cancelled');
    await w.find('[data-testid="queue-toggle"]').trigger('click');
    await settle();
    expect(api.calls.some((c) => c.method === 'queue.pause')).toBe(true);
    await w.find('[data-testid="queue-concurrency"]').setValue('3');
    await settle();
    expect(api.calls.find((c) => c.method === 'queue.setConcurrency')!.params).toEqual({ concurrency: 3 });
    // Threads per run: a bad value is refused at the field without a call.
    expect((w.find('[data-testid="queue-threads"]').element as HTMLInputElement).value).toBe('1');
    await w.find('[data-testid="queue-threads"]').setValue('0');
    await settle();
    expect(api.calls.some((c) => c.method === 'queue.setThreadsPerRun')).toBe(false);
    expect((w.find('[data-testid="queue-threads"]').element as HTMLInputElement).value).toBe('1');
    await w.find('[data-testid="queue-threads"]').setValue('2');
    await settle();
    expect(api.calls.find((c) => c.method === 'queue.setThreadsPerRun')!.params).toEqual({ threads: 2 });
    // The checkpoint interval of the runs the queue starts (an app setting beside concurrency).
    expect((w.find('[data-testid="queue-checkpoint-seconds"]').element as HTMLInputElement).value).toBe('60');
    await w.find('[data-testid="queue-checkpoint-seconds"]').setValue('300');
    await settle();
    expect(api.calls.find((c) => c.method === 'queue.setCheckpointSeconds')!.params).toEqual({ seconds: 300 });
    await w.find('[data-testid="queue-checkpoint-seconds"]').setValue('-1');
    await settle();
    expect(api.calls.filter((c) => c.method === 'queue.setCheckpointSeconds')).toHaveLength(1);
  });

  it("keeps the keyboard's place after a run's action: pause gives resume the focus, a cancelled run its next run's Cancel", async () => {
    installFakeApi([makeRun(1, { status: 'queued', finishedAt: null }), makeRun(2, { status: 'queued', finishedAt: null }), makeRun(3, { status: 'queued', finishedAt: null })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    const press = async (id: string) => {
      (w.find(`[data-testid="${id}"]`).element as HTMLButtonElement).focus();
      await w.find(`[data-testid="${id}"]`).trigger('click');
      await settle();
    };
    // The focused button went with its run or its state, and the focus to the page's start.
    await press('pause-r2');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('resume-r2');
    await press('resume-r2');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('pause-r2');
    await press('cancel-r2');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('cancel-r3');
    await press('cancel-r3');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('cancel-r1');
    await press('cancel-r1');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('queue-toggle');
  });

  it('says at the queue fields what the cores make of them, and refuses a bad value there with its range', async () => {
    const api = installFakeApi([]);
    const info = status.info;
    status.info = { version: '0.1.0', dataDir: '/tmp/pb', cores: 2, totalMemoryBytes: 1 << 30, platform: 'linux', electron: false, readOnlyBecause: null, fullDisk: false, recoveredRuns: 0 };
    try {
      status.queue = await api.call('queue.state', {});
      const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
      wrappers.push(w);
      await settle();
      // 2 at a time × 1 thread fits 2 cores: nothing to say.
      expect(w.find('[data-testid="queue-cores-note"]').exists()).toBe(false);
      // 99 × 99 is accepted (the API accepts it) and the field says what the queue will do.
      await w.find('[data-testid="queue-concurrency"]').setValue('99');
      await settle();
      await w.find('[data-testid="queue-threads"]').setValue('99');
      await settle();
      expect(api.calls.find((c) => c.method === 'queue.setThreadsPerRun')!.params).toEqual({ threads: 99 });
      expect(w.find('[data-testid="queue-cores-note"]').text()).toBe('2 cores: runs at a time × threads are kept within them, so 1 run at a time; 99 threads share 2 cores');
      await w.find('[data-testid="queue-threads"]').setValue('1');
      await settle();
      expect(w.find('[data-testid="queue-cores-note"]').text()).toBe('2 cores: runs at a time × threads are kept within them, so 2 runs at a time');

      // Bad values: refused at the field, with the range, without a call.
      const sets = () => api.calls.filter((c) => c.method === 'queue.setConcurrency').length;
      const before = sets();
      await w.find('[data-testid="queue-concurrency"]').setValue('0');
      await settle();
      expect(w.find('[data-testid="queue-concurrency-error"]').text()).toBe('“0” refused: runs at a time must be a whole number in [1, 256] (this machine has 2 cores)');
      expect(w.find('[data-testid="queue-concurrency"]').attributes('aria-invalid')).toBe('true');
      await w.find('[data-testid="queue-threads"]').setValue('300');
      await settle();
      expect(w.find('[data-testid="queue-threads-error"]').text()).toBe('“300” refused: threads each must be a whole number in [1, 256] (this machine has 2 cores)');
      await w.find('[data-testid="queue-checkpoint-seconds"]').setValue('1.5');
      await settle();
      expect(w.find('[data-testid="queue-checkpoint-seconds-error"]').text()).toContain('“1.5” refused: the checkpoint interval must be a whole number of seconds in [0, 86400]');
      expect(sets()).toBe(before);
      // A good value clears its field's error.
      await w.find('[data-testid="queue-concurrency"]').setValue('2');
      await settle();
      expect(w.find('[data-testid="queue-concurrency-error"]').exists()).toBe(false);
      expect(w.find('[data-testid="queue-threads-error"]').exists()).toBe(true);
    } finally {
      status.info = info;
    }
  });

  it("a queue setting refused for a decimal comma shows the queue's value again, and reads what is typed after it", async () => {
    const api = installFakeApi([makeRun(1, { status: 'queued', finishedAt: null, priority: 5 })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    const box = w.find('[data-testid="queue-checkpoint-seconds"]');
    const before = (box.element as HTMLInputElement).value;
    await typeKeys(box.element as HTMLInputElement, '2,5');
    await settle();
    expect(api.calls.some((c) => c.method === 'queue.setCheckpointSeconds')).toBe(false);
    expect((box.element as HTMLInputElement).value).toBe(before);
    expect(w.find('[data-testid="queue-checkpoint-seconds-error"]').text()).toContain('the checkpoint interval must be a whole number of seconds in [0, 86400]');
    // A digit added at the end of the value shown: a number the queue takes, read as typed.
    await key(box.element as HTMLInputElement, '0');
    box.element.dispatchEvent(new Event('change'));
    await settle();
    expect(api.calls.find((c) => c.method === 'queue.setCheckpointSeconds')?.params).toEqual({ seconds: Number(`${before}0`) });
  });

  it('refuses an emptied queue setting or priority instead of reading it as 0', async () => {
    const api = installFakeApi([makeRun(1, { status: 'queued', finishedAt: null, priority: 5 })]);
    const w = mount(QueueTable, { global: { plugins: [router()] }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    // 0 would switch checkpoints off, and make the run's priority 0.
    const checkpoint = w.find('[data-testid="queue-checkpoint-seconds"]');
    const before = (checkpoint.element as HTMLInputElement).value;
    expect(Number(before)).toBeGreaterThan(0);
    await checkpoint.setValue('');
    await settle();
    expect(api.calls.some((c) => c.method === 'queue.setCheckpointSeconds')).toBe(false);
    expect((checkpoint.element as HTMLInputElement).value).toBe(before);
    const priority = w.find('[data-testid="queue-row-r1"] input.prio');
    await priority.setValue('');
    await settle();
    expect(api.calls.some((c) => c.method === 'runs.setPriority')).toBe(false);
    expect((priority.element as HTMLInputElement).value).toBe('5');
    // Refused at the field, as the queue settings are, naming the run and the range.
    expect(w.find('[data-testid="queue-priority-error"]').text()).toBe('an empty field refused: the priority of “run 1” must be a whole number in [-1000, 1000]');
    expect(priority.attributes('aria-invalid')).toBe('true');
    await priority.setValue('5000');
    await settle();
    expect(w.find('[data-testid="queue-priority-error"]').text()).toBe('“5000” refused: the priority of “run 1” must be a whole number in [-1000, 1000]');
    expect(api.calls.some((c) => c.method === 'runs.setPriority')).toBe(false);
    // A good value clears it.
    await priority.setValue('7');
    await settle();
    expect(w.find('[data-testid="queue-priority-error"]').exists()).toBe(false);
    expect(priority.attributes('aria-invalid')).toBeUndefined();
    expect(w.find('[data-testid="queue-checkpoint-seconds-error"]').text()).toContain('an empty field refused: the checkpoint interval must be a whole number of seconds in [0, 86400]');
  });
});

describe('queue model', () => {
  const q = (id: number, priority: number) => makeRun(id, { status: 'queued', priority });

  it('reorders with one change when a priority fits, else renumbers', () => {
    const list = [q(1, 5), q(2, 3), q(3, 3)].sort(queueOrder);
    expect(reorder(list, 2, 0)).toEqual([{ id: 'r3', priority: 6 }]);
    expect(reorder(list, 0, 2)).toEqual([{ id: 'r1', priority: 2 }]);
    // r2 and r3 tie at 3 and r2 is older: r3 can pass r2 only with priority 4, which also keeps it below r1.
    expect(reorder(list, 2, 1)).toEqual([{ id: 'r3', priority: 4 }]);
    // Brute force: every move yields the intended order.
    const many = [q(1, 0), q(2, 0), q(3, 0), q(4, 1), q(5, -2)].sort(queueOrder);
    for (let from = 0; from < many.length; from++) {
      for (let to = 0; to < many.length; to++) {
        const changes = reorder(many, from, to);
        const after = many.map((r) => ({ ...r, priority: changes.find((c) => c.id === r.id)?.priority ?? r.priority })).sort(queueOrder);
        const want = many.slice();
        const [m] = want.splice(from, 1);
        want.splice(to, 0, m);
        expect(after.map((r) => r.id)).toEqual(want.map((r) => r.id));
      }
    }
  });

  it('extrapolates the remaining time from progress', () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const r = makeRun(1, { status: 'running', startedAt: new Date(start).toISOString(), progress: { done: 25, total: 100, phase: '', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } });
    expect(remainingSeconds(r, start + 10_000)).toBeCloseTo(30);
    expect(remainingSeconds({ ...r, progress: { done: 0, total: 100, phase: '', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } }, start + 10_000)).toBe(null);
  });

  it('gives no time left from the first moments of a phase: its pace there is not the phase’s', () => {
    // The analysis' porosity pass went by in a blink; 0.2 s after its scale began the run is at 27 %
    // of it, in the orientation that takes minutes: extrapolated, that read 0:00 left.
    const start = Date.parse('2026-01-01T00:00:00Z');
    const progress = { done: 27, total: 100, phase: 'analysis: orientation', fromSeconds: 60, fromDone: 0, paceSeconds: 60, paceDone: 0 };
    const r = makeRun(1, { status: 'running', startedAt: new Date(start).toISOString(), progress });
    expect(remainingSeconds(r, start + 60_200)).toBe(null);
    expect(remainingSeconds(r, start + 60_000 + ETA_AFTER_SECONDS * 1000)).toBeCloseTo((ETA_AFTER_SECONDS * 73) / 27);
  });
});
