import { describe, expect, it } from 'vitest';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine';
import { Scene } from '@babylonjs/core/scene';
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera';
import { Vector3 } from '@babylonjs/core/Maths/math';
import { frameCamera } from '../../renderer/src/scene/viewer';

/** The distance frameCamera puts the camera at for a box of this diagonal (aspect 1). */
function distanceFor(camera: ArcRotateCamera, diagonal: number): number {
  return (diagonal / 2 / Math.sin(camera.fov / 2)) * 1.05;
}

describe('framing the camera on a run\'s box', () => {
  const camera = new ArcRotateCamera('c', 0, 1, 10, Vector3.Zero(), new Scene(new NullEngine()));

  it('shows a large box whole after a small one, and a small one after a large one', () => {
    // A 4 x 4 x 3 sphere import, then a 200 x 200 mm 2D ball-mill vial seen from the top, then the small box again.
    frameCamera(camera, { min: [0, 0, 0], max: [4, 4, 3] }, 1, 'iso');
    expect(camera.radius).toBeCloseTo(distanceFor(camera, Math.hypot(4, 4, 3)), 6);
    frameCamera(camera, { min: [0, 0, 0], max: [200, 200, 0] }, 1, 'top');
    expect(camera.radius).toBeCloseTo(distanceFor(camera, Math.hypot(200, 200)), 6);
    expect(camera.target.asArray()).toEqual([100, 100, 0]);
    frameCamera(camera, { min: [0, 0, 0], max: [4, 4, 3] }, 1, 'iso');
    expect(camera.radius).toBeCloseTo(distanceFor(camera, Math.hypot(4, 4, 3)), 6);
  });

  it('keeps the view direction when no preset is given', () => {
    frameCamera(camera, { min: [0, 0, 0], max: [10, 10, 10] }, 1, 'front');
    const before = camera.position.subtract(camera.target).normalize();
    frameCamera(camera, { min: [0, 0, 0], max: [1000, 1000, 1000] }, 1);
    const after = camera.position.subtract(camera.target).normalize();
    expect(Vector3.Distance(before, after)).toBeLessThan(1e-9);
    expect(camera.radius).toBeCloseTo(distanceFor(camera, Math.hypot(1000, 1000, 1000)), 6);
  });
});
