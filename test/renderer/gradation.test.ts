import { afterEach, describe, expect, it } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { reactive, ref } from 'vue';
import { z } from 'zod';
import { installFakeApi, settle } from './fakeApi';
import SchemaField from '../../renderer/src/workspaces/batch/SchemaField.vue';
import { validate, type JsonSchema } from '../../renderer/src/workspaces/batch/schema';
import {
  askedCurve, classesToSieve, parseTable, sieveFromRows, sieveToClasses, type ClassesGradation, type SieveGradation,
} from '../../renderer/src/workspaces/batch/gradationForm';
import { stackingParamsSchema } from '../../core/stacking/params';

const schema = z.toJSONSchema(stackingParamsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

describe('gradation form logic', () => {
  it('reads tables pasted from a spreadsheet: tabs, semicolons with decimal commas, spaces; headers skipped; bad lines named', () => {
    expect(parseTable('size\tpassing\n0.1\t0\n0.2\t40\n0.4\t100\n', 2, 4)).toEqual({ rows: [[0.1, 0], [0.2, 40], [0.4, 100]], errors: [] });
    expect(parseTable('d (mm); % passing\n0,1;0\n0,25;55,5\n', 2, 4).rows).toEqual([[0.1, 0], [0.25, 55.5]]);
    expect(parseTable('0.2 1 0.5 1\n0.1, 2', 2, 4).rows).toEqual([[0.2, 1, 0.5, 1], [0.1, 2]]);
    const bad = parseTable('0.1\t0\n0.2\n0.3\tx\n', 2, 4);
    expect(bad.rows).toEqual([[0.1, 0]]);
    expect(bad.errors).toEqual(["line 2: 1 number, expected 2 to 4", "line 3: '0.3\tx' has a cell that is not a number"]);
  });

  it('takes a sieve analysis listed from the largest sieve down in increasing order, with per-segment a_f when given', () => {
    expect(sieveFromRows([[0.4, 100], [0.2, 40], [0.1, 0]])).toEqual({ kind: 'sieve', sizes: [0.1, 0.2, 0.4], passing: [0, 40, 100], af: [[0, 0.3]] });
    expect(sieveFromRows([[0.1, 0], [0.2, 40, 0, 0.3], [0.4, 100, 0.5, 1]]).af).toEqual([[0, 0.3], [0.5, 1]]);
  });

  it('draws the curve the gradation asks for: through the sieve points, from 0 to 100 % for classes; none while invalid', () => {
    const sieve: SieveGradation = { kind: 'sieve', sizes: [0.1, 0.2, 0.4], passing: [0, 40, 100], af: [[0, 0.3]] };
    const c = askedCurve(sieve, 3);
    if ('error' in c) throw new Error(c.error);
    expect(c.marks).toEqual([0.1, 0.2, 0.4]);
    expect(c.y[c.x.indexOf(0.2)]).toBeCloseTo(40, 9);
    const classes: ClassesGradation = { kind: 'classes', rang: 0.05, classes: [{ radius: 0.2, fraction: 1, af: [0.5, 1] }, { radius: 0.05, fraction: 3, af: [0, 0.3] }] };
    const k = askedCurve(classes, 3);
    if ('error' in k) throw new Error(k.error);
    expect(k.y[0]).toBe(0);
    expect(k.y[k.y.length - 1]).toBeCloseTo(100, 9);
    // Between the two classes, 3 of 4 shares are finer.
    expect(k.y[k.x.findIndex((d) => Math.abs(d - 0.105) < 1e-12)]).toBeCloseTo(75, 9);
    expect(askedCurve({ ...sieve, passing: [0, 60, 50] }, 3)).toEqual({ error: '% passing must not decrease' });
    expect(askedCurve({ ...classes, classes: [{ radius: Number.NaN, fraction: 1, af: [0, 0.3] }] }, 3)).toHaveProperty('error');
  });

  it('turns classes into a sieve curve with the same shares between classes, and a sieve curve into classes', () => {
    const classes: ClassesGradation = { kind: 'classes', rang: 0.05, classes: [{ radius: 0.2, fraction: 1, af: [0.5, 1] }, { radius: 0.05, fraction: 3, af: [0, 0.3] }] };
    const s = classesToSieve(classes, 3);
    expect(s.sizes).toEqual([0.095, 0.105, 0.38, 0.42]);
    expect(s.passing).toEqual([0, 75, 75, 100]);
    expect(s.af).toEqual([[0, 0.3], [0.5, 1], [0.5, 1]]);
    const back = sieveToClasses({ kind: 'sieve', sizes: [0.1, 0.2, 0.4], passing: [0, 40, 100], af: [[0, 0.3], [0.5, 1]] });
    expect(back.classes).toEqual([{ radius: 0.15, fraction: 60, af: [0.5, 1] }, { radius: 0.075, fraction: 40, af: [0, 0.3] }]);
    expect(back.rang).toBeCloseTo(1 / 3, 3);
    expect(stackingParamsSchema.shape.gradation.safeParse(back).success).toBe(true);
  });
});

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
});

