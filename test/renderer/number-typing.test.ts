import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mount, type VueWrapper } from '@vue/test-utils';
import { computed, nextTick, reactive } from 'vue';
import { z } from 'zod';
import { installFakeApi, settle } from './fakeApi';
import SchemaField from '../../renderer/src/workspaces/batch/SchemaField.vue';
import { validate, type JsonSchema } from '../../renderer/src/workspaces/batch/schema';
import { readNumber } from '../../renderer/src/components/numberValue';
import { key } from './numberKeys';
import { stackingParamsSchema } from '../../core/stacking/params';
import { ballmillParamsSchema } from '../../core/ballmill/params';

let wrappers: VueWrapper[] = [];
afterEach(() => {
  wrappers.forEach((w) => w.unmount());
  wrappers = [];
});

/**
 * Types `text` into the emptied input one key at a time, as a user does: each key adds to the text in
 * the box (which the browser keeps even while it does not read as a number: '-', '1e-'), then an
 * input event; when the component rewrites the box, the next key adds to what it wrote.
 */
async function type(input: HTMLInputElement, text: string): Promise<void> {
  let box = '';
  for (const key of text) {
    box += key;
    input.value = box;
    const reported = input.value;
    input.dispatchEvent(new Event('input'));
    await nextTick();
    if (input.value !== reported) box = input.value;
  }
}

const numbers: JsonSchema = {
  type: 'object',
  properties: {
    strength: { type: 'number', minimum: -100, maximum: 100, default: 1 },
    centre: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }, { type: 'number' }], default: [0, 0, 0] },
  },
};

