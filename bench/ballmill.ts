/**
 * `npm run bench -- ballmill [--quick] [--only seed|scaling]`
 *
 * seed     Seed 003's experiments, 2D, 100 balls in a 200 × 200 mm vial, 10 s simulated (1 s with
 *          --quick), Δt = 0.005 s, every CDO, beside the seed's figures:
 *            Tables 1 and 3: collisions and predict-trajectory events per solid fraction (monosized:
 *            the seed's radii 2.5 ... 9.5 mm; polysized: radius ratio 10, radii uniform in [a, 10a]
 *            scaled to the fraction: the seed's own ranges, e.g. 1.8-18 mm at 33 %, cannot hold at
 *            its fractions with 100 balls in 200 × 200 mm).
 *            Tables 2 and 4: per CDO the time, topological events (TE), collision checks (CC) and
 *            CC of direct / CC, at 5, 20, 33, 50 and 70 %.
 *            Table 5: 10 ... 100 balls, radii uniform in 5-10 mm, time per CDO.
 *          The seed gives neither the vial's amplitude and frequency nor the restitution; this runs
 *          the engine's defaults (A = 10 mm, f = 15 Hz, ε = 0.8, restitution floor 10 mm/s), so
 *          collision counts differ from the seed's (its 174-4170 collisions in 10 s are a much
 *          calmer mill).
 * scaling  3D: 1,000, 10,000 and 100,000 balls (radii uniform 2-3 mm, 20 % of a 100 mm tall
 *          cylinder whose cross-section grows with the count, so that the bed depth and every
 *          ball's dynamics stay the same), 0.5 s simulated (0.2 s with --quick, up to 10,000),
 *          per CDO: CPU time, events, events per CPU second, and the fitted exponent of CPU time
 *          against the ball count.
 *
 * Times: CPU seconds of the event loop (process.cpuUsage, user + system) beside wall seconds; the
 * machine is shared, so wall time is the noisier one. Counters do not depend on the machine.
 */
import { BallMill, ballmillParamsSchema, CDO_NAMES, type CdoName } from '../core/ballmill/index';
import { printTable, writeResults, type Row } from './_harness';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
if (only !== undefined && !['seed', 'scaling'].includes(only)) {
  console.error(`--only must be one of seed, scaling; got ${only}`);
  process.exit(2);
}
const run = (part: string) => only === undefined || only === part;
const started = process.hrtime.bigint();
const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
const tables: Record<string, Row[]> = {};

interface Measured {
  sim: BallMill;
  cpu: number;
  wall: number;
  setupCpu: number;
}

function measure(params: Record<string, unknown>, seed = 1): Measured {
  const p = ballmillParamsSchema.parse({ ...params, output: { frameRate: 0 } });
  const c0 = process.cpuUsage();
  const sim = new BallMill(p, seed);
  const c1 = process.cpuUsage(), w1 = process.hrtime.bigint();
  const reason = sim.run(() => {}, () => false);
  const c2 = process.cpuUsage(c1);
  if (reason !== 'duration') throw new Error(`run stopped: ${reason}`);
  const setup = process.cpuUsage(c0);
  return {
    sim,
    cpu: (c2.user + c2.system) / 1e6,
    wall: Number(process.hrtime.bigint() - w1) / 1e9,
    setupCpu: (setup.user + setup.system) / 1e6 - (c2.user + c2.system) / 1e6,
  };
}

const round = (v: number, digits = 3) => +v.toPrecision(digits);

// ---- seed Tables 1-5 ------------------------------------------------------------------------------

