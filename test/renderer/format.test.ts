import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../renderer/src/components/format';
import { lineParts } from '../../renderer/src/workspaces/history/metricInfo';

describe('formatNumber', () => {
  it('groups the thousands of a measured rate as of the counts beside it', () => {
    // A ball mill's eventsPerSecond read '59200' and '1235000' under collisionChecks '3,442' and boxExits '1,230,579'.
    expect([formatNumber(59200.37), formatNumber(1234567.8), formatNumber(3442), formatNumber(1230579)]).toEqual(['59,200', '1,235,000', '3,442', '1,230,579']);
    // Small values keep their four significant digits; very small and very large ones go exponential.
    expect([formatNumber(0.04417), formatNumber(999.96), formatNumber(-1234.5), formatNumber(2.418e-15), formatNumber(15000000.5)]).toEqual(['0.04417', '1000', '-1,235', '2.418e-15', '1.500e+7']);
  });
});

describe('lineParts', () => {
  it('breaks a name before its capitals, after its equals signs and commas and the dots of a path, nowhere else', () => {
    // A compare column broke the swept field 'reboundProbability' as 'reboundProbabilit' | 'y'.
    expect(lineParts('packedInterpenetrationFraction')).toEqual(['packed', 'Interpenetration', 'Fraction']);
    expect(lineParts('balls.radius.max')).toEqual(['balls.', 'radius.', 'max']);
    expect(lineParts('[reboundProbability=0.5]')).toEqual(['[rebound', 'Probability=', '0.5]']);
    expect(lineParts('[seed=1,size=2]')).toEqual(['[seed=', '1,', 'size=', '2]']);
    expect(lineParts('[radius=0.25]')).toEqual(['[radius=', '0.25]']);
    expect(lineParts('run 29')).toEqual(['run 29']);
  });
});
