/**
 * The batch form never substitutes a default for what the user typed or left out (issue 18): empty
 * and non-number entries are errors at the field with Enqueue disabled and the reason beside it; a
 * tuple's bad component is named at the field; a draft's missing fields show the values that run;
 * an imported voxel map shows as its size and a thumbnail, not as its bits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { z } from 'zod';
import { installFakeApi, settle } from './fakeApi';
import RunComposer from '../../renderer/src/workspaces/batch/RunComposer.vue';
import { sendToBatch, takeDraft } from '../../renderer/src/stores/draft';
import { fillDefaults, type JsonSchema } from '../../renderer/src/workspaces/batch/schema';
import { voxelParamsSchema } from '../../core/voxel/params';
import { voxelEngine as voxelDefinition } from '../../core/voxel/index';
import { ballmillParamsSchema } from '../../core/ballmill/params';
import { ballmillEngine as ballmillDefinition } from '../../core/ballmill/index';
import { projectVoxelMap } from '../../renderer/src/components/voxelThumbnail';
import { cancelled, type EngineInfo } from '../../main/api';

const voxelEngine: EngineInfo = {
  id: 'voxel',
  title: 'Voxel packing',
  description: 'voxel',
  paramsJsonSchema: z.toJSONSchema(voxelParamsSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  defaults: voxelParamsSchema.parse({}) as Record<string, unknown>,
  particleTable: voxelDefinition.particleTable,
  metrics: {},
  stopAndKeep: null,
};

/** The fake API with the real voxel engine's schema as its only engine. */
function installVoxelApi() {
  const api = installFakeApi();
  const call = api.call.bind(api);
  api.call = (async (method: string, params: unknown) => (method === 'engines.list' ? [voxelEngine] : call(method as never, params as never))) as typeof api.call;
  return api;
}

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
  takeDraft();
});

async function mountComposer() {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div/>' } }] });
  const w = mount(RunComposer, { global: { plugins: [router] }, attachTo: document.body });
  wrappers.push(w);
  await settle();
  return w;
}

const enqueueDisabled = (w: VueWrapper) => w.find('[data-testid="enqueue"]').attributes('disabled') !== undefined;

