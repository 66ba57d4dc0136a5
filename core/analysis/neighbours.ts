/**
 * Neighbours of sphere centres within a reach, on a uniform cell grid built once (counting sort of
 * the centres by cell). Periodic axes use the minimum image; an axis with too few cells for the
 * reach is scanned whole, so no cell is visited twice. A periodic side shorter than twice the reach
 * holds a neighbour more than once within it (a lattice's unit cell: a sphere touches several
 * images of one other sphere, and its own): then every image within reach is visited, each once.
 * Queries allocate nothing.
 */
export class SphereGrid {
  private readonly nc: [number, number, number];
  private readonly lo: [number, number, number];
  private readonly len: [number, number, number];
  private readonly start: Uint32Array;
  private readonly sorted: Uint32Array;
  private readonly lists: [Int32Array, Int32Array, Int32Array];

  constructor(
    private readonly x: Float64Array,
    private readonly y: Float64Array,
    private readonly z: Float64Array,
    private readonly box: readonly [number, number, number],
    private readonly periodic: readonly [boolean, boolean, boolean],
    cellSize: number,
  ) {
    const n = x.length;
    let zmin = Infinity, zmax = -Infinity;
    for (let i = 0; i < n; i++) { if (z[i] < zmin) zmin = z[i]; if (z[i] > zmax) zmax = z[i]; }
    this.lo = [0, 0, periodic[2] ? 0 : zmin];
    this.len = [box[0], box[1], periodic[2] ? box[2] : Math.max(zmax - zmin, 1e-12)];
    this.nc = this.len.map((l) => Math.max(1, Math.min(1024, Math.floor(l / cellSize)))) as [number, number, number];
    // A few spheres in a large box would ask for up to 1024^3 cells (8 GiB of offsets): at most
    // about two cells per sphere (a dense bed has about one per sphere at this cell size anyway).
    // Measured on stacker packings (sphereContacts, 1,800-300,000 balls, 2D and 3D, 1-7 size bands,
    // best of 3-15 CPU times): a floor of 512 or 32,768 cells instead of 4096 moved the time by at
    // most 5 %, and so did 4-64 cells per sphere but on 250,000 disks of a 1:100 Fuller curve (8 per
    // disk: 10 % faster, for 28 more bytes per disk); 1 per sphere was 5-10 % slower. The floor costs
    // 32 KiB per band.
    const maxCells = Math.max(4096, 2 * n);
    while (this.nc[0] * this.nc[1] * this.nc[2] > maxCells) {
      const a = this.nc.indexOf(Math.max(...this.nc));
      this.nc[a] = Math.max(1, Math.floor(this.nc[a] / 2));
    }
    const [n0, n1, n2] = this.nc;
    const cells = n0 * n1 * n2;
    this.start = new Uint32Array(cells + 1);
    const cell = new Uint32Array(n);
    this.sorted = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      cell[i] = this.cellOf(x[i], 0) + n0 * (this.cellOf(y[i], 1) + n1 * this.cellOf(z[i], 2));
      this.start[cell[i] + 1]++;
    }
    for (let c = 0; c < cells; c++) this.start[c + 1] += this.start[c];
    const fill = this.start.slice(0, cells);
    for (let i = 0; i < n; i++) this.sorted[fill[cell[i]]++] = i;
    this.lists = [new Int32Array(n0), new Int32Array(n1), new Int32Array(n2)];
  }

  private cellOf(v: number, a: number): number {
    const n = this.nc[a];
    let c = Math.floor(((v - this.lo[a]) / this.len[a]) * n);
    if (this.periodic[a]) c = ((c % n) + n) % n;
    return Math.min(n - 1, Math.max(0, c));
  }

  /** Cells along axis a within m cells of c, into this.lists[a]; returns how many. */
  private axisCells(a: number, c: number, m: number): number {
    const n = this.nc[a], list = this.lists[a];
    if (2 * m + 1 >= n) {
      for (let q = 0; q < n; q++) list[q] = q;
      return n;
    }
    let k = 0;
    for (let q = c - m; q <= c + m; q++) {
      if (q < 0 || q >= n) { if (!this.periodic[a]) continue; list[k++] = (q + n) % n; } else list[k++] = q;
    }
    return k;
  }

  /**
   * Calls fn(j, distance) for every j whose centre (or a periodic image of it) lies closer than reach
   * to centre i, once per image; i itself only through its images (sides shorter than twice the reach).
   */
  forEachNear(i: number, reach: number, fn: (j: number, distance: number) => void): void {
    this.forEachNearPoint(this.x[i], this.y[i], this.z[i], reach, fn, i);
  }

  /**
   * Calls fn(j, distance) for every j whose centre, or a periodic image of it, lies closer than
   * reach to (xi, yi, zi), once per image; `skip` only through its images other than itself.
   */
  forEachNearPoint(xi: number, yi: number, zi: number, reach: number, fn: (j: number, distance: number) => void, skip = -1): void {
    const { x, y, z, nc, start, sorted, lists } = this;
    const [lx, ly, lz] = this.box;
    const [px, py, pz] = this.periodic;
    const ci = this.cellOf(xi, 0), cj = this.cellOf(yi, 1), ck = this.cellOf(zi, 2);
    const m0 = Math.ceil(reach / (this.len[0] / nc[0])), m1 = Math.ceil(reach / (this.len[1] / nc[1])), m2 = Math.ceil(reach / (this.len[2] / nc[2]));
    const k0 = this.axisCells(0, ci, m0), k1 = this.axisCells(1, cj, m1), k2 = this.axisCells(2, ck, m2);
    const reach2 = reach * reach;
    // Images beyond the minimum one along each periodic side shorter than twice the reach (0 otherwise:
    // every other image is then at least half a side, so at least the reach, away).
    const t0 = px && 2 * reach > lx ? Math.ceil(reach / lx) : 0;
    const t1 = py && 2 * reach > ly ? Math.ceil(reach / ly) : 0;
    const t2 = pz && 2 * reach > lz ? Math.ceil(reach / lz) : 0;
    const images = t0 + t1 + t2 > 0;
    for (let a = 0; a < k2; a++) for (let b = 0; b < k1; b++) {
      const rowBase = nc[0] * (lists[1][b] + nc[1] * lists[2][a]);
      for (let d = 0; d < k0; d++) {
        const q = rowBase + lists[0][d];
        for (let s = start[q], e = start[q + 1]; s < e; s++) {
          const j = sorted[s];
          if (j === skip && !images) continue;
          let dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
          if (px) dx -= lx * Math.round(dx / lx);
          if (py) dy -= ly * Math.round(dy / ly);
          if (pz) dz -= lz * Math.round(dz / lz);
          if (images) {
            // The axes with images are scanned whole (axisCells), so each sphere comes here once.
            for (let iz = -t2; iz <= t2; iz++) for (let iy = -t1; iy <= t1; iy++) for (let ix = -t0; ix <= t0; ix++) {
              if (j === skip && ix === 0 && iy === 0 && iz === 0) continue;
              const ex = dx + ix * lx, ey = dy + iy * ly, ez = dz + iz * lz;
              const e2 = ex * ex + ey * ey + ez * ez;
              if (e2 < reach2) fn(j, Math.sqrt(e2));
            }
            continue;
          }
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 < reach2) fn(j, Math.sqrt(d2));
        }
      }
    }
  }
}

/** Calls fn(i, j, distance) once for every pair i < j closer than reach (once per periodic image of j within it). */
export function forEachClosePair(
  x: Float64Array, y: Float64Array, z: Float64Array,
  box: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  reach: number,
  fn: (i: number, j: number, distance: number) => void,
): void {
  const grid = new SphereGrid(x, y, z, box, periodic, reach);
  for (let i = 0; i < x.length; i++) grid.forEachNear(i, reach, (j, d) => { if (j > i) fn(i, j, d); });
}
