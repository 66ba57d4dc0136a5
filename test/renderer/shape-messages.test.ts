/**
 * The particle editor's messages for shape parameters and size laws read like the batch form's (the
 * field and its allowed range), not zod's wording ('Too small: expected number to be >0').
 */
import { describe, expect, it } from 'vitest';
import { rangeText, shapeFields, validateShape } from '../../renderer/src/workspaces/editor/shapeForm';
import { validateMixture } from '../../renderer/src/workspaces/editor/mixture';

describe('shape parameter messages', () => {
  it("name the kind's parameter and its range", () => {
    expect(validateShape({ kind: 'superellipsoid', b: 0, c: Number.NaN, e1: 0, e2: 9 })).toEqual({
      b: 'b must be in (0, 1]',
      c: 'c: enter a number in (0, 1]',
      e1: 'e1 must be in [0.1, 4]',
      e2: 'e2 must be in [0.1, 4]',
    });
    expect(validateShape({ kind: 'cylinder', length: 60 })).toEqual({ length: 'length must be in (0, 50]' });
  });

  it('write the range under a field as its message does', () => {
    const b = shapeFields('superellipsoid').find((f) => f.key === 'b')!;
    expect(rangeText(b)).toBe('(0, 1]');
    expect(rangeText({ ...b, min: 0, exclusiveMin: false, max: null })).toBe('[0, ∞)');
  });

  it("give a surface's field its range, as the batch form's rows do", () => {
    expect(validateShape({ kind: 'implicit', surface: { kind: 'torus', majorRadius: 0, minorRadius: 0.3 } })).toEqual({ 'surface.majorRadius': 'must be in (0, 1000000]' });
  });

  it("give a size law's fields and a fraction their ranges, and keep the engine's own cross-field words", () => {
    const issues = validateMixture({ basis: 'number', types: [
      { shapeId: 'a', size: { law: 'normal', mean: 1, sd: -1 }, fraction: -1 },
      { shapeId: 'a', size: { law: 'table', sizes: [1, -1], weights: [1] }, fraction: 1 },
    ] });
    expect(issues).toEqual([
      { path: 'types.0.size.sd', message: 'must be in [0, 1000000]' },
      { path: 'types.0.fraction', message: 'must be in [0, 1000000000]' },
      { path: 'types.1.size.sizes.1', message: 'must be in (0, 1000000]' },
      { path: 'types.1.size.weights', message: 'must have one weight per size: 2 sizes, got 1 weights' },
    ]);
  });

  it('give an emptied or unreadable field its range too: the mixture shows none beside a median or a fraction', () => {
    const issues = validateMixture({ basis: 'number', types: [{ shapeId: 'a', size: { law: 'lognormal', median: Number.NaN, sigma: 0.2 }, fraction: Number.NaN }] });
    expect(issues).toEqual([
      { path: 'types.0.size.median', message: 'enter a number in (0, 1000000]' },
      { path: 'types.0.fraction', message: 'enter a number in [0, 1000000000]' },
    ]);
  });
});
