import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES } from '../../../core/common/engines';
import { UNITS } from '../../../core/common/units';
import { sphereAnalysisOptionsSchema } from '../../../core/analysis/spheres';
import { analyseSpheres, analyseVoxelPacking } from '../../../core/analysis/index';
import { rawHeaderSchema } from '../../../core/io/raw';
import { randomPacking } from '../../../core/spatial/index';
import { stackingEngine } from '../../../core/stacking/index';
import type { EngineContext, EngineSeries } from '../../../core/common/engine';

/** Every `unit` in a JSON schema (the form reads them there). */
function schemaUnits(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => schemaUnits(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'unit' && typeof v === 'string') out.add(v);
      else schemaUnits(v, out);
    }
  }
  return out;
}

describe('units', () => {
  const units = (schema: z.ZodType) => [...schemaUnits(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), new Set())];
  const byEngine = Object.fromEntries(
    ENGINES.map((e) => [e.id, [...units(e.paramsSchema), ...Object.values(e.metrics ?? {}).map((m) => m.unit ?? ''), ...e.particleTable.quantities.map((q) => q.unit ?? '')].filter(Boolean)]),
  );

  it('names one quantity one way across engines: no other spelling of a length, area, volume, resolution, time or angle', () => {
    const synonyms = ['unit', 'units', 'length', 'length unit', 'length²', 'length³', 'ln unit', 'voxels/unit', 'deg', 'degrees', 'time', '1/time', 'seconds', 'millimetre'];
    const all = [...Object.values(byEngine).flat(), ...units(sphereAnalysisOptionsSchema), ...units(rawHeaderSchema)];
    expect(all.filter((u) => synonyms.some((s) => u === s || u.startsWith(`${s} (`)))).toEqual([]);
  });

  it('gives lengths without a physical scale in length units (the voxel, stacking and surface engines) and the ball mill\'s in mm', () => {
    for (const id of ['voxel', 'stacking', 'surface']) expect(byEngine[id], id).toContain(UNITS.length);
    expect(byEngine.ballmill).toContain('mm');
    expect(byEngine.ballmill).not.toContain(UNITS.length);
  });

  it('labels the axes of series in length units too, as the metrics beside them (not "length")', async () => {
    const p = randomPacking({ dim: 3, n: 60, solidFraction: 0.3, radiusRatio: 2, seed: 3 });
    const spheres = analyseSpheres({ kind: 'table', name: 'spheres', columns: { x: p.x, y: p.y, z: p.z, r: p.r } }, [p.box, p.box, p.box], { poreGridVoxels: 5000, heightMapCells: 16 });
    const dims: [number, number, number] = [8, 8, 8];
    const labels = Uint32Array.from({ length: 512 }, (_, i) => (i < 256 ? 1 + (i % 2) : 0));
    const voxels = analyseVoxelPacking({ kind: 'volume', name: 'labels', dims, voxelSize: 0.25, labels, meta: {} }, { kind: 'table', name: 'particles', columns: { x: new Float64Array(2) } });
    const ctx: EngineContext = { seed: 1, threads: 1, progress() {}, cancelled: () => false, log() {} };
    const stacking = await stackingEngine.run(stackingEngine.paramsSchema.parse({
      dim: 2, region: { shape: 'rectangle', size: [2, 2] }, target: { kind: 'voidRatio', e: 0.4 },
      gradation: { kind: 'classes', rang: 0.05, classes: [{ radius: 0.2, fraction: 1 }, { radius: 0.1, fraction: 1 }] },
    }), ctx);
    const axes = (series: EngineSeries[]) => series.flatMap((s) => [s.xLabel, s.yLabel]);
    const all = [...axes(spheres.series), ...axes(voxels.series), ...axes(stacking.series)];
    expect(all.filter((l) => /\((length|units?|length unit)\)/.test(l))).toEqual([]);
    for (const label of ['z', 'r', 'equivalent diameter', 'local thickness', 'class mean diameter', 'size, diameter']) {
      expect(all, label).toContain(`${label} (${UNITS.length})`);
    }
  });
});

