/**
 * What the sampler and the voxel shapes need to know about an implicit surface beyond F itself,
 * found by sampling F on a grid: a tight box around the solid, the surface area, whether the
 * surface is usable, projection of a point onto the surface, and the solid as voxels.
 */
import type { LabelVolume, ParamsIssue } from '../common/engine';
import { implicitFunction, type ImplicitFunction, type ImplicitSurface } from './implicit';
import { Kept } from '../common/kept';
import { Random } from '../common/random';
import { powInt } from '../common/power';

/** Grid nodes per axis when a blobby object's box is tightened by sampling. */
const BOUNDS_SAMPLES = 48;
/** Grid nodes per axis of the area estimate. */
const AREA_SAMPLES = 64;

/** Bisection steps of each face of a blobby object's box. */
const FACE_STEPS = 40;
/** The last blobby solids' boxes (seconds each for 256 blobs). */
const boxes = new Kept<Float64Array>(16);

/**
 * The solid's box [minX, minY, minZ, maxX, maxY, maxZ]: exact for the primitives. For a blobby
 * object, F is sampled on a grid over the conservative ImplicitFunction.bounds; then each face is
 * moved by bisection to the last plane where some node of that grid's lateral rows is inside (the
 * extreme point of a round end lies between lateral nodes: about 0.2 % of the side is missed at
 * worst for blobs a tenth of the shape wide). Cached by surface definition (boxes).
 */
export function solidBounds(surface: ImplicitSurface, fn: ImplicitFunction = implicitFunction(surface)): Float64Array {
  if (surface.kind !== 'blobby') return Float64Array.from(fn.bounds);
  return Float64Array.from(boxes.get(JSON.stringify(surface), () => blobbyBounds(fn)));
}

/** solidBounds of a blobby object, measured. */
function blobbyBounds(fn: ImplicitFunction): Float64Array {
  const b = fn.bounds, n = BOUNDS_SAMPLES;
  const h = [(b[3] - b[0]) / n, (b[4] - b[1]) / n, (b[5] - b[2]) / n];
  const lo = [n + 1, n + 1, n + 1], hi = [-1, -1, -1];
  for (let k = 0; k <= n; k++) for (let j = 0; j <= n; j++) for (let i = 0; i <= n; i++) {
    if (!fn.inside(b[0] + i * h[0], b[1] + j * h[1], b[2] + k * h[2])) continue;
    const ijk = [i, j, k];
    for (let a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], ijk[a]); hi[a] = Math.max(hi[a], ijk[a]); }
  }
  const out = new Float64Array(6); // nothing inside: an empty box (surfaceIssues reports it)
  if (hi[0] >= 0) {
    for (let a = 0; a < 3; a++) {
      const u = (a + 1) % 3, v = (a + 2) % 3;
      // Some lateral node of the plane at coordinate t along axis a is inside.
      const p = [0, 0, 0];
      const inside = (t: number): boolean => {
        p[a] = t;
        for (let j = Math.max(0, lo[u] - 1); j <= Math.min(n, hi[u] + 1); j++) {
          p[u] = b[u] + j * h[u];
          for (let k = Math.max(0, lo[v] - 1); k <= Math.min(n, hi[v] + 1); k++) {
            p[v] = b[v] + k * h[v];
            if (fn.inside(p[0], p[1], p[2])) return true;
          }
        }
        return false;
      };
      for (const side of [0, 3]) {
        let tIn = b[a] + (side === 0 ? lo[a] : hi[a]) * h[a];
        let tOut = side === 0 ? Math.max(b[a], tIn - h[a]) : Math.min(b[a + 3], tIn + h[a]);
        for (let step = 0; step < FACE_STEPS; step++) {
          const t = (tIn + tOut) / 2;
          if (inside(t)) tIn = t; else tOut = t;
        }
        out[a + side] = tOut;
      }
    }
  }
  return out;
}

