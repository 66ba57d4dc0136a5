import { describe, it, expect } from 'vitest';
import { defaultLaw, sizeDistribution, validateMixture, type Mixture } from '../../renderer/src/workspaces/editor/mixture';
import { Random } from '../../core/common/random';

const SPHERE = Math.PI / 6;

function weightedMedian(x: Float64Array, w: Float64Array, edges: Float64Array): number {
  const total = w.reduce((a, v) => a + v, 0);
  let acc = 0;
  for (let k = 0; k < x.length; k++) {
    if (acc + w[k] >= total / 2) return edges[k] + ((total / 2 - acc) / w[k]) * (edges[k + 1] - edges[k]);
    acc += w[k];
  }
  return x[x.length - 1];
}

describe('mixture size distribution', () => {
  it('turns volume fractions into number fractions by the particle volume (sizes 1 and 2: 8 to 1)', () => {
    const m: Mixture = { basis: 'volume', types: [
      { shapeId: 'a', size: { law: 'fixed', value: 1 }, fraction: 1 },
      { shapeId: 'b', size: { law: 'fixed', value: 2 }, fraction: 1 },
    ] };
    const d = sizeDistribution(m, [SPHERE, SPHERE]);
    expect(d.typeNumberPercent[0]).toBeCloseTo((8 / 9) * 100, 6);
    expect(d.typeVolumePercent[0]).toBeCloseTo(50, 6);
    expect(d.number.reduce((a, v) => a + v, 0)).toBeCloseTo(100, 9);
    expect(d.volume.reduce((a, v) => a + v, 0)).toBeCloseTo(100, 9);
    // the two sizes sit in the first and last bins
    expect(d.number[0]).toBeCloseTo((8 / 9) * 100, 6);
    expect(d.volume[d.volume.length - 1]).toBeCloseTo(50, 6);
  });

  it('number basis keeps the fractions as given, and the shape volume factor weighs the volumes', () => {
    const m: Mixture = { basis: 'number', types: [
      { shapeId: 'a', size: { law: 'fixed', value: 1 }, fraction: 3 },
      { shapeId: 'b', size: { law: 'fixed', value: 1 }, fraction: 1 },
    ] };
    const d = sizeDistribution(m, [1, 3]); // type b is three times as voluminous at equal size
    expect(d.typeNumberPercent).toEqual([75, 25]);
    expect(d.typeVolumePercent[0]).toBeCloseTo(50, 9);
  });

  it('log-normal: number median is the median, volume median follows Hatch-Choate (median e^(3 sigma^2))', () => {
    const sigma = 0.3;
    const m: Mixture = { basis: 'number', types: [{ shapeId: 'a', size: { law: 'lognormal', median: 2, sigma }, fraction: 1 }] };
    const d = sizeDistribution(m, [SPHERE], 400);
    expect(weightedMedian(d.centres, d.number, d.edges)).toBeCloseTo(2, 2);
    expect(weightedMedian(d.centres, d.volume, d.edges) / (2 * Math.exp(3 * sigma * sigma))).toBeCloseTo(1, 2);
  });

  it('agrees with a Monte Carlo sample of a volume-based normal + uniform mixture', () => {
    const m: Mixture = { basis: 'volume', types: [
      { shapeId: 'a', size: { law: 'normal', mean: 1, sd: 0.1 }, fraction: 0.4 },
      { shapeId: 'b', size: { law: 'uniform', min: 2, max: 3 }, fraction: 0.6 },
    ] };
    const d = sizeDistribution(m, [SPHERE, SPHERE], 20);
    // sample particles: draw a type by its number share, then a size from its law
    const rnd = new Random(3);
    const count = new Float64Array(20);
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const s = rnd.next() * 100 < d.typeNumberPercent[0] ? 1 + 0.1 * rnd.normal() : rnd.uniform(2, 3);
      let b = 0;
      while (b < 19 && s >= d.edges[b + 1]) b++;
      count[b]++;
    }
    for (let b = 0; b < 20; b++) expect(Math.abs(d.number[b] - (count[b] / n) * 100)).toBeLessThan(0.5);
    // and the volume share of type b is what was asked for
    expect(d.typeVolumePercent[1]).toBeCloseTo(60, 6);
  });

  it('names the field of every invalid value', () => {
    const issues = validateMixture({ basis: 'number', types: [
      { shapeId: '', size: { law: 'uniform', min: 2, max: 1 }, fraction: 1 },
      { shapeId: 'a', size: { law: 'table', sizes: [1, -1], weights: [1] }, fraction: -1 },
    ] });
    const paths = issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['types.0.shapeId', 'types.0.size.max', 'types.1.fraction', 'types.1.size.weights', 'types.1.size.sizes.1']));
    expect(validateMixture({ basis: 'number', types: [] })[0].path).toBe('types');
  });

  it("a fraction typed '1e' (no number yet) is refused at its field only, not also as 'at least one fraction must be > 0'", () => {
    const typing = (fraction: number) => validateMixture({ basis: 'number', types: [{ shapeId: 'a', size: { law: 'fixed', value: 1 }, fraction }, { shapeId: 'b', size: { law: 'fixed', value: 1 }, fraction: 0 }] });
    expect(typing(Number.NaN).map((i) => i.path)).toEqual(['types.0.fraction']);
    // Numbers, all 0: the table's rule still speaks.
    expect(typing(0)).toEqual([{ path: 'types', message: 'at least one fraction must be > 0' }]);
  });
});

describe('the law a switch of size law fills in', () => {
  it('keeps the typical size as it is and rounds the lengths it makes up to 4 significant digits', () => {
    // Uniform around 1: 2/3 and 4/3 of it, which read 0.66666… and 1.3333… in their boxes, cut.
    expect(defaultLaw('uniform', 1)).toEqual({ law: 'uniform', min: 0.6667, max: 1.333 });
    expect(defaultLaw('fixed', 0.157255)).toEqual({ law: 'fixed', value: 0.157255 });
    expect(defaultLaw('lognormal', 0.157255)).toMatchObject({ law: 'lognormal', median: 0.157255 });
    const normal = defaultLaw('normal', 0.157255);
    expect(normal).toMatchObject({ law: 'normal', mean: 0.157255 });
    expect(String((normal as { sd: number }).sd).replace(/^0\.0*/, '').length).toBeLessThanOrEqual(4);
    expect(defaultLaw('table', 0.157255)).toEqual({ law: 'table', sizes: [0.07863, 0.157255, 0.3145], weights: [0.25, 0.5, 0.25] });
  });
});
