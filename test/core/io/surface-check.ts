/**
 * Independent checks of triangle surfaces as STL readers see them: vertices joined by exact
 * coordinates, edges counted, vertex links walked, Euler characteristic, enclosed volume, and the
 * winding number (solid angles) of points. Shares nothing with the writers.
 */

export interface SurfaceReport {
  triangles: number;
  vertices: number;
  edges: number;
  /** Edges not used by exactly two triangles. */
  badEdges: number;
  /** Edges whose two triangles run them the same way. */
  misoriented: number;
  /** Vertices whose triangles do not form one single fan (a disk) around them. */
  pinched: number;
  components: number;
  euler: number;
  volume: number;
}

export function checkSurface(positions: ArrayLike<number>): SurfaceReport {
  const ids = new Map<string, number>();
  const vid = (t: number, k: number) => {
    const key = `${positions[9 * t + 3 * k]},${positions[9 * t + 3 * k + 1]},${positions[9 * t + 3 * k + 2]}`;
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  };
  const n = positions.length / 9;
  const tris: number[][] = [];
  for (let t = 0; t < n; t++) tris.push([vid(t, 0), vid(t, 1), vid(t, 2)]);
  const edges = new Map<string, { fwd: number; back: number; tris: number[] }>();
  tris.forEach((tri, t) => {
    for (let k = 0; k < 3; k++) {
      const a = tri[k], b = tri[(k + 1) % 3];
      const key = `${Math.min(a, b)}:${Math.max(a, b)}`;
      const e = edges.get(key) ?? { fwd: 0, back: 0, tris: [] };
      if (a < b) e.fwd++; else e.back++;
      e.tris.push(t);
      edges.set(key, e);
    }
  });
  let badEdges = 0, misoriented = 0;
  const parent = tris.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (const e of edges.values()) {
    if (e.fwd + e.back !== 2) badEdges++;
    else if (e.fwd !== 1) misoriented++;
    for (const t of e.tris) parent[find(t)] = find(e.tris[0]);
  }
  // Link of each vertex: the opposite edges of its triangles must form one cycle.
  const link = new Map<number, [number, number][]>();
  for (const [a, b, c] of tris) {
    for (const [v, p, q] of [[a, b, c], [b, c, a], [c, a, b]]) {
      const l = link.get(v) ?? [];
      l.push([p, q]);
      link.set(v, l);
    }
  }
  let pinched = 0;
  for (const l of link.values()) {
    const next = new Map<number, number>();
    let ok = true;
    for (const [p, q] of l) { if (next.has(p)) ok = false; next.set(p, q); }
    let steps = 0;
    for (let at = l[0][0]; ok; ) {
      const to = next.get(at);
      if (to === undefined) { ok = false; break; }
      at = to;
      steps++;
      if (at === l[0][0]) break;
      if (steps > l.length) ok = false;
    }
    if (!ok || steps !== l.length) pinched++;
  }
  let volume = 0;
  for (let t = 0; t < n; t++) {
    const p = (k: number, a: number) => positions[9 * t + 3 * k + a];
    volume += (p(0, 0) * (p(1, 1) * p(2, 2) - p(1, 2) * p(2, 1)) - p(0, 1) * (p(1, 0) * p(2, 2) - p(1, 2) * p(2, 0)) + p(0, 2) * (p(1, 0) * p(2, 1) - p(1, 1) * p(2, 0))) / 6;
  }
  const roots = new Set(tris.map((_, i) => find(i)));
  return { triangles: n, vertices: ids.size, edges: edges.size, badEdges, misoriented, pinched, components: roots.size, euler: ids.size - edges.size + n, volume };
}

/** Winding number of point q: the triangles' solid angles (Van Oosterom & Strackee) over 4π. */
export function windingNumber(positions: ArrayLike<number>, q: readonly number[]): number {
  let sum = 0;
  for (let t = 0; t < positions.length / 9; t++) {
    const v = [0, 1, 2].map((k) => [0, 1, 2].map((a) => positions[9 * t + 3 * k + a] - q[a]));
    const len = v.map((p) => Math.hypot(p[0], p[1], p[2]));
    const [a, b, c] = v;
    const det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    const dot = (p: number[], r: number[]) => p[0] * r[0] + p[1] * r[1] + p[2] * r[2];
    const den = len[0] * len[1] * len[2] + dot(a, b) * len[2] + dot(b, c) * len[0] + dot(c, a) * len[1];
    sum += 2 * Math.atan2(det, den);
  }
  return sum / (4 * Math.PI);
}

/** Solids of an ASCII STL: name → flat positions (nine numbers a triangle). */
export function asciiSolids(text: string): Map<string, Float64Array> {
  const solids = new Map<string, Float64Array>();
  let name: string | null = null, coords: number[] = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'solid') { name = words[1]; coords = []; }
    else if (words[0] === 'vertex') coords.push(...words.slice(1, 4).map(Number));
    else if (words[0] === 'endsolid') {
      if (words[1] !== name || name === null) throw new Error(`endsolid ${words[1]} closes ${name}`);
      if (solids.has(name)) throw new Error(`solid ${name} twice`);
      solids.set(name, Float64Array.from(coords));
      name = null;
    }
  }
  if (name !== null) throw new Error(`solid ${name} not closed`);
  return solids;
}
