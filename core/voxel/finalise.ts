/**
 * Exact finalisation (seed §3.1, §3.2): every particle is written with its solid voxels at its
 * exact rotation, by rotating each position of its rotated bounding box back into the particle's
 * own voxel map (no holes), into a labelled volume (label = particle index + 1) or, for boxes too
 * large for labels, into the cleared packing matrix. Voxels claimed twice are counted as overlap:
 * the price of packing with hollow, holed, table-rotated shells (the seed reports < 0.1 %).
 */
import type { ColumnTable, LabelVolume } from '../common/engine';
import { BitMatrix } from './bit-matrix';
import { ExactVoxels, rotatePoint } from './exact';
import type { Packer } from './packer';
import { powInt } from '../common/power';

export interface Finalised {
  /** The particle table artifact (only particles whose centre lies inside the box). */
  table: ColumnTable;
  labels: LabelVolume | null;
  /** Voxels written (exact solid voxels of all particles inside the box). */
  writtenVoxels: number;
  /** Voxels a particle claimed that another particle already held. */
  overlapVoxels: number;
  /** Exact solid voxels falling below the floor or above the box top (not written). */
  clippedVoxels: number;
  /** Distinct solid voxels in the box. */
  solidVoxels: number;
  /** Mean over (x, y) columns of the height (voxels) of the highest solid voxel + 1. */
  bedHeight: number;
  /** Solid voxels per z plane. */
  solidPerPlane: Float64Array;
  /** Per (x, y) column, x fastest: the height (voxels) of its highest solid voxel + 1; 0 when empty. */
  columnHeights: Uint32Array;
}

/**
 * Empties the packing matrix of every particle's shell by clearing the cube around each particle
 * (its extent), or the whole matrix when that is less work: in proportion to the particles, not
 * to the box (a 4000³ matrix holding 50 particles).
 */
function clearShells(packer: Packer): void {
  const m = packer.matrix, { nx, ny } = m, nz = m.nz;
  let cubes = 0;
  for (let i = 0; i < packer.count; i++) cubes += powInt(2 * packer.extentOf(i) + 1, 3);
  // A voxel cleared alone costs about as much as 32 voxels cleared a word at a time.
  if (cubes > (nx * ny * nz) / 32) {
    m.clearEverything();
    return;
  }
  for (let i = 0; i < packer.count; i++) clearShellCube(packer, i);
}

/**
 * Clears the cube of particle i's extent around its reference voxel in the packing matrix (its
 * packing shell and whatever of its neighbours' lies there). The settling pass calls it before it
 * first moves a particle, so that the shell it was packed with goes too.
 */
export function clearShellCube(packer: Packer, i: number): void {
  const m = packer.matrix, { nx, ny } = m, nz = m.nz;
  const e = packer.extentOf(i), px = packer.px[i], py = packer.py[i], pz = packer.pz[i];
  for (let z = Math.max(0, pz - e); z <= Math.min(nz - 1, pz + e); z++) {
    for (let dy = -e; dy <= e; dy++) {
      const y = (((py + dy) % ny) + ny) % ny;
      for (let dx = -e; dx <= e; dx++) m.clear((((px + dx) % nx) + nx) % nx, y, z);
    }
  }
}

/**
 * Whether particle i is in the result: its geometric centre lies at or below the box height (the
 * promise of box.top 'open', where particles may stick out of the box). The reference voxel alone
 * is not the centre: shapes with an even voxel count are centred half a voxel off it per axis,
 * rotated, so a reference voxel test kept centres above the top and left out some inside it.
 */
export function centreInBox(packer: Packer, i: number): boolean {
  const v = packer.shapes[packer.shape[i]];
  const cz = rotatePoint(v.centre[0], v.centre[1], v.centre[2], packer.ax[i], packer.ay[i], packer.az[i])[2];
  return packer.pz[i] + 0.5 + cz <= packer.nz;
}

/** Particles written between progress reports (about 90 µs each at 24 voxels a diameter). */
const PROGRESS_EVERY = 256;

/**
 * Writes the particles (see above). `progress` hears the particles written of all, from 0 and
 * below all until the end (at 512³ and above this takes seconds to minutes).
 */
