/**
 * Overheads of the foundation around an engine: the per-run cost of the queue + worker pool (worker
 * start from TypeScript sources, result write-back), and the WebSocket codec on the result a
 * renderer asks for most (a 200,000-row particle table), against JSON as the alternative.
 * Most of the per-run cost is starting a worker thread and loading zod and the engine in it.
 * `npm run bench -- services [runs]` (default 10 trivial runs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../main/services/services';
import { decodeMessage, encodeMessage } from '../main/wire';
import { fixtureRegistry } from '../test/main/fixtures/registry';
import { printTable, timed, writeResults, type Row } from './_harness';

// ---------------------------------------------------------------- per-run overhead
const RUNS = Number(process.argv[2] ?? 10);
// The test fixture engine in a real worker: its default run is 10 steps of 2 ms.
const dir = mkdtempSync(join(tmpdir(), 'packbench-bench-services-'));
const s = openServices({ dataDir: dir, registry: fixtureRegistry(), concurrency: 1 });
const ids: string[] = [];
for (let i = 0; i < RUNS; i++) ids.push(...(await s.queue.enqueue({ engine: 'counter', name: `x${i}`, seed: i, params: {} })).runIds);
const t0 = performance.now();
s.queue.start();
await s.queue.waitFor(ids);
const wall = (performance.now() - t0) / 1000;
const runSeconds = ids.map((id) => s.store.getRun(id)!.wallSeconds ?? 0);
await s.close();
rmSync(dir, { recursive: true, force: true });
const engineSeconds = 10 * 0.002;
const overhead: Row[] = [
  {
    what: `${RUNS} runs of the fixture engine, one at a time`,
    'wall s': wall,
    'per run s': wall / RUNS,
    'worker-measured s': runSeconds.reduce((a, b) => a + b, 0) / RUNS,
    'engine s': engineSeconds,
  },
];
printTable('Queue + worker pool overhead per run (from sources: the worker entry is bundled once with esbuild)', overhead);

// ---------------------------------------------------------------- codec
const N = 200_000;
const columns = {
  id: Uint32Array.from({ length: N }, (_, i) => i),
  type: new Uint16Array(N),
  x: Float64Array.from({ length: N }, (_, i) => Math.sin(i)),
  y: Float64Array.from({ length: N }, (_, i) => Math.cos(i)),
  z: Float64Array.from({ length: N }, (_, i) => i / N),
  rx: new Int16Array(N),
  ry: new Int16Array(N),
  rz: new Int16Array(N),
  size: new Float64Array(N).fill(1),
  voxels: new Uint32Array(N).fill(4000),
};
const message = { t: 'result', id: 1, result: { total: N, count: N, columns, meta: { box: [10, 10, 10] } } };
const REPEAT = 5;
let frame = encodeMessage(message);
const enc = timed(() => {
  for (let i = 0; i < REPEAT; i++) frame = encodeMessage(message);
});
const dec = timed(() => {
  for (let i = 0; i < REPEAT; i++) decodeMessage(frame);
});
const asJson = () => JSON.stringify({ ...message, result: { ...message.result, columns: Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, Array.from(v)])) } });
let text = asJson();
const jenc = timed(() => {
  for (let i = 0; i < REPEAT; i++) text = asJson();
});
const jdec = timed(() => {
  for (let i = 0; i < REPEAT; i++) JSON.parse(text);
});
const codec: Row[] = [
  { codec: 'PackBench binary frame (main/wire.ts)', 'MB': frame.byteLength / 1e6, 'encode ms': (enc.seconds * 1000) / REPEAT, 'decode ms': (dec.seconds * 1000) / REPEAT },
  { codec: 'JSON with plain arrays', 'MB': text.length / 1e6, 'encode ms': (jenc.seconds * 1000) / REPEAT, 'decode ms': (jdec.seconds * 1000) / REPEAT },
];
printTable(`WebSocket codec: a ${N}-row, 10-column particle table (mean of ${REPEAT})`, codec);
console.log(`results: ${writeResults('services', { overhead, codec }, { runs: RUNS, rows: N })}`);
