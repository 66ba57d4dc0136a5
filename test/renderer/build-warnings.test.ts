import { describe, expect, it, vi } from 'vitest';
import type { Rollup } from 'vite';
import { onwarn } from '../../renderer/build-warnings';

const zodUtil = '/repo/node_modules/zod/v4/core/util.js';

function printed(warning: Rollup.RollupLog): boolean {
  const warn = vi.fn();
  onwarn(warning, warn);
  return warn.mock.calls.length === 1 && warn.mock.calls[0][0] === warning;
}

describe("the renderer builds' warning handler", () => {
  it("drops rollup's warning about zod's comments, and prints the same warning from other modules and zod's other warnings", () => {
    expect(printed({ code: 'INVALID_ANNOTATION', id: zodUtil, message: 'A comment ... contains an annotation that Rollup cannot interpret' })).toBe(false);
    expect(printed({ code: 'INVALID_ANNOTATION', id: '/repo/renderer/src/main.ts', message: 'A comment ...' })).toBe(true);
    expect(printed({ code: 'CIRCULAR_DEPENDENCY', id: zodUtil, message: 'Circular dependency' })).toBe(true);
    expect(printed({ code: 'EVAL', message: 'Use of eval' })).toBe(true);
  });
});