async function mountForm(params: Record<string, unknown>) {
  const holder = reactive({ params });
  const errors = ref<Record<string, string>>({});
  const w = mount(SchemaField, {
    props: { schema, root: schema, parent: holder, k: 'params', path: '', errors: errors.value },
    global: { provide: { composerEngine: ref('stacking') } },
    attachTo: document.body,
  });
  wrappers.push(w);
  await settle();
  return { w, holder };
}

describe('gradation editor in the schema form', () => {
  it('replaces the generic union for a field marked form: gradation; edits redraw the curve; errors land at the cells', async () => {
    installFakeApi();
    const { w, holder } = await mountForm(stackingParamsSchema.parse({}) as Record<string, unknown>);
    expect(w.find('[data-testid="field-gradation"] legend').text()).toBe('gradation');
    expect(w.find('[data-testid="field-gradation-variant"]').exists()).toBe(false);
    expect(w.findAll('[data-testid^="field-gradation.classes."][data-testid$=".radius"]').length).toBe(5);
    const before = w.find('[data-testid="field-gradation-curve-line"]').attributes('points');
    await w.find('[data-testid="field-gradation.classes.4.fraction"]').setValue('4');
    const g = holder.params.gradation as ClassesGradation;
    expect(g.classes[4].fraction).toBe(4);
    expect(w.find('[data-testid="field-gradation-curve-line"]').attributes('points')).not.toBe(before);
    await w.find('[data-testid="field-gradation.classes.0.radius"]').setValue('');
    expect(Number.isNaN(g.classes[0].radius)).toBe(true);
    expect(w.find('[data-testid="field-gradation-curve-missing"]').exists()).toBe(true);
    const errors = validate(schema, holder.params);
    expect(Object.keys(errors)).toContain('gradation.classes.0.radius');
    await w.setProps({ errors });
    expect(w.find('[data-testid="field-gradation.classes.0.radius"]').attributes('aria-invalid')).toBe('true');
    expect(w.find('[data-testid="field-gradation-error"]').text()).toMatch(/^classes\.0\.radius: /);
    // The other fields of the form: dim a select of 2 and 3, periodic x/y two checkboxes.
    expect(w.find('[data-testid="field-dim"]').findAll('option').map((o) => o.text())).toEqual(['2', '3']);
    await w.find('[data-testid="field-region.periodic.1"]').setValue(true);
    expect((holder.params.region as { periodic: boolean[] }).periodic).toEqual([false, true]);
    expect(w.find('[data-testid="field-region.periodic-sweep-toggle"]').exists()).toBe(false);
  });

  it("keeps unreadable text ('1e') in its own box when a class or a sieve above it is removed", async () => {
    installFakeApi();
    const { w, holder } = await mountForm(stackingParamsSchema.parse({}) as Record<string, unknown>);
    /** '1e' typed in a box (on its way to 1e-3): the browser empties the value and flags it. */
    const typeUnreadable = async (testid: string): Promise<HTMLInputElement> => {
      const box = w.get(`[data-testid="${testid}"]`);
      Object.defineProperty(box.element, 'validity', { configurable: true, value: { badInput: true } });
      await box.setValue('');
      return box.element as HTMLInputElement;
    };
    const g = holder.params.gradation as ClassesGradation;
    const [second, third] = [g.classes[1].radius, g.classes[2].radius];
    const typing = await typeUnreadable('field-gradation.classes.1.radius');
    await w.findAll('[title="Remove this class"]')[0].trigger('click');
    expect(w.get('[data-testid="field-gradation.classes.0.radius"]').element).toBe(typing);
    expect((w.get('[data-testid="field-gradation.classes.1.radius"]').element as HTMLInputElement).value).toBe(String(third));

    await w.get('[data-testid="field-gradation.classes.0.radius"]').setValue(String(second));
    await w.get('[data-testid="field-gradation-kind"]').setValue('sieve');
    const sieve = holder.params.gradation as SieveGradation;
    const size = sieve.sizes[2];
    const typingSize = await typeUnreadable('field-gradation.sizes.1');
    await w.findAll('[title="Remove this sieve"]')[0].trigger('click');
    expect(sieve.sizes[0]).toBeNaN();
    expect(w.get('[data-testid="field-gradation.sizes.0"]').element).toBe(typingSize);
    expect((w.get('[data-testid="field-gradation.sizes.1"]').element as HTMLInputElement).value).toBe(String(size));
  });

  it("shows the composer's warnings about the gradation under its table, as warnings", async () => {
    installFakeApi();
    const holder = reactive({ params: stackingParamsSchema.parse({}) as Record<string, unknown> });
    const message = "has no effect with order 'front': ... or leave it out";
    const w = mount(SchemaField, {
      props: { schema, root: schema, parent: holder, k: 'params', path: '', errors: {} },
      global: { provide: { composerEngine: ref('stacking'), fieldWarnings: ref({ 'gradation.classes.1.af': message }) } },
      attachTo: document.body,
    });
    wrappers.push(w);
    await settle();
    const warning = w.find('[data-testid="field-gradation-warning"]');
    expect(warning.text()).toBe(`classes.1.af: ${message}`);
    expect(warning.classes()).toEqual(['warn-text']);
    expect(w.find('[data-testid="field-gradation-error"]').exists()).toBe(false);
  });

  it("shows an opened spec's unknown fields in the gradation and in a class at their places, each with its message and a remove button", async () => {
    installFakeApi();
    // A gradation of its own: the schema's default is one object, which the test before this one edits.
    const classes = [0.2, 0.1, 0.05].map((radius) => ({ radius, fraction: 1, af: [0, 0.3] }));
    const params = stackingParamsSchema.parse({ gradation: { kind: 'classes', rang: 0.05, classes } }) as Record<string, unknown>;
    const g = params.gradation as ClassesGradation & Record<string, unknown>;
    g.extra = 1;
    (g.classes[1] as unknown as Record<string, unknown>).colour = 'red';
    const { w, holder } = await mountForm(params);
    await w.setProps({ errors: validate(schema, holder.params) });
    // In the gradation's frame, and in the table under the class's row (not in the list of messages).
    expect(w.find('[data-testid="field-gradation"] [data-testid="field-gradation.extra"]').text()).toContain('extra');
    expect(w.find('[data-testid="field-gradation.extra-error"]').text()).toBe("unknown field 'extra'; known fields: kind, rang, classes");
    expect(w.find('[data-testid="field-gradation"] tbody [data-testid="field-gradation.classes.1.colour"]').text()).toContain('"red"');
    expect(w.find('[data-testid="field-gradation.classes.1.colour-error"]').text()).toBe("unknown field 'colour'; known fields: radius, fraction, af");
    expect(w.findAll('[data-testid="field-gradation-error"]').map((e) => e.text())).toEqual([]);
    expect(w.find('[data-testid="field-gradation-curve-missing"]').text()).toBe('the curve shows once the unknown fields are removed');
    await w.find('[data-testid="field-gradation.classes.1.colour-remove"]').trigger('click');
    await w.find('[data-testid="field-gradation.extra-remove"]').trigger('click');
    const after = validate(schema, holder.params);
    expect(after).toEqual({});
    await w.setProps({ errors: after });
    expect(w.find('[data-testid="field-gradation.extra"]').exists()).toBe(false);
    expect(w.find('[data-testid="field-gradation.classes.1.colour"]').exists()).toBe(false);
    // The rest of the gradation stays as it came.
    expect((holder.params.gradation as ClassesGradation).classes).toEqual(classes);
    expect(w.find('[data-testid="field-gradation-curve-line"]').exists()).toBe(true);
  });

  it('switches to a sieve curve, takes a pasted sieve analysis, and saves and loads gradation presets', async () => {
    const api = installFakeApi();
    const { w, holder } = await mountForm(stackingParamsSchema.parse({}) as Record<string, unknown>);
    await w.find('[data-testid="field-gradation-kind"]').setValue('sieve');
    const s = holder.params.gradation as SieveGradation;
    expect(s.kind).toBe('sieve');
    expect(s.passing[0]).toBe(0);
    expect(s.passing[s.passing.length - 1]).toBe(100);
    await w.find('[data-testid="field-gradation-paste-open"]').trigger('click');
    await w.find('[data-testid="field-gradation-paste"]').setValue('Sieve (mm)\t% passing\n2\t100\n1\t70\n0.5\t35\n0.25\t0\n');
    await w.find('[data-testid="field-gradation-paste-apply"]').trigger('click');
    expect(holder.params.gradation).toEqual({ kind: 'sieve', sizes: [0.25, 0.5, 1, 2], passing: [0, 35, 70, 100], af: [[0, 0.3]] });
    expect(w.findAll('[data-testid^="field-gradation.sizes."]').length).toBe(4);
    expect(w.find('[data-testid="field-gradation-curve-line"]').exists()).toBe(true);

    await w.find('[data-testid="field-gradation-preset-save"]').trigger('click');
    await w.find('[data-testid="field-gradation-preset-name"]').setValue('coarse sand');
    await w.find('[data-testid="field-gradation-preset-save-confirm"]').trigger('click');
    await settle();
    expect(api.presets).toHaveLength(1);
    expect(api.presets[0].spec).toMatchObject({ engine: 'stacking', name: 'coarse sand', params: { gradation: { kind: 'sieve', sizes: [0.25, 0.5, 1, 2] } } });
    await w.find('[data-testid="field-gradation-kind"]').setValue('classes');
    expect((holder.params.gradation as ClassesGradation).kind).toBe('classes');
    await w.find('[data-testid="field-gradation-preset"]').setValue(api.presets[0].id);
    expect(holder.params.gradation).toEqual({ kind: 'sieve', sizes: [0.25, 0.5, 1, 2], passing: [0, 35, 70, 100], af: [[0, 0.3]] });
  });
});