describe('the batch form substitutes no default silently', () => {
  it('an emptied number field is an error at the field, Enqueue disabled with the reason beside it', async () => {
    const api = installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-box.lx"]').setValue('');
    expect(w.find('[data-testid="field-box.lx-error"]').text()).toBe('enter a number in [1, 1000]');
    expect(enqueueDisabled(w)).toBe(true);
    expect(w.find('[data-testid="enqueue-reason"]').text()).toBe('box.lx: enter a number in [1, 1000]');
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    expect(api.calls.some((c) => c.method === 'runs.enqueue')).toBe(false);
    await w.find('[data-testid="field-box.lx"]').setValue('1.5');
    expect(w.find('[data-testid="field-box.lx-error"]').exists()).toBe(false);
    expect(w.find('[data-testid="enqueue-reason"]').exists()).toBe(false);
    expect(enqueueDisabled(w)).toBe(false);
  });

  it('a required field inside a list item (a size law\'s value) emptied or given letters is an error, not dropped', async () => {
    installFakeApi();
    const w = await mountComposer();
    const input = w.find('[data-testid="field-types.0.size.value"]');
    await input.setValue('abc');
    expect(w.find('[data-testid="field-types.0.size.value-error"]').text()).toBe('enter a number in (0, ∞)');
    expect(enqueueDisabled(w)).toBe(true);
    await input.setValue('');
    expect(w.find('[data-testid="field-types.0.size.value-error"]').text()).toBe('enter a number in (0, ∞)');
    expect(w.find('[data-testid="enqueue-reason"]').text()).toContain('types.0.size.value');
  });

  it('names a bad component of a tuple at the field: a negative box size, an empty origin', async () => {
    installVoxelApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-box.size.2"]').setValue('-3');
    expect(w.find('[data-testid="field-box.size-error"]').text()).toBe('z: must be in (0, 1000000]');
    expect(enqueueDisabled(w)).toBe(true);
    expect(w.find('[data-testid="enqueue-reason"]').text()).toContain('box.size.2');
    await w.find('[data-testid="field-box.size.2"]').setValue('');
    expect(w.find('[data-testid="field-box.size-error"]').text()).toBe('z: enter a number in (0, 1000000]');
    await w.find('[data-testid="field-box.size.2"]').setValue('4');
    expect(w.find('[data-testid="field-box.size-error"]').exists()).toBe(false);
    expect(enqueueDisabled(w)).toBe(false);
  });

  it('a sweep range with an empty end is an error, not a sweep from 0', async () => {
    installFakeApi();
    const w = await mountComposer();
    await w.find('[data-testid="field-box.lx-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-box.lx-sweep"] select').setValue('range');
    await w.find('[data-testid="field-box.lx-sweep-from"]').setValue('');
    expect(w.find('[data-testid="field-box.lx-error"]').text()).toBe('from: enter a number');
    expect(enqueueDisabled(w)).toBe(true);
    // The footer points to the sweep to fix; it said 'This sweep has an empty list' of a range with a bad bound.
    expect(w.find('[data-testid="run-count"]').text()).toBe('No runs: fix the sweep marked in red');
  });

  it('shows every field of a mixture from the particle editor with the value that runs, an imported shape by its name, size and thumbnail', async () => {
    installVoxelApi();
    const w = await mountComposer();
    // 2 x 1 x 2 voxels, all solid but (1, 0, 1)
    const bits = btoa(String.fromCharCode(0b0111));
    sendToBatch({
      engine: 'voxel',
      keepOthers: true,
      params: { mixture: { basis: 'number', types: [{ name: 'Grain', shape: { kind: 'voxels', dims: [2, 1, 2], bits }, size: { law: 'fixed', value: 1 }, fraction: 1 }] } },
    });
    await settle();
    // the fields the editor does not send show their defaults: nothing blank runs unseen
    expect((w.find('[data-testid="field-mixture.types.0.rotationStep"]').element as HTMLInputElement).value).toBe('0');
    expect((w.find('[data-testid="field-mixture.types.0.maxRotation.0"]').element as HTMLInputElement).value).toBe('180');
    expect((w.find('[data-testid="field-mixture.types.0.orientation"]').element as HTMLSelectElement).value).toBe('random');
    // the imported shape: its name in the type's title, its size and thumbnail, no bits selector
    expect(w.find('[data-testid="field-mixture.types"]').text()).toContain('type 1: Grain');
    expect(w.find('[data-testid="field-mixture.types.0.shape-voxel-map"]').exists()).toBe(true);
    expect(w.find('[data-testid="voxel-map-dims"]').text()).toBe('2 × 1 × 2 voxels · 3 solid');
    expect(w.find('[data-testid="voxel-map-thumb"]').exists()).toBe(true);
    expect(w.find('[data-testid="field-mixture.types.0.shape.bits-variant"]').exists()).toBe(false);
    expect(w.find('[data-testid="field-mixture.types.0.shape.dims.0"]').exists()).toBe(false);
    const kinds = w.findAll('[data-testid="field-mixture.types.0.shape-variant"] option').map((o) => o.text());
    expect(kinds).toContain('imported voxel map');
    expect(kinds).not.toContain('voxels');
    expect(enqueueDisabled(w)).toBe(false);
  });

  it("shows an unknown field of an imported voxel map at its place with its message and a remove button, not in the map's summary", async () => {
    installVoxelApi();
    const w = await mountComposer();
    const bits = btoa(String.fromCharCode(0b0111));
    sendToBatch({
      engine: 'voxel',
      params: { mixture: { basis: 'number', types: [{ name: 'Grain', shape: { kind: 'voxels', dims: [2, 1, 2], bits, origin: 'scan 3' }, size: { law: 'fixed', value: 1 }, fraction: 1 }] } },
    });
    await settle();
    const shape = w.find('[data-testid="field-mixture.types.0.shape"]');
    expect(shape.find('[data-testid="field-mixture.types.0.shape.origin"]').text()).toContain('"scan 3"');
    expect(w.find('[data-testid="field-mixture.types.0.shape.origin-error"]').text()).toBe("unknown field 'origin'; known fields: kind, dims, bits");
    expect(w.find('[data-testid="field-mixture.types.0.shape-voxel-map"] .error-text').exists()).toBe(false);
    expect(enqueueDisabled(w)).toBe(true);
    await w.find('[data-testid="field-mixture.types.0.shape.origin-remove"]').trigger('click');
    expect(w.find('[data-testid="field-mixture.types.0.shape.origin"]').exists()).toBe(false);
    expect(w.find('[data-testid="voxel-map-dims"]').text()).toBe('2 × 1 × 2 voxels · 3 solid');
    expect(enqueueDisabled(w)).toBe(false);
  });
});

