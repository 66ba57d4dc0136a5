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
 *
 * The part of a sphere's surface inside a box (sphereSurfaceInBox, the RDF's edge correction) needs
 * no integration: it is in closed form.
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

/**
 * ∫₀^w asin(a / √(1 − s²)) ds on the unit sphere's axis (0 ≤ a < 1, |w| ≤ √(1 − a²)): the arc a side
 * at distance a takes from the circle at height w, summed up to w, in closed form (check: its
 * derivative is the integrand).
 */
function capArcIntegral(a: number, w: number): number {
  if (a === 0) return 0;
  const c2 = 1 - a * a;
  return w * Math.asin(Math.min(1, a / Math.sqrt(1 - w * w))) + a * Math.asin(Math.max(-1, Math.min(1, w / Math.sqrt(c2))))
    - Math.atan2(a * w, Math.sqrt(Math.max(0, c2 - w * w)));
}

/**
 * Area of the unit sphere with u > a and v > b (u, v two axes, w the third; a, b ≥ 0) between the
 * heights 0 and w: on the circle at height w (radius ρ) the arc between asin(b/ρ) and acos(a/ρ) in
 * azimuth, and dA = dφ dw on a unit sphere (Archimedes), so its integral over w. For |w| ≤ √(1 − a² − b²),
 * the heights where the circle reaches beyond both sides.
 */
function wedgeAreaUpTo(a: number, b: number, w: number): number {
  return (Math.PI / 2) * w - capArcIntegral(a, w) - capArcIntegral(b, w);
}

/**
 * wedgeAreaUpTo(a, b, h) at the top of the wedge, h = √(1 − a² − b²), where its terms simplify
 * (a / ρ = a / √(a² + b²), whose arcsine and b's add up to π/2; √(1 − a² − h²) = b): two arcsines
 * fewer. A centre on the edge itself (a = b = 0) holds a quarter of the upper half, π/2.
 */
function wedgeAreaTop(a: number, b: number, h: number): number {
  if (a === 0 && b === 0) return Math.PI / 2;
  return Math.atan2(a * h, b) + Math.atan2(b * h, a)
    - a * Math.asin(Math.min(1, h / Math.sqrt(1 - a * a))) - b * Math.asin(Math.min(1, h / Math.sqrt(1 - b * b)));
}

/** Area of the unit sphere beyond two sides of different axes at distances a and b (≥ 0): u > a, v > b. */
function edgeArea(a: number, b: number): number {
  const h2 = 1 - a * a - b * b;
  // The integrand is even in w, so the area from −h to h is twice that from 0 to h.
  return h2 > 0 ? 2 * wedgeAreaTop(a, b, Math.sqrt(h2)) : 0;
}

/** Area of the unit sphere beyond three sides, one of each axis, at distances a, b, c (≥ 0): u > a, v > b, w > c. */
function cornerArea(a: number, b: number, c: number): number {
  const h2 = 1 - a * a - b * b;
  if (!(c * c < h2)) return 0;
  return wedgeAreaTop(a, b, Math.sqrt(h2)) - wedgeAreaUpTo(a, b, c);
}

/** The distances to the six sides over the radius (scratch of sphereSurfaceInBox; it allocates nothing). */
const reach = new Float64Array(6);

/**
 * Fraction of the surface of a sphere of radius d whose centre lies inside a box, that lies inside
 * it: `sides` holds the centre's distances to the box's six sides (x low, x high, y low, y high,
 * z low, z high), Infinity for the sides of a periodic axis (they do not cut). Exact, in closed form,
 * for any d: by inclusion–exclusion over the parts beyond the sides. Beyond a side at distance t·d
 * lies a cap of area 2π(1 − t) d² (Archimedes); the two sides of one axis cut disjoint caps; sides of
 * two or three axes share the parts beyond both (edgeArea) or all three (cornerArea).
 */
export function sphereSurfaceInBox(sides: Float64Array, d: number): number {
  let outside = 0, axesCut = 0;
  for (let a = 0; a < 3; a++) {
    const lo = sides[2 * a], hi = sides[2 * a + 1];
    // 1: the side does not cut (the checks below ask for < 1).
    reach[2 * a] = lo < d ? lo / d : 1;
    reach[2 * a + 1] = hi < d ? hi / d : 1;
    if (lo < d || hi < d) {
      axesCut++;
      outside += 2 * Math.PI * ((1 - reach[2 * a]) + (1 - reach[2 * a + 1]));
    }
  }
  // The sides of one axis at most (a slab's floor and top, the common case): only disjoint caps.
  if (axesCut < 2) return 1 - outside / (4 * Math.PI);
  for (let a = 0; a < 2; a++) {
    for (let b = a + 1; b < 3; b++) {
      for (let p = 2 * a; p < 2 * a + 2; p++) {
        if (!(reach[p] < 1)) continue;
        for (let q = 2 * b; q < 2 * b + 2; q++) if (reach[q] < 1) outside -= edgeArea(reach[p], reach[q]);
      }
    }
  }
  for (let p = 0; p < 2; p++) {
    if (!(reach[p] < 1)) continue;
    for (let q = 2; q < 4; q++) {
      if (!(reach[q] < 1)) continue;
      for (let s = 4; s < 6; s++) if (reach[s] < 1) outside += cornerArea(reach[p], reach[q], reach[s]);
    }
  }
  return 1 - outside / (4 * Math.PI);
}
