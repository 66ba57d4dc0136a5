/**
 * The ball mill's parts against independent references: the event queue against a sorted list,
 * the wall search against dense sampling of the gap, the placement against a brute-force overlap
 * check, and the parameter checks.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { EventKind, EventQueue } from '../../../core/ballmill/event-queue';
import { Vial, type BallTrajectories } from '../../../core/ballmill/vial';
import { placeBalls } from '../../../core/ballmill/placement';
import { ballmillParamsSchema, checkParams, estimateMemoryBytes } from '../../../core/ballmill/index';

describe('event queue', () => {
  it('pops in (time, kind, a, b) order through pushes, pops and compaction, ties included', () => {
    const rnd = new Random(4);
    const q = new EventQueue(4);
    type E = [number, number, number, number, number];
    let ref: E[] = [];
    const key = (e: E) => [e[0], e[1], e[2], e[3]];
    const less = (x: E, y: E) => { const a = key(x), b = key(y); for (let k = 0; k < 4; k++) if (a[k] !== b[k]) return a[k] - b[k]; return 0; };
    for (let op = 0; op < 8000; op++) {
      if (rnd.next() < 0.6 || ref.length === 0) {
        // Few distinct times, so that ties are common.
        const e: E = [rnd.int(50) / 8, rnd.int(4), rnd.int(30), rnd.int(30) - 4, rnd.int(3)];
        q.push(e[0], e[1] as EventKind, e[2], e[3], e[4], 0);
        ref.push(e);
      } else if (rnd.next() < 0.02) {
        // Drop the events with counter 0, as stale ones are dropped.
        q.compact((_k, _a, _b, ca) => ca !== 0);
        ref = ref.filter((e) => e[4] !== 0);
      } else {
        ref.sort(less);
        const want = ref.shift()!;
        expect([q.topTime, q.topKind, q.topA, q.topB, q.topCountA]).toEqual(want);
        q.pop();
      }
      expect(q.size).toBe(ref.length);
    }
    expect(q.compactions).toBeGreaterThan(0);
  });
});

/** Earliest root of h on [a, b] by sampling every `step` and bisecting the first sign change. */
function sampledRoot(h: (t: number) => number, a: number, b: number, step: number): number {
  if (h(a) <= 0) return a;
  for (let t = a; t < b; t += step) {
    const u = Math.min(b, t + step);
    if (h(u) <= 0) {
      let lo = t, hi = u;
      for (let k = 0; k < 200 && hi - lo > 1e-16; k++) { const m = (lo + hi) / 2; if (h(m) > 0) lo = m; else hi = m; }
      return lo;
    }
  }
  return Infinity;
}

describe('wall search', () => {
  it.each([2, 3] as const)('finds the earliest contact of random parabolas with the oscillating vial (%iD), as dense sampling does', (dim) => {
    const rnd = new Random(dim);
    const A = 6, f = 18, w = 2 * Math.PI * f, g = 9810, W = 120, H = 90;
    const vial = new Vial({ dim, width: W, height: H, amplitude: A, frequency: f, gravity: g });
    const one = (): BallTrajectories => ({ r: new Float64Array(1), t0: new Float64Array(1), x0: new Float64Array(1), y0: new Float64Array(1), z0: new Float64Array(1), vx: new Float64Array(1), vy: new Float64Array(1), vz: new Float64Array(1) });
    const b = one();
    let hits = 0, floors = 0, ceilings = 0, sides = 0;
    for (let k = 0; k < 400; k++) {
      const r = rnd.uniform(1, 8), t0 = rnd.uniform(0, 1);
      b.r[0] = r; b.t0[0] = t0;
      b.x0[0] = dim === 2 ? rnd.uniform(r, W - r) : W / 2 + rnd.uniform(-1, 1) * (W / 2 - r) * 0.7;
      b.y0[0] = dim === 2 ? 0 : W / 2 + rnd.uniform(-1, 1) * (W / 2 - r) * 0.7;
      // Start inside the vial as it is at t0.
      const floor0 = A * Math.sin(w * t0);
      b.z0[0] = rnd.uniform(floor0 + r, floor0 + H - r);
      b.vx[0] = rnd.uniform(-800, 800); b.vy[0] = dim === 2 ? 0 : rnd.uniform(-800, 800); b.vz[0] = rnd.uniform(-1500, 1500);
      vial.from = t0 + rnd.uniform(0, 0.002);
      vial.to = vial.from + 0.02;
      vial.search(b, 0);
      // The reference: the smallest of the walls' gaps, sampled every 2 µs.
      const gap = (t: number) => {
        const s = t - t0, z = b.z0[0] + b.vz[0] * s - 0.5 * g * s * s, fl = A * Math.sin(w * t);
        const x = b.x0[0] + b.vx[0] * s, y = b.y0[0] + b.vy[0] * s;
        const side = dim === 2 ? Math.min(x - r, W - r - x) : W / 2 - r - Math.hypot(x - W / 2, y - W / 2);
        return Math.min(z - r - fl, fl + H - r - z, side);
      };
      if (gap(vial.from) <= 0) continue;
      const want = sampledRoot(gap, vial.from, vial.to, 2e-6);
      if (want === Infinity) { expect(vial.hitWall).toBe(-1); continue; }
      hits++;
      expect(vial.hitWall).toBeGreaterThanOrEqual(0);
      expect(Math.abs(vial.hitTime - want)).toBeLessThan(1e-11);
      if (vial.hitWall === 0) floors++; else if (vial.hitWall === 1) ceilings++; else sides++;
    }
    expect(hits).toBeGreaterThan(dim === 2 ? 100 : 60);
    expect(floors).toBeGreaterThan(20);
    expect(ceilings).toBeGreaterThan(5);
    expect(sides).toBeGreaterThan(5);
  });
});