/** Longest side of a box [min, max]. */
export function longestSide(b: Float64Array): number {
  return Math.max(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
}

/** Some point is inside a blobby object: a blob's ends or middle (at once, usually), else a node of
 *  the grid solidBounds samples. */
function anyInside(surface: ImplicitSurface & { kind: 'blobby' }): boolean {
  const fn = implicitFunction(surface);
  for (const b of surface.blobs) {
    for (const t of [0, 0.5, 1]) {
      if (fn.inside(b.from[0] + t * (b.to[0] - b.from[0]), b.from[1] + t * (b.to[1] - b.from[1]), b.from[2] + t * (b.to[2] - b.from[2]))) return true;
    }
  }
  const box = solidBounds(surface, fn);
  return box[3] > box[0];
}

/**
 * The blobs with a point inside the solid (an end or the middle) that the solid's measured box
 * (solidBounds) leaves out: a part narrower than the box grid's step, far from the rest, falls
 * between its nodes. Each with that point.
 */
function blobsOutsideBox(surface: ImplicitSurface & { kind: 'blobby' }): { blob: number; at: number[] }[] {
  const fn = implicitFunction(surface), box = solidBounds(surface, fn), out: { blob: number; at: number[] }[] = [];
  surface.blobs.forEach((b, k) => {
    for (const t of [0, 0.5, 1]) {
      const p = [0, 1, 2].map((a) => b.from[a] + t * (b.to[a] - b.from[a]));
      if (!fn.inside(p[0], p[1], p[2])) continue;
      // No node inside at all leaves an empty box (all zeros): it holds nothing, the origin neither.
      if (!(box[3] > box[0]) || p.some((c, a) => c < box[a] || c > box[a + 3])) { out.push({ blob: k, at: p }); return; }
    }
  });
  return out;
}

/** Most points a thin stretch is looked for at along one blob's segment (thinBlobPart), and along all
 *  of them: 16 a segment for 256 blobs (a value of F costs a term a blob; 0.1 s more for 256 segments). */
const NECK_SAMPLES = 64, NECK_SAMPLES_ALL = 4096;

/**
 * A part of a blobby object thinner than `below` (the repulsion range, where a box thicker than it
 * does not say so: a filament beside a large blob): of the blobs' points inside the solid (ends and
 * middles), the one across which the solid is thinnest, if thinner than `below`, measured along the
 * two directions square to its segment (the three axes for a point blob). Then necks: along each
 * segment, at steps of below / 2 (NECK_SAMPLES at most, fewer beyond 64 blobs), a stretch at least `below` long
 * where the solid is thinner than `below` across it (a filament whose ends and middle lie inside
 * beads strung on it); a shorter pinch (two blobs whose fields just meet) the particles step over.
 * The blob, the thinnest point and its thickness, and for a neck its stretch's `length`; null if
 * none. At most 2 × 16 + 2 × 40 values of F a direction, 4 a neck's point where the solid is thick.
 */
export function thinBlobPart(surface: ImplicitSurface & { kind: 'blobby' }, below: number): { blob: number; at: number[]; thickness: number; length?: number } | null {
  const fn = implicitFunction(surface), step = below / 16;
  // Distance from p along ±d to the first point outside, or Infinity beyond `below`.
  const exit = (p: number[], d: number[]): number => {
    let k = 1;
    while (k <= 16 && fn.inside(p[0] + k * step * d[0], p[1] + k * step * d[1], p[2] + k * step * d[2])) k++;
    if (k > 16) return Infinity;
    let tIn = (k - 1) * step, tOut = k * step;
    for (let i = 0; i < 40; i++) {
      const t = (tIn + tOut) / 2;
      if (fn.inside(p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2])) tIn = t; else tOut = t;
    }
    return tOut;
  };
  // The solid's thickness across p (the least of the directions), or Infinity if at least `below`.
  const across = (p: number[], directions: number[][]): number => {
    let least = Infinity;
    for (const d of directions) {
      const thickness = exit(p, d) + exit(p, d.map((c) => -c));
      if (thickness < least) least = thickness;
    }
    return least < below ? least : Infinity;
  };
  const blobs = surface.blobs.map((b) => {
    const u = [0, 1, 2].map((a) => b.to[a] - b.from[a]), l = Math.hypot(u[0], u[1], u[2]);
    return { b, u, l, directions: l > 0 ? square(u.map((c) => c / l)) : [[1, 0, 0], [0, 1, 0], [0, 0, 1]] };
  });
  const pointAt = (k: number, t: number) => [0, 1, 2].map((a) => blobs[k].b.from[a] + t * blobs[k].u[a]);
  let thinnest: { blob: number; at: number[]; thickness: number; length?: number } | null = null;
  for (let k = 0; k < blobs.length; k++) {
    for (const t of [0, 0.5, 1]) {
      const p = pointAt(k, t);
      if (!fn.inside(p[0], p[1], p[2])) continue;
      const thickness = across(p, blobs[k].directions);
      if (thickness < (thinnest?.thickness ?? below)) thinnest = { blob: k, at: p, thickness };
    }
  }
  if (thinnest) return thinnest;
  for (let k = 0; k < blobs.length; k++) {
    const { b, l, directions } = blobs[k];
    // A carving blob's segment is no axis of the solid.
    if (!(l > 0) || !(b.strength > 0)) continue;
    const count = Math.min(NECK_SAMPLES, Math.floor(NECK_SAMPLES_ALL / blobs.length), Math.ceil((2 * l) / below));
    // The current run of thin points along the segment: where it began, its thinnest point.
    let start = -1, least: { at: number[]; thickness: number } | null = null;
    for (let i = 0; i <= count + 1; i++) {
      const p = i <= count ? pointAt(k, i / count) : null;
      // Thick where the solid holds the points below / 2 away on both sides along both directions
      // (4 values of F; a hollow between them, which `exit` would find, is not looked for).
      const thick = !p || !fn.inside(p[0], p[1], p[2]) || directions.every((d) =>
        fn.inside(p[0] + (below / 2) * d[0], p[1] + (below / 2) * d[1], p[2] + (below / 2) * d[2]) &&
        fn.inside(p[0] - (below / 2) * d[0], p[1] - (below / 2) * d[1], p[2] - (below / 2) * d[2]));
      const thickness = thick ? Infinity : across(p!, directions);
      if (thickness < Infinity) {
        if (start < 0) start = i;
        if (!least || thickness < least.thickness) least = { at: p!, thickness };
        continue;
      }
      // A run of thin points ended: a neck if it spans at least `below` of the segment.
      const length = start >= 0 ? ((i - 1 - start) / count) * l : 0;
      if (least && length >= below && least.thickness < (thinnest?.thickness ?? below)) thinnest = { blob: k, ...least, length };
      start = -1; least = null;
    }
  }
  return thinnest;
}

