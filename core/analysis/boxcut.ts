/**
 * The part of a sphere inside a box whose sides cut it: along a side that is not periodic, the
 * solid beyond it is not in the box (a periodic side brings it back in at the opposite side).
 *
 * Per height z the sphere's cross-section is a disk of radius ρ(z) = √(r² − (z − c)²); its area
 * inside the rectangle [x0, x1] × [y0, y1] is exact (quadrantArea, by inclusion–exclusion), and the
 * volume between two heights is that area integrated over z: Gauss–Legendre on the pieces between
 * the heights where the disk meets a side or a corner (where the area has a kink), after the
 * substitution z = m − h cos(πu), which makes the square-root behaviour at those heights smooth.
 * It gives a sphere's halves, quarters and eighths to 1e-15, and caps to 1e-11 of their volume.
 */

/** Nodes (on [0, 1]) and weights of Gauss–Legendre with `n` points (Newton on P_n). */
function gaussLegendre(n: number): { nodes: Float64Array; weights: Float64Array } {
  const nodes = new Float64Array(n), weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let t = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let dp = 0;
    for (let it = 0; it < 100; it++) {
      let p0 = 1, p1 = t;
      for (let k = 2; k <= n; k++) { const p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k; p0 = p1; p1 = p2; }
      dp = (n * (t * p1 - p0)) / (t * t - 1);
      const step = p1 / dp;
      t -= step;
      if (Math.abs(step) < 1e-16) break;
    }
    nodes[i] = (1 - t) / 2;
    weights[i] = 1 / ((1 - t * t) * dp * dp);
  }
  return { nodes, weights };
}

const GL = gaussLegendre(16);

/** ∫ √(ρ² − x²) dx from 0 to x, for |x| ≤ ρ. */
function chordIntegral(x: number, rho: number): number {
  return (x * Math.sqrt(Math.max(0, rho * rho - x * x)) + rho * rho * Math.asin(x / rho)) / 2;
}

/** Area of the disk of radius ρ centred at the origin with x < X and y < Y. */
function quadrantArea(X: number, Y: number, rho: number): number {
  X = Math.min(rho, Math.max(-rho, X));
  Y = Math.min(rho, Math.max(-rho, Y));
  // Over |x| < w the chord reaches above |Y|: there the disk holds y in (−s, Y); beyond w, all of
  // the chord (Y > 0) or none of it (Y < 0).
  const w = Math.sqrt(Math.max(0, rho * rho - Y * Y));
  const S = (x: number) => chordIntegral(x, rho);
  const inner = (lo: number, hi: number) => (hi > lo ? Y * (hi - lo) + S(hi) - S(lo) : 0);
  const outer = (lo: number, hi: number) => (hi > lo && Y > 0 ? 2 * (S(hi) - S(lo)) : 0);
  return outer(-rho, Math.min(X, -w)) + inner(-w, Math.min(X, w)) + outer(w, Math.min(X, rho));
}

/** Area of the disk of radius ρ centred at the origin beyond the line at distance e: {u > e}, |e| < ρ. */
function segmentArea(e: number, rho: number): number {
  return rho * rho * Math.acos(e / rho) - e * Math.sqrt(rho * rho - e * e);
}

/** Area of the disk of radius ρ centred at the origin inside [x0, x1] × [y0, y1]. */
export function diskInRectangle(rho: number, x0: number, x1: number, y0: number, y1: number): number {
  if (!(rho > 0) || x1 <= -rho || x0 >= rho || y1 <= -rho || y0 >= rho) return 0;
  const cx0 = x0 > -rho, cx1 = x1 < rho, cy0 = y0 > -rho, cy1 = y1 < rho;
  const cuts = Number(cx0) + Number(cx1) + Number(cy0) + Number(cy1);
  if (cuts === 0) return Math.PI * rho * rho;
  // One side cutting the disk (most spheres the box cuts): its segment, in closed form.
  if (cuts === 1) return segmentArea(cx0 ? x0 : cx1 ? -x1 : cy0 ? y0 : -y1, rho);
  return quadrantArea(x1, y1, rho) - quadrantArea(x0, y1, rho) - quadrantArea(x1, y0, rho) + quadrantArea(x0, y0, rho);
}

/**
 * Volume of the sphere of radius r centred at (cx, cy, c) between heights a and b inside
 * [x0, x1] × [y0, y1] (±Infinity for a side that does not cut it).
 */
export function sphereSliceVolumeIn(cx: number, cy: number, c: number, r: number, a: number, b: number, x0: number, x1: number, y0: number, y1: number): number {
  const lo = Math.max(a, c - r), hi = Math.min(b, c + r);
  if (!(hi > lo)) return 0;
  const rx0 = x0 - cx, rx1 = x1 - cx, ry0 = y0 - cy, ry1 = y1 - cy;
  // Heights where the disk meets a side (ρ = its distance) or a corner: kinks of the area.
  const breaks: number[] = [lo, hi];
  const meet = (d2: number) => {
    if (!(d2 < r * r)) return;
    const t = Math.sqrt(r * r - d2);
    for (const zb of [c - t, c + t]) if (zb > lo && zb < hi) breaks.push(zb);
  };
  for (const dx of [rx0, rx1]) {
    if (Number.isFinite(dx)) meet(dx * dx);
    for (const dy of [ry0, ry1]) if (Number.isFinite(dx) && Number.isFinite(dy)) meet(dx * dx + dy * dy);
  }
  for (const dy of [ry0, ry1]) if (Number.isFinite(dy)) meet(dy * dy);
  breaks.sort((p, q) => p - q);
  let volume = 0;
  for (let k = 0; k + 1 < breaks.length; k++) {
    // Pieces of at most r / 4 each (a slab of the profile is one; the bulk's whole height is many).
    const parts = Math.ceil((breaks[k + 1] - breaks[k]) / (r / 4));
    const step = (breaks[k + 1] - breaks[k]) / parts;
    for (let p = 0; p < parts; p++) {
      const h = step / 2, m = breaks[k] + (p + 0.5) * step;
      if (!(h > 0)) continue;
      for (let q = 0; q < GL.nodes.length; q++) {
        const u = GL.nodes[q];
        const z = m - h * Math.cos(Math.PI * u);
        const rho = Math.sqrt(Math.max(0, r * r - (z - c) * (z - c)));
        volume += GL.weights[q] * h * Math.PI * Math.sin(Math.PI * u) * diskInRectangle(rho, rx0, rx1, ry0, ry1);
      }
    }
  }
  return volume;
}
