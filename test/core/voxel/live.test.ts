import { describe, expect, it } from 'vitest';
import { Packer, finalise, voxelParamsSchema } from '../../../core/voxel/index';
import { LiveSeries, liveTable } from '../../../core/voxel/live';

describe('the live view of a running voxel packing', () => {
  it('publishes the particles where the final table puts them, with its series in meta.series', () => {
    const params = voxelParamsSchema.parse({ box: { size: [4, 4, 4], resolution: 12 }, stop: { particles: 40, settle: false }, analysis: { enabled: false } });
    const packer = new Packer(params, 3);
    while (packer.step()) { /* pack */ }
    const series = new LiveSeries();
    series.add(0.5, packer.frozenBedHeight() / 12, packer.solidVoxels / packer.matrix.nx / packer.matrix.ny / packer.matrix.nz);
    const live = liveTable(packer, series);
    const final = finalise(packer, true).table;
    // Every particle's centre is inside this box, so the final table holds them all, in order.
    expect(final.columns.id.length).toBe(packer.count);
    for (const c of ['type', 'x', 'y', 'z', 'rx', 'ry', 'rz', 'size']) expect(Array.from(live.columns[c]), c).toEqual(Array.from(final.columns[c]));
    expect(live.meta).toMatchObject({ box: [4, 4, 4], types: final.meta!.types, step: packer.counters.steps });
    expect(live.meta!.series).toEqual(series.toMeta());
    expect(series.toMeta()[0]).toMatchObject({ name: 'bed height (live)', x: [0.5] });
  });

  it('keeps at most 2000 points of a series by dropping every second one, the first kept', () => {
    const s = new LiveSeries();
    for (let i = 0; i <= 2000; i++) s.add(i, i / 10, i / 2001);
    const [height, fraction] = s.toMeta();
    expect(height.x.length).toBe(1001);
    expect(height.x.slice(0, 3)).toEqual([0, 2, 4]);
    expect(height.y[500]).toBe(100);
    expect(fraction.x).toEqual(height.x);
  });
});