/** Two unit vectors square to the unit vector u and to each other. */
function square(u: number[]): number[][] {
  // Crossed with the axis least along u, for a well-conditioned first one.
  const a = [0, 1, 2].reduce((m, i) => (Math.abs(u[i]) < Math.abs(u[m]) ? i : m), 0);
  const e = [0, 0, 0]; e[a] = 1;
  const cross = (p: number[], q: number[]) => [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]];
  const v = cross(u, e), lv = Math.hypot(v[0], v[1], v[2]);
  const first = v.map((c) => c / lv);
  return [first, cross(u, first)];
}

/**
 * Cross-field checks of a surface, each naming its field (under `path`) and the allowed range:
 * a torus tube thinner than its ring, a blobby object whose field reaches the threshold somewhere
 * and whose every part its measured box holds.
 */
export function surfaceIssues(surface: ImplicitSurface, path: string): ParamsIssue[] {
  if (surface.kind === 'torus' && !(surface.minorRadius < surface.majorRadius)) {
    return [{ path: `${path}.minorRadius`, message: `must be less than majorRadius = ${surface.majorRadius} (a ring torus), got ${surface.minorRadius}` }];
  }
  if (surface.kind === 'blobby' && !anyInside(surface)) {
    return [{
      path: `${path}.threshold`,
      message: `the blobs' summed field never reaches the threshold ${surface.threshold} (no point inside); lower the threshold or raise the strengths`,
    }];
  }
  if (surface.kind === 'blobby') {
    // The sampler seeds, and the voxel shapes fill, only the box: a part outside it would be left
    // out without a word.
    const missed = blobsOutsideBox(surface);
    if (missed.length > 0) {
      const b = implicitFunction(surface).bounds;
      const step = Math.max(b[3] - b[0], b[4] - b[1], b[5] - b[2]) / BOUNDS_SAMPLES;
      const { blob, at } = missed[0];
      const others = missed.length > 1 ? ` (and ${missed.length - 1} other blob${missed.length > 2 ? 's' : ''})` : '';
      return [{
        path: `${path}.blobs.${blob}`,
        message: `blob ${blob} is inside at [${at.map((c) => Number(c.toPrecision(6))).join(', ')}] but outside the solid's box as measured on a ${BOUNDS_SAMPLES}-node grid (step ${step.toPrecision(3)})${others}, ` +
          'so its part of the surface would be left out: each part must be at least about a step across, or nearer the other blobs (a smaller box, a finer step)',
      }];
    }
  }
  return [];
}

