import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES } from '../../../core/common/engines';
import { UNITS } from '../../../core/common/units';
import { sphereAnalysisOptionsSchema } from '../../../core/analysis/spheres';
import { rawHeaderSchema } from '../../../core/io/raw';

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
});
