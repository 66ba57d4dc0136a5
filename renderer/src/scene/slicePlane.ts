/**
 * The slice plane in 3D: a translucent rectangle across the box at the slice position, which the
 * user drags along its normal by its handle (a knob at one corner, drawn over the particles) or,
 * holding Shift, anywhere on the plane. A plain drag over the view always turns the camera, even
 * where the plane shows through the particles. Dragging reports the new position; the inspector
 * turns it into a slice index and refetches the 2D slice.
 */
import type { Scene } from '@babylonjs/core/scene';
import { CreatePlane } from '@babylonjs/core/Meshes/Builders/planeBuilder';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder';
import { PointerEventTypes } from '@babylonjs/core/Events/pointerEvents';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { PointerDragBehavior } from '@babylonjs/core/Behaviors/Meshes/pointerDragBehavior';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { Plane } from '@babylonjs/core/Maths/math.plane';
import type { Mesh } from '@babylonjs/core/Meshes/mesh';
import type { Bounds } from './viewer';

export type Axis = 'x' | 'y' | 'z';
const AXIS_INDEX: Record<Axis, 0 | 1 | 2> = { x: 0, y: 1, z: 2 };

export interface SlicePlane {
  /** Places the plane across `bounds` at `position` along `axis`. */
  set(axis: Axis, position: number, bounds: Bounds): void;
  setVisible(v: boolean): void;
  /** Shows or hides the drag handle (figures leave it out). */
  setHandleVisible(v: boolean): void;
  dispose(): void;
}

export function createSlicePlane(scene: Scene, onDrag: (position: number) => void, onDragEnd: (position: number) => void): SlicePlane {
  let mesh: Mesh | null = null;
  const handleMat = new StandardMaterial('slice-handle-mat', scene);
  handleMat.diffuseColor = new Color3(0, 0, 0);
  handleMat.specularColor = new Color3(0, 0, 0);
  handleMat.emissiveColor = new Color3(0.15, 0.45, 0.95);
  // The handle sits just outside the box, where the clipping box (the scene's six clip planes) cut it
  // away, and with it the one way to drag the plane. Its material's own planes, which Babylon takes
  // before the scene's, clip nothing (signed distance -1 everywhere).
  handleMat.clipPlane = handleMat.clipPlane2 = handleMat.clipPlane3 = new Plane(0, 0, 0, -1);
  handleMat.clipPlane4 = handleMat.clipPlane5 = handleMat.clipPlane6 = handleMat.clipPlane;
  // The plane takes part in a pointer-down pick only with Shift held (its handle always does): the
  // scene's pre-pointer observers run before that pick.
  const pre = scene.onPrePointerObservable.add((info) => {
    if (!mesh) return;
    if (info.type === PointerEventTypes.POINTERDOWN) mesh.isPickable = (info.event as PointerEvent).shiftKey;
    else if (info.type === PointerEventTypes.POINTERUP && !dragging) mesh.isPickable = false;
  });
  const mat = new StandardMaterial('slice-mat', scene);
  // Neutral grey: a tinted plane would shift the particle colours seen through it.
  mat.diffuseColor = new Color3(0, 0, 0);
  mat.specularColor = new Color3(0, 0, 0);
  mat.emissiveColor = new Color3(0.85, 0.87, 0.9);
  mat.alpha = 0.22;
  mat.backFaceCulling = false;
  let axis: Axis = 'z';
  let lo = 0;
  let hi = 1;
  let visible = true;
  let key = '';
  let dragging = false;
  let handle: Mesh | null = null;

  const clampPos = (): number => {
    const k = AXIS_INDEX[axis];
    const p = mesh!.position.asArray()[k];
    const c = Math.min(hi, Math.max(lo, p));
    if (c !== p) {
      const v = mesh!.position.asArray();
      v[k] = c;
      mesh!.position.fromArray(v);
    }
    return c;
  };


  return {
    set(a, position, b) {
      const k0 = AXIS_INDEX[a];
      const newKey = `${a}:${b.min.join(',')}:${b.max.join(',')}`;
      if (mesh && newKey === key) {
        // Same plane: only move it (never while the user drags it, the drag owns the position).
        if (!dragging) {
          const v = mesh.position.asArray();
          v[k0] = position;
          mesh.position.fromArray(v);
        }
        return;
      }
      key = newKey;
      axis = a;
      const k = AXIS_INDEX[a];
      lo = b.min[k];
      hi = b.max[k];
      const size = [b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]];
      mesh?.dispose();
      // The plane is built in its local xy; rotate it so that its normal is the slice axis.
      const [w, h] = a === 'x' ? [size[2], size[1]] : a === 'y' ? [size[0], size[2]] : [size[0], size[1]];
      mesh = CreatePlane('slice', { width: w * 1.04, height: h * 1.04, sideOrientation: 2 }, scene);
      mesh.material = mat;
      mesh.isPickable = false;
      // The handle: a knob at the plane's far corner, a child (the drag moves both), drawn after the
      // particles (rendering group 1) so that it shows through them.
      handle = CreateIcoSphere('slice-handle', { radius: Math.max(w, h) * 0.025, subdivisions: 2 }, scene);
      handle.material = handleMat;
      handle.parent = mesh;
      handle.position = new Vector3(w * 0.52, h * 0.52, 0);
      handle.renderingGroupId = 1;
      if (a === 'x') mesh.rotation = new Vector3(0, Math.PI / 2, 0); // local x to z, y stays: the yz plane
      if (a === 'y') mesh.rotation = new Vector3(Math.PI / 2, 0, 0); // local y to z: the xz plane
      const centre = [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
      centre[k] = position;
      mesh.position = Vector3.FromArray(centre);
      const normal = Vector3.Zero();
      normal.fromArray([0, 0, 0].map((_, i) => (i === k ? 1 : 0)));
      const drag = new PointerDragBehavior({ dragAxis: normal });
      drag.useObjectOrientationForDragging = false;
      drag.onDragStartObservable.add(() => (dragging = true));
      drag.onDragObservable.add(() => onDrag(clampPos()));
      drag.onDragEndObservable.add(() => {
        dragging = false;
        if (mesh) mesh.isPickable = false;
        onDragEnd(clampPos());
      });
      mesh.addBehavior(drag);
      mesh.setEnabled(visible);
    },
    setVisible(v) {
      visible = v;
      mesh?.setEnabled(v);
    },
    setHandleVisible(v) {
      handle?.setEnabled(v);
    },
    dispose() {
      scene.onPrePointerObservable.remove(pre);
      mesh?.dispose();
      mesh = null;
      mat.dispose();
      handleMat.dispose();
    },
  };
}
