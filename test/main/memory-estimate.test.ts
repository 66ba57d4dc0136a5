import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { voxelEngine } from '../../core/voxel';
import { openServices } from '../../main/services/services';
import { defaultRegistry } from '../../main/services/engines';
import { formatBytes } from '../../main/services/pool';
import { afterEachTest, cliIn } from './helpers';

const { later, dir } = afterEachTest();

const params = (size: number) => ({ box: { size: [size, size, size], resolution: 20 }, labelVolume: 'off' });

describe('the memory a run needs, before it runs', () => {
  it('runs.validate gives the largest run\'s estimate of a sweep and the budget', async () => {
    const s = openServices({ dataDir: dir('packbench-memory-'), registry: defaultRegistry(), autoStart: false, memoryBudgetBytes: 2 ** 30 });
    later(() => s.close());
    const sweep = { engine: 'voxel', name: 'm', seed: 1, params: { ...params(4), box: { size: { $sweep: [[4, 4, 4], [6, 6, 6]] }, resolution: 20 } } };
    const v = await s.dispatch('runs.validate', { spec: sweep });
    const largest = voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(6)));
    expect(v).toEqual({ runs: 2, memoryBytes: largest, memoryBudgetBytes: 2 ** 30 });
    expect(largest).toBeGreaterThan(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))));
  });

  it('`queue add` prints the estimate against the budget; a run that cannot fit is refused there', async () => {
    const data = dir('packbench-memory-');
    const spec = (size: number) => {
      const file = join(data, `spec-${size}.json`);
      writeFileSync(file, JSON.stringify({ engine: 'voxel', name: 'm', seed: 1, params: params(size) }));
      return file;
    };
    const small = await cliIn(data, 'queue', 'add', spec(4));
    expect(small.code).toBe(0);
    const bytes = formatBytes(voxelEngine.estimateMemoryBytes(voxelEngine.paramsSchema.parse(params(4))));
    expect(small.stderr).toMatch(new RegExp(`^memory: about ${bytes} \\(budget \\d+(\\.\\d)? GiB\\)$`, 'm'));
    const json = JSON.parse((await cliIn(data, '--json', 'queue', 'add', spec(4))).stdout);
    expect(json.memoryBytes).toBeGreaterThan(0);
    const huge = await cliIn(data, 'queue', 'add', spec(400));
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/params: the run needs about [\d.]+ GiB, more than the memory budget/);
    expect(huge.stderr).not.toMatch(/^memory:/m);
  });
});
