/**
 * Orientation of packed particles (seed 000 §4: rotational distributions).
 *
 * Two measures:
 * - from the seed's rotation angles: a body axis (default the particle's initial z axis) turned
 *   about x by rx, then about y by ry, then about z by rz (core/voxel/rotation.ts), and its angle to z;
 * - from the voxels themselves: the principal axis of each particle's second moments, which works for
 *   imported or sphere-like shapes whose body axis is unknown. The principal axis is the one whose
 *   eigenvalue stands apart: the long axis of a rod (prolate), the normal of a plate (oblate).
 * Axes have no sign, so angles to z lie in [0°, 90°]; an isotropic set has density sin θ.
 * The order parameter is S = <P2(cos θ)> = <(3 cos²θ - 1) / 2>: 1 all along z, -1/2 all horizontal,
 * 0 isotropic.
 */

const DEG = Math.PI / 180;

/** Angle (degrees, [0, 90]) between z and the body axis b after rotations rx, ry (degrees; rz does not change it). */
export function tiltFromRotation(rx: number, ry: number, b: readonly [number, number, number]): number {
  const cx = Math.cos(rx * DEG), sx = Math.sin(rx * DEG), cy = Math.cos(ry * DEG), sy = Math.sin(ry * DEG);
  // The axis as a unit vector first, scaled by its largest component before its length: sums and
  // lengths of components near 1e308 would overflow.
  const m = Math.max(Math.abs(b[0]), Math.abs(b[1]), Math.abs(b[2]));
  const ux = b[0] / m, uy = b[1] / m, uz = b[2] / m, len = Math.hypot(ux, uy, uz);
  const z1 = sx * (uy / len) + cx * (uz / len);
  const z2 = cy * z1 - sy * (ux / len);
  return Math.acos(Math.min(1, Math.abs(z2))) / DEG;
}

export function orderParameter(tiltDegrees: ArrayLike<number>): number {
  let sum = 0, n = 0;
  for (let i = 0; i < tiltDegrees.length; i++) {
    const t = tiltDegrees[i];
    if (Number.isNaN(t)) continue;
    const c = Math.cos(t * DEG);
    sum += 1.5 * c * c - 0.5;
    n++;
  }
  return n ? sum / n : NaN;
}

/**
 * Second moments of every particle's voxels. Coordinates are taken relative to the first voxel met
 * of each particle, with the minimum-image convention on periodic axes, so a particle that wraps
 * around the box is measured whole (particles must be smaller than half the box).
 */
export function particleMoments(
  labels: Uint32Array,
  dims: readonly [number, number, number],
  periodic: readonly [boolean, boolean, boolean],
  particleCount: number,
  progress?: (doneSlices: number) => void,
): { count: Uint32Array; sums: Float64Array } {
  const [nx, ny, nz] = dims;
  const count = new Uint32Array(particleCount);
  const ref = new Int32Array(particleCount * 3);
  // Per particle: sx, sy, sz, sxx, syy, szz, sxy, sxz, syz.
  const sums = new Float64Array(particleCount * 9);
  const hx = nx / 2, hy = ny / 2, hz = nz / 2;
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      const row = nx * (y + ny * z);
      // Runs of one label along x are summed in closed form: a run is one particle's chord.
      for (let x0 = 0; x0 < nx; ) {
        const l = labels[row + x0];
        let x1 = x0 + 1;
        while (x1 < nx && labels[row + x1] === l) x1++;
        if (l !== 0 && l <= particleCount) {
          const p = l - 1;
          if (count[p] === 0) { ref[3 * p] = x0; ref[3 * p + 1] = y; ref[3 * p + 2] = z; }
          const L = x1 - x0;
          count[p] += L;
          // Minimum image of the run's first voxel; a run never spans half the box (particles are smaller).
          let a = x0 - ref[3 * p], dy = y - ref[3 * p + 1], dz = z - ref[3 * p + 2];
          if (periodic[0]) { if (a > hx) a -= nx; else if (a < -hx) a += nx; }
          if (periodic[1]) { if (dy > hy) dy -= ny; else if (dy < -hy) dy += ny; }
          if (periodic[2]) { if (dz > hz) dz -= nz; else if (dz < -hz) dz += nz; }
          // Sum over dx = a .. a + L - 1 of dx and dx^2.
          const s1 = L * a + (L * (L - 1)) / 2;
          const s2 = L * a * a + a * L * (L - 1) + ((L - 1) * L * (2 * L - 1)) / 6;
          const o = 9 * p;
          sums[o] += s1; sums[o + 1] += L * dy; sums[o + 2] += L * dz;
          sums[o + 3] += s2; sums[o + 4] += L * dy * dy; sums[o + 5] += L * dz * dz;
          sums[o + 6] += s1 * dy; sums[o + 7] += s1 * dz; sums[o + 8] += L * dy * dz;
        }
        x0 = x1;
      }
    }
    if (progress && (z & 15) === 15) progress(z + 1);
  }
  return { count, sums };
}

