#!/usr/bin/env node
// `npm run bench -- <name> [args]`: runs bench/<name>.ts; without a name, lists the benchmarks.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { register } from 'tsx/esm/api';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench');
const names = readdirSync(benchDir)
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  // A misspelt name printed the usage alone: said, so that it does not read as the listing.
  const unknown = name ? `unknown benchmark '${name}'\n` : '';
  console.error(`${unknown}usage: npm run bench -- <name> [options] (README.md, "Benchmarks": what each measures, its options and how long it takes)\nbenchmarks: ${names.join(', ') || '(none yet)'}`);
  process.exit(name ? 2 : 0);
}
register();
process.argv.splice(2, 1);
await import(pathToFileURL(join(benchDir, `${name}.ts`)).href);
