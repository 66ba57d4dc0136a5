import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defaultValue, formPath, kindOf, mergeOver, rangeText, runCount, unitAt, validate, type JsonSchema,
} from '../../renderer/src/workspaces/batch/schema';
import { ballmillEngine } from '../../core/ballmill';
import { voxelEngine } from '../../core/voxel';
import { sweepValues } from '../../main/api';
import { toyEngine, toyParams } from './fakeApi';

const schema = toyEngine.paramsJsonSchema as JsonSchema;

describe('batch form schema', () => {
  it('builds the same defaults as zod', () => {
    expect(defaultValue(schema)).toEqual(toyParams.parse({}));
  });

  it('classifies fields', () => {
    const p = schema.properties!;
    expect(kindOf(p.box)).toBe('object');
    expect(kindOf(p.resolution)).toBe('integer');
    expect(kindOf(p.packing)).toBe('enum');
    expect(kindOf(p.types)).toBe('array');
    expect(kindOf((p.types.items as JsonSchema).properties!.size)).toBe('union');
  });

  it('agrees with zod on valid and invalid values', () => {
    const cases: unknown[] = [
      toyParams.parse({}),
      { ...toyParams.parse({}), resolution: 0 },
      { ...toyParams.parse({}), resolution: 2.5 },
      { ...toyParams.parse({}), box: { lx: 5000, ly: 20 } },
      { ...toyParams.parse({}), packing: 'nope' },
      { ...toyParams.parse({}), types: [] },
      { ...toyParams.parse({}), types: [{ shape: 'sphere', size: { law: 'fixed', value: -1 }, fraction: 1 }] },
      { ...toyParams.parse({}), types: [{ shape: 'sphere', size: { law: 'uniform', min: 1, max: 2 }, fraction: 0.5 }] },
    ];
    for (const c of cases) {
      const zodOk = toyParams.safeParse(c).success;
      expect(Object.keys(validate(schema, c)).length === 0, JSON.stringify(c)).toBe(zodOk);
    }
  });

  it('checks a range sweep at the values the service runs, not at their round-off', () => {
    // 0.2 to 1 in 4 steps: 0.2 + 0.8 · 3/3 is 1.0000000000000002 in floating point, which a probability's
    // [0, 1] refused, while the service (main/services/sweep.ts) runs 1 and accepts the sweep.
    const probability = z.toJSONSchema(z.object({ p: z.number().min(0).max(1) })) as JsonSchema;
    const sweep = { $sweep: { from: 0.2, to: 1, steps: 4 } };
    expect(validate(probability, { p: sweep })).toEqual({});
    expect(sweepValues(sweep)).toEqual([0.2, 0.466666666667, 0.733333333333, 1]);
    expect(validate(probability, { p: { $sweep: { from: 0.5, to: -0.3, steps: 3 } } }).p).toBe('sweep value -0.3: must be in [0, 1]');
  });

  it('names the field path and the allowed range', () => {
    const errs = validate(schema, { ...toyParams.parse({}), box: { lx: 0, ly: 20 }, types: [{ shape: 'sphere', size: { law: 'fixed', value: 0 }, fraction: 1 }] });
    expect(errs['box.lx']).toBe('must be in [1, 1000]');
    expect(errs['types.0.size.value']).toBe('must be in (0, ∞)');
  });

  it('validates sweeps value by value and counts the runs of a sweep', () => {
    const base = toyParams.parse({});
    const swept = { ...base, resolution: { $sweep: [2, 4, 8] }, box: { lx: { $sweep: { from: 10, to: 20, steps: 4 } }, ly: 20 } };
    expect(validate(schema, swept)).toEqual({});
    expect(runCount(swept)).toBe(12);
    expect(runCount(base)).toBe(1);
    expect(sweepValues({ $sweep: { from: 10, to: 20, steps: 3 } })).toEqual([10, 15, 20]);
    const bad = { ...base, resolution: { $sweep: [2, 100] } };
    expect(validate(schema, bad).resolution).toMatch(/sweep value 100: must be in \[1, 64\]/);
    const tupleSchema = z.toJSONSchema(z.object({ size: z.tuple([z.number().min(1), z.number().min(1)]) })) as JsonSchema;
    expect(validate(tupleSchema, { size: { $sweep: [[2, 2], [3, 3]] } })).toEqual({});
    expect(validate(tupleSchema, { size: { $sweep: [[2, 2], [3, 0]] } }).size).toBe('sweep value [3,0]: must be in [1, ∞)');
    expect(validate(schema, { ...base, resolution: { $sweep: { from: 1, to: 2, steps: 0 } } }).resolution).toMatch(/steps/);
  });

  it('refuses a sweep list value it could not read as the field takes it, naming the accepted form', () => {
    // Components with defaults, as the voxel box size: the JSON Schema then has no minItems.
    const size = z.tuple([z.number().gt(0).default(10), z.number().gt(0).default(10), z.number().gt(0).default(10)]).default([10, 10, 10]);
    const s = z.toJSONSchema(z.object({ size, resolution: z.number().int().min(1), fill: z.number().gt(0).nullable().default(null) }), { io: 'input' }) as JsonSchema;
    const tupleForm = "write each value as its 3 numbers separated by spaces, and the values separated by ';' (e.g. 1 1 1; 2 2 2)";
    // 'a b c' read as one tuple of NaNs (JSON: [null,null,null]); '1,1,1, 2,2,2' as one tuple of six.
    expect(validate(s, { size: { $sweep: [[NaN, NaN, NaN]] }, resolution: 1 }).size).toBe(`value 1 of the list is not 3 numbers: ${tupleForm}`);
    expect(validate(s, { size: { $sweep: [[1, 1, 1], [1, 1, 1, 2, 2, 2]] }, resolution: 1 }).size).toBe(`value 2 of the list is not 3 numbers: ${tupleForm}`);
    expect(validate(s, { size: { $sweep: [[4, 4], [5, 5, 5]] }, resolution: 1 }).size).toBe(`value 1 of the list is not 3 numbers: ${tupleForm}`);
    expect(validate(s, { size: [4, 4], resolution: 1 }).size).toBe('must have 3 entries, got 2');
    expect(validate(s, { size: { $sweep: [[4, 4, 4], [5, 5, 5]] }, resolution: 1 })).toEqual({});
    expect(validate(s, { size: [4, 4, 4], resolution: { $sweep: [2, NaN] } }).resolution).toBe('value 2 of the list is not a number: write the values separated by commas (e.g. 0.1, 0.2, 0.5)');
    expect(validate(s, { size: [4, 4, 4], resolution: 1, fill: { $sweep: [null, 0.5] } })).toEqual({});
  });

  it('hides the bounds zod gives every integer', () => {
    const s = z.toJSONSchema(z.number().int().positive()) as JsonSchema;
    expect(rangeText(s)).toBe('(0, ∞)');
  });

  it('merges drafts over defaults and maps service paths to form paths', () => {
    const merged = mergeOver(toyParams.parse({}), { box: { lx: 7 }, types: [{ shape: 'cuboid' }] }) as { box: unknown; types: unknown };
    expect(merged.box).toEqual({ lx: 7, ly: 20 });
    expect(merged.types).toEqual([{ shape: 'cuboid' }]);
    const fields = Object.keys(schema.properties!);
    expect(formPath('params.spec.params.box.lx', fields)).toBe('box.lx');
    expect(formPath('params.box.lx', fields)).toBe('box.lx');
    expect(formPath('params.priority', fields)).toBe(null);
  });

  it("finds the unit of a params path through objects, tuples, arrays, unions and nullable fields", () => {
    const mill = z.toJSONSchema(ballmillEngine.paramsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const params = ballmillEngine.paramsSchema.parse({ restitution: { model: 'constant', value: 0.8 } });
    expect(['vial.width', 'balls.radius.min', 'balls.density', 'balls.solidFraction', 'restitution.value', 'duration', 'dim', 'cdo'].map((p) => unitAt(mill, params, p)))
      .toEqual(['mm', 'mm', 'kg/m³', 'fraction', 'ratio', 's', '', '']);
    expect(unitAt(mill, params, 'no.such.field')).toBe('');
    // Without a value (a swept path alone): the variant that has the field.
    expect(['balls.radius.max', 'restitution.value', 'vial.width'].map((p) => unitAt(mill, undefined, p))).toEqual(['mm', 'ratio', 'mm']);
    const voxel = z.toJSONSchema(voxelEngine.paramsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const packing = voxelEngine.paramsSchema.parse({});
    expect(['box.size.0', 'box.resolution', 'mixture.types.0.size.value'].map((p) => unitAt(voxel, packing, p))).toEqual(['length units', 'voxels/length unit', 'length units']);
  });
});