/**
 * Eigen-decomposition of a symmetric 3x3 matrix [a00, a11, a22, a01, a02, a12] by cyclic Jacobi
 * rotations. Returns eigenvalues (descending) and the matching unit eigenvectors (rows).
 */
export function symmetricEigen3(m: readonly number[]): { values: [number, number, number]; vectors: number[][] } {
  const a = [
    [m[0], m[3], m[4]],
    [m[3], m[1], m[5]],
    [m[4], m[5], m[2]],
  ];
  const v = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (off < 1e-30 * (a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]) || off === 0) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]]) {
      if (a[p][q] === 0) continue;
      const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1), s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k][p], akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p][k], aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
      }
    }
  }
  const order = [0, 1, 2].sort((i, j) => a[j][j] - a[i][i]);
  return {
    values: order.map((i) => a[i][i]) as [number, number, number],
    vectors: order.map((i) => [v[0][i], v[1][i], v[2][i]]),
  };
}

/**
 * A ball digitised at a sub-voxel centre has eigenvalues up to about 3/R² apart, relative to the
 * largest (R its radius in voxels: 0.036 at R = 8, 0.086 at R = 6, 0.47 at R = 2, at most 0.74 for
 * the smallest; the worst of 200 centres each) from its voxels alone: a particle whose eigenvalues
 * lie closer than this many times 1/R² (R of its equivalent sphere), or MAX_DIGITISATION_ANISOTROPY,
 * has no axis its voxels can tell. A spheroid of aspect 1.1 stands well above (0.17), as does a
 * rod of 7 x 2 x 2 voxels (0.94).
 */
const DIGITISATION_ANISOTROPY = 4;
const MAX_DIGITISATION_ANISOTROPY = 0.8;

/**
 * Angle to z (degrees) of every particle's principal axis from its moments; NaN for particles with
 * fewer than `minVoxels` voxels or no distinct axis (the eigenvalues within 1 %, or within what
 * digitising a ball of its volume gives, DIGITISATION_ANISOTROPY: a sphere).
 */
export function principalTilts(moments: { count: Uint32Array; sums: Float64Array }, minVoxels = 8): Float64Array {
  const { count, sums } = moments;
  const tilt = new Float64Array(count.length).fill(NaN);
  for (let p = 0; p < count.length; p++) {
    const n = count[p];
    if (n < minVoxels) continue;
    const o = 9 * p;
    const mx = sums[o] / n, my = sums[o + 1] / n, mz = sums[o + 2] / n;
    const cov = [
      sums[o + 3] / n - mx * mx, sums[o + 4] / n - my * my, sums[o + 5] / n - mz * mz,
      sums[o + 6] / n - mx * my, sums[o + 7] / n - mx * mz, sums[o + 8] / n - my * mz,
    ];
    const { values: [l1, l2, l3], vectors } = symmetricEigen3(cov);
    const radius = Math.cbrt((3 * n) / (4 * Math.PI));
    const noise = Math.min(MAX_DIGITISATION_ANISOTROPY, DIGITISATION_ANISOTROPY / (radius * radius));
    if (l1 - l3 <= Math.max(0.01, noise) * l1) continue;
    const axis = l1 - l2 >= l2 - l3 ? vectors[0] : vectors[2];
    tilt[p] = Math.acos(Math.min(1, Math.abs(axis[2]))) / DEG;
  }
  return tilt;
}