/** The seed's figures (Tables 1-5). */
const SEED = {
  fractions: [0.05, 0.2, 0.33, 0.5, 0.7],
  monoRadius: [2.5, 5, 6.5, 8, 9.5],
  table1: { collisions: [174, 387, 661, 1143, 4170], predict: [199855, 199459, 198941, 198009, 192371] },
  table3: { collisions: [189, 375, 488, 695, 3127], predict: [199816, 199416, 199209, 198912, 220282] },
  /** Tables 2 and 4 at 5, 33 and 70 %: time (s), TE, CC. */
  table2: {
    direct: [[1114.61, 0, 20645172], [1218.85, 0, 20783008], [1255.10, 0, 21899782]],
    regularSubdivision: [[96.50, 1718, 93137], [117.71, 582, 625788], [166.15, 759, 1443880]],
    spatialTree: [[103.04, 1718, 93137], [128.36, 582, 625788], [171.81, 759, 1443880]],
    sweepAndPrune: [[106.94, 13038, 11542], [121.72, 13362, 116468], [151.87, 30094, 337770]],
    delaunay: [[304.84, 778, 1926240], [312.64, 601, 1925194], [333.89, 770, 1979036]],
  } as Record<string, number[][]>,
  table4: {
    direct: [[1332.66, 0, 20657627], [1284.71, 0, 20741959], [1690.39, 0, 27485297]],
    regularSubdivision: [[103.26, 1161, 298667], [242.66, 257, 3648103], [1880.48, 30, 27358811]],
    spatialTree: [[111.99, 1161, 298667], [247.72, 257, 3648103], [1922.31, 30, 27358811]],
    sweepAndPrune: [[109.68, 12432, 14154], [121.77, 11050, 91584], [395.65, 36450, 575909]],
    delaunay: [[303.85, 881, 1934517], [318.73, 626, 1934358], [397.27, 735, 2221611]],
  } as Record<string, number[][]>,
  table5: {
    n: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    density: [0.045, 0.085, 0.125, 0.15, 0.2, 0.23, 0.265, 0.31, 0.335, 0.35],
    collisions: [3, 5, 8, 24, 31, 52, 47, 79, 121, 128],
    predict: [4014, 8021, 12026, 16006, 20000, 23985, 27972, 31902, 35871, 39854],
  },
};
const SEED_COLUMNS = [0.05, 0.33, 0.7];
const SEED_NAMES: Record<string, string> = { direct: 'Direct', regularSubdivision: 'Regular sub.', spatialTree: 'Spatial tree', sweepAndPrune: 'Segment trees' };