export function finalise(packer: Packer, withLabels: boolean, progress: (done: number, total: number) => void = () => {}): Finalised {
  const { nx, ny, nz } = packer;
  const res = packer.params.box.resolution;
  const m = packer.matrix;
  const keep: number[] = [];
  for (let i = 0; i < packer.count; i++) if (centreInBox(packer, i)) keep.push(i);
  const rows = keep.length;
  progress(0, rows);
  const labels = withLabels ? new Uint32Array(nx * ny * nz) : null;
  // Without labels, the packing matrix (its shells no longer needed) records occupancy.
  if (!labels) clearShells(packer);
  const col = {
    id: new Uint32Array(rows), type: new Uint16Array(rows),
    x: new Float64Array(rows), y: new Float64Array(rows), z: new Float64Array(rows),
    rx: new Int16Array(rows), ry: new Int16Array(rows), rz: new Int16Array(rows),
    size: new Float64Array(rows), voxels: new Uint32Array(rows),
    ix: new Int32Array(rows), iy: new Int32Array(rows), iz: new Int32Array(rows),
  };
  let written = 0, overlap = 0, clipped = 0;
  // Bed statistics as the voxels are claimed (a scan of the box would cost in proportion to the
  // box, not to the particles): solid voxels per plane and the highest solid voxel of each column.
  const solidPerPlane = new Float64Array(nz);
  const columnHeights = new Uint32Array(nx * ny);
  const exact = new ExactVoxels();
  // Without labels, a bit matrix is written a run of voxels at a time.
  const bits = labels === null && m instanceof BitMatrix ? m : null;
  for (let r = 0; r < rows; r++) {
    if (r % PROGRESS_EVERY === 0 && r > 0) progress(r, rows);
    const i = keep[r];
    const s = packer.shape[i], v = packer.shapes[s];
    const ax = packer.ax[i], ay = packer.ay[i], az = packer.az[i];
    const px = packer.px[i], py = packer.py[i], pz = packer.pz[i];
    const n = exact.of(v, ax, ay, az), xyz = exact.xyz;
    let count = 0;
    if (bits !== null) {
      // Run by run along x, a matrix word at a time (the same counts as voxel by voxel).
      const runs = exact.runs;
      for (let k = 0, end = 4 * exact.runCount; k < end; k += 4) {
        const gz = pz + runs[k], len = runs[k + 3] - runs[k + 2] + 1;
        if (gz < 0 || gz >= nz) { clipped += len; continue; }
        let gy = py + runs[k + 1], g0 = px + runs[k + 2];
        if (gy < 0) gy += ny; else if (gy >= ny) gy -= ny;
        if (g0 < 0) g0 += nx; else if (g0 >= nx) g0 -= nx;
        // The run may cross the periodic x edge (offsets stay below the box width, checkParams).
        const g1 = g0 + len - 1;
        const claimed = g1 < nx ? bits.claimRow(g0, g1, gy, gz) : bits.claimRow(g0, nx - 1, gy, gz) + bits.claimRow(0, g1 - nx, gy, gz);
        written += len;
        overlap += len - claimed;
        count += claimed;
        solidPerPlane[gz] += claimed;
        // Voxels already held were claimed by an earlier particle, which raised their columns.
        for (let x = g0, c = nx * gy + g0; x <= g1; x++, c++) {
          const col = x < nx ? c : c - nx;
          if (columnHeights[col] <= gz) columnHeights[col] = gz + 1;
        }
      }
    } else {
      for (let k = 0; k < 3 * n; k += 3) {
        const gz = pz + xyz[k + 2];
        if (gz < 0 || gz >= nz) { clipped++; continue; }
        // Offsets stay within the particle's extent, below the box width (checkParams).
        let gx = px + xyz[k], gy = py + xyz[k + 1];
        if (gx < 0) gx += nx; else if (gx >= nx) gx -= nx;
        if (gy < 0) gy += ny; else if (gy >= ny) gy -= ny;
        written++;
        if (labels) {
          const key = gx + nx * (gy + ny * gz);
          if (labels[key] !== 0) { overlap++; continue; }
          labels[key] = r + 1;
        } else if (m.test(gx, gy, gz)) { overlap++; continue; }
        else m.set(gx, gy, gz, r + 1);
        count++;
        solidPerPlane[gz]++;
        if (columnHeights[gx + nx * gy] <= gz) columnHeights[gx + nx * gy] = gz + 1;
      }
    }
    // Geometric centre: the reference voxel's centre plus the rotated centre offset of the shape.
    const c = rotatePoint(v.centre[0], v.centre[1], v.centre[2], ax, ay, az);
    col.id[r] = r;
    col.type[r] = packer.type[i];
    col.x[r] = (px + 0.5 + c[0]) / res;
    col.y[r] = (py + 0.5 + c[1]) / res;
    col.z[r] = (pz + 0.5 + c[2]) / res;
    col.rx[r] = ax; col.ry[r] = ay; col.rz[r] = az;
    col.ix[r] = px; col.iy[r] = py; col.iz[r] = pz;
    col.size[r] = packer.shapeSizeVoxels[s] / res;
    col.voxels[r] = count;
  }
  let heightSum = 0;
  for (let k = 0; k < columnHeights.length; k++) heightSum += columnHeights[k];
  const lengthUnitBox = packer.params.box.size;
  const table: ColumnTable = {
    kind: 'table',
    name: 'particles',
    columns: col,
    meta: {
      box: [...lengthUnitBox],
      resolution: res,
      periodic: [true, true, false],
      dims: [nx, ny, nz],
      types: packer.params.mixture.types.map((t, i) => t.name || `${t.shape.kind} ${i}`),
      columns: 'x, y, z: geometric centre (length units); rx, ry, rz: rotation about x, then y, then z (deg); size: characteristic size (length units, quantised); voxels: solid voxels the particle holds in the box (its exact voxels less those below the floor, above the top or held by an earlier particle: the label volume count, behind equivalentDiameter and the LAMMPS radius); ix, iy, iz: reference voxel',
    },
  };
  return {
    table,
    labels: labels ? { kind: 'volume', name: 'labels', dims: [nx, ny, nz], voxelSize: 1 / res, labels, meta: { periodic: [true, true, false], label: 'particle index + 1 (row of the particles table + 1), 0 = void' } } : null,
    writtenVoxels: written,
    overlapVoxels: overlap,
    clippedVoxels: clipped,
    solidVoxels: written - overlap,
    bedHeight: heightSum / (nx * ny),
    solidPerPlane,
    columnHeights,
  };
}
