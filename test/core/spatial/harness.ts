/**
 * Randomized equivalence harness: drives a structure and brute force with the same seeded stream of
 * inserts, removals, moves, resizes and queries, and compares pair sets and query results exactly.
 * The reference here is a plain O(n^2) loop over a Map of shapes, written independently of
 * core/spatial (its own overlap test), so a shared shortcut cannot hide a bug.
 */
import { expect } from 'vitest';
import { Random } from '../../../core/common/random';
import type { SpatialIndex } from '../../../core/spatial/types';

export interface Scenario {
  dim: 2 | 3;
  /** Domain edge; periodic domains use it as the period on every axis. */
  size: number;
  periodic: boolean;
  /** Largest / smallest radius. */
  sizeRatio: number;
  clustered: boolean;
  /** Mix axis-aligned boxes with the spheres. */
  boxes: boolean;
  /** Objects at the start, and id capacity. */
  n: number;
  capacity: number;
  operations: number;
  seed: number;
  /** Smallest radius. */
  rMin: number;
}

interface Shape { x: number; y: number; z: number; hx: number; hy: number; hz: number; sphere: boolean }

function nearest(d: number, p: number): number {
  return p > 0 ? d - p * Math.round(d / p) : d;
}

/** Reference overlap written from the definitions: nearest image, then sphere/box distance. */
function overlap(a: Shape, b: Shape, period: number, dim: number): boolean {
  const d = [nearest(a.x - b.x, period), nearest(a.y - b.y, period), dim === 3 ? nearest(a.z - b.z, period) : 0];
  const ha = [a.hx, a.hy, a.hz], hb = [b.hx, b.hy, b.hz];
  if (a.sphere && b.sphere) return d[0] ** 2 + d[1] ** 2 + d[2] ** 2 <= (a.hx + b.hx) ** 2;
  if (!a.sphere && !b.sphere) return [0, 1, 2].every((k) => Math.abs(d[k]) <= ha[k] + hb[k]);
  const [s, box] = a.sphere ? [ha, hb] : [hb, ha];
  let dist2 = 0;
  for (let k = 0; k < 3; k++) dist2 += Math.max(0, Math.abs(d[k]) - box[k]) ** 2;
  return dist2 <= s[0] ** 2;
}

function pairKey(a: number, b: number, cap: number): number {
  return Math.min(a, b) * cap + Math.max(a, b);
}

export interface EquivalenceReport { pairChecks: number; queryChecks: number; pairsSeen: number; operations: number }

/** Runs the scenario against `index` (built with the scenario's dim, capacity and period) and throws
 *  on the first difference from the reference. */