describe('a draft whose union field is of another variant than the default', () => {
  it("a ball mill spec with a 'fixed' radius law is enqueued as written, without the default law's min and max", async () => {
    const api = installFakeApi();
    const ballmill: EngineInfo = {
      id: 'ballmill', title: 'Shaker ball mill', description: 'ball mill', metrics: {}, particleTable: ballmillDefinition.particleTable, stopAndKeep: null,
      paramsJsonSchema: z.toJSONSchema(ballmillParamsSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
      defaults: ballmillParamsSchema.parse({}) as Record<string, unknown>,
    };
    const call = api.call.bind(api);
    api.call = (async (method: string, params: unknown) => (method === 'engines.list' ? [ballmill] : call(method as never, params as never))) as typeof api.call;
    const w = await mountComposer();
    sendToBatch({ engine: 'ballmill', name: 'fixed balls', params: { balls: { radius: { law: 'fixed', value: 2 } }, restitution: { model: 'constant', value: 0.5 } } });
    await settle();
    expect(w.find('[data-testid="field-balls.radius.min"]').exists()).toBe(false);
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    const { spec } = api.calls.find((c) => c.method === 'runs.enqueue')!.params as { spec: { params: { balls: { radius: unknown } } } };
    expect(spec.params.balls.radius).toEqual({ law: 'fixed', value: 2 });
    expect(ballmillParamsSchema.safeParse(spec.params).success).toBe(true);
  });
});

describe('the batch form asks the engine\'s combined checks before Enqueue', () => {
  it('names a particle larger than the box at its field and disables Enqueue', async () => {
    const api = installFakeApi();
    // The toy engine's cross-field rule: a particle's size must be below the box's x length.
    api.check = (spec) => {
      const p = spec.params as { box: { lx: number }; types: { size: { value?: number } }[] };
      return p.types.flatMap((t, i) => ((t.size.value ?? 0) >= p.box.lx ? [{ path: `spec.params.types.${i}.size`, message: `the particle (${t.size.value}) is larger than the box (${p.box.lx})` }] : []));
    };
    const w = await mountComposer();
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(api.calls.some((c) => c.method === 'runs.validate')).toBe(true);
    expect(enqueueDisabled(w)).toBe(false);
    await w.find('[data-testid="field-types.0.size.value"]').setValue('25');
    expect(w.find('[data-testid="enqueue-checking"]').text()).toBe('checking with the engine…');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.find('[data-testid="field-types.0.size"]').text()).toContain('the particle (25) is larger than the box (20)');
    expect(enqueueDisabled(w)).toBe(true);
    expect(w.find('[data-testid="enqueue-reason"]').text()).toBe('types.0.size: the particle (25) is larger than the box (20)');
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    expect(api.calls.some((c) => c.method === 'runs.enqueue')).toBe(false);
    // a larger box: the check passes again and Enqueue is enabled
    await w.find('[data-testid="field-box.lx"]').setValue('30');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(enqueueDisabled(w)).toBe(false);
    expect(w.find('[data-testid="field-types.0.size"]').text()).not.toContain('larger than the box');
  });

  it('shows a field that has no effect with the others as a warning at it, and Enqueue stays enabled', async () => {
    const api = installFakeApi();
    const message = 'has no effect with a box this long; make it shorter for it to apply, or leave it out';
    api.warn = (spec) => ((spec.params as { box: { lx: number } }).box.lx > 25 ? [{ path: 'spec.params.box.lx', message }] : []);
    const w = await mountComposer();
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.find('[data-testid="field-box.lx-warning"]').exists()).toBe(false);
    await w.find('[data-testid="field-box.lx"]').setValue('30');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    const warning = w.find('[data-testid="field-box.lx-warning"]');
    expect(warning.text()).toBe(message);
    expect(warning.classes()).toEqual(['warn-text']);
    expect(enqueueDisabled(w)).toBe(false);
    // Refused by the engine's checks elsewhere: the error at its field, the warning still at its own.
    api.check = (spec) => ((spec.params as { types: { size: { value?: number } }[] }).types[0].size.value === 25 ? [{ path: 'spec.params.types.0.size', message: 'too large' }] : []);
    await w.find('[data-testid="field-types.0.size.value"]').setValue('25');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.find('[data-testid="field-types.0.size"]').text()).toContain('too large');
    expect(w.find('[data-testid="field-box.lx-warning"]').text()).toBe(message);
    expect(enqueueDisabled(w)).toBe(true);
    await w.find('[data-testid="field-types.0.size.value"]').setValue('2');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    expect(api.calls.some((c) => c.method === 'runs.enqueue')).toBe(true);
  });
});

