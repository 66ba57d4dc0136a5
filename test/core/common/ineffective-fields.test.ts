/**
 * Each engine's warnings (EngineDefinition.warnings): a field the user wrote that the rest of the
 * params make ineffective is named; the same spec without the field, or with the field in effect,
 * gets none. The params are parsed as the services parse them (defaults filled), the warnings read
 * what was written.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../../../core/common/engines';

function warningsOf(engine: string, written: Record<string, unknown>): { path: string; message: string }[] {
  const e = ENGINES.find((x) => x.id === engine)!;
  return e.warnings?.(written, e.paramsSchema.parse(written)) ?? [];
}

/** [engine, the spec with the ineffective field, the same without it, the field in effect, the path warned]. */
const CASES: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, string][] = [
  ['ballmill', { cdo: 'direct', skin: 0.5 }, { cdo: 'direct' }, { cdo: 'hashedGrid', skin: 0.5 }, 'skin'],
  ['ballmill', { vial: { frequency: 0, amplitude: 5 } }, { vial: { frequency: 0 } }, { vial: { frequency: 10, amplitude: 5 } }, 'vial.amplitude'],
  ['ballmill', { vial: { amplitude: 0, frequency: 20 } }, { vial: { amplitude: 0 } }, { vial: { amplitude: 2, frequency: 20 } }, 'vial.frequency'],
  ['ballmill', { restitution: { model: 'constant', value: 1 }, minimumRebound: 5 }, { restitution: { model: 'constant', value: 1 } }, { restitution: { model: 'constant', value: 0.9 }, minimumRebound: 5 }, 'minimumRebound'],
  ['ballmill', { restitution: { model: 'hertz', dissipation: 0 }, minimumRebound: 5 }, { restitution: { model: 'hertz', dissipation: 0 } }, { restitution: { model: 'hertz', dissipation: 1 }, minimumRebound: 5 }, 'minimumRebound'],
  ['ballmill', { balls: { radius: { law: 'fixed', value: 3 }, solidFraction: 0.3 } }, { balls: { radius: { law: 'fixed' }, solidFraction: 0.3 } }, { balls: { radius: { law: 'fixed', value: 3 } } }, 'balls.radius.value'],
  ['ballmill', { restitution: { model: 'hertz', dissipation: 0, wallYoungModulus: 70 } }, { restitution: { model: 'hertz', dissipation: 0 } }, { restitution: { model: 'hertz', dissipation: 2, wallYoungModulus: 70 } }, 'restitution.wallYoungModulus'],
  ['voxel', { analysis: { enabled: false, sizeBins: 40 } }, { analysis: { enabled: false } }, { analysis: { sizeBins: 40 } }, 'analysis.sizeBins'],
  ['voxel', { labelVolume: 'off', analysis: { poreBins: 50 } }, { labelVolume: 'off' }, { labelVolume: 'on', analysis: { poreBins: 50 } }, 'analysis.poreBins'],
  ['voxel', { box: { size: [60, 60, 60], resolution: 10 }, analysis: { poreGridVoxels: 4096 } }, { box: { size: [60, 60, 60], resolution: 10 } }, { box: { size: [50, 50, 50], resolution: 10 }, analysis: { poreGridVoxels: 4096 } }, 'analysis.poreGridVoxels'],
  ['voxel', { optimisations: { shellReduction: false }, reductionThreshold: 2 }, { optimisations: { shellReduction: false } }, { reductionThreshold: 2 }, 'reductionThreshold'],
  // Held 'aligned' with an axis that never turns, every type packs with its whole shell (params.ts packsWithWholeShell).
  ['voxel', { mixture: { types: [{ orientation: 'aligned', maxRotation: [0, 0, 180] }] }, reductionThreshold: 2 }, { mixture: { types: [{ orientation: 'aligned', maxRotation: [0, 0, 180] }] } }, { mixture: { types: [{ orientation: 'aligned', maxRotation: [0, 0, 180] }, { fraction: 0.5 }] }, reductionThreshold: 2 }, 'reductionThreshold'],
  // So does every cuboid, hexagonal plate and cylinder, however it turns.
  ['voxel', { mixture: { types: [{ shape: { kind: 'hexagonalPlate' } }] }, reductionThreshold: 2 }, { mixture: { types: [{ shape: { kind: 'hexagonalPlate' } }] } }, { mixture: { types: [{ shape: { kind: 'hexagonalPlate' } }, { fraction: 0.5 }] }, reductionThreshold: 2 }, 'reductionThreshold'],
  ['voxel', { mixture: { types: [{ maxRotation: [0, 0, 0], rotationStep: 5 }] } }, { mixture: { types: [{ maxRotation: [0, 0, 0] }] } }, { mixture: { types: [{ maxRotation: [0, 0, 10], rotationStep: 5 }] } }, 'mixture.types.0.rotationStep'],
  ['voxel', { matrix: 'id', optimisations: { bricks: false } }, { matrix: 'id' }, { optimisations: { bricks: false } }, 'optimisations.bricks'],
  ['voxel', { optimisations: { fastRounding: false, simdKernels: true } }, { optimisations: { fastRounding: false } }, { optimisations: { simdKernels: true } }, 'optimisations.simdKernels'],
  ['stacking', { dim: 2, region: { shape: 'rectangle', size: [3, 3] }, order: 'front', gradation: { kind: 'classes', classes: [{ radius: 0.1, fraction: 1, af: [0, 0.5] }] } },
    { dim: 2, region: { shape: 'rectangle', size: [3, 3] }, order: 'front', gradation: { kind: 'classes', classes: [{ radius: 0.1, fraction: 1 }] } },
    { dim: 2, region: { shape: 'rectangle', size: [3, 3] }, order: 'seed', gradation: { kind: 'classes', classes: [{ radius: 0.1, fraction: 1, af: [0, 0.5] }] } },
    'gradation.classes.0.af'],
];