if (run('seed')) {
  const duration = quick ? 1 : 10;
  const base = { dim: 2, vial: { width: 200, height: 200, amplitude: 10, frequency: 15 }, duration, timeStep: 0.005 };
  const ratios: { set: string; fraction: number; best: string; ratio: number }[] = [];
  for (const set of ['mono', 'poly'] as const) {
    const countRows: Row[] = [], cdoRows: Row[] = [];
    SEED.fractions.forEach((fraction, k) => {
      const balls = set === 'mono'
        ? { count: 100, radius: { law: 'fixed', value: SEED.monoRadius[k] } }
        : { count: 100, radius: { law: 'uniform', min: 1, max: 10 }, solidFraction: fraction };
      const results = new Map<CdoName, Measured>();
      for (const cdo of CDO_NAMES) {
        results.set(cdo, measure({ ...base, balls, cdo }));
        process.stderr.write(`seed ${set} ${fraction * 100} % ${cdo}: ${results.get(cdo)!.cpu.toFixed(1)} s CPU (${elapsed().toFixed(0)} s)\n`);
      }
      const d = results.get('direct')!.sim;
      let solid = 0, rMin = Infinity, rMax = 0;
      for (let i = 0; i < d.n; i++) { solid += Math.PI * d.r[i] ** 2; rMin = Math.min(rMin, d.r[i]); rMax = Math.max(rMax, d.r[i]); }
      const seedCounts = set === 'mono' ? SEED.table1 : SEED.table3;
      countRows.push({
        fraction: `${fraction * 100} %`, reached: round(solid / 40000), radius: set === 'mono' ? `${rMin}` : `${rMin.toFixed(2)}-${rMax.toFixed(2)}`,
        'ball-ball': d.ballCollisions, 'ball-wall': d.wallCollisions, 'predict trajectory': d.trajectoryUpdates,
        'seed collisions': seedCounts.collisions[k] * (duration / 10), 'seed predict': Math.round(seedCounts.predict[k] * (duration / 10)),
      });
      const seedTable = set === 'mono' ? SEED.table2 : SEED.table4;
      const at = SEED_COLUMNS.indexOf(fraction);
      let best = '', bestRatio = 0;
      for (const cdo of CDO_NAMES) {
        const m = results.get(cdo)!, s = m.sim;
        const ratio = s.collisionChecks > 0 ? d.collisionChecks / s.collisionChecks : 0;
        if (cdo !== 'direct' && ratio > bestRatio) { bestRatio = ratio; best = cdo; }
        const seedRow = at >= 0 && seedTable[cdo] ? seedTable[cdo][at] : null;
        cdoRows.push({
          fraction: `${fraction * 100} %`, cdo, 'cpu s': round(m.cpu), 'wall s': round(m.wall), events: s.events, impacts: s.ballCollisions + s.wallCollisions,
          'box exits': s.boxExits, TE: s.topologicalEvents, CC: s.collisionChecks, 'direct CC / CC': round(ratio),
          'box tests': s.structure ? s.structure.counters.candidatesTested : 0,
          [`seed ${SEED_NAMES[cdo] ?? '-'} time s`]: seedRow ? seedRow[0] : null, 'seed TE': seedRow ? seedRow[1] : null, 'seed CC': seedRow ? seedRow[2] : null,
        });
      }
      ratios.push({ set, fraction, best, ratio: bestRatio });
    });
    const t1 = `Seed table ${set === 'mono' ? 1 : 3} (${set === 'mono' ? 'monosized' : 'polysized, radius ratio 10'}): collisions and predict-trajectory events, 100 balls, ${duration} s (seed figures scaled to ${duration} s)`;
    printTable(t1, countRows);
    tables[t1] = countRows;
    const t2 = `Seed table ${set === 'mono' ? 2 : 4} (${set === 'mono' ? 'monosized' : 'polysized'}): per CDO, ${duration} s simulated; seed columns: its Delphi times (s) and counts for 10 s at 5, 33 and 70 %`;
    printTable(t2, cdoRows);
    tables[t2] = cdoRows;
  }
  // The dynamic Delaunay triangulation has no counterpart here (see core/ballmill/README.md).
  const delaunay: Row[] = [];
  SEED_COLUMNS.forEach((fraction, k) => {
    delaunay.push({ fraction: `${fraction * 100} %`, 'mono time s': SEED.table2.delaunay[k][0], 'mono TE': SEED.table2.delaunay[k][1], 'mono CC': SEED.table2.delaunay[k][2], 'poly time s': SEED.table4.delaunay[k][0], 'poly TE': SEED.table4.delaunay[k][1], 'poly CC': SEED.table4.delaunay[k][2] });
  });
  tables['seed dynamic Delaunay triangulation (not implemented here)'] = delaunay;

  // Table 5: 10 ... 100 balls of radii 5-10 mm.
  const t5Rows: Row[] = [];
  SEED.table5.n.forEach((n, k) => {
    const row: Row = { balls: n };
    let first = true;
    for (const cdo of CDO_NAMES) {
      const m = measure({ ...base, balls: { count: n, radius: { law: 'uniform', min: 5, max: 10 } }, cdo });
      const s = m.sim;
      if (first) {
        let solid = 0;
        for (let i = 0; i < s.n; i++) solid += Math.PI * s.r[i] ** 2;
        Object.assign(row, { reached: round(solid / 40000), 'ball-ball': s.ballCollisions, 'ball-wall': s.wallCollisions, 'predict trajectory': s.trajectoryUpdates,
          'seed density': SEED.table5.density[k], 'seed collisions': SEED.table5.collisions[k], 'seed predict': SEED.table5.predict[k] });
        first = false;
      }
      row[`${cdo} cpu s`] = round(m.cpu);
    }
    t5Rows.push(row);
    process.stderr.write(`seed table 5: ${n} balls (${elapsed().toFixed(0)} s)\n`);
  });
  const t5 = `Seed table 5 / Fig. 3: 10-100 balls of radii 5-10 mm, ${duration} s (the seed's predict counts, about 400 a ball, imply a shorter run than its 10 s)`;
  printTable(t5, t5Rows);
  tables[t5] = t5Rows;

  const summary: Row[] = ratios.map((r) => ({ set: r.set, fraction: `${r.fraction * 100} %`, 'best CDO': r.best, 'direct CC / best CC': round(r.ratio), 'target >= 20': r.ratio >= 20 }));
  printTable('Collision checks: the best CDO against direct at every fraction (target: at least 20x fewer)', summary);
  tables.ccTarget = summary;
}

