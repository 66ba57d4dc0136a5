import { describe, expect, it } from 'vitest';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine';
import { Scene } from '@babylonjs/core/scene';
import { Plane } from '@babylonjs/core/Maths/math.plane';
import type { Mesh } from '@babylonjs/core/Meshes/mesh';
import { createSlicePlane } from '../../renderer/src/scene/slicePlane';
import { clipSceneToBox } from '../../renderer/src/scene/viewer';

const CLIP_KEYS = ['clipPlane', 'clipPlane2', 'clipPlane3', 'clipPlane4', 'clipPlane5', 'clipPlane6'] as const;

describe('the slice plane under a clipping box', () => {
  it('keeps its drag handle, which sits just outside the box, uncut by the clip planes', () => {
    const scene = new Scene(new NullEngine());
    const plane = createSlicePlane(scene, () => {}, () => {});
    const box = { min: [0, 0, 0], max: [6, 6, 6] } as const;
    plane.set('z', 2.4, { min: [...box.min], max: [...box.max] });
    // The clipping box as the viewer sets it: the whole box.
    clipSceneToBox(scene, { min: [...box.min], max: [...box.max] });
    const handle = scene.getMeshByName('slice-handle') as Mesh;
    (handle.parent as Mesh).computeWorldMatrix(true);
    const centre = handle.computeWorldMatrix(true).getTranslation();
    // Outside the box in x and y (its corner knob)...
    expect(centre.x).toBeGreaterThan(box.max[0]);
    // ...and kept by every plane that applies to it: Babylon takes the material's plane before the
    // scene's and discards where the signed distance is positive.
    const material = handle.material as unknown as Record<(typeof CLIP_KEYS)[number], Plane | null>;
    const cut = CLIP_KEYS.filter((k) => ((material[k] ?? scene[k])?.signedDistanceTo(centre) ?? -1) > 0);
    expect(cut).toEqual([]);
    // The plane itself is cut by the clipping box like the particles.
    const slice = scene.getMeshByName('slice') as Mesh;
    expect(CLIP_KEYS.map((k) => (slice.material as unknown as Record<string, Plane | null>)[k] ?? null)).toEqual([null, null, null, null, null, null]);
    plane.dispose();
  });
});
