/**
 * The 3D viewport shared by the particle editor and the inspector: a Babylon engine on a canvas,
 * z up in a right-handed frame (as the engines write coordinates), an orbit camera, and
 * rendering on demand. SwiftShader and laptops both prefer a still scene to a busy loop: a frame
 * is drawn when something changed (requestRender) and the render loop runs only while the user
 * drags, wheels or the camera is still gliding from inertia.
 *
 * Every drawn frame increments `canvas.dataset.frames`, sets `canvas.dataset.ready` to '1' once
 * every material was ready for it and `canvas.dataset.camera` to the camera's 'alpha,beta,radius';
 * `canvas.dataset.moving` is '1' while the render loop runs (a drag, a wheel, the camera gliding) and
 * '0' once the camera has come to rest. So tests can wait for a complete picture and a still camera,
 * and see whether a drag turned it.
 * No Vue in here: components create a viewer in onMounted and dispose it in onBeforeUnmount.
 */
import { Engine } from '@babylonjs/core/Engines/engine';
import { Scene } from '@babylonjs/core/scene';
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera';
import '@babylonjs/core/Cameras/Inputs/arcRotateCameraPointersInput';
import '@babylonjs/core/Cameras/Inputs/arcRotateCameraMouseWheelInput';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight';
import { DirectionalLight } from '@babylonjs/core/Lights/directionalLight';
import { Vector3, Plane } from '@babylonjs/core/Maths/math';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color';
import { CreateLineSystem } from '@babylonjs/core/Meshes/Builders/linesBuilder';
import type { LinesMesh } from '@babylonjs/core/Meshes/linesMesh';
import '@babylonjs/core/Culling/ray';

export type CameraPreset = 'front' | 'top' | 'side' | 'iso';

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/** A container outline (core/common/engine.ts, "Table meta"): a box, or a cylinder around a vertical z axis. */
export type Container =
  | { shape: 'box'; min: [number, number, number]; max: [number, number, number] }
  | { shape: 'cylinder'; centre: [number, number]; radius: number; min: number; max: number };

export interface Viewer {
  readonly scene: Scene;
  readonly camera: ArcRotateCamera;
  readonly canvas: HTMLCanvasElement;
  /** Draw one frame soon (coalesced with other requests in the same animation frame). */
  requestRender(): void;
  /**
   * Frames the bounds from a preset direction (keeps the current direction when omitted), and again
   * at each resize of the canvas until the user moves the camera.
   */
  frame(bounds: Bounds, preset?: CameraPreset): void;
  /** Draws the outline of the simulation box (or hides it with null). */
  setBoxOutline(bounds: Bounds | null): void;
  /** Draws a container's outline instead of the box (a cylinder as two rings and four sides). */
  setContainerOutline(c: Container): void;
  /** Moves the outline by (dx, dy, dz) from where it was drawn (a container that moves, e.g. a shaken vial). */
  setOutlineOffset(dx: number, dy: number, dz: number): void;
  /** Clips everything outside the box (null: no clipping). */
  setClipBox(bounds: Bounds | null): void;
  setBackground(css: string): void;
  /** Renders a fresh frame and returns it as a PNG. */
  screenshot(): Promise<Blob>;
  /**
   * Renders one frame at width x height pixels (the view's camera, the given background) and draws
   * it into ctx at (0, 0); returns how many pixels one length unit spans at the camera's target and
   * the screen directions (x right, y down) of the world's x, y and z axes. The view is restored.
   */
  renderInto(ctx: CanvasRenderingContext2D, width: number, height: number, background: string): FigureView;
  dispose(): void;
}

/** What a figure needs to know about the view it was rendered from. */
export interface FigureView {
  /** Pixels per length unit at the camera's target (the scale of a scale bar there). */
  pxPerUnit: number;
  /** Unit screen directions (x right, y down) of the world's x, y and z axes, and their length (0..1; short = along the view). */
  axes: { x: [number, number, number]; y: [number, number, number]; z: [number, number, number] };
}