/** Terms of F: one for a primitive, one a blob for a blobby object (what a value of F costs). */
function termsOf(surface: ImplicitSurface): number {
  return surface.kind === 'blobby' ? surface.blobs.length : 1;
}

/** Grid steps the area estimate takes at least across the box's thinnest side. */
const AREA_STEPS_ACROSS_THINNEST = 16;
/** Terms of F (a primitive is one, a blobby object one per blob) the area estimate may evaluate:
 *  about 0.1 s for a primitive. */
const AREA_MAX_TERMS = 1 << 21;

/**
 * The grid step of the area estimate of a function over a box: AREA_SAMPLES − 4 steps along its
 * longest side, and finer on a flat or thin box (a torus's tube, a flat ellipsoid), up to
 * AREA_STEPS_ACROSS_THINNEST steps across its thinnest side as far as AREA_MAX_TERMS allow.
 */
function areaStep(fn: ImplicitFunction, bounds: Float64Array): number {
  const sides = [0, 1, 2].map((a) => bounds[a + 3] - bounds[a]);
  const coarse = longestSide(bounds) / (AREA_SAMPLES - 4);
  // Nodes of the grid at step h: the box and 4 steps of margin per axis (estimateArea).
  const nodes = (h: number) => sides.reduce((k, s) => k * (Math.ceil(s / h) + 5), 1);
  const terms = termsOf(fn.surface);
  let h = Math.min(coarse, Math.min(...sides) / AREA_STEPS_ACROSS_THINNEST);
  while (h < coarse && nodes(h) * terms > AREA_MAX_TERMS) h = Math.min(coarse, h * 1.05);
  return h;
}

/** Terms of F the narrow band may evaluate beyond the grid's (AREA_MAX_TERMS): about 0.5 s more for a primitive. */
const AREA_REFINE_TERMS = 1 << 23;
/** A level of the narrow band takes at most this share of AREA_REFINE_TERMS, so that 8 levels fit:
 *  beyond it, a random sample of its cells stands for them all (a blob rod 10^4 long and 0.03 thick
 *  needs 7 levels below its grid's step of 0.175, where it has 3·10^8 cells). */
const AREA_LEVEL_SHARE = 1 / 8;
/** Cells a sampled level takes at least: a few hundred gave estimates 20-40 % off that agreed
 *  within 2 % (256 segment blobs, whose band a budget of 2^23 terms samples 500 cells a level). */
const AREA_MIN_SAMPLE = 4096;
/** Relative change between two levels of the narrow band below which its estimate has converged. */
const AREA_CONVERGED = 0.02;
/** A cell of the narrow band is halved while its centre lies within this many of its sides of the
 *  surface (|F|/|∇F|): a descendant's centre within the finest kernel (1.5 of its sides, at most 0.75 of
 *  this cell's) is within √3/2 + 0.75 = 1.62 sides of it; 2.4 leaves room for the first-order distance. */