describe('placement', () => {
  it.each([
    [2, 0.75, 1], [2, 0.7, 8], [3, 0.5, 1], [3, 0.5, 4],
  ] as const)('places %iD balls at solid fraction %f (radius ratio %i) inside the vial without overlap', (dim, fraction, ratio) => {
    const rnd = new Random(9);
    const n = 150, W = 100, H = 100;
    const r = new Float64Array(n).map(() => 1 + (ratio - 1) * rnd.next());
    const vol = r.reduce((s, v) => s + (dim === 2 ? Math.PI * v * v : (4 / 3) * Math.PI * v ** 3), 0);
    const target = fraction * (dim === 2 ? W * H : Math.PI * (W / 2) ** 2 * H);
    const s = (target / vol) ** (1 / dim);
    for (let i = 0; i < n; i++) r[i] *= s;
    const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n);
    placeBalls({ dim, width: W, height: H }, r, rnd, x, y, z);
    for (let i = 0; i < n; i++) {
      expect(z[i]).toBeGreaterThanOrEqual(r[i]);
      expect(z[i]).toBeLessThanOrEqual(H - r[i]);
      if (dim === 2) { expect(x[i]).toBeGreaterThanOrEqual(r[i]); expect(x[i]).toBeLessThanOrEqual(W - r[i]); }
      else expect(Math.hypot(x[i] - W / 2, y[i] - W / 2)).toBeLessThanOrEqual(W / 2 - r[i]);
      for (let j = 0; j < i; j++) expect(Math.hypot(x[i] - x[j], y[i] - y[j], z[i] - z[j])).toBeGreaterThanOrEqual(r[i] + r[j]);
    }
  });
});

describe('ball mill parameters', () => {
  it('refuses unknown keys and values out of range, naming the field', () => {
    expect(ballmillParamsSchema.safeParse({ cdo: 'delaunay' }).error?.issues[0].path).toEqual(['cdo']);
    expect(ballmillParamsSchema.safeParse({ dim: 4 }).error?.issues[0].path).toEqual(['dim']);
    expect(ballmillParamsSchema.safeParse({ balls: { count: 10, colour: 'red' } }).error?.issues[0].code).toBe('unrecognized_keys');
    expect(ballmillParamsSchema.safeParse({ vial: { width: -1 } }).error?.issues[0].path).toEqual(['vial', 'width']);
  });

  it('check() names the field and the allowed range of every cross-field rule', () => {
    const issues = (p: Record<string, unknown>) => checkParams(ballmillParamsSchema.parse(p)).map((i) => i.path);
    expect(issues({})).toEqual([]);
    expect(issues({ balls: { count: 100, radius: { law: 'uniform', min: 5, max: 2 } } })).toEqual(['balls.radius.max']);
    expect(issues({ balls: { count: 10, radius: { law: 'fixed', value: 60 } } })).toContain('balls.radius.value');
    expect(issues({ balls: { count: 100, solidFraction: 0.75 } })).toEqual([]);
    expect(issues({ dim: 3, balls: { count: 100, solidFraction: 0.55 } })).toContain('balls.solidFraction');
    expect(issues({ balls: { count: 2000, radius: { law: 'fixed', value: 5 } } })).toContain('balls.count');
    expect(issues({ duration: 0.001 })).toContain('timeStep');
    expect(issues({ output: { frameRate: 500 } })).toContain('output.frameRate');
    expect(issues({ balls: { count: 100000, radius: { law: 'fixed', value: 0.1 } }, output: { frameRate: 100 } })).toContain('output.frameRate');
    expect(issues({ cdo: 'direct', balls: { count: 30000, radius: { law: 'fixed', value: 0.1 } }, output: { frameRate: 0 } })).toContain('cdo');
    const message = checkParams(ballmillParamsSchema.parse({ dim: 3, balls: { count: 100, solidFraction: 0.55 } }))[0].message;
    expect(message).toMatch(/at most 0\.5 in 3D/);
  });

  it('estimates memory that grows with balls and frames', () => {
    const m = (p: Record<string, unknown>) => estimateMemoryBytes(ballmillParamsSchema.parse(p));
    expect(m({ balls: { count: 10000, radius: { law: 'fixed', value: 1 } } })).toBeGreaterThan(m({}));
    expect(m({ output: { frameRate: 200 } })).toBeGreaterThan(m({ output: { frameRate: 0 } }) + 100 * 2001 * 30);
  });
});