const PRESET_DIRECTIONS: Record<CameraPreset, [number, number, number]> = {
  front: [0, -1, 0.0001], // looking along +y: x to the right, z up
  side: [1, 0, 0.0001], // looking along -x: y to the right, z up
  top: [0, -0.0001, 1], // looking down: x to the right, y up
  iso: [1, -1, 0.8],
};

/** Parses a CSS colour (#rgb, #rrggbb, rgb(...)) to Color4; unknown forms give mid grey. */
export function cssToColor4(css: string): Color4 {
  const s = css.trim();
  let m = /^#([0-9a-f]{6})$/i.exec(s);
  if (m) {
    const v = parseInt(m[1], 16);
    return new Color4(((v >> 16) & 255) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255, 1);
  }
  m = /^#([0-9a-f]{3})$/i.exec(s);
  if (m) {
    const [r, g, b] = m[1].split('').map((c) => parseInt(c + c, 16) / 255);
    return new Color4(r, g, b, 1);
  }
  const rgb = /rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)/.exec(s);
  if (rgb) return new Color4(+rgb[1] / 255, +rgb[2] / 255, +rgb[3] / 255, 1);
  return new Color4(0.5, 0.5, 0.5, 1);
}

/** Clips the scene to a box (null: nothing), by its six clip planes; a plane clips where its signed distance is positive. */
export function clipSceneToBox(scene: Scene, b: Bounds | null): void {
  if (!b) {
    scene.clipPlane = scene.clipPlane2 = scene.clipPlane3 = scene.clipPlane4 = scene.clipPlane5 = scene.clipPlane6 = null;
    return;
  }
  scene.clipPlane = new Plane(-1, 0, 0, b.min[0]);
  scene.clipPlane2 = new Plane(1, 0, 0, -b.max[0]);
  scene.clipPlane3 = new Plane(0, -1, 0, b.min[1]);
  scene.clipPlane4 = new Plane(0, 1, 0, -b.max[1]);
  scene.clipPlane5 = new Plane(0, 0, -1, b.min[2]);
  scene.clipPlane6 = new Plane(0, 0, 1, -b.max[2]);
}

/**
 * Points the camera at the centre of `b` from the preset's direction (or the current one) at the
 * distance that shows the whole box, with clipping, zoom and panning scaled to the box. The zoom
 * limits are set before the camera moves: Babylon clamps the radius to the limits in force, so
 * the previous run's limits would keep the camera at a small box's distance from a large one.
 */
export function frameCamera(camera: ArcRotateCamera, b: Bounds, aspect: number, preset?: CameraPreset): void {
  const c = new Vector3((b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2);
  const size = Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) || 1;
  const fov = Math.min(camera.fov, camera.fov * aspect);
  const dist = (size / 2 / Math.sin(fov / 2)) * 1.05;
  const dir = preset ? new Vector3(...PRESET_DIRECTIONS[preset]) : camera.position.subtract(camera.target);
  if (dir.lengthSquared() === 0) dir.set(...PRESET_DIRECTIONS.iso);
  dir.normalize();
  camera.minZ = size * 0.001;
  camera.maxZ = size * 20;
  camera.lowerRadiusLimit = size * 0.02;
  camera.upperRadiusLimit = size * 10;
  camera.panningSensibility = 2000 / size;
  camera.setTarget(c);
  camera.setPosition(c.add(dir.scale(dist)));
}