// ---- 3D scaling ---------------------------------------------------------------------------------

/** Least-squares slope of log y against log x. */
function exponent(xs: number[], ys: number[]): number {
  const lx = xs.map(Math.log), ly = ys.map(Math.log);
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length, my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let sxy = 0, sxx = 0;
  for (let k = 0; k < lx.length; k++) { sxy += (lx[k] - mx) * (ly[k] - my); sxx += (lx[k] - mx) ** 2; }
  return sxy / sxx;
}

if (run('scaling')) {
  const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];
  const duration = quick ? 0.2 : 0.5;
  const cdos: CdoName[] = ['hashedGrid', 'spatialTree', 'cellSpace', 'regularSubdivision', 'sweepAndPrune'];
  const rows: Row[] = [];
  const cpuBy = new Map<CdoName, { n: number; cpu: number; events: number }[]>(cdos.map((c) => [c, []]));
  // Radii 2-3 mm: mean ball volume (4/3) π E[r³] with E[r³] = (3^4 - 2^4) / 4.
  const ballVolume = (4 / 3) * Math.PI * ((81 - 16) / 4);
  for (const n of sizes) {
    const height = 100, fraction = 0.2;
    const width = 2 * Math.sqrt((n * ballVolume) / fraction / height / Math.PI);
    for (const cdo of cdos) {
      // Sweep and prune catches up in O(n) at every box move (core/spatial keeps it for batch
      // passes): quadratic here, so it runs at 1,000 balls only.
      if (cdo === 'sweepAndPrune' && n > 1000) continue;
      const m = measure({
        dim: 3, cdo, duration, balls: { count: n, radius: { law: 'uniform', min: 2, max: 3 } },
        vial: { width, height, amplitude: 10, frequency: 15 },
      });
      const s = m.sim;
      const moves = s.ballCollisions + s.wallCollisions + s.boxExits;
      cpuBy.get(cdo)!.push({ n, cpu: m.cpu, events: s.events });
      rows.push({
        balls: n, cdo, 'vial mm': `${width.toFixed(0)} x ${height}`, 'setup cpu s': round(m.setupCpu), 'cpu s': round(m.cpu), 'wall s': round(m.wall),
        events: s.events, 'events/cpu s': Math.round(s.events / m.cpu), 'impacts + exits /cpu s': Math.round(moves / m.cpu),
        impacts: s.ballCollisions + s.wallCollisions, 'box exits': s.boxExits, TE: s.topologicalEvents, CC: s.collisionChecks,
        'CC per ball per s': round(s.collisionChecks / n / duration), 'queue peak': s.queue.peak,
      });
      process.stderr.write(`scaling ${n} ${cdo}: ${m.cpu.toFixed(1)} s CPU (${elapsed().toFixed(0)} s)\n`);
    }
  }
  for (const cdo of cdos) {
    const v = cpuBy.get(cdo)!;
    if (v.length < 2) continue;
    rows.push({ balls: 'exponent', cdo, 'cpu s': round(exponent(v.map((e) => e.n), v.map((e) => e.cpu))), events: round(exponent(v.map((e) => e.n), v.map((e) => e.events))), 'vial mm': `fitted ${v[0].n}..${v[v.length - 1].n}` });
  }
  const title = `3D scaling: balls of radii 2-3 mm at 20 % of a 100 mm tall cylinder, A = 10 mm, f = 15 Hz, ${duration} s simulated; exponent = least-squares slope of log CPU time (and of log events) against log balls`;
  printTable(title, rows);
  tables[title] = rows;
  const at10k = rows.filter((r) => r.balls === 10_000);
  const best = at10k.reduce((a, b) => ((b['events/cpu s'] as number) > (a['events/cpu s'] as number) ? b : a), at10k[0]);
  if (best) process.stdout.write(`\nBest at 10,000 balls: ${best.cdo} ${best['events/cpu s']} events per CPU second (target: at least 1,000,000)\n`);
}

const file = writeResults('ballmill', tables, { quick, only: only ?? 'all', seconds: elapsed() });
process.stdout.write(`\nwrote ${file} in ${elapsed().toFixed(0)} s\n`);
