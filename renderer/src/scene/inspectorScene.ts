/**
 * The inspector's scene: the viewer plus the particle spheres, the simulation box outline, the
 * draggable slice plane, an optional voxel-surface region and the clipping box. The inspector
 * component drives it through these few calls and never touches Babylon objects itself.
 */
import type { Mesh } from '@babylonjs/core/Meshes/mesh';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { createViewer, type Bounds, type CameraPreset, type Container, type FigureView } from './viewer';
import { createParticleCloud, type SphereSet } from './particleCloud';
import { createSlicePlane, type Axis } from './slicePlane';
import { createSurfaceMesh, highlightLabel } from './voxelMesh';
import type { SurfaceMesh } from './voxelSurface';

export interface InspectorScene {
  /** The simulation box; `frame` (and the first box) frames the camera on it from `preset` (iso by default). */
  setBounds(b: Bounds, frame?: boolean, preset?: CameraPreset): void;
  /** The container to outline instead of the box (null: the box), moved by `offset` along `moves`. */
  setContainer(c: Container | null, moves: 0 | 1 | 2, offset: number): void;
  setParticles(s: SphereSet, colours: Float32Array): void;
  setColours(colours: Float32Array): void;
  setSpheresVisible(v: boolean): void;
  /** Shows a voxel-surface region (replacing the previous one), or removes it with null. */
  setVoxelSurface(s: SurfaceMesh | null): void;
  setClip(b: Bounds | null): void;
  /** Places the slice plane, or hides it with null. */
  setSlice(slice: { axis: Axis; position: number } | null): void;
  camera(preset: CameraPreset | 'fit'): void;
  setBackground(css: string): void;
  /**
   * What is under the canvas point (CSS pixels): a sphere (its row in the drawn table), a voxel
   * surface (its label - 1, a row of the full table), or null.
   */
  pick(x: number, y: number): { kind: 'sphere' | 'label'; index: number } | null;
  /** Highlights a sphere (its row, -1: none) and a voxel label (0: none). */
  highlight(sphere: number, label: number): void;
  screenshot(): Promise<Blob>;
  /** One frame at a chosen size drawn into a 2D context, for figures (see Viewer.renderInto). */
  renderInto(ctx: CanvasRenderingContext2D, width: number, height: number, background: string): FigureView;
  dispose(): void;
}

export function createInspectorScene(
  canvas: HTMLCanvasElement,
  onSliceDrag: (position: number, final: boolean) => void,
): InspectorScene {
  const viewer = createViewer(canvas);
  // Left and Right step a run's frames (the inspector's playback keys): with the canvas focused (a
  // ball just picked) the camera's own arrow keys turned the view at each step too.
  viewer.camera.keysLeft = [];
  viewer.camera.keysRight = [];
  const cloud = createParticleCloud(viewer.scene);
  const plane = createSlicePlane(viewer.scene, (p) => { onSliceDrag(p, false); viewer.requestRender(); }, (p) => onSliceDrag(p, true));
  let bounds: Bounds = { min: [0, 0, 0], max: [1, 1, 1] };
  let clip: Bounds | null = null;
  let surface: Mesh | null = null;
  let surfaceLabels: Uint32Array | null = null;
  let surfaceData: SurfaceMesh | null = null;
  let spheresVisible = true;
  let container: Container | null = null;

  return {
    setBounds(b, frame = false, preset: CameraPreset = 'iso') {
      const first = bounds.max[0] === 1 && bounds.min[0] === 0 && bounds.max[2] === 1;
      const changed = JSON.stringify(b) !== JSON.stringify(bounds);
      bounds = b;
      // Playback pushes every frame with the same box: the outline is redrawn only when it changes.
      if (changed || first) { if (container) viewer.setContainerOutline(container); else viewer.setBoxOutline(b); }
      if (first || frame) viewer.frame(b, preset);
    },
    setContainer(c, moves, offset) {
      if (JSON.stringify(c) !== JSON.stringify(container)) {
        container = c;
        if (c) viewer.setContainerOutline(c); else viewer.setBoxOutline(bounds);
      }
      viewer.setOutlineOffset(moves === 0 ? offset : 0, moves === 1 ? offset : 0, moves === 2 ? offset : 0);
    },
    setParticles(s, colours) {
      cloud.setSpheres(s, colours);
      cloud.setVisible(spheresVisible);
      viewer.requestRender();
    },
    setColours(colours) {
      cloud.setColours(colours);
      viewer.requestRender();
    },
    setSpheresVisible(v) {
      spheresVisible = v;
      cloud.setVisible(v);
      viewer.requestRender();
    },
    setVoxelSurface(s) {
      surface?.dispose();
      surface = null;
      surfaceLabels = null;
      surfaceData = null;
      if (s && s.quads > 0) {
        surface = createSurfaceMesh(viewer.scene, s, 'region');
        surfaceLabels = s.quadLabels;
        surfaceData = s;
      }
      viewer.requestRender();
    },
    setClip(b) {
      clip = b;
      viewer.setClipBox(b);
    },
    setSlice(sl) {
      if (!sl) plane.setVisible(false);
      else {
        plane.set(sl.axis, sl.position, bounds);
        plane.setVisible(true);
      }
      viewer.requestRender();
    },
    camera(preset) {
      viewer.frame(clip ?? bounds, preset === 'fit' ? undefined : preset);
    },
    setBackground(css) {
      viewer.setBackground(css);
    },
    pick(x, y) {
      const scene = viewer.scene;
      const ray = scene.createPickingRay(x, y, null, viewer.camera);
      if (surface && surfaceLabels) {
        // The surface is not pickable (no picking on pointer moves); the predicate picks it on click.
        const hit = scene.pickWithRay(ray, (m) => m === surface);
        if (hit?.hit && hit.faceId >= 0) return { kind: 'label', index: surfaceLabels[hit.faceId >> 1] - 1 };
      }
      if (!spheresVisible) return null;
      const o = ray.origin;
      const d: Vector3 = ray.direction;
      const i = cloud.pick([o.x, o.y, o.z], [d.x, d.y, d.z], clip);
      return i >= 0 ? { kind: 'sphere', index: i } : null;
    },
    highlight(sphere, label) {
      cloud.highlight(sphere);
      if (surface && surfaceData) highlightLabel(surface, surfaceData, label);
      viewer.requestRender();
    },
    screenshot: () => viewer.screenshot(),
    renderInto(ctx, width, height, background) {
      plane.setHandleVisible(false);
      try {
        return viewer.renderInto(ctx, width, height, background);
      } finally {
        plane.setHandleVisible(true);
      }
    },
    dispose() {
      surface?.dispose();
      plane.dispose();
      cloud.dispose();
      viewer.dispose();
    },
  };
}
