/**
 * The 3D viewer of an editor preview (the voxels of a shape, the particles on an implicit surface),
 * outside Vue reactivity: made on mount on the panel's colour, which it follows when the theme
 * changes; disposed on unmount.
 */
import { onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue';
import { createViewer, type Viewer } from '../../scene/viewer';
import { theme } from '../../stores/theme';

function background(): string {
  return getComputedStyle(document.documentElement).getPropertyValue('--bg-elev').trim() || '#262a30';
}

/**
 * `setUp` takes the new viewer (makes what it draws and draws it) and returns its teardown, run
 * before the viewer is disposed. The returned message is set when the viewer cannot start (no WebGL).
 */
export function usePreviewViewer(canvas: Ref<HTMLCanvasElement | null>, setUp: (viewer: Viewer) => () => void): Ref<string> {
  const failure = ref('');
  let viewer: Viewer | null = null;
  let teardown: (() => void) | null = null;
  onMounted(() => {
    try {
      viewer = createViewer(canvas.value!);
      viewer.setBackground(background());
      teardown = setUp(viewer);
    } catch (e) {
      failure.value = `3D preview unavailable: ${(e as Error).message || 'WebGL could not start'}`;
    }
  });
  onBeforeUnmount(() => {
    teardown?.();
    viewer?.dispose();
    viewer = null;
  });
  watch(() => theme.effective, () => setTimeout(() => viewer?.setBackground(background())));
  return failure;
}