const BAND_SIDES = 2.4;

/**
 * δ of the area estimate for a distance t in grid steps, per step: the quadratic B-spline (support
 * ±1.5 steps). Its translates by whole steps sum to 1, so a plane along the grid's axes gets the same
 * weight wherever it lies between the nodes; the hat of half-width 1.5 it replaces gave such a plane
 * 0.89 to 1.11 of its area by where it fell (a superquadric of ε 0.1, flat faces along the axes, read
 * 9.8 % too large; 0.6 % now).
 */
function kernel(t: number): number {
  return t < 0.5 ? 0.75 - t * t : t < 1.5 ? 0.5 * (1.5 - t) * (1.5 - t) : 0;
}

/**
 * Surface area by ∫ δ(F/|∇F|) |∇F|/|∇F| dV on a grid (step areaStep): F/|∇F| is the distance to
 * the surface to first order, δ the kernel, 1.5 grid steps each side. A few per cent for shapes the
 * grid resolves; where the kernel is as wide as the solid is thick it counts both sides over the
 * same nodes: with 60 steps along the longest side a torus of tube radius 0.02 R measured 96 % too
 * large, a flat ellipsoid (1, 1, 0.03) 14 % (the finer steps across the thinnest side: 4 and 1 %).
 *
 * A narrow band then checks and refines it, whatever the box: the grid's cells near the surface are
 * halved level by level, each level an estimate from its cells' centres with the kernel 1.5 of its
 * cells wide, until two levels agree within AREA_CONVERGED; the finer is the area. Where a level has
 * more cells than AREA_LEVEL_SHARE of AREA_REFINE_TERMS allows, a random sample of them (seeded: the
 * same area on every host), each counted for the cells it stands for, if at least AREA_MIN_SAMPLE. A torus of tube 0.005 R: +19 %
 * on the grid, which the budget leaves 2.5 steps across the tube, +1.1 % after the band; a filament
 * 0.03 thick beside a sphere blob, in a box whose thinnest side the grid crosses in 16 steps: +32 %,
 * +1.3 %; a blob rod 10^4 long and 0.03 thick: 7.1 times, +1.0 %; a sphere +0.1 %, +0.04 %.
 * `resolved` is false when no two levels agreed within the budget: the area is then uncertain,
 * usually too large. `step` is the finest step taken, `bytes` the most its arrays held at once (at
 * most areaEstimateBytes, which the memory estimate counts). `narrowBand: false` keeps the grid's estimate:
 * the editor's preview, on the page's thread, needs only a rough spacing, and the band costs a thin
 * torus up to a second there.
 */