describe('warnings of fields with no effect', () => {
  it.each(CASES)('%s: %j warns at its field', (engine, written, without, inEffect, path) => {
    const warnings = warningsOf(engine, written);
    expect(warnings.map((w) => w.path)).toEqual([path]);
    // What makes it ineffective and how to make it take effect.
    expect(warnings[0].message).toMatch(/^has no effect with [^:]+: .+; .+, or leave .+ out$/);
    expect(warningsOf(engine, without)).toEqual([]);
    expect(warningsOf(engine, inEffect)).toEqual([]);
  });

  it('a default spec of every engine warns of nothing, left out or written whole (as the batch form sends it)', () => {
    for (const e of ENGINES) {
      expect(warningsOf(e.id, {}), e.id).toEqual([]);
      expect(warningsOf(e.id, e.paramsSchema.parse({}) as Record<string, unknown>), e.id).toEqual([]);
    }
  });

  it("a switch written false where it does nothing anyway is no surprise (simdKernels false with matrix 'id')", () => {
    expect(warningsOf('voxel', { matrix: 'id', optimisations: { simdKernels: false } })).toEqual([]);
  });

  it("a sieve curve's af with order 'front' is no warning: a sieve needs one written", () => {
    expect(warningsOf('stacking', { dim: 2, region: { shape: 'rectangle', size: [3, 3] }, order: 'front', gradation: { kind: 'sieve', sizes: [0.1, 0.2], passing: [0, 100], af: [[0, 0.5]] } })).toEqual([]);
  });

  it('the kernels name every switch they need that is off', () => {
    const [w] = warningsOf('voxel', { optimisations: { simdKernels: true, trigTables: false, cheapModulus: false } });
    expect(w.message).toMatch(/^has no effect with optimisations\.trigTables, optimisations\.cheapModulus false: /);
  });

  it('the analysis switched off names each option written, not topPercentile (the solid fractions use it)', () => {
    const w = warningsOf('voxel', { analysis: { enabled: false, angleBins: 9, topPercentile: 10, poreBins: 5 } });
    expect(w.map((x) => x.path)).toEqual(['analysis.angleBins', 'analysis.poreBins']);
  });
});