describe('number fields keep what the user types', () => {
  it('a scalar, a tuple component and a sweep range: -0.25 stays negative, 2e-10 stays 2e-10', async () => {
    const holder = reactive({ params: { strength: 1, centre: [0, 0, 0] } as Record<string, unknown> });
    const w = mount(SchemaField, { props: { schema: numbers, root: numbers, parent: holder, k: 'params', path: '', errors: {}, sweepable: true }, attachTo: document.body });
    wrappers.push(w);
    const strength = w.find('[data-testid="field-strength"]').element as HTMLInputElement;
    await type(strength, '-0.25');
    expect(strength.value).toBe('-0.25');
    expect(holder.params.strength).toBe(-0.25);
    await type(strength, '2e-10');
    expect(holder.params.strength).toBe(2e-10);
    const y = w.find('[data-testid="field-centre.1"]').element as HTMLInputElement;
    await type(y, '-0.5');
    expect(holder.params.centre).toEqual([0, -0.5, 0]);
    await w.find('[data-testid="field-strength-sweep-toggle"]').trigger('click');
    await w.find('[data-testid="field-strength-sweep"] select').setValue('range');
    const from = w.find('[data-testid="field-strength-sweep-from"]').element as HTMLInputElement;
    await type(from, '-0.75');
    expect((holder.params.strength as { $sweep: { from: number } }).$sweep.from).toBe(-0.75);
  });

  it('a gradation cell: a radius typed as 1e-13 is 1e-13, not 0.13', async () => {
    installFakeApi();
    const schema = z.toJSONSchema(stackingParamsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const holder = reactive({ params: { dim: 3, gradation: { kind: 'classes', rang: 0.05, classes: [{ radius: 0.2, fraction: 1, af: [0.5, 1] }] } } as Record<string, unknown> });
    const w = mount(SchemaField, { props: { schema: schema.properties!.gradation, root: schema, parent: holder.params, k: 'gradation', path: 'gradation', errors: {} }, attachTo: document.body });
    wrappers.push(w);
    await settle();
    const radius = w.find('[data-testid="field-gradation.classes.0.radius"]').element as HTMLInputElement;
    await type(radius, '1e-13');
    expect((holder.params.gradation as { classes: { radius: number }[] }).classes[0].radius).toBe(1e-13);
  });
});

describe('readNumber, the one reading of a number input', () => {
  const typed = (value: string) => {
    const input = document.createElement('input');
    input.value = value;
    return { target: input } as unknown as Event;
  };
  it('reads the number, an empty entry as NaN (never a default), or as unset when the field is optional', () => {
    expect(readNumber(typed('2.5e-3'))).toBe(0.0025);
    expect(readNumber(typed('-0'))).toBe(-0);
    expect(readNumber(typed(''))).toBeNaN();
    expect(readNumber(typed(''), true)).toBeUndefined();
    expect(readNumber(typed('4'), true)).toBe(4);
    // Text that is no number ('1e'): the browser empties the value but flags it; refused, not unset.
    const bad = typed('');
    Object.defineProperty(bad.target, 'validity', { value: { badInput: true } });
    expect(readNumber(bad, true)).toBeNaN();
  });
});

describe('a field that may be null', () => {
  it("the ball mill's solid fraction: typed, then emptied again, is null (radii as drawn), not an error; its range is shown", async () => {
    const schema = z.toJSONSchema(ballmillParamsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const holder = reactive({ params: { balls: { count: 100, radius: { law: 'fixed', value: 1 }, solidFraction: null, density: 7800, initialSpeed: 300 } } as Record<string, unknown> });
    const errors = computed(() => validate(schema, holder.params));
    const w = mount(SchemaField, { props: { schema, root: schema, parent: holder, k: 'params', path: '', errors: errors.value }, attachTo: document.body });
    wrappers.push(w);
    const input = w.find('[data-testid="field-balls.solidFraction"]');
    expect(input.attributes('placeholder')).toBe('not set');
    expect(input.element.closest('.sf-row')!.textContent).toContain('(0, 0.75]');
    await type(input.element as HTMLInputElement, '0.3');
    expect((holder.params.balls as { solidFraction: unknown }).solidFraction).toBe(0.3);
    await input.setValue('');
    expect((holder.params.balls as { solidFraction: unknown }).solidFraction).toBe(null);
    expect(errors.value).toEqual({});
    // '0.3e' (an exponent not finished) is no number: the browser empties the value and flags it; refused at the field, not null.
    Object.defineProperty(input.element, 'validity', { configurable: true, value: { badInput: true } });
    await input.setValue('');
    expect((holder.params.balls as { solidFraction: unknown }).solidFraction).toBeNaN();
    expect(Object.keys(errors.value)).toEqual(['balls.solidFraction']);
  });
});

describe("a form's list of numbers", () => {
  it("keeps unreadable text ('1e') in its own box when an item above it is removed or it is moved", async () => {
    const schema: JsonSchema = { type: 'object', properties: { radii: { type: 'array', items: { type: 'number' } } } };
    const holder = reactive({ params: { radii: [1, 2, 3, 4] } as Record<string, unknown> });
    const w = mount(SchemaField, { props: { schema, root: schema, parent: holder, k: 'params', path: '', errors: {} }, attachTo: document.body });
    wrappers.push(w);
    const box = (i: number) => w.get(`[data-testid="field-radii.${i}"]`).element as HTMLInputElement;
    // '1e' typed in the third item (on its way to 1e-3): the browser empties the value and flags it.
    const typing = box(2);
    Object.defineProperty(typing, 'validity', { configurable: true, value: { badInput: true } });
    await w.get('[data-testid="field-radii.2"]').setValue('');
    await w.get('[data-testid="field-radii-remove-0"]').trigger('click');
    expect(box(1)).toBe(typing);
    expect(box(2).value).toBe('4');
    await w.findAll('[title="Move up"]')[1].trigger('click');
    expect(holder.params.radii).toEqual([Number.NaN, 2, 4]);
    expect(box(0)).toBe(typing);
    expect(box(1).value).toBe('2');
  });
});

describe('characters a number box cannot hold (numberEntry.ts)', () => {
  it("a decimal comma is refused at the field: '0,4' is not read as 4, and deleting to correct it reads 0.4", async () => {
    const holder = reactive({ params: { strength: 1, centre: [0, 0, 0] } as Record<string, unknown> });
    const errors = computed(() => validate(numbers, holder.params));
    const w = mount(SchemaField, { props: { schema: numbers, root: numbers, parent: holder, k: 'params', path: '', errors: errors.value }, attachTo: document.body });
    wrappers.push(w);
    const strength = w.find('[data-testid="field-strength"]').element as HTMLInputElement;
    strength.value = '';
    for (const k of '0,4') await key(strength, k);
    expect(strength.validationMessage).toContain("',' was not entered");
    expect(strength.validationMessage).toContain('0.4, not 0,4');
    expect(holder.params.strength).toBeNaN();
    expect(Object.keys(errors.value)).toEqual(['strength']);
    for (const k of ['Backspace', '.', '4']) await key(strength, k);
    expect(strength.validationMessage).toBe('');
    expect(holder.params.strength).toBe(0.4);
    expect(errors.value).toEqual({});
  });

  it('a flagged box whose whole text the user selects and types over reads what was typed (Chromium: insertText, no deletion)', async () => {
    const input = document.createElement('input');
    input.type = 'number';
    document.body.append(input);
    for (const k of '7,5') await key(input, k);
    expect(readNumber({ target: input } as unknown as Event)).toBeNaN();
    await key(input, '3', true);
    expect(input.validity.customError).toBe(false);
    expect(readNumber({ target: input } as unknown as Event)).toBe(3);
    input.remove();
  });

  it("a unit typed after the number is refused too ('5 cm' is not 5), a pasted '0,4' is not entered", async () => {
    const input = document.createElement('input');
    input.type = 'number';
    document.body.append(input);
    for (const k of '5 cm') await key(input, k);
    // The space, then each letter, was refused: the box says so of the last one.
    expect(input.value).toBe('5');
    expect(input.validationMessage).toContain("'m' was not entered");
    expect(input.validity.customError).toBe(true);
    expect(readNumber({ target: input } as unknown as Event)).toBeNaN();
    input.value = '';
    input.dispatchEvent(new InputEvent('input', { inputType: 'deleteContentBackward', bubbles: true }));
    expect(input.validity.customError).toBe(false);
    const paste = new InputEvent('beforeinput', { inputType: 'insertFromPaste', data: '0,4', cancelable: true, bubbles: true });
    expect(input.dispatchEvent(paste)).toBe(false);
    expect(input.validationMessage).toContain("',' was not entered");
    input.remove();
  });
});

describe('every number box of the app', () => {
  it('is read through readNumber, not v-model (which reads the digits left after a refused comma, 04 for 0,4)', () => {
    const root = join(__dirname, '../../renderer/src');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.vue'));
    const bound = files.flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(/<input\b[^>]*>/g)]
      .filter(([tag]) => /type="number"/.test(tag) && /v-model/.test(tag))
      .map(([tag]) => `${f}: ${tag.replace(/\s+/g, ' ').slice(0, 80)}`));
    expect(files.length).toBeGreaterThan(10);
    expect(bound).toEqual([]);
  });
});
