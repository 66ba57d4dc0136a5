/**
 * Every run status has its own colour in both themes (issue 4: finished runs were drawn in the
 * neutral grey of "no status"), and a dot rule in base.css that uses it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_STATUSES } from '../../main/api';

// happy-dom gives import.meta.url an http: scheme, so the styles are found from the repository root.
const STYLES = join(process.cwd(), 'renderer', 'src', 'styles');
const theme = readFileSync(join(STYLES, 'theme.css'), 'utf8');
const base = readFileSync(join(STYLES, 'base.css'), 'utf8');

function block(selector: string): string {
  const start = theme.indexOf(`${selector} {`);
  expect(start, `${selector} block in theme.css`).toBeGreaterThanOrEqual(0);
  return theme.slice(start, theme.indexOf('\n}', start));
}

describe('run status colours', () => {
  for (const [name, selector] of [['light', ':root'], ['dark', ":root[data-theme='dark']"]] as const) {
    it(`gives each status a distinct colour in the ${name} theme`, () => {
      const css = block(selector);
      const colours = RUN_STATUSES.map((s) => {
        const m = new RegExp(`--st-${s}:\\s*(#[0-9a-f]{6})`, 'i').exec(css);
        expect(m, `--st-${s} in the ${name} theme`).not.toBeNull();
        return m![1].toLowerCase();
      });
      expect(new Set(colours).size).toBe(RUN_STATUSES.length);
    });
  }

  it('draws each status dot with its colour', () => {
    for (const s of RUN_STATUSES) expect(base).toMatch(new RegExp(`\\.status-dot\\.${s} \\{[^}]*var\\(--st-${s}\\)`));
  });
});
