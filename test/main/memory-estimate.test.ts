import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { voxelEngine } from '../../core/voxel';
import { openServices, type Services } from '../../main/services/services';
import { defaultRegistry } from '../../main/services/engines';
import { formatBytes } from '../../main/services/pool';
import { cliIn, tempDir } from './helpers';

let s: Services | null = null;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await s?.close();
  s = null;
  for (const c of cleanups.splice(0)) c();
});

const params = (size: number) => ({ box: { size: [size, size, size], resolution: 20 }, labelVolume: 'off' });

describe('the memory a run needs, before it runs', () => {
  it('runs.validate gives the largest run\'s estimate of a sweep and the budget', async () => {
    const t = tempDir('packbench-memory-');
    cleanups.push(t.cleanup);
    s = openServices({ dataDir: t.dir, registry: defaultRegistry(), autoStart: false, memoryBudgetBytes: 2 ** 30 });
    const sweep = { engine: 'voxel', name: 'm', seed: 1, params: { ...params(4), box: { size: { $sweep: [[4, 4, 4], [6, 6, 6]] }, resolution: 20 } } };
    const v = await s.dispatch('runs.validate', { spec: sweep });
    const largest = voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(6)));
    expect(v).toEqual({ runs: 2, memoryBytes: largest, memoryBudgetBytes: 2 ** 30 });
    expect(largest).toBeGreaterThan(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))));
  });

  it('`queue add` prints the estimate against the budget; a run that cannot fit is refused there', async () => {
    const t = tempDir('packbench-memory-');
    cleanups.push(t.cleanup);
    const spec = (size: number) => {
      const file = join(t.dir, `spec-${size}.json`);
      writeFileSync(file, JSON.stringify({ engine: 'voxel', name: 'm', seed: 1, params: params(size) }));
      return file;
    };
    const small = await cliIn(t.dir, 'queue', 'add', spec(4));
    expect(small.code).toBe(0);
    const bytes = formatBytes(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))));
    expect(small.stderr).toMatch(new RegExp(`^memory: about ${bytes} \\(budget \\d+(\\.\\d)? GiB\\)$`, 'm'));
    const json = JSON.parse((await cliIn(t.dir, '--json', 'queue', 'add', spec(4))).stdout);
    expect(json.memoryBytes).toBeGreaterThan(0);
    const huge = await cliIn(t.dir, 'queue', 'add', spec(400));
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/params: the run needs about [\d.]+ GiB, more than the memory budget/);
    expect(huge.stderr).not.toMatch(/^memory:/m);
  });
});