export function checkEquivalence(index: SpatialIndex, sc: Scenario): EquivalenceReport {
  const rnd = new Random(sc.seed);
  const period = sc.periodic ? sc.size : 0;
  const shapes = new Map<number, Shape>();
  const clusters = Array.from({ length: 4 }, () => [rnd.uniform(0, sc.size), rnd.uniform(0, sc.size), rnd.uniform(0, sc.size)]);
  const coord = (k: number) => {
    if (!sc.clustered) return rnd.uniform(0, sc.size);
    const c = clusters[rnd.int(clusters.length)][k];
    return Math.min(sc.size, Math.max(0, c + rnd.normal() * sc.size * 0.03));
  };
  const newShape = (): Shape => {
    const r = sc.rMin * (1 + (sc.sizeRatio - 1) * rnd.next() ** 2);
    const sphere = !sc.boxes || rnd.next() < 0.5;
    const z = sc.dim === 3 ? coord(2) : 0;
    const s: Shape = { x: coord(0), y: coord(1), z, hx: r, hy: r, hz: sc.dim === 3 ? r : 0, sphere };
    if (!sphere) { s.hx = r * rnd.uniform(0.3, 1); s.hy = r * rnd.uniform(0.3, 1); if (sc.dim === 3) s.hz = r * rnd.uniform(0.3, 1); }
    else if (sc.dim === 2) s.hz = r;
    return s;
  };
  const put = (id: number, s: Shape, insert: boolean) => {
    shapes.set(id, s);
    if (s.sphere) (insert ? index.insertSphere : index.updateSphere).call(index, id, s.x, s.y, s.z, s.hx);
    else (insert ? index.insertBox : index.updateBox).call(index, id, s.x, s.y, s.z, s.hx, s.hy, s.hz);
  };
  const free = () => { let id; do id = rnd.int(sc.capacity); while (shapes.has(id)); return id; };
  const report: EquivalenceReport = { pairChecks: 0, queryChecks: 0, pairsSeen: 0, operations: 0 };

  const comparePairs = (when: string) => {
    const got: number[] = [];
    index.pairs((a, b) => got.push(pairKey(a, b, sc.capacity)));
    got.sort((p, q) => p - q);
    const ids = [...shapes.keys()];
    const want: number[] = [];
    for (let a = 0; a < ids.length; a++) {
      for (let b = a + 1; b < ids.length; b++) {
        if (overlap(shapes.get(ids[a])!, shapes.get(ids[b])!, period, sc.dim)) want.push(pairKey(ids[a], ids[b], sc.capacity));
      }
    }
    want.sort((p, q) => p - q);
    if (got.length !== want.length || got.some((v, k) => v !== want[k])) {
      const g = new Set(got), w = new Set(want);
      const missing = want.filter((v) => !g.has(v)).slice(0, 5).map((v) => [Math.floor(v / sc.capacity), v % sc.capacity]);
      const extra = got.filter((v) => !w.has(v)).slice(0, 5).map((v) => [Math.floor(v / sc.capacity), v % sc.capacity]);
      throw new Error(`${index.name}: pair set differs ${when}: ${got.length} vs ${want.length} pairs, missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)}, duplicates ${got.length - g.size}`);
    }
    report.pairChecks++;
    report.pairsSeen += want.length;
  };

  const compareQuery = (when: string) => {
    const q = newShape();
    q.hx *= 3; q.hy *= 3; if (sc.dim === 3 || q.sphere) q.hz *= 3;
    if (sc.periodic) { const lim = sc.size / 4 * 0.99; q.hx = Math.min(q.hx, lim); q.hy = Math.min(q.hy, lim); q.hz = Math.min(q.hz, lim); }
    const got: number[] = [];
    if (q.sphere) index.querySphere(q.x, q.y, q.z, q.hx, (id) => got.push(id));
    else index.queryBox(q.x - q.hx, q.y - q.hy, q.z - q.hz, q.x + q.hx, q.y + q.hy, q.z + q.hz, (id) => got.push(id));
    got.sort((a, b) => a - b);
    const want = [...shapes.entries()].filter(([, s]) => overlap(s, q, period, sc.dim)).map(([id]) => id).sort((a, b) => a - b);
    if (got.length !== want.length || got.some((v, k) => v !== want[k])) {
      throw new Error(`${index.name}: ${q.sphere ? 'sphere' : 'box'} query differs ${when}: got ${got.length} ids, want ${want.length}`);
    }
    report.queryChecks++;
    // The query by an object's own shape (queryObject), for a live object.
    if (shapes.size === 0) return;
    const ids = [...shapes.keys()];
    const of = ids[rnd.int(ids.length)], shape = shapes.get(of)!;
    const gotOwn: number[] = [];
    index.queryObject(of, (id) => gotOwn.push(id));
    gotOwn.sort((a, b) => a - b);
    const wantOwn = [...shapes.entries()].filter(([, s]) => overlap(s, shape, period, sc.dim)).map(([id]) => id).sort((a, b) => a - b);
    if (gotOwn.length !== wantOwn.length || gotOwn.some((v, k) => v !== wantOwn[k])) {
      throw new Error(`${index.name}: queryObject(${of}) differs ${when}: got ${gotOwn.length} ids, want ${wantOwn.length}`);
    }
  };

  for (let k = 0; k < sc.n; k++) put(free(), newShape(), true);
  comparePairs('after the initial inserts');
  compareQuery('after the initial inserts');
  const step = sc.rMin * 0.3;
  for (let op = 0; op < sc.operations; op++) {
    const u = rnd.next();
    const ids = [...shapes.keys()];
    if (u < 0.1 && shapes.size < sc.capacity) {
      put(free(), newShape(), true);
    } else if (u < 0.2 && ids.length > 0) {
      const id = ids[rnd.int(ids.length)];
      shapes.delete(id);
      index.remove(id);
    } else if (u < 0.25 && ids.length > 0) {
      put(ids[rnd.int(ids.length)], newShape(), false);
    } else if (ids.length > 0) {
      // Mostly small moves (the common case of a time step), sometimes a jump.
      const id = ids[rnd.int(ids.length)];
      const s = shapes.get(id)!;
      const jump = rnd.next() < 0.05;
      const m = (v: number) => (jump ? coord(0) : v + rnd.uniform(-step, step));
      s.x = m(s.x); s.y = m(s.y); if (sc.dim === 3) s.z = m(s.z);
      index.move(id, s.x, s.y, s.z);
    }
    report.operations++;
    if (op % 97 === 96) comparePairs(`after operation ${op}`);
    if (op % 31 === 30) compareQuery(`after operation ${op}`);
  }
  comparePairs('at the end');
  expect(index.count).toBe(shapes.size);
  return report;
}

/** Every combination the issue asks for: dimensions, uniform/clustered, size ratio 1 and 10, periodic or not. */
export function scenarios(opts: { periodic: boolean[]; n: number; operations: number }): Scenario[] {
  const out: Scenario[] = [];
  let seed = 1;
  for (const dim of [2, 3] as const) {
    for (const periodic of opts.periodic) {
      for (const clustered of [false, true]) {
        for (const sizeRatio of [1, 10]) {
          out.push({
            dim, size: 100, periodic, sizeRatio, clustered, boxes: sizeRatio === 10, n: opts.n,
            capacity: Math.round(opts.n * 1.5), operations: opts.operations, seed: seed++,
            rMin: dim === 3 ? 2 : 1.2,
          });
        }
      }
    }
  }
  return out;
}
