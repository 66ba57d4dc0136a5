/**
 * The bad-input corpus (test/fixtures/bad-input/, described in its cases.json): malformed specs,
 * sphere CSVs, meshes and raw volumes, each through the CLI command a user would give it, in this
 * process. Every case must exit with its code (2: bad input), say what is wrong in a message that
 * names the field, line or option (no stack trace), and leave nothing stored: no run, batch,
 * shape or run folder.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_SHAPES } from '../../main/services/shapes';
import { openServices } from '../../main/services/services';
import { RunStore } from '../../main/services/store';
import { cliIn, tempDir } from './helpers';

interface Case {
  file: string;
  command: 'run' | 'queue add' | 'import spheres' | 'import shape';
  args?: string[];
  exit: number;
  /** Each must appear in the message. */
  names: string[];
  why: string;
}

const corpus = fileURLToPath(new URL('../fixtures/bad-input/', import.meta.url));
const cases = JSON.parse(readFileSync(join(corpus, 'cases.json'), 'utf8')) as Case[];
const t = tempDir('packbench-bad-input-');
let store: RunStore;

beforeAll(async () => {
  await openServices({ dataDir: t.dir }).close(); // the folder as a first start leaves it
  store = new RunStore(join(t.dir, 'packbench.db'));
});
// A case that stored something has failed; clear it so that the next case is judged on its own.
afterEach(() => {
  store.db.exec("DELETE FROM runs; DELETE FROM batches; DELETE FROM shapes WHERE builtin = 0");
  for (const d of readdirSync(join(t.dir, 'runs'))) rmSync(join(t.dir, 'runs', d), { recursive: true, force: true });
});
afterAll(() => {
  store?.close();
  t.cleanup();
});

describe('bad-input corpus', () => {
  it('has at least 100 cases, with specs, sphere CSVs, meshes and raw volumes', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    const kinds = new Set(cases.map((c) => c.file.split('/')[0]));
    expect([...kinds].sort()).toEqual(['csv', 'mesh', 'raw', 'specs']);
  });

  it.each(cases.map((c) => [`${c.command} ${c.file}${c.args ? ' ' + c.args.join(' ') : ''} (${c.why})`, c] as const))('%s', async (_, c) => {
    const r = await cliIn(t.dir, ...c.command.split(' '), join(corpus, c.file), ...(c.args ?? []));
    expect(r.code, r.stderr).toBe(c.exit);
    for (const name of c.names) expect(r.stderr).toContain(name);
    expect(r.stderr).toMatch(/^packbench: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    // Nothing stored.
    expect(store.db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(0);
    expect(store.db.prepare('SELECT count(*) FROM batches').pluck().get()).toBe(0);
    expect(store.listShapes().map((s) => s.id).sort()).toEqual(BUILTIN_SHAPES.map((s) => s.id).sort());
    expect(readdirSync(join(t.dir, 'runs')).filter((name) => name !== '.removing')).toEqual([]);
  });
});
