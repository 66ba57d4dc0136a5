/**
 * One tiny case of every engine (and of core's analyses and random packing), each reduced to a
 * SHA-256 of its result: what test/core/golden.test.ts compares with committed hashes, and what
 * scripts/cross-host-check.ts prints under another Node (or Electron's V8) to show that a run
 * reproduces on every host. Wall-clock metrics and series are left out; everything else an engine
 * returns (metrics, series, tables, label volumes, their meta) is hashed bit for bit.
 */
import { createHash } from 'node:crypto';
import type { EngineContext, EngineDefinition, EngineResult } from '../../core/common/engine';
import { voxelEngine, voxelParamsSchema } from '../../core/voxel/index';
import { stackingEngine, stackingParamsSchema } from '../../core/stacking/index';
import { ballmillEngine, ballmillParamsSchema } from '../../core/ballmill/index';
import { surfaceEngine, surfaceParamsSchema } from '../../core/surface/index';
import { analyseSpheres } from '../../core/analysis/index';
import { randomPacking } from '../../core/spatial/index';

/** Series whose x is wall time (differs run to run). */
const WALL_CLOCK_SERIES = new Set(['particles against time']);

/** Metrics that measure wall time (wallSeconds, eventsPerSecond, nsPerVoxelCheck, ...), by what the engine says they are. */
function isWallClock(engine: EngineDefinition | null, metric: string): boolean {
  const info = engine?.metrics?.[metric];
  return info !== undefined && /wall (time|second)|per second of|time per/.test(info.description);
}

/** Arrays as their bytes (a hash of the exact bits), the rest as JSON with sorted keys. */
function canonical(value: unknown): string {
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}:${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return typeof value === 'number' && Object.is(value, -0) ? '-0' : JSON.stringify(value) ?? 'undefined';
}

export function resultHash(result: Omit<EngineResult, 'cancelled'>, engine: EngineDefinition | null): string {
  const metrics = Object.fromEntries(Object.entries(result.metrics).filter(([k]) => !isWallClock(engine, k)));
  const series = result.series.filter((s) => !WALL_CLOCK_SERIES.has(s.name));
  return createHash('sha256').update(canonical({ metrics, series, artifacts: result.artifacts })).digest('hex');
}

const ctx = (seed: number): EngineContext => ({ seed, threads: 1, progress() {}, cancelled: () => false, log() {} });

async function runEngine(engine: EngineDefinition, params: unknown, seed = 1): Promise<EngineResult> {
  return engine.run(engine.paramsSchema.parse(params), ctx(seed));
}

const group = (radii: number[]) => ({
  kind: 'classes' as const,
  rang: 0.05,
  classes: radii.map((radius, i) => ({ radius, fraction: 1, af: i < 2 ? [0.5, 1] : [0, 0.3] })),
});

