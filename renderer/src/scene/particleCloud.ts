/**
 * Spheres (or particle centres as small dots) drawn as thin instances of one low-poly sphere:
 * one draw call, matrices and colours in Float32Arrays uploaded once, so 100,000 particles stay
 * interactive. Picking does not go through Babylon's per-instance picking: a ray against the
 * spheres over the typed arrays is cheaper and honours the clipping box.
 */
import type { Scene } from '@babylonjs/core/scene';
import { Mesh } from '@babylonjs/core/Meshes/mesh';
import '@babylonjs/core/Meshes/thinInstanceMesh';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import type { Bounds } from './viewer';

type Column = ArrayLike<number>;

export interface SphereSet {
  count: number;
  x: Column;
  y: Column;
  z: Column;
  /** Radii, or null to draw every particle as a dot of radius `dotRadius`. */
  radius: Column | null;
  dotRadius: number;
}

export interface ParticleCloud {
  /** Replaces the spheres (matrices rebuilt) and their colours (RGBA per particle, 0..1). */
  setSpheres(s: SphereSet, colours: Float32Array): void;
  /** Replaces only the colours (same particle count). */
  setColours(colours: Float32Array): void;
  setVisible(v: boolean): void;
  /** Index of the nearest sphere hit by the ray, inside the clip box if one is given, or -1. */
  pick(origin: [number, number, number], direction: [number, number, number], clip: Bounds | null): number;
  dispose(): void;
}

export function createParticleCloud(scene: Scene): ParticleCloud {
  // Subdivisions 2 (80 faces... 320 triangles): round enough at packing scale, cheap at 100k.
  const mesh: Mesh = CreateIcoSphere('particles', { radius: 1, subdivisions: 2, flat: false }, scene);
  const mat = new StandardMaterial('particles-mat', scene);
  mat.diffuseColor = new Color3(1, 1, 1);
  mat.specularColor = new Color3(0.15, 0.15, 0.15);
  mesh.material = mat;
  mesh.isPickable = false;
  mesh.alwaysSelectAsActiveMesh = true; // thin instances spread beyond the template's bounds
  mesh.setEnabled(false);

  let set: SphereSet | null = null;
  let matrices = new Float32Array(0);

  const radiusOf = (i: number): number => (set!.radius ? set!.radius[i] : set!.dotRadius);

  return {
    setSpheres(s, colours) {
      if (colours.length < s.count * 4) throw new Error(`colours hold ${colours.length / 4} particles, need ${s.count}`);
      set = s;
      if (matrices.length !== s.count * 16) matrices = new Float32Array(s.count * 16);
      for (let i = 0; i < s.count; i++) {
        const r = s.radius ? s.radius[i] : s.dotRadius;
        const o = i * 16;
        // scale r, translate to the centre (column-major as Babylon expects)
        matrices[o] = r; matrices[o + 1] = 0; matrices[o + 2] = 0; matrices[o + 3] = 0;
        matrices[o + 4] = 0; matrices[o + 5] = r; matrices[o + 6] = 0; matrices[o + 7] = 0;
        matrices[o + 8] = 0; matrices[o + 9] = 0; matrices[o + 10] = r; matrices[o + 11] = 0;
        matrices[o + 12] = s.x[i]; matrices[o + 13] = s.y[i]; matrices[o + 14] = s.z[i]; matrices[o + 15] = 1;
      }
      mesh.thinInstanceSetBuffer('matrix', matrices, 16, true);
      mesh.thinInstanceSetBuffer('color', colours.subarray(0, s.count * 4), 4, true);
      mesh.setEnabled(s.count > 0);
    },
    setColours(colours) {
      if (!set) return;
      mesh.thinInstanceSetBuffer('color', colours.subarray(0, set.count * 4), 4, true);
    },
    setVisible(v) {
      mesh.setEnabled(v && !!set && set.count > 0);
    },
    pick(o, d, clip) {
      if (!set) return -1;
      let best = -1;
      let bestT = Infinity;
      const dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      for (let i = 0; i < set.count; i++) {
        const cx = set.x[i], cy = set.y[i], cz = set.z[i];
        if (clip && (cx < clip.min[0] || cx > clip.max[0] || cy < clip.min[1] || cy > clip.max[1] || cz < clip.min[2] || cz > clip.max[2])) continue;
        const r = radiusOf(i);
        const lx = cx - o[0], ly = cy - o[1], lz = cz - o[2];
        const tc = (lx * d[0] + ly * d[1] + lz * d[2]) / dd;
        if (tc < 0 && lx * lx + ly * ly + lz * lz > r * r) continue;
        const px = o[0] + d[0] * tc - cx, py = o[1] + d[1] * tc - cy, pz = o[2] + d[2] * tc - cz;
        const h2 = r * r - (px * px + py * py + pz * pz);
        if (h2 < 0) continue;
        const t = tc - Math.sqrt(h2 / dd);
        if (t < bestT) {
          bestT = t;
          best = i;
        }
      }
      return best;
    },
    dispose() {
      mesh.dispose();
      mat.dispose();
    },
  };
}