describe('the batch form sends the service one check at a time', () => {
  it('edits made while a check is under way send one more when it answers, with the spec as it is then', async () => {
    const api = installFakeApi();
    const call = api.call.bind(api);
    // The service holds the checks (a 10,000-point sweep takes it seconds) until released.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const sent: number[] = [];
    api.call = (async (method: string, params: unknown) => {
      if (method === 'runs.validate') {
        sent.push((params as { spec: { params: { box: { lx: number } } } }).spec.params.box.lx);
        await held;
      }
      return call(method as never, params as never);
    }) as typeof api.call;
    const w = await mountComposer();
    await new Promise((r) => setTimeout(r, 300));
    // Three pauses in typing, each longer than the form's 250 ms: each sent a check, queued on the service.
    for (const lx of ['21', '22', '23']) {
      await w.find('[data-testid="field-box.lx"]').setValue(lx);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(sent).toEqual([20]);
    release();
    await settle();
    await new Promise((r) => setTimeout(r, 20));
    await settle();
    expect(sent).toEqual([20, 23]);
    expect(enqueueDisabled(w)).toBe(false);
  });
});

describe('the batch form aborts a check whose spec has changed', () => {
  it('the service stops it, and the check of the spec as it is now is sent without waiting for the old one to end', async () => {
    // Before, each check ran to its end (a 10,000-point sweep: seconds) before the next was sent.
    const api = installFakeApi();
    const call = api.call.bind(api);
    const sent: number[] = [];
    const under = new Map<number, () => void>();
    api.call = (async (method: string, params: unknown, callId?: number) => {
      if (method !== 'runs.validate') return call(method as never, params as never);
      sent.push((params as { spec: { params: { box: { lx: number } } } }).spec.params.box.lx);
      // The service holds each check until its renderer aborts it (then it answers cancelled).
      await new Promise<void>((_ok, fail) => under.set(callId!, () => fail(cancelled(method))));
    }) as typeof api.call;
    api.abort = (callId) => under.get(callId)?.();
    const w = await mountComposer();
    await new Promise((r) => setTimeout(r, 300));
    for (const lx of ['21', '22']) {
      await w.find('[data-testid="field-box.lx"]').setValue(lx);
      await new Promise((r) => setTimeout(r, 300));
      await settle();
    }
    expect(sent).toEqual([20, 21, 22]);
    expect(w.text()).not.toContain('cancelled'); // an aborted check is no refusal to show
  });
});

describe('the batch form shows the memory a run needs before Enqueue', () => {
  it('shows the estimate against the budget, and a run over the budget is refused at Enqueue with the reason', async () => {
    const api = installFakeApi();
    const message = 'the run needs about 40.0 GiB, more than the memory budget of 16.0 GiB; use a smaller box, a coarser resolution or fewer particles';
    // The service's budget check, as JobQueue.validate words it, for a box over 100 long.
    api.check = (spec) => ((spec.params as { box: { lx: number } }).box.lx > 100 ? [{ path: 'spec.params', message }] : []);
    const w = await mountComposer();
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.find('[data-testid="memory-estimate"]').text()).toBe('· about 3.0 GiB of memory (budget 16.0 GiB)');
    await w.find('[data-testid="field-box.lx"]').setValue('200');
    await new Promise((r) => setTimeout(r, 300));
    await settle();
    expect(w.find('[data-testid="memory-estimate"]').exists()).toBe(false);
    expect(enqueueDisabled(w)).toBe(true);
    expect(w.find('[data-testid="enqueue-reason"]').text()).toBe(message);
    await w.find('[data-testid="enqueue"]').trigger('click');
    await settle();
    expect(api.calls.some((c) => c.method === 'runs.enqueue')).toBe(false);
  });
});

