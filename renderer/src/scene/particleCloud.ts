/**
 * Spheres (or particle centres as small dots) drawn as thin instances of one low-poly sphere:
 * one draw call, matrices and colours in Float32Arrays uploaded once, so 100,000 particles stay
 * interactive. A set with normals is drawn as flat disks instead (thin instances of one disk,
 * each turned so that its axis is the particle's normal): a surface sampling's tangent disks.
 * Picking does not go through Babylon's per-instance picking: a ray against the spheres (or
 * disks) over the typed arrays is cheaper and honours the clipping box.
 */
import type { Scene } from '@babylonjs/core/scene';
import { Mesh } from '@babylonjs/core/Meshes/mesh';
import '@babylonjs/core/Meshes/thinInstanceMesh';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder';
import { CreateDisc } from '@babylonjs/core/Meshes/Builders/discBuilder';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import type { Bounds } from './viewer';
import { pickSphere, type SphereSet } from './spherePick';

export type { SphereSet };

export interface ParticleCloud {
  /** Replaces the spheres (matrices rebuilt) and their colours (RGBA per particle, 0..1). */
  setSpheres(s: SphereSet, colours: Float32Array): void;
  /** Replaces only the colours (same particle count). */
  setColours(colours: Float32Array): void;
  /** Draws particle i in the highlight colour (-1: none). */
  highlight(i: number): void;
  setVisible(v: boolean): void;
  /** Index of the nearest sphere hit by the ray, inside the clip box if one is given, or -1. */
  pick(origin: [number, number, number], direction: [number, number, number], clip: Bounds | null): number;
  dispose(): void;
}

/** Above this many particles each sphere gets 80 triangles instead of 320 (8 M triangles at 100,000). */
const DETAIL_LIMIT = 20_000;

export function createParticleCloud(scene: Scene): ParticleCloud {
  const mat = new StandardMaterial('particles-mat', scene);
  mat.diffuseColor = new Color3(1, 1, 1);
  mat.specularColor = new Color3(0.15, 0.15, 0.15);
  // Template: an ico sphere of `sub` subdivisions, or (sub = 0) a disk in the x-y plane.
  const build = (sub: number): Mesh => {
    const m = sub > 0
      ? CreateIcoSphere('particles', { radius: 1, subdivisions: sub, flat: false }, scene)
      : CreateDisc('particles', { radius: 1, tessellation: 20, sideOrientation: Mesh.DOUBLESIDE }, scene);
    m.material = mat;
    m.isPickable = false;
    m.alwaysSelectAsActiveMesh = true; // thin instances spread beyond the template's bounds
    m.setEnabled(false);
    return m;
  };
  let subdivisions = 2;
  let mesh = build(subdivisions);
  const template = (sub: number): void => {
    if (sub === subdivisions) return;
    mesh.dispose();
    subdivisions = sub;
    mesh = build(sub);
  };

  let set: SphereSet | null = null;
  let matrices = new Float32Array(0);
  let base: Float32Array = new Float32Array(0);
  let highlighted = -1;

  // The picked particle is drawn white on a copy of the colours, so that the base stays intact.
  const upload = (): void => {
    if (!set) return;
    let c = base.subarray(0, set.count * 4);
    if (highlighted >= 0 && highlighted < set.count) {
      c = c.slice();
      c.fill(1, highlighted * 4, highlighted * 4 + 4);
    }
    mesh.thinInstanceSetBuffer('color', c, 4, true);
  };

  return {
    setSpheres(s, colours) {
      if (colours.length < s.count * 4) throw new Error(`colours hold ${colours.length / 4} particles, need ${s.count}`);
      set = s;
      const n = s.normal ?? null;
      template(n ? 0 : s.count > DETAIL_LIMIT ? 1 : 2);
      if (matrices.length !== s.count * 16) matrices = new Float32Array(s.count * 16);
      for (let i = 0; i < s.count; i++) {
        const r = s.radius ? s.radius[i] : s.dotRadius;
        const o = i * 16;
        // Rows are the images of the template's x, y, z axes (Babylon's row-vector matrices), then
        // the translation: scaled by r, and for a disk turned so that its z axis is the normal
        // (u, v, normal orthonormal: Duff et al. 2017, "Building an orthonormal basis, revisited").
        let ux = 1, uy = 0, uz = 0, vx = 0, vy = 1, vz = 0, nx = 0, ny = 0, nz = 1;
        if (n) {
          nx = n[0][i]; ny = n[1][i]; nz = n[2][i];
          const sign = nz >= 0 ? 1 : -1, a = -1 / (sign + nz), b = nx * ny * a;
          ux = 1 + sign * nx * nx * a; uy = sign * b; uz = -sign * nx;
          vx = b; vy = sign + ny * ny * a; vz = -ny;
        }
        matrices[o] = r * ux; matrices[o + 1] = r * uy; matrices[o + 2] = r * uz; matrices[o + 3] = 0;
        matrices[o + 4] = r * vx; matrices[o + 5] = r * vy; matrices[o + 6] = r * vz; matrices[o + 7] = 0;
        matrices[o + 8] = r * nx; matrices[o + 9] = r * ny; matrices[o + 10] = r * nz; matrices[o + 11] = 0;
        matrices[o + 12] = s.x[i]; matrices[o + 13] = s.y[i]; matrices[o + 14] = s.z[i]; matrices[o + 15] = 1;
      }
      mesh.thinInstanceSetBuffer('matrix', matrices, 16, true);
      base = colours;
      highlighted = -1;
      upload();
      mesh.setEnabled(s.count > 0);
    },
    setColours(colours) {
      base = colours;
      upload();
    },
    highlight(i) {
      highlighted = i;
      upload();
    },
    setVisible(v) {
      mesh.setEnabled(v && !!set && set.count > 0);
    },
    pick(o, d, clip) {
      return set ? pickSphere(set, o, d, clip) : -1;
    },
    dispose() {
      mesh.dispose();
      mat.dispose();
    },
  };
}
