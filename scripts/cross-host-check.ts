/**
 * Does a run reproduce on this host? Runs one tiny case of every engine (test/core/golden-cases.ts)
 * and prints the SHA-256 of each result beside the golden hash the tests hold, with the Node and V8
 * versions. Run it under every Node (and the Electron's V8) the engines run on, e.g. before an upgrade:
 *
 *   node --import tsx scripts/cross-host-check.ts                     # the system Node
 *   /path/to/node-25/bin/node --import tsx scripts/cross-host-check.ts
 *
 * Only core/ is loaded (no better-sqlite3), so any Node binary works. Exit code 1 when a hash differs
 * from the golden one: the same spec and seed would give another result on this host.
 */
import { CASES, GOLDEN } from '../test/core/golden-cases';

let differ = 0;
console.log(`node ${process.versions.node}, V8 ${process.versions.v8}`);
for (const [name, run] of Object.entries(CASES)) {
  const t0 = performance.now();
  const hash = await run();
  const same = GOLDEN[name] === hash;
  if (!same) differ++;
  console.log(`${same ? 'same' : 'DIFF'}  ${hash}  ${((performance.now() - t0) / 1000).toFixed(2)} s  ${name}`);
}
console.log(differ === 0 ? 'every result matches its golden hash' : `${differ} of ${Object.keys(CASES).length} results differ from their golden hashes`);
process.exitCode = differ === 0 ? 0 : 1;
