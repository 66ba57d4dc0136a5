/**
 * What a newcomer reads before typing: every command's --help, and README.md's command lines. A
 * value a help text does not bound was refused only once typed, and a README line naming an option
 * or a script that does not exist failed on the first try.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SPHERE_IMPORT_ENGINE } from '../../main/api';
import { exportFormatList } from '../../main/services/exports';
import { ENGINES } from '../../core/common/engines';
import { cliIn, tempDir } from './helpers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');
const t = tempDir('packbench-help-');
afterAll(() => t.cleanup());

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

async function helpOf(path: string[]): Promise<string> {
  const r = await cliIn(t.dir, ...path, '--help');
  expect(r.code, path.join(' ')).toBe(0);
  return r.stdout;
}

/** The lines of a help's section ('Options:', 'Commands:'), up to the next blank line. */
function section(help: string, heading: string): string[] {
  const lines = help.split('\n');
  const at = lines.indexOf(heading);
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && l.trim() === '');
  return lines.slice(at + 1, end < 0 ? undefined : end);
}

/** Each item of a section as one line: an item starts at two spaces of indent, its wrapped lines are deeper. */
function items(lines: string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (/^ {2}\S/.test(l)) out.push(l);
    else out[out.length - 1] += ' ' + l;
  }
  return out.map(collapse);
}

/** Every command path with its help, the root's first. */
async function everyCommand(): Promise<{ path: string[]; help: string }[]> {
  const found: { path: string[]; help: string }[] = [];
  const walk = async (path: string[]) => {
    const help = await helpOf(path);
    found.push({ path, help });
    for (const item of items(section(help, 'Commands:'))) {
      const name = item.split(' ')[0];
      if (name !== 'help') await walk([...path, name]);
    }
  };
  await walk([]);
  return found;
}

describe('the help texts', () => {
  it("state the range of every numeric option, as its refusal states it", async () => {
    const checked: string[] = [];
    for (const { path, help } of await everyCommand()) {
      if (path.length === 0) continue; // --data and --json take a folder and nothing
      for (const item of items(section(help, 'Options:'))) {
        const flag = /^(?:-\w, )?(--[\w-]+) </.exec(item)?.[1];
        if (!flag) continue;
        // No arguments: a command that needs one stops at commander's 'missing argument' after the
        // option's parser; one that needs none (runs list --text x) runs on the empty temp folder.
        const r = await cliIn(t.dir, ...path, flag, 'x');
        const range = /must be (an integer in \[[^\]]+\]|a number > 0)/.exec(r.stderr)?.[1];
        if (!range) continue;
        expect(r.code).toBe(2);
        expect(item, `${path.join(' ')} ${flag}`).toContain(range);
        checked.push(`${path.join(' ')} ${flag}`);
      }
    }
    // run and queue run: --threads, --concurrency, --checkpoint-seconds; then --priority, --limit, --seed, --resolution, --voxels-across, --port.
    expect(checked.length).toBe(12);
  });

  it('runs list --help names the engines --engine takes', async () => {
    const engine = items(section(await helpOf(['runs', 'list']), 'Options:')).find((i) => i.startsWith('--engine'));
    for (const id of [...ENGINES.map((e) => e.id), SPHERE_IMPORT_ENGINE]) expect(engine).toContain(id);
  });

  it('runs export --help says what each format writes and which runs have what it needs', async () => {
    const help = collapse(await helpOf(['runs', 'export']));
    for (const f of exportFormatList()) {
      expect(help, f.id).toContain(collapse(`${f.id} ${f.label}`));
      expect(help, f.id).toContain(collapse(`For ${f.appliesTo}:`));
    }
  });
});

describe("README.md's command lines", () => {
  const block = /## Command line[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const lines = block.split('\n').filter((l) => l.startsWith('packbench '));

  it('name commands and options that exist', async () => {
    expect(lines.length).toBeGreaterThan(20);
    const helps = new Map((await everyCommand()).map(({ path, help }) => [path.join(' '), help]));
    const globals = ['--data', '--json'];
    for (const line of lines) {
      const words = line.replace(/#.*/, '').trim().split(/\s+/).slice(1);
      // The command is the longest run of words that is one; the rest are its arguments and options.
      const plain = words.filter((w) => !globals.includes(w));
      let path: string[] = [];
      for (let n = 1; n <= plain.length; n++) if (helps.has(plain.slice(0, n).join(' '))) path = plain.slice(0, n);
      expect(path.length, line).toBeGreaterThan(0);
      const options = items(section(helps.get(path.join(' '))!, 'Options:')).map((i) => /^(?:-\w, )?(--[\w-]+)/.exec(i)?.[1]);
      for (const w of words.filter((x) => x.startsWith('--'))) {
        expect([...globals, ...options], `${line}: ${w}`).toContain(w);
      }
    }
  });

  it('run npm scripts and benchmarks that exist', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).scripts);
    const named = [...readme.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]);
    expect(named).toContain('serve');
    for (const s of named) expect(scripts, `npm run ${s}`).toContain(s);

    // The table of benchmarks: a row per file of bench/ (but the shared _harness and _memory).
    const benches = readdirSync(`${root}bench`).filter((f) => f.endsWith('.ts') && !f.startsWith('_')).map((f) => f.slice(0, -3));
    const table = /## Benchmarks[\s\S]*?\n\| name[^\n]*\n\|[^\n]*\n((?:\|[^\n]*\n)+)/.exec(readme)?.[1] ?? '';
    const rows = table.split('\n').filter(Boolean).flatMap((row) => [...row.split('|')[1].matchAll(/`([\w-]+)`/g)].map((m) => m[1]));
    expect(rows.sort()).toEqual(benches.sort());
  });
});

describe('npm run bench', () => {
  const bench = (...args: string[]) => spawnSync(process.execPath, [`${root}bin/bench.mjs`, ...args], { encoding: 'utf8', timeout: 60_000 });

  it('lists the benchmarks, and names a misspelt one as unknown (it printed the usage alone)', () => {
    const list = bench();
    expect(list.status).toBe(0);
    expect(list.stderr).toMatch(/^usage: npm run bench -- <name> \[options\] .*\nbenchmarks: analysis, .*stacking, /);
    const typo = bench('stackng');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/^unknown benchmark 'stackng'\nusage: /);
  });
});