export function estimateArea(fn: ImplicitFunction, bounds: Float64Array, { narrowBand = true } = {}): { area: number; resolved: boolean; step: number; bytes: number } {
  const h = areaStep(fn, bounds);
  const eps = 1.5 * h, g = new Float64Array(3);
  const n = [0, 1, 2].map((a) => Math.ceil((bounds[a + 3] - bounds[a]) / h) + 4);
  const o = [0, 1, 2].map((a) => (bounds[a] + bounds[a + 3]) / 2 - (n[a] * h) / 2);
  // With the band (in any box: a thin part inside one the grid resolves, a filament of a blobby
  // object, is not), the distances of two planes of nodes, and the lower corners of the cells between
  // them with a node within the band.
  const plane = (n[0] + 1) * (n[1] + 1);
  const dist = narrowBand ? new Float64Array(2 * plane) : null;
  let cells = narrowBand ? new Float64Array(3 * 1024) : null, count = 0;
  // Bytes of the arrays alive now (dist stays in scope to the end), and the most at once.
  let held = (dist?.byteLength ?? 0) + (cells?.byteLength ?? 0), most = held;
  const hold = (bytes: number) => { held += bytes; if (held > most) most = held; };
  const terms = termsOf(fn.surface);
  const budget = AREA_REFINE_TERMS / terms;
  let sum = 0;
  for (let k = 0; k <= n[2]; k++) {
    for (let j = 0; j <= n[1]; j++) for (let i = 0; i <= n[0]; i++) {
      const F = fn.valueAndGradient(o[0] + i * h, o[1] + j * h, o[2] + k * h, g);
      const gl = Math.hypot(g[0], g[1], g[2]);
      const s = gl > 0 ? Math.abs(F) / gl : Infinity;
      if (dist) dist[(k & 1) * plane + j * (n[0] + 1) + i] = s;
      if (s < eps) sum += kernel(s / h) / h;
    }
    if (!dist || k === 0) continue;
    // Each node's nearer distance of the two planes, into the older plane's place.
    const older = ((k - 1) & 1) * plane, newer = (k & 1) * plane;
    for (let q = 0; q < plane; q++) if (dist[newer + q] < dist[older + q]) dist[older + q] = dist[newer + q];
    for (let j = 0; j < n[1]; j++) for (let i = 0; i < n[0]; i++) {
      const q = older + j * (n[0] + 1) + i;
      const near = Math.min(dist[q], dist[q + 1], dist[q + n[0] + 1], dist[q + n[0] + 2]);
      // A corner within the band plus half the cell's diagonal of the cell's centre.
      if (!(near < (BAND_SIDES + 0.87) * h)) continue;
      if (3 * count + 3 > cells!.length) { hold(2 * cells!.byteLength); cells = grow(cells!); hold(-cells.byteLength / 2); }
      cells![3 * count] = o[0] + i * h; cells![3 * count + 1] = o[1] + j * h; cells![3 * count + 2] = o[2] + (k - 1) * h;
      count++;
    }
  }
  const coarse = sum * h * h * h;
  if (!cells) return { area: coarse, resolved: true, step: h, bytes: 0 };
  // Level by level: each cell of the band (or of a sample of it, each standing for 1/share cells) into
  // 8 of half its side, their centres' kernels the level's estimate, those within the band the next
  // level's cells.
  let area = coarse, side = h, spent = 0, weight = 1;
  const random = new Random(1);
  while (count > 0) {
    const share = Math.min(1, (AREA_LEVEL_SHARE * budget) / (8 * count));
    if (spent + 8 * count * share > budget || (share < 1 && count * share < AREA_MIN_SAMPLE)) break;
    const half = side / 2, e = 1.5 * half;
    // The level's cells (where share < 1 a sample, one draw a cell in order) to the front of `cells`,
    // so that their children get an array of 8 a cell at once: it grew by doubling, 3 times its
    // size while copying (a flat ellipsoid (1, 1, 0.001) held 131 MB at once, 81 now). At most sampleCap.
    const chosen: number = share < 1 ? choose(cells, count, share, random) : count;
    const next: Float64Array<ArrayBuffer> = new Float64Array(3 * 8 * chosen);
    let kept = 0, level = 0;
    hold(next.byteLength);
    spent += 8 * chosen;
    for (let c = 0; c < chosen; c++) {
      for (let q = 0; q < 8; q++) {
        const x = cells[3 * c] + (q & 1) * half, y = cells[3 * c + 1] + ((q >> 1) & 1) * half, z = cells[3 * c + 2] + (q >> 2) * half;
        const F = fn.valueAndGradient(x + half / 2, y + half / 2, z + half / 2, g);
        const gl = Math.hypot(g[0], g[1], g[2]);
        const s = gl > 0 ? Math.abs(F) / gl : Infinity;
        if (s < e) level += kernel(s / half) / half;
        if (!(s < BAND_SIDES * half)) continue;
        next[3 * kept] = x; next[3 * kept + 1] = y; next[3 * kept + 2] = z;
        kept++;
      }
    }
    weight /= share;
    const estimate = weight * level * half * half * half;
    const change = Math.abs(estimate - area) / estimate;
    hold(-cells.byteLength);
    area = estimate; side = half; cells = next; count = kept;
    if (change < AREA_CONVERGED) return { area, resolved: true, step: side, bytes: most };
  }
  return { area, resolved: false, step: side, bytes: most };
}

