/**
 * What a user types wrong, engine by engine, through the API every surface calls (runs.validate:
 * the schema, unknown fields, the engine's cross-field checks): each case is refused at its field
 * with the allowed range, never taken with a default, rounded, clamped or ignored. Values at the
 * edge of their range are accepted. The CLI's files (not JSON, a field written twice) are in the
 * bad-input corpus (bad-input.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliIn, engineServicesForFile, rejection, tempDir } from './helpers';

const { s, dir } = engineServicesForFile();

const spec = (engine: string, params: Record<string, unknown>) => ({ engine, name: 'typed', seed: 1, params });
const voxel = (params: Record<string, unknown>) => spec('voxel', params);
const stacking = (params: Record<string, unknown>) => spec('stacking', params);
const surface = (params: Record<string, unknown>) => spec('surface', params);
const ballmill = (params: Record<string, unknown>) => spec('ballmill', params);
/** A small voxel box (10 voxels a unit) whose analysis options a case sets. */
const analysed = (analysis: Record<string, unknown>) => voxel({ box: { size: [4, 4, 4], resolution: 10 }, analysis });

type Refused = { path: string; message: RegExp };
const refused: [why: string, spec: ReturnType<typeof spec>, issue: Refused][] = [
  // voxel
  // Type mistakes name the range as range mistakes do (zod said 'Invalid input: expected number, received string').
  ['a number written as text', voxel({ reboundProbability: '0.3' }), { path: 'params.reboundProbability', message: /^must be a number in \[0, 1\], got the text "0\.3" \(write numbers without quotes\)$/ }],
  ['null for a number with a default', voxel({ freezingInterval: null }), { path: 'params.freezingInterval', message: /^must be a whole number in \[1, 1000000\], got null$/ }],
  ['a fraction where a whole number goes', voxel({ stop: { particles: 10.5 } }), { path: 'params.stop.particles', message: /^must be a whole number in \[0, 100000000\], got 10\.5$/ }],
  ['a list for a number', stacking({ gid: [4] }), { path: 'params.gid', message: /^must be a number in \[2, 16\], got a list of 1$/ }],
  ['"Infinity" as text', surface({ spacing: 'Infinity' }), { path: 'params.spacing', message: /^must be a number in \(0, 1000000\], got the text "Infinity"/ }],
  ['a switch where a number goes', ballmill({ gravity: true }), { path: 'params.gravity', message: /^must be a number in \[0, 10000\], got true$/ }],
  ['a choice in the wrong case', voxel({ box: { top: 'Open' } }), { path: 'params.box.top', message: /^must be one of 'ceiling', 'open', got 'Open' \(did you mean 'open'\?\)$/ }],
  ['a switch written as text', voxel({ stop: { settle: 'false' } }), { path: 'params.stop.settle', message: /^must be true or false, got the text "false"$/ }],
  ['no particle types', voxel({ mixture: { types: [] } }), { path: 'params.mixture.types', message: /^must have 1 to 64 entries, got 0$/ }],
  ['a shape without its kind', voxel({ mixture: { types: [{ shape: { b: 0.5 } }] } }), { path: 'params.mixture.types.0.shape.kind', message: /^is required \(one of 'sphere', 'ellipsoid', .*'implicit'\)$/ }],
  ['a misspelt field two levels down', voxel({ stop: { solidFraction: 0.3, setle: false } }), { path: 'params.stop.setle', message: /did you mean 'settle'/ }],
  ['a resolution that would allocate terabytes', voxel({ box: { size: [1000, 1000, 1000], resolution: 1000 } }), { path: 'params.box.size', message: /at most 65536 voxels per axis/ }],
  ['a slice thinner than a voxel (was taken as one voxel)', analysed({ sliceThickness: 0.05 }), { path: 'params.analysis.sliceThickness', message: /^0\.05 units is 0\.5 voxels at box\.resolution 10 voxels\/unit; .*allowed a whole number of voxels from 0\.1 \(one voxel\) to 4 \(the box height\), the nearest is 0\.1$/ }],
  ['a slice of part voxels (1.4 was taken as 1)', analysed({ sliceThickness: 0.14 }), { path: 'params.analysis.sliceThickness', message: /1\.4 voxels.*the nearest are 0\.1 and 0\.2$/ }],
  ['a slice thicker than the box (was one slice of the box)', analysed({ sliceThickness: 5 }), { path: 'params.analysis.sliceThickness', message: /50 voxels.*from 0\.1 \(one voxel\) to 4 \(the box height\), the nearest is 4$/ }],
  ['a range sweep of one step from 0.1 to 0.5 (ran 0.1 alone)', voxel({ reboundProbability: { $sweep: { from: 0.1, to: 0.5, steps: 1 } } }), { path: 'params.reboundProbability.$sweep.steps', message: /from 0\.1 to 0\.5 needs steps ≥ 2/ }],
  // stacking
  ['a target kind in the wrong case', stacking({ target: { kind: 'voidratio', e: 0.5 } }), { path: 'params.target.kind', message: /^must be one of 'voidRatio', 'count', got 'voidratio' \(did you mean 'voidRatio'\?\)$/ }],
  ['dim written as text', stacking({ dim: '2' }), { path: 'params.dim', message: /^must be one of 2, 3, got '2' \(write numbers without quotes\)$/ }],
  ['a 2D region with dim 3', stacking({ dim: 3, region: { shape: 'circle', radius: 5 } }), { path: 'params.region.shape', message: /'circle' is a 2D region/ }],
  ['a class field misspelt', stacking({ gradation: { kind: 'classes', classes: [{ radius: 0.2, fraction: 1, fration: 1 }] } }), { path: 'params.gradation.classes.0.fration', message: /did you mean 'fraction'/ }],
  ['a count too small for every class to get a ball (ran as one small ball, short of its solid fraction)', stacking({ target: { kind: 'count', particles: 3 } }), { path: 'params.target.particles', message: /less than one ball on average .*: at least 359$/ }],
  // Its ball volumes underflowed to 0: 'at most NaN', or valid with a memory estimate of NaN.
  ['a radius whose ball volumes underflow', stacking({ gradation: { kind: 'classes', classes: [{ radius: 1e-120, fraction: 1 }] } }), { path: 'params.gradation.classes.0.radius', message: /^must be in \[1e-30, 1000000\], got 1e-120$/ }],
  ['a count of balls that would need gigabytes', stacking({ region: { shape: 'box', size: [1000, 1000, 1000] } }), { path: 'params.region.size', message: /more than the 3e\+7 a run holds, even at e = 100: at e = 0\.4993 the region's volume must be at most 21000 \(e\.g\. size \[27\.6\d, 27\.6\d, 27\.6\d\]\), got 1000000000$/ }],
  // surface
  ['a spacing that needs more particles than maxParticles', surface({ spacing: 0.001 }), { path: 'params.spacing', message: /spacing must be ≥/ }],
  ['a torus field misspelt', surface({ surface: { kind: 'torus', majorRadius: 1, minorradius: 0.3 } }), { path: 'params.surface.minorradius', message: /did you mean 'minorRadius'/ }],
  // ballmill
  ['null for an object', ballmill({ vial: null }), { path: 'params.vial', message: /^must be an object \{ \.\.\. \}, got null$/ }],
  ['a collision structure misspelt', ballmill({ cdo: 'spatialtree' }), { path: 'params.cdo', message: /did you mean 'spatialTree'/ }],
  ['a Hertz field under the constant model (would be ignored)', ballmill({ restitution: { model: 'constant', value: 0.5, youngModulus: 3 } }), { path: 'params.restitution.youngModulus', message: /unknown field/ }],
  ['more balls than the vial holds', ballmill({ balls: { count: 100000 } }), { path: 'params.balls.count', message: /allowed count ≤/ }],
  ['equal disks above their densest packing in a square', ballmill({ balls: { count: 8, radius: { law: 'fixed', value: 5 }, solidFraction: 0.75 } }), { path: 'params.balls.solidFraction', message: /^8 equal disks fill at most 0\.7309 .*: allowed balls\.solidFraction ≤ 0\.7309, or balls\.count 9 / }],
];

const accepted: [why: string, spec: ReturnType<typeof spec>][] = [
  ['slices of one voxel', analysed({ sliceThickness: 0.1 })],
  ['slices of three voxels (0.3 × 10 is 2.9999999999999996)', analysed({ sliceThickness: 0.3 })],
  ['one slice as tall as the box', analysed({ sliceThickness: 4 })],
  ['the examples\' stacking defaults', stacking({})],
  ['spheres taller than an open box (were refused for their span)', voxel({ box: { size: [3, 3, 0.6], resolution: 10, top: 'open' }, mixture: { types: [{ size: { law: 'fixed', value: 1.1 } }] } })],
  ['a type left out at fraction 0, whatever its size', voxel({ box: { size: [3, 3, 3], resolution: 10 }, mixture: { types: [{}, { fraction: 0, size: { law: 'fixed', value: 9 } }] } })],
  ['a ball mill at its defaults', ballmill({})],
  ['a surface at its defaults', surface({})],
];

describe('typed input, refused at its field', () => {
  it.each(refused)('%s', async (_, value, want) => {
    const err = await rejection(s.dispatch('runs.validate', { spec: value }));
    expect(err.code).toBe('invalid');
    expect(err.issues).toContainEqual({ path: `spec.${want.path}`, message: expect.stringMatching(want.message) });
  });

  it('a list of the wrong length is told its length once', async () => {
    // A stacking region.size of 2 was told 'must have 3 entries, got 2' and 'must have 3 to 3
    // entries, got 2'; an a_f of 3 'has 3 entries; allowed: 2 to 2'.
    const err = await rejection(s.dispatch('runs.validate', { spec: stacking({ region: { shape: 'box', size: [1.5, 1.5] }, gradation: { kind: 'classes', classes: [{ radius: 0.2, fraction: 1, af: [0, 0.3, 1] }] } }) }));
    expect(err.issues).toEqual([
      { path: 'spec.params.region.size', message: 'must have 3 entries, got 2' },
      { path: 'spec.params.gradation.classes.0.af', message: 'must have 2 entries, got 3' },
    ]);
  });

  it('a whole number beyond 2^53 is told its range once, in the same words', async () => {
    // reshape: 1e300 was also told zod's 'Too big: expected int to be <=9007199254740991'.
    const err = await rejection(s.dispatch('runs.validate', { spec: stacking({ reshape: 1e300, target: { kind: 'count', particles: -1e17 } }) }));
    expect(err.issues).toEqual([
      { path: 'spec.params.target.particles', message: 'must be a whole number in [1, 30000000], got -100000000000000000' },
      { path: 'spec.params.reshape', message: 'must be a whole number in [0, 100], got 1e+300' },
    ]);
  });

  it.each(accepted)('%s is accepted', async (_, value) => {
    expect(await s.dispatch('runs.validate', { spec: value })).toMatchObject({ runs: 1 });
  });
});

describe('typed API filters, refused rather than answered with nothing', () => {
  it.each([
    ['a metric range with min above max', { metric: { name: 'porosity', min: 0.5, max: 0.4 } }, { path: 'filter.metric.max', message: 'must be at least min (0.5), got 0.4' }],
    ['a creation window that ends before it starts', { createdFrom: '2026-11-02T00:00:00Z', createdTo: '2026-11-01T00:00:00Z' }, { path: 'filter.createdTo', message: "must not be before createdFrom ('2026-11-02T00:00:00Z'), got '2026-11-01T00:00:00Z'" }],
    ['an engine that does not exist', { engine: 'voxl' }, { path: 'filter.engine', message: "unknown engine 'voxl' (did you mean 'voxel'?); known: voxel, surface, stacking, ballmill, spheres" }],
    ['an imported sphere set\'s engine in the wrong case', { engine: 'Spheres' }, { path: 'filter.engine', message: "unknown engine 'Spheres' (did you mean 'spheres'?); known: voxel, surface, stacking, ballmill, spheres" }],
  ])('%s', async (_, filter, issue) => {
    expect(await rejection(s.dispatch('runs.list', { filter }))).toMatchObject({ code: 'invalid', issues: [issue] });
  });

  it('presets of an engine that does not exist', async () => {
    expect(await rejection(s.dispatch('presets.list', { engine: 'Voxel' }))).toMatchObject({ code: 'invalid', issues: [{ path: 'engine', message: expect.stringMatching(/^unknown engine 'Voxel' \(did you mean 'voxel'\?\); known: /) }] });
  });
});

describe('re-run overrides', () => {
  it('an override that brings an object the run did not have is named as the override, with what it lacks', async () => {
    // A ball mill that ran with the default restitution; the override gives a Hertz field but not the model.
    const [run] = s.store.insertRuns([{ name: 'mill', engine: 'ballmill', spec: ballmill({ balls: { count: 10 } }), params: {}, seed: 1, priority: 0, batchId: null, status: 'paused' }]);
    s.store.finishRun(run, { status: 'failed', error: 'made by hand' });
    const err = await rejection(s.dispatch('runs.rerun', { id: run, overrides: { restitution: { youngModulus: 5 } } }));
    expect(err).toMatchObject({ code: 'invalid', issues: [{ path: 'overrides.restitution.model', message: expect.not.stringMatching(/not overridden/) }] });
    // The other tests of the file count the folder's runs.
    await s.dispatch('runs.delete', { id: run });
  });
});

describe('typed analysis options of a sphere import', () => {
  // Four spheres in a 10-wide box, periodic in x and y.
  const csv = 'x,y,z,r\n2,2,1,1\n6,2,1,1\n2,6,1,1\n6,6,1,1\n';
  it('an RDF range beyond half the periodic side (was cut to it without a word)', async () => {
    const err = await rejection(s.dispatch('runs.importSpheres', { name: 'rdf', csv, box: [10, 10, 10], analysis: { rdfMaxDistance: 6 } }));
    expect(err).toMatchObject({ code: 'invalid', message: 'sphere CSV: rdfMaxDistance 6 is more than half the smallest periodic side (x: 10): a neighbour there would be counted through two of its images; allowed (0, 5]' });
    expect(await s.dispatch('runs.importSpheres', { name: 'rdf', csv, box: [10, 10, 10], analysis: { rdfMaxDistance: 5 } })).toMatchObject({ status: 'done' });
  });
});

describe('typed mesh import options', () => {
  const bytes = new TextEncoder().encode('solid x\nendsolid x\n');
  it.each([
    ['neither a resolution nor voxels across', {}, { path: 'resolution', message: 'give exactly one of resolution or voxelsAcross' }],
    ['both', { resolution: 2, voxelsAcross: 10 }, { path: 'resolution', message: 'give exactly one of resolution or voxelsAcross' }],
    ['more voxels across than a voxel shape holds', { voxelsAcross: 5000 }, { path: 'voxelsAcross', message: 'must be a whole number in [1, 1024], got 5000' }],
  ])('%s', async (_, options, issue) => {
    expect(await rejection(s.dispatch('shapes.importMesh', { fileName: 'grain.stl', bytes, ...options }))).toMatchObject({ code: 'invalid', issues: [issue] });
  });
});

describe('typed command-line options, refused when the run cannot use them', () => {
  it.each([['ballmill', ballmill({})], ['stacking', stacking({})]] as const)('--threads 2 for a %s run (ran on one thread, recorded as two)', async (engine, value) => {
    const file = join(dir, `${engine}.json`);
    writeFileSync(file, JSON.stringify(value));
    const r = await cliIn(dir, 'run', file, '--threads', '2');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`packbench: --threads 2: the ${engine} engine runs each run on one thread (more threads help voxel, surface); leave --threads out\n`);
    expect((await s.dispatch('runs.list', { filter: { engine } })).total).toBe(0);
  });
});


describe('typed fields that have no effect, warned and accepted', () => {
  const direct = { cdo: 'direct', balls: { count: 10 }, duration: 0.05 };
  const skinWarning = { path: 'spec.params.skin', message: expect.stringMatching(/^has no effect with cdo 'direct': .*choose a structure .* for it to apply, or leave skin out$/) };

  it('runs.validate (and runs.enqueue) answer the warnings beside the runs, and still accept', async () => {
    expect(await s.dispatch('runs.validate', { spec: ballmill({ ...direct, skin: 0.5 }) })).toMatchObject({ runs: 1, warnings: [skinWarning] });
    // Not written: the schema's default skin is no one's choice.
    expect(await s.dispatch('runs.validate', { spec: ballmill(direct) })).toMatchObject({ runs: 1, warnings: [] });
    // runs.enqueue queues it and says the same.
    const queued = await s.dispatch('runs.enqueue', { spec: ballmill({ ...direct, skin: 0.5 }) });
    expect(queued).toMatchObject({ runIds: [expect.any(String)], warnings: [skinWarning] });
    // The other tests of the file count the folder's runs.
    await s.dispatch('runs.delete', { id: queued.runIds[0] });
  });

  it('a voxel freezingInterval so short that particles freeze in mid-air is accepted with a warning at its field', async () => {
    // freezingInterval 1 froze particles in mid-air (the spheres example: box solid fraction 0.13
    // against 0.46) with no word: valid (a study of freezing may want it), so said, not refused.
    const short = await s.dispatch('runs.validate', { spec: voxel({ freezingInterval: 1 }) });
    expect(short).toMatchObject({ runs: 1, warnings: [{ path: 'spec.params.freezingInterval', message: expect.stringMatching(/^a freezing check every step freezes particles in mid-air: .*; from 10 steps up particles come to rest first$/) }] });
    expect((await s.dispatch('runs.validate', { spec: voxel({ freezingInterval: 10 }) })).warnings).toEqual([]);
    const swept = await s.dispatch('runs.validate', { spec: voxel({ freezingInterval: { $sweep: [2, 50] } }) });
    expect(swept.warnings).toEqual([{ path: 'spec.params.freezingInterval', message: expect.stringMatching(/^a freezing check every 2 steps freezes .* \(in 1 of the 2 sweep points\)$/) }]);
  });

  it('a spec refused by the engine\'s checks says its warnings beside the errors; one its schema refuses, the errors alone', async () => {
    const crowded = await rejection(s.dispatch('runs.validate', { spec: ballmill({ ...direct, skin: 0.5, balls: { count: 100000 } }) }));
    expect(crowded).toMatchObject({ code: 'invalid', issues: expect.arrayContaining([expect.objectContaining({ path: 'spec.params.balls.count' })]), warnings: [skinWarning] });
    const untyped = await rejection(s.dispatch('runs.validate', { spec: ballmill({ ...direct, skin: 0.5, balls: { count: 0 } }) }));
    expect(untyped).toMatchObject({ code: 'invalid', issues: [{ path: 'spec.params.balls.count' }] });
    expect((untyped as { warnings?: unknown }).warnings).toBeUndefined();
  });

  it('a sweep warns once per field, saying in how many of its points when not all', async () => {
    const all = await s.dispatch('runs.validate', { spec: ballmill({ ...direct, skin: { $sweep: [0.1, 0.2, 0.3] } }) });
    expect(all).toMatchObject({ runs: 3, warnings: [skinWarning] });
    const some = await s.dispatch('runs.validate', { spec: ballmill({ ...direct, cdo: { $sweep: ['direct', 'hashedGrid'] }, skin: 0.5 }) });
    expect(some.warnings).toEqual([{ path: 'spec.params.skin', message: expect.stringMatching(/ \(in 1 of the 2 sweep points\)$/) }]);
  });

  it('the CLI (validate, queue add, run) prints them on stderr and exits 0; the run\'s log starts with them', async () => {
    const data = tempDir();
    try {
      const file = join(data.dir, 'direct.json');
      writeFileSync(file, JSON.stringify(ballmill({ ...direct, skin: 0.5, vial: { frequency: 0, amplitude: 5 } })));
      const warned = [
        "warning: params.skin: has no effect with cdo 'direct'",
        'warning: params.vial.amplitude: has no effect with vial.frequency 0',
      ];
      // validate: the same words, nothing stored; a spec it refuses exits 2 as run does.
      const checked = await cliIn(data.dir, 'validate', file);
      expect(checked.code, checked.stderr).toBe(0);
      expect(checked.stderr.split('\n').slice(0, 2).map((l) => l.split(':').slice(0, 3).join(':'))).toEqual(warned);
      expect(checked.stdout).toBe('valid: 1 run(s), 2 warning(s) (above)\n');
      const bad = join(data.dir, 'bad.json');
      writeFileSync(bad, JSON.stringify(ballmill({ ...direct, skin: 0.5, balls: { count: 0 } })));
      expect(await cliIn(data.dir, 'validate', bad)).toMatchObject({ code: 2, stderr: expect.stringMatching(/invalid spec:\n {2}params\.balls\.count: must be a whole number in \[1, 1000000\], got 0/) });
      const crowded = join(data.dir, 'crowded.json');
      writeFileSync(crowded, JSON.stringify(ballmill({ ...direct, skin: 0.5, balls: { count: 100000 } })));
      const refused = await cliIn(data.dir, 'validate', crowded);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/invalid spec:\n {2}params\.balls\.count: [\s\S]*\nwarning: params\.skin: has no effect with cdo 'direct'/);
      expect(JSON.parse((await cliIn(data.dir, '--json', 'runs', 'list')).stdout).total).toBe(0);
      const queued = await cliIn(data.dir, 'queue', 'add', file);
      expect(queued.code, queued.stderr).toBe(0);
      expect(queued.stderr.split('\n').slice(0, 2).map((l) => l.split(':').slice(0, 3).join(':'))).toEqual(warned);
      const ran = await cliIn(data.dir, '--json', 'run', file);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr.split('\n').filter((l) => l.startsWith('warning: ')).map((l) => l.split(':').slice(0, 3).join(':'))).toEqual(warned);
      const out = JSON.parse(ran.stdout);
      expect(out.status).toBe('done');
      expect(out.log.slice(0, 2).map((l: string) => l.split(':').slice(0, 3).join(':'))).toEqual(warned);
    } finally {
      data.cleanup();
    }
  });
});