export function createViewer(canvas: HTMLCanvasElement): Viewer {
  // preserveDrawingBuffer: screenshots read the canvas after the frame; stencil is not needed.
  const engine = new Engine(canvas, true, { preserveDrawingBuffer: true, stencil: false, antialias: true }, true);
  const scene = new Scene(engine);
  scene.useRightHandedSystem = true;
  scene.clearColor = new Color4(0.1, 0.11, 0.13, 1);
  // Move picking stays on: the slice plane's drag behaviour needs the pointer ray of each move.
  // Only the plane is pickable, so it is cheap; particles and voxels are picked on click by the owner.

  const camera = new ArcRotateCamera('camera', 0, 1, 10, Vector3.Zero(), scene);
  camera.upVector = new Vector3(0, 0, 1);
  camera.wheelDeltaPercentage = 0.02;
  camera.panningSensibility = 0; // set per scene size in frame()
  camera.minZ = 0.01;
  camera.attachControl(canvas, true);

  const hemi = new HemisphericLight('ambient', new Vector3(0.2, -0.3, 1), scene);
  hemi.intensity = 0.75;
  hemi.groundColor = new Color3(0.35, 0.35, 0.38);
  const sun = new DirectionalLight('key', new Vector3(-0.4, 0.6, -1), scene);
  sun.intensity = 0.55;

  let frames = 0;
  let pending = 0;
  let looping = false;
  let pointerDown = false;
  let still = 0;
  let outline: LinesMesh | null = null;
  let disposed = false;
  canvas.dataset.moving = '0';
  /**
   * What frame() last framed, and the camera as the first frame after it drew it (Babylon clamps
   * the top preset's beta then): a resize frames it again while the camera is still there, so a bed
   * fitted to one size of the window is neither cut off nor tiny at another; a camera the user
   * turned, zoomed or panned stays where they put it.
   */
  let framed: { bounds: Bounds; view: string | null } | null = null;
  const view = (): string => `${camera.alpha},${camera.beta},${camera.radius},${camera.target.x},${camera.target.y},${camera.target.z}`;

  const draw = (): void => {
    scene.render();
    if (framed && framed.view === null) framed.view = view();
    frames++;
    canvas.dataset.frames = String(frames);
    canvas.dataset.ready = scene.isReady() ? '1' : '0';
    canvas.dataset.camera = `${camera.alpha.toFixed(3)},${camera.beta.toFixed(3)},${camera.radius.toPrecision(4)}`;
  };

  const requestRender = (): void => {
    if (disposed || looping || pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      if (looping || disposed) return;
      draw();
      // Shaders compile asynchronously: until every material is ready a frame may miss meshes,
      // so keep drawing on demand until the scene is complete.
      if (!scene.isReady()) requestRender();
    });
  };

  // While the user interacts, run the loop; stop once the camera has been still for a few frames.
  let last = '';
  const loop = (): void => {
    draw();
    const now = view();
    still = now === last ? still + 1 : 0;
    last = now;
    if (!pointerDown && still > 8 && scene.isReady()) {
      engine.stopRenderLoop(loop);
      looping = false;
      canvas.dataset.moving = '0';
    }
  };
  const startLoop = (): void => {
    still = 0;
    if (looping || disposed) return;
    looping = true;
    canvas.dataset.moving = '1';
    engine.runRenderLoop(loop);
  };
  const onDown = (): void => { pointerDown = true; startLoop(); };
  const onUp = (): void => { pointerDown = false; };
  canvas.addEventListener('pointerdown', onDown);
  window.addEventListener('pointerup', onUp);
  canvas.addEventListener('wheel', startLoop, { passive: true });
  canvas.addEventListener('keydown', startLoop);

  const frame = (b: Bounds, preset?: CameraPreset): void => {
    frameCamera(camera, b, engine.getAspectRatio(camera), preset);
    framed = { bounds: b, view: null };
    requestRender();
  };
  // Fits the drawing buffer to the canvas when it changes size, and frames the camera again.
  const resize = (): void => {
    // A canvas out of the page (its workspace kept alive, not shown) keeps its drawing buffer's size
    // (Babylon's resize), so the camera framed again there stays as it was.
    engine.resize();
    if (framed && (framed.view === null || framed.view === view())) frame(framed.bounds);
    else requestRender();
  };
  const ro = typeof ResizeObserver !== 'undefined' ? new ResizeObserver(resize) : null;
  ro?.observe(canvas);

  const drawOutline = (lines: Vector3[][] | null): void => {
    outline?.dispose();
    outline = null;
    if (lines) {
      outline = CreateLineSystem('box', { lines }, scene);
      outline.color = new Color3(0.55, 0.6, 0.68);
      outline.isPickable = false;
    }
    requestRender();
  };
  const p = (x: number, y: number, z: number): Vector3 => new Vector3(x, y, z);
  const boxLines = (min: readonly number[], max: readonly number[]): Vector3[][] => {
    const [x0, y0, z0] = min;
    const [x1, y1, z1] = max;
    return [
      [p(x0, y0, z0), p(x1, y0, z0), p(x1, y1, z0), p(x0, y1, z0), p(x0, y0, z0)],
      [p(x0, y0, z1), p(x1, y0, z1), p(x1, y1, z1), p(x0, y1, z1), p(x0, y0, z1)],
      [p(x0, y0, z0), p(x0, y0, z1)], [p(x1, y0, z0), p(x1, y0, z1)],
      [p(x1, y1, z0), p(x1, y1, z1)], [p(x0, y1, z0), p(x0, y1, z1)],
    ];
  };
  const setBoxOutline = (b: Bounds | null): void => drawOutline(b ? boxLines(b.min, b.max) : null);
  const setContainerOutline = (c: Container): void => {
    if (c.shape === 'box') { drawOutline(boxLines(c.min, c.max)); return; }
    const [cx, cy] = c.centre, R = c.radius;
    const ring = (z: number) => Array.from({ length: 65 }, (_, k) => p(cx + R * Math.cos((k * Math.PI) / 32), cy + R * Math.sin((k * Math.PI) / 32), z));
    const sides = [0, 1, 2, 3].map((k) => [p(cx + R * Math.cos((k * Math.PI) / 2), cy + R * Math.sin((k * Math.PI) / 2), c.min), p(cx + R * Math.cos((k * Math.PI) / 2), cy + R * Math.sin((k * Math.PI) / 2), c.max)]);
    drawOutline([ring(c.min), ring(c.max), ...sides]);
  };

  const setClipBox = (b: Bounds | null): void => {
    clipSceneToBox(scene, b);
    requestRender();
  };

  return {
    scene,
    camera,
    canvas,
    requestRender,
    frame,
    setBoxOutline,
    setContainerOutline,
    setOutlineOffset(dx, dy, dz) {
      outline?.position.set(dx, dy, dz);
      requestRender();
    },
    setClipBox,
    setBackground(css: string) {
      scene.clearColor = cssToColor4(css);
      requestRender();
    },
    screenshot() {
      draw();
      return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas could not be encoded as PNG'))), 'image/png'));
    },
    renderInto(ctx, width, height, background) {
      const clear = scene.clearColor;
      try {
        engine.setSize(width, height, true);
        scene.clearColor = cssToColor4(background);
        scene.render();
        ctx.drawImage(canvas, 0, 0, width, height);
        // Vertical field of view (Babylon's default): the target plane spans 2 r tan(fov / 2) units.
        const pxPerUnit = height / (2 * camera.radius * Math.tan(camera.fov / 2));
        const view = camera.getViewMatrix();
        const dir = (v: Vector3): [number, number, number] => {
          const d = Vector3.TransformNormal(v, view);
          // View space: x right, y up, z into the screen (left-handed) or out of it (right-handed scene).
          return [d.x, -d.y, Math.hypot(d.x, d.y)];
        };
        return { pxPerUnit, axes: { x: dir(new Vector3(1, 0, 0)), y: dir(new Vector3(0, 1, 0)), z: dir(new Vector3(0, 0, 1)) } };
      } finally {
        scene.clearColor = clear;
        engine.resize();
        requestRender();
      }
    },
    dispose() {
      disposed = true;
      if (pending) cancelAnimationFrame(pending);
      ro?.disconnect();
      canvas.removeEventListener('pointerdown', onDown);
      window.removeEventListener('pointerup', onUp);
      canvas.removeEventListener('wheel', startLoop);
      canvas.removeEventListener('keydown', startLoop);
      engine.stopRenderLoop();
      scene.dispose();
      engine.dispose();
    },
  };
}