/**
 * Most cells a sampled level of the narrow band takes: the mean of its draws (each of `count` cells
 * with probability `share`) and 8 standard deviations more (the mean is AREA_MIN_SAMPLE or more, so
 * a sample past this has a probability under 10^-15), so that areaEstimateBytes bounds the level's arrays.
 */
function sampleCap(mean: number): number {
  return Math.ceil(mean + 8 * Math.sqrt(mean));
}

/**
 * A sample of cells[0 .. count) (triplets), each with probability `share` (one draw a cell, in
 * order), moved to the front of `cells`, at most sampleCap of them; returns how many.
 */
function choose(cells: Float64Array, count: number, share: number, random: Random): number {
  const most = sampleCap(count * share);
  let chosen = 0;
  for (let c = 0; c < count; c++) {
    if (random.next() >= share || chosen === most) continue;
    cells[3 * chosen] = cells[3 * c]; cells[3 * chosen + 1] = cells[3 * c + 1]; cells[3 * chosen + 2] = cells[3 * c + 2];
    chosen++;
  }
  return chosen;
}

/**
 * The most bytes estimateArea's arrays can hold at once for a surface, whatever the box (its terms of
 * F, a blob each, set the budgets): its grid has at most max(AREA_MAX_TERMS / terms, 65³) nodes (areaStep),
 * at least 5 along each axis, so its two planes of distances at most 2/5 of them; its band's cells,
 * at most one a node, in an array grown by doubling (the old and the new at once while copying: 1.5
 * times the last); a level's children, 8 a cell of at most CELLS = LEVEL / 8 (LEVEL = AREA_LEVEL_SHARE
 * × AREA_REFINE_TERMS / terms: a level of more cells is sampled, at most sampleCap(CELLS) of them)
 * beside the last level's cells (the band's, or the last level's children). 83 MB for a primitive
 * (133 MB while a level's array grew by doubling); a flat ellipsoid (1, 1, 0.001) holds 81 MB.
 */
export function areaEstimateBytes(surface: ImplicitSurface): number {
  const terms = termsOf(surface);
  const nodes = Math.max(AREA_MAX_TERMS / terms, powInt(AREA_SAMPLES + 1, 3));
  const tripletBytes = 3 * 8;
  const band = tripletBytes * 1024 * powInt(2, Math.ceil(Math.log2(Math.max(1, nodes / 1024))));
  // + 1: estimateArea reaches the same mean by another rounding.
  const level = tripletBytes * 8 * (sampleCap((AREA_LEVEL_SHARE * AREA_REFINE_TERMS) / terms / 8) + 1);
  return 2 * 8 * (nodes / 5) + Math.max(1.5 * band, band + level, 2 * level);
}

/** A copy of `a` twice as long. */
function grow(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const b = new Float64Array(2 * a.length);
  b.set(a);
  return b;
}

const gradient = new Float64Array(3);

/**
 * Moves (x, y, z) onto the surface by Newton steps along the gradient, x ← x − F ∇F / |∇F|², each
 * at most `maxStep` long. Writes the point to out[0..2] and returns its residual |F|/|∇F| (Infinity
 * where the gradient vanishes).
 */
export function projectToSurface(fn: ImplicitFunction, x: number, y: number, z: number, maxStep: number, out: Float64Array): number {
  const g = gradient;
  let r = Infinity;
  for (let it = 0; it < 50; it++) {
    const F = fn.valueAndGradient(x, y, z, g);
    const g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    if (!(g2 > 0)) return Infinity;
    r = Math.abs(F) / Math.sqrt(g2);
    if (r < 1e-12 * maxStep) break;
    const k = Math.min(1, maxStep / r) * (F / g2);
    x -= k * g[0]; y -= k * g[1]; z -= k * g[2];
  }
  out[0] = x; out[1] = y; out[2] = z;
  return r;
}

const projected = new Float64Array(3);