/** name → the case's result hash. Each case runs in well under a second. */
export const CASES: Record<string, () => Promise<string>> = {
  'voxel spheres, plates and superellipsoids with analysis': async () => resultHash(await runEngine(voxelEngine, voxelParamsSchema.parse({
    box: { size: [3, 3, 4], resolution: 16 },
    mixture: {
      basis: 'volume',
      types: [
        { name: 'spheres', shape: { kind: 'sphere' }, size: { law: 'uniform', min: 0.6, max: 1 }, fraction: 1 },
        { name: 'plates', shape: { kind: 'hexagonalPlate', thickness: 0.4 }, size: { law: 'fixed', value: 1 }, fraction: 1, maxRotation: [20, 20, 180] },
        { name: 'cubes', shape: { kind: 'superellipsoid', e1: 0.4, e2: 0.7 }, size: { law: 'lognormal', median: 0.8, sigma: 0.1 }, fraction: 1 },
      ],
    },
    stop: { particles: 16 },
  })), voxelEngine),
  'stacking 2D classes, void ratio': async () => resultHash(await runEngine(stackingEngine, stackingParamsSchema.parse({
    dim: 2, region: { shape: 'rectangle', size: [3, 3] }, gradation: group([0.2, 0.15, 0.1, 0.07]), target: { kind: 'voidRatio', e: 0.3 }, gid: 5,
  })), stackingEngine),
  'stacking 3D sieve curve in a cylinder': async () => resultHash(await runEngine(stackingEngine, stackingParamsSchema.parse({
    dim: 3, region: { shape: 'cylinder', radius: 0.8, height: 1 },
    gradation: { kind: 'sieve', sizes: [0.1, 0.2, 0.3, 0.4], passing: [0, 30, 70, 100], af: [[0, 0.3]] },
    target: { kind: 'voidRatio', e: 0.6 }, gid: 4,
  })), stackingEngine),
  'ballmill 2D constant restitution, hashed grid': async () => resultHash(await runEngine(ballmillEngine, ballmillParamsSchema.parse({
    dim: 2, cdo: 'hashedGrid', balls: { count: 60, radius: { law: 'uniform', min: 2, max: 8 }, solidFraction: 0.3 },
    vial: { width: 120, height: 120, amplitude: 10, frequency: 15 }, duration: 0.4, output: { frameRate: 25 },
  })), ballmillEngine),
  'ballmill 3D Hertz restitution, cell space': async () => resultHash(await runEngine(ballmillEngine, ballmillParamsSchema.parse({
    dim: 3, cdo: 'cellSpace', balls: { count: 150, radius: { law: 'uniform', min: 3, max: 5 }, initialSpeed: 300 },
    vial: { width: 60, height: 80, amplitude: 10, frequency: 15 }, duration: 0.3,
    restitution: { model: 'hertz', dissipation: 1, youngModulus: 200, poissonRatio: 0.3, wallYoungModulus: 200, wallPoissonRatio: 0.3 },
    output: { frameRate: 20 },
  })), ballmillEngine),
  'surface superquadric': async () => resultHash(await runEngine(surfaceEngine, surfaceParamsSchema.parse({
    surface: { kind: 'superquadric', semiAxes: [1, 0.8, 0.6], e1: 0.6, e2: 1.4 }, spacing: 0.25, voxelsAcross: 24, stop: { maxIterations: 150 },
  })), surfaceEngine),
  'surface blobby': async () => resultHash(await runEngine(surfaceEngine, surfaceParamsSchema.parse({
    surface: { kind: 'blobby', threshold: 0.5, blobs: [{ falloff: 'gaussian', from: [-0.6, 0, 0], to: [0.6, 0, 0], radius: 0.45, strength: 1 }, { falloff: 'polynomial', from: [0, 0, 0.3], to: [0, 0, 0.3], radius: 0.8, strength: 1 }] },
    spacing: 0.15, voxelsAcross: 24, stop: { maxIterations: 150 },
  })), surfaceEngine),
  'analysis of a random sphere packing': async () => {
    const p = randomPacking({ dim: 3, n: 200, solidFraction: 0.3, radiusRatio: 3, seed: 7 });
    const table = { kind: 'table' as const, name: 'spheres', columns: { x: p.x, y: p.y, z: p.z, r: p.r } };
    const analysis = analyseSpheres(table, [p.box, p.box, p.box], { poreGridVoxels: 20_000, heightMapCells: 32 });
    return resultHash({ ...analysis, artifacts: [table, { kind: 'table', name: 'analysis', columns: analysis.particleColumns }], metrics: { ...analysis.metrics, box: p.box, solidFraction: p.solidFraction, shrunk: p.shrunk } }, null);
  },
};

/** The SHA-256 of each case's result, the same on Node 20, 24 and 25 (scripts/cross-host-check.ts prints them). */
export const GOLDEN: Record<string, string> = {
  'voxel spheres, plates and superellipsoids with analysis': 'ad79934b50cd7b287dfdcad5bce5c893bb202d98aa3373fcb7acb4c694488300',
  'stacking 2D classes, void ratio': '4dc5de14cd495642393c80b6c6665c4eef0352aea3f1278423dbd9452676689b',
  'stacking 3D sieve curve in a cylinder': '37b4955f1786300b74d823970dcba0c183f5ee3d8604b6c40c45d319deb6fff2',
  'ballmill 2D constant restitution, hashed grid': '2ee2858fbbec2e53feee9ff8ef440956a61e2ffdee98d08f40a2fbe5a43a3490',
  'ballmill 3D Hertz restitution, cell space': '83695c69f9dba0615ace877476fb4f9d37ef5532bdcbf6fc301f82555b3c0ef0',
  'surface superquadric': '31f88d9195d2eeec33701f79a82d99a3798456b22e02b230ed7f362554796837',
  'surface blobby': 'ff811ad6983375eb885785eedf211fe5c63a5e6ecfa49a7f6d733e2ea4f51502',
  'analysis of a random sphere packing': '11454577085cb87ccc480df83efe93d071f73f1c292609b159600325d968dad7',
};