describe('fillDefaults', () => {
  it('fills what a value lacks, through lists and unions, and leaves sweeps and given values alone', () => {
    const schema = voxelEngine.paramsJsonSchema as JsonSchema;
    const v = fillDefaults(schema, { box: { size: { $sweep: [[3, 3, 3]] } }, mixture: { types: [{ shape: { kind: 'cylinder' }, size: { law: 'normal', mean: 2 } }] } }) as ReturnType<typeof voxelParamsSchema.parse>;
    expect(v.box).toEqual({ size: { $sweep: [[3, 3, 3]] }, resolution: 20, top: 'ceiling' });
    expect(v.mixture.types[0]).toEqual({ ...voxelParamsSchema.parse({}).mixture.types[0], shape: { kind: 'cylinder', length: 1 }, size: { law: 'normal', mean: 2, sd: 0.1 } });
    // the same as the engine's own parse where no sweep is left
    const plain = { mixture: { types: [{ shape: { kind: 'cuboid', b: 0.5 } }] } };
    expect(fillDefaults(schema, plain)).toEqual(voxelParamsSchema.parse(plain));
  });

  it('leaves an optional field without a default unset (the engine says what its absence means), never filled with its minimum', () => {
    const schema = voxelEngine.paramsJsonSchema as JsonSchema;
    const analysis = (fillDefaults(schema, { analysis: { enabled: true } }) as { analysis: Record<string, unknown> }).analysis;
    expect(analysis).not.toHaveProperty('sliceThickness'); // absent: one voxel; its minimum would be 1 length unit
    expect(analysis).not.toHaveProperty('floorLayer');
    expect(analysis).toEqual(voxelParamsSchema.parse({ analysis: { enabled: true } }).analysis);
    const optional = z.toJSONSchema(z.object({ steps: z.number().int().min(1).default(10), failAt: z.number().int().min(0).optional() }), { io: 'input' }) as JsonSchema;
    expect(fillDefaults(optional, {})).toEqual({ steps: 10 });
    expect(fillDefaults(optional, { failAt: 3 })).toEqual({ steps: 10, failAt: 3 });
  });
});

describe('projectVoxelMap', () => {
  it('shades each pixel of the front view by the share of solid voxels along y, top row highest z', () => {
    // 2 x 2 x 2: z = 0 full; z = 1 only (0, 0, 1)
    const bits = btoa(String.fromCharCode(0b00011111));
    const p = projectVoxelMap([2, 2, 2], bits);
    expect([p.width, p.height, p.solid]).toEqual([2, 2, 5]);
    expect([...p.shade]).toEqual([0.5, 0, 1, 1]);
  });
});
