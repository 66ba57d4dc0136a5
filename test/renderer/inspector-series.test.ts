import { describe, expect, it } from 'vitest';
import { plotGroups } from '../../renderer/src/workspaces/inspector/seriesOrder';

const s = (name: string, kind: 'line' | 'bar' = 'line', xLabel = 'size', yLabel = '% finer') => ({ name, xLabel, yLabel, kind, x: Float64Array.of(1, 2), y: Float64Array.of(0, 100) });

describe('inspector plots', () => {
  it("draws '<name> asked' and '<name> achieved' in one plot titled <name>, asked first; everything else alone", () => {
    const groups = plotGroups([
      s('particles against time', 'line', 'time (s)', 'particles'),
      s('sieve curve achieved'),
      s('sieve curve asked'),
      s('coordination number', 'bar', 'contacts', 'fraction'),
      s('class volume fraction asked', 'bar', 'diameter', 'share'),
      s('class volume fraction achieved', 'bar', 'diameter', 'share'),
    ]);
    expect(groups.map((g) => [g.title, g.series.map((x) => x.name)])).toEqual([
      ['sieve curve', ['asked', 'achieved']],
      ['class volume fraction', ['asked', 'achieved']],
      ['coordination number', ['coordination number']],
      ['particles against time', ['particles against time']],
    ]);
    expect(groups[1].kind).toBe('bar');
  });

  it('keeps a pair apart when its axes differ, and a lone asked series under its own name', () => {
    const groups = plotGroups([s('curve asked'), s('curve achieved', 'line', 'other x'), s('target asked')]);
    expect(groups.map((g) => [g.title, g.series.map((x) => x.name)])).toEqual([
      ['curve asked', ['curve asked']],
      ['curve achieved', ['curve achieved']],
      ['target asked', ['target asked']],
    ]);
  });
});
