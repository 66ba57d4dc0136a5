/**
 * Shared by every benchmark: print a table to stdout and write the same rows as JSON to
 * bench/results/<name>.json, with the machine it ran on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Row = Record<string, string | number | boolean | null>;

export function formatTable(title: string, rows: Row[]): string {
  if (rows.length === 0) return `${title}\n(no rows)\n`;
  const cols = Object.keys(rows[0]);
  const cell = (v: Row[string]) =>
    typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : String(v ?? '');
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => '| ' + vals.map((v, i) => v.padEnd(widths[i])).join(' | ') + ' |';
  return [
    title,
    line(cols),
    '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|',
    ...rows.map((r) => line(cols.map((c) => cell(r[c])))),
  ].join('\n') + '\n';
}

export function printTable(title: string, rows: Row[]): void {
  process.stdout.write('\n' + formatTable(title, rows));
}

/** The tables a benchmark prints, kept under their titles for writeResults. */
export function tableRecorder(): { tables: Record<string, Row[]>; table: (title: string, rows: Row[]) => void } {
  const tables: Record<string, Row[]> = {};
  const table = (title: string, rows: Row[]): void => {
    tables[title] = rows;
    printTable(title, rows);
  };
  return { tables, table };
}

/** Writes bench/results/<name>.json: { name, date, machine, tables: { title: rows } }. */
export function writeResults(name: string, tables: Record<string, Row[]>, extra: Record<string, unknown> = {}): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryBytes: totalmem(), node: process.version };
  writeFileSync(file, JSON.stringify({ name, date: new Date().toISOString(), machine, ...extra, tables }, null, 2));
  return file;
}

/**
 * Wall-clock seconds of fn, with its return value, and the process's CPU seconds meanwhile (user +
 * system, worker threads included): on a shared machine the wall time grows with the load, the CPU
 * time much less.
 */
export function timed<T>(fn: () => T): { value: T; seconds: number; cpuSeconds: number } {
  const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
  const value = fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9, cpu = process.cpuUsage(c0);
  return { value, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/**
 * `--only a,b` of a bench whose parts are `parts`: which parts to run (all without --only). A part
 * not in the list is refused, naming the allowed ones: a typo ran nothing, printed nothing and
 * overwrote the results file with no tables.
 */
export function onlyParts(args: readonly string[], parts: readonly string[]): (part: string) => boolean {
  const at = args.indexOf('--only');
  if (at < 0) return () => true;
  const list = (args[at + 1] ?? '').split(',');
  const unknown = list.filter((p) => !parts.includes(p));
  if (unknown.length) throw new RangeError(`--only: unknown part ${unknown.map((p) => `'${p}'`).join(', ')}; allowed: ${parts.join(', ')} (comma-separated)`);
  const only = new Set(list);
  return (part) => only.has(part);
}
