import { describe, expect, it } from 'vitest';
import { onlyParts } from '../../bench/_harness';

describe('bench --only', () => {
  const parts = ['table3', 'densest', 'grid'];

  it('runs every part without --only, and only the listed ones with it', () => {
    const all = onlyParts(['--quick'], parts);
    expect(parts.every(all)).toBe(true);
    const some = onlyParts(['--only', 'grid,table3', '--quick'], parts);
    expect(parts.filter(some)).toEqual(['table3', 'grid']);
  });

  it('refuses a part it does not have, naming the allowed ones (a typo ran nothing and wrote an empty results file)', () => {
    expect(() => onlyParts(['--only', 'tabel3'], parts)).toThrow("--only: unknown part 'tabel3'; allowed: table3, densest, grid");
    expect(() => onlyParts(['--only', 'grid,x'], parts)).toThrow("unknown part 'x'");
    expect(() => onlyParts(['--only'], parts)).toThrow("unknown part ''");
  });
});
