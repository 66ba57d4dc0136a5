import { describe, expect, it } from 'vitest';
import { CASES, GOLDEN } from './golden-cases';

// A tiny run of every engine against the SHA-256 of its result, committed when it was the same on
// Node 20, 24 and 25 (scripts/cross-host-check.ts runs the same cases under any Node binary).
describe('golden results', () => {
  it.each(Object.keys(CASES))('%s', async (name) => {
    const hash = await CASES[name]();
    expect(hash, `${name}: results changed: if on purpose, update the hash in test/core/golden-cases.ts; ` +
      'if after a Node/Electron upgrade, the engines are not reproducible across hosts (core/README.md)').toBe(GOLDEN[name]);
  });
});
