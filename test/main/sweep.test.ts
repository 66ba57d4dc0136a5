import { describe, expect, it } from 'vitest';
import { MAX_SWEEP_PARAMS_BYTES, sweepPlan, sweptPaths, type SweepPoint } from '../../main/services/sweep';
import { ApiError } from '../../main/api';

const spec = (params: Record<string, unknown>) => ({ engine: 'e', name: 'n', seed: 5, params });

/** Every point of a spec's sweep plan, in order. */
function expandSweeps(s: Parameters<typeof sweepPlan>[0], issuePrefix?: string): SweepPoint[] {
  const plan = sweepPlan(s, issuePrefix);
  return Array.from({ length: plan.total }, (_, i) => plan.point(i));
}

describe('sweepPlan', () => {
  it('returns the spec itself when there is no sweep', () => {
    const points = expandSweeps(spec({ a: 1, b: { c: [1, 2] } }));
    expect(points).toHaveLength(1);
    expect(points[0].spec).toEqual(spec({ a: 1, b: { c: [1, 2] } }));
  });

  it('expands lists and ranges at any depth into the cartesian product, each point with its own seed', () => {
    const points = expandSweeps(spec({ a: { $sweep: [1, 2, 3] }, box: { lz: { $sweep: { from: 0, to: 1, steps: 3 } } }, k: 'x' }));
    expect(points).toHaveLength(9);
    // Brute force: every combination appears exactly once.
    const combos = points.map((p) => `${p.spec.params.a}/${(p.spec.params.box as { lz: number }).lz}`);
    const expected = [1, 2, 3].flatMap((a) => [0, 0.5, 1].map((lz) => `${a}/${lz}`));
    expect(combos.sort()).toEqual(expected.sort());
    expect(new Set(points.map((p) => p.spec.seed)).size).toBe(9);
    expect(points.every((p) => p.spec.params.k === 'x')).toBe(true);
    expect(points[0].spec.name).toBe('n [a=1, box.lz=0]');
    expect(points[0].values).toEqual({ a: 1, 'box.lz': 0 });
  });

  it('names a point by the start and length of a long swept value, which its values keep whole', () => {
    // Two size tables of 3,000 sizes: their JSON made names of some 33,000 characters.
    const table = (from: number) => ({ law: 'table', sizes: Array.from({ length: 3000 }, (_, i) => from + i / 1e4), weights: Array(3000).fill(1) });
    const points = expandSweeps(spec({ size: { $sweep: [table(1), table(2)] }, top: { $sweep: ['ceiling', 'open'] } }));
    const json = JSON.stringify(table(1));
    expect(points[0].spec.name).toBe(`n [size=${json.slice(0, 40)}… (${json.length.toLocaleString('en-US')} characters), top=ceiling]`);
    expect(points[2].spec.name).toMatch(/^n \[size=\{"law":"table","sizes":\[2,2\.0001,/);
    expect(points[0].values.size).toEqual(table(1));
  });

  it('expands sweeps inside arrays: a particle type\'s size, one entry of a tuple', () => {
    const types = [{ size: { law: 'fixed', value: { $sweep: [1, 1.5] } } }, { size: { law: 'fixed', value: 2 } }];
    const points = expandSweeps(spec({ mixture: { types }, box: { size: [4, 4, { $sweep: [6, 8] }] } }));
    expect(points.map((p) => p.values)).toEqual([
      { 'mixture.types.0.size.value': 1, 'box.size.2': 6 },
      { 'mixture.types.0.size.value': 1, 'box.size.2': 8 },
      { 'mixture.types.0.size.value': 1.5, 'box.size.2': 6 },
      { 'mixture.types.0.size.value': 1.5, 'box.size.2': 8 },
    ]);
    expect(points[3].spec.params).toEqual({ mixture: { types: [{ size: { law: 'fixed', value: 1.5 } }, { size: { law: 'fixed', value: 2 } }] }, box: { size: [4, 4, 8] } });
    expect(Array.isArray((points[0].spec.params.box as { size: unknown }).size)).toBe(true);
    // The spec itself is left as it was.
    expect(types[0].size.value).toEqual({ $sweep: [1, 1.5] });
    expect(() => expandSweeps(spec({ list: [{ $sweep: [] }] }))).toThrow(/params\.list\.0/);
  });

  it('is deterministic', () => {
    const s = spec({ a: { $sweep: [1, 2] } });
    expect(expandSweeps(s).map((p) => p.spec.seed)).toEqual(expandSweeps(s).map((p) => p.spec.seed));
  });

  it('rejects malformed sweeps naming the field, and sweeps that are too large', () => {
    expect(() => expandSweeps(spec({ box: { lx: { $sweep: { from: 1, to: 2 } } } }))).toThrow(/params\.box\.lx/);
    // A key a range does not have (log spacing, a misspelt 'step') is refused, not dropped.
    expect(() => expandSweeps(spec({ a: { $sweep: { from: 1, to: 100, steps: 3, log: true } } }))).toThrow(ApiError);
    expect(() => expandSweeps(spec({ a: { $sweep: { from: 1, to: 100, steps: 3, step: 2 } } }))).toThrow(ApiError);
    // Each issue names the field of the form written and the ranges, not zod's bare 'Invalid input' of a union.
    const issues = (value: unknown) => {
      try {
        expandSweeps(spec({ a: { $sweep: value } }));
      } catch (err) {
        return (err as ApiError).issues;
      }
      return expect.unreachable();
    };
    expect(issues({ from: 0.1, to: 0.5, steps: 2.5 })).toEqual([{ path: 'params.a.$sweep.steps', message: expect.stringMatching(/expected int.*"steps": integer in \[1, 10000\]/) }]);
    expect(issues({ from: 'a', to: 0.5, steps: 3 })).toEqual([{ path: 'params.a.$sweep.from', message: expect.stringMatching(/expected number/) }]);
    // A range of one step is its 'from' alone: a 'to' elsewhere was dropped without a word.
    expect(issues({ from: 0.1, to: 0.5, steps: 1 })).toEqual([{ path: 'params.a.$sweep.steps', message: expect.stringMatching(/^a range of 1 step is its from \(0\.1\) alone: from 0\.1 to 0\.5 needs steps ≥ 2 \(or write \{ "\$sweep": \[0\.1\] \}\); /) }]);
    expect(expandSweeps(spec({ a: { $sweep: { from: 0.3, to: 0.3, steps: 1 } } })).map((p) => p.spec.params.a)).toEqual([0.3]);
    expect(issues(5)).toEqual([{ path: 'params.a.$sweep', message: expect.stringMatching(/^expected a list of values or a range; .*\(1 to 10000 values\)/) }]);
    // A range's unknown fields are said as the API says one (zod's words quoted them whole).
    expect(issues({ from: 1, to: 100, steps: 3, step: 2 })).toEqual([{ path: 'params.a.$sweep', message: expect.stringMatching(/^unknown field 'step' \(did you mean 'steps'\?\); a sweep is /) }]);
    expect(issues({ from: 1, to: 100, steps: 3, log: true, base: 10 })).toEqual([{ path: 'params.a.$sweep', message: expect.stringMatching(/^unknown field 'log'; known fields: from, to, steps \(and 1 more unknown field\); /) }]);
    // A batch stored before that check still lists its swept paths.
    expect(sweptPaths({ a: { $sweep: { from: 1, to: 100, steps: 3, log: true } }, b: [{ $sweep: [1, 2] }] })).toEqual(['a', 'b.0']);
    try {
      expandSweeps(spec({ a: { $sweep: { from: 0, to: 1, steps: 1000 } }, b: { $sweep: { from: 0, to: 1, steps: 1000 } } }));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).message).toMatch(/1000000 runs; at most 10000/);
    }
  });

  it('crosses a sweep of the seed with the params\' points, each run at the seed itself; one seed is derived per point as before', () => {
    const points = expandSweeps({ ...spec({ a: { $sweep: [1, 2] } }), seed: { $sweep: { from: 4, to: 6, steps: 3 } } });
    expect(points.map((p) => [p.spec.params.a, p.spec.seed, p.spec.name])).toEqual([
      [1, 4, 'n [a=1, seed=4]'], [1, 5, 'n [a=1, seed=5]'], [1, 6, 'n [a=1, seed=6]'],
      [2, 4, 'n [a=2, seed=4]'], [2, 5, 'n [a=2, seed=5]'], [2, 6, 'n [a=2, seed=6]'],
    ]);
    expect(points[4].values).toEqual({ a: 2, seed: 5 });
    // Replicates of a spec without params sweeps: the runs "seed": 3 and "seed": 9 would make.
    expect(expandSweeps({ ...spec({ a: 1 }), seed: { $sweep: [3, 9] } }).map((p) => p.spec)).toEqual([
      { ...spec({ a: 1 }), seed: 3, name: 'n [seed=3]' },
      { ...spec({ a: 1 }), seed: 9, name: 'n [seed=9]' },
    ]);
    const issues = (seed: unknown) => {
      try {
        expandSweeps({ ...spec({ a: { $sweep: { from: 0, to: 1, steps: 200 } } }), seed: seed as never }, 'spec');
      } catch (err) {
        return (err as ApiError).issues;
      }
      return expect.unreachable();
    };
    expect(issues({ $sweep: [1, -1, 2 ** 32, 'x'] })).toEqual([
      { path: 'spec.seed.$sweep.1', message: 'must be a whole number in [0, 4294967295], got -1' },
      { path: 'spec.seed.$sweep.2', message: 'must be a whole number in [0, 4294967295], got 4294967296' },
      { path: 'spec.seed.$sweep.3', message: 'must be a whole number in [0, 4294967295], got the text "x"' },
    ]);
    expect(issues({ $sweep: { from: 1, to: 2, steps: 3 } })).toEqual([{ path: 'spec.seed.$sweep', message: "each seed must be a whole number in [0, 4294967295]; this range's value 2 is 1.5" }]);
    expect(issues({ $sweep: [] })).toEqual([{ path: 'spec.seed.$sweep', message: expect.stringMatching(/1 to 10000 values.*; its values are seeds, each a whole number in \[0, 4294967295\]$/) }]);
    // The count limit is the product's.
    expect(issues({ $sweep: { from: 1, to: 60, steps: 60 } })).toEqual([{ path: 'spec.seed', message: 'sweep of 12000 runs (200 of the params × 60 seeds) exceeds 10000' }]);
  });

  it('refuses a sweep of seeds that repeats a seed, listed or as a range, naming the repeat and its first', () => {
    const refusal = (seed: unknown) => {
      try {
        expandSweeps({ ...spec({ a: { $sweep: [1, 2] } }), seed: seed as never }, 'spec');
      } catch (err) {
        return [(err as ApiError).message, (err as ApiError).issues];
      }
      return expect.unreachable();
    };
    const why = "each seed of a sweep must differ: the same seed and params make the same run, counted twice in its point's spread";
    expect(refusal({ $sweep: [1, 2, 1, 2] })).toEqual([
      `spec.seed.$sweep.2: repeats seed 1 (spec.seed.$sweep.0); ${why}`,
      [{ path: 'spec.seed.$sweep.2', message: `repeats seed 1 (spec.seed.$sweep.0); ${why}` }],
    ]);
    // A range repeats only when from equals to; a step under 1 is refused as not whole, even where 12 digits round it so.
    expect(refusal({ $sweep: { from: 5, to: 5, steps: 3 } })).toEqual([
      `spec.seed.$sweep: this range gives seed 5 3 times; ${why}`,
      [{ path: 'spec.seed.$sweep', message: `this range gives seed 5 3 times; ${why}` }],
    ]);
    expect(refusal({ $sweep: { from: 4294967000, to: 4294967001, steps: 1000 } })[0]).toMatch(/^spec\.seed\.\$sweep: each seed must be a whole number .*; this range's value 6 is 4294967000\.01 \(and 989 more\)$/);
    expect(expandSweeps({ ...spec({ a: 1 }), seed: { $sweep: { from: 4294967000, to: 4294967295, steps: 296 } } }).map((p) => p.spec.seed)).toEqual(Array.from({ length: 296 }, (_, i) => 4294967000 + i));
  });

  it('refuses a sweep whose runs would hold too many bytes of params together, naming the heavy field, before making its points', () => {
    // An inline voxel map of 32 KiB as base64 (44 kB), swept 2000 times: 87 MB of params, each run's copy checked and stored.
    const bits = Buffer.alloc(32 << 10, 0xff).toString('base64');
    const map = (steps: number) => spec({ mixture: { types: [{ shape: { kind: 'voxels', dims: [64, 64, 64], bits }, size: { law: 'fixed', value: 1 } }] }, p: { $sweep: { from: 0, to: 1, steps } } });
    const each = JSON.stringify(map(2000).params).length;
    const most = Math.floor(MAX_SWEEP_PARAMS_BYTES / each);
    expect(expandSweeps(map(most))).toHaveLength(most);
    let refusal: ApiError | undefined;
    try {
      expandSweeps(map(most + 1), 'spec');
    } catch (err) {
      refusal = err as ApiError;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal!.code).toBe('invalid');
    expect(refusal!.issues).toEqual([{ path: 'spec.params.mixture.types.0.shape.bits', message: expect.stringContaining(`allowed: at most ${MAX_SWEEP_PARAMS_BYTES} bytes in all, here at most ${most} runs`) }]);
    expect(refusal!.message).toMatch(/^spec\.params\.mixture\.types\.0\.shape\.bits: the sweep's \d+ runs would each hold these params of \d+ bytes \(43694 of them in this field\)/);
  });
});