/**
 * Distance from (x, y, z) to the surface point Newton's steps along ∇F reach from it
 * (projectToSurface, each step at most `maxStep`), plus the residual left if they did not get
 * there: not less than the distance to the surface, and |F|/|∇F| to first order where the surface
 * is flat within it. |F|/|∇F| alone, the distance to the plane of F's level set, is far less
 * beyond a sharp tip or edge of a flat solid: a superquadric (1, 1, 0.2) of ε 2 at spacing 0.1
 * ended 'uniform' with 41-45 particles 0.01 to 0.038 beyond its tips (their distances to its faces,
 * exact), every |F|/|∇F| under stop.surfaceTolerance × spacing = 0.01. Infinity where the
 * gradient vanishes.
 */
export function surfaceDistance(fn: ImplicitFunction, x: number, y: number, z: number, maxStep: number): number {
  const r = projectToSurface(fn, x, y, z, maxStep, projected);
  return r === Infinity ? Infinity : Math.hypot(projected[0] - x, projected[1] - y, projected[2] - z) + r;
}

/**
 * The frame a sampling's results are given in (as a packing's box): the solid's box widened by a
 * margin of 2.5 % of its longest side on every side. Results are in surface coordinates minus
 * `offset`, so that the frame spans [0, size] on each axis.
 */
export function sampleFrame(bounds: Float64Array): { offset: [number, number, number]; size: [number, number, number] } {
  const m = 0.025 * longestSide(bounds);
  return {
    offset: [bounds[0] - m, bounds[1] - m, bounds[2] - m],
    size: [bounds[3] - bounds[0] + 2 * m, bounds[4] - bounds[1] + 2 * m, bounds[5] - bounds[2] + 2 * m],
  };
}

/** Where a volume of the solid lies: its lowest corner and its size (sampleFrame). */
type Frame = { offset: readonly number[]; size: readonly number[] };

/**
 * The solid (F < 0) sampled at voxel centres over a frame (sampleFrame), `across` voxels along its
 * longest side: a label volume (1 inside, 0 outside) whose voxel (0, 0, 0) has its corner at the
 * frame's offset (the other sides rounded up to whole voxels). `stop`, asked before each z-plane
 * with the planes done and their count (progress, and a cancel: true stops it and gives null),
 * because a large one takes minutes: 512 across is 1.3·10⁸ values of F, each a sum over up to
 * 256 blobs (three blobs at 256 across: 3-7 s).
 */
export function voxeliseSolid(fn: ImplicitFunction, frame: Frame, across: number, name?: string): LabelVolume;
export function voxeliseSolid(fn: ImplicitFunction, frame: Frame, across: number, name: string, stop: (planes: number, total: number) => boolean): LabelVolume | null;
export function voxeliseSolid(fn: ImplicitFunction, frame: Frame, across: number, name = 'solid', stop: (planes: number, total: number) => boolean = () => false): LabelVolume | null {
  if (!Number.isInteger(across) || across < 1 || across > 1024) throw new RangeError(`voxels across must be an integer in [1, 1024], got ${across}`);
  const o = frame.offset, v = Math.max(frame.size[0], frame.size[1], frame.size[2]) / across;
  const dims: [number, number, number] = [0, 1, 2].map((a) => Math.max(1, Math.ceil(frame.size[a] / v - 1e-9))) as [number, number, number];
  const labels = new Uint32Array(dims[0] * dims[1] * dims[2]);
  let solid = 0;
  for (let k = 0, idx = 0; k < dims[2]; k++) {
    if (stop(k, dims[2])) return null;
    for (let j = 0; j < dims[1]; j++) for (let i = 0; i < dims[0]; i++, idx++) {
      if (fn.inside(o[0] + (i + 0.5) * v, o[1] + (j + 0.5) * v, o[2] + (k + 0.5) * v)) { labels[idx] = 1; solid++; }
    }
  }
  return { kind: 'volume', name, dims, voxelSize: v, labels, meta: { offset: [o[0], o[1], o[2]], solidVoxels: solid, labels: '1 = inside the surface (F < 0), 0 = outside' } };
}
