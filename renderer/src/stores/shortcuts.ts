/**
 * Keyboard shortcuts: components register theirs while mounted (useShortcuts), the ? overlay lists every
 * registered group, and one window listener dispatches. Keys are written like 'Alt+1', 'Mod+Enter'
 * (Ctrl, or Cmd on macOS), 'Delete', 'Space', 'ArrowLeft', '?'. Plain keys do not fire while typing in a field.
 */
import { onActivated, onBeforeUnmount, onDeactivated, onMounted, reactive } from 'vue';

export interface Shortcut {
  keys: string;
  description: string;
  run: (e: KeyboardEvent) => void;
  /** The shortcut applies only while this holds (the inspector's playback: a run with frames); else the key is left to the page and the list leaves it out. */
  when?: () => boolean;
}

export interface ShortcutGroup {
  id: number;
  title: string;
  shortcuts: Shortcut[];
}

export const shortcutGroups = reactive<ShortcutGroup[]>([]);
let nextId = 1;

export function registerShortcuts(title: string, shortcuts: Shortcut[]): () => void {
  const id = nextId++;
  shortcutGroups.push({ id, title, shortcuts });
  return () => {
    const i = shortcutGroups.findIndex((g) => g.id === id);
    if (i >= 0) shortcutGroups.splice(i, 1);
  };
}

/** Registers while the component is mounted and active (a kept-alive workspace in the background is not). */
export function useShortcuts(title: string, shortcuts: Shortcut[]): void {
  let off: (() => void) | null = null;
  const on = () => {
    if (!off) off = registerShortcuts(title, shortcuts);
  };
  const stop = () => {
    off?.();
    off = null;
  };
  onMounted(on);
  onActivated(on);
  onDeactivated(stop);
  onBeforeUnmount(stop);
}

const isMac = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform);

export function matches(keys: string, e: KeyboardEvent): boolean {
  const parts = keys.split('+');
  const key = parts.pop()!;
  const mods = new Set(parts);
  const wantCtrl = mods.has('Ctrl') || (mods.has('Mod') && !isMac);
  const wantMeta = mods.has('Meta') || (mods.has('Mod') && isMac);
  if (e.ctrlKey !== wantCtrl || e.metaKey !== wantMeta || e.altKey !== mods.has('Alt')) return false;
  // Shift is implied by characters such as '?', so it is only checked for letters and named keys.
  if (key.length > 1 || /[a-z]/i.test(key)) {
    if (e.shiftKey !== mods.has('Shift')) return false;
  }
  // Alt+digit: e.code is stable across layouts where Alt changes e.key.
  if (/^[0-9]$/.test(key) && e.code === `Digit${key}`) return true;
  if (key.length === 1 && /[a-z]/i.test(key) && e.code === `Key${key.toUpperCase()}`) return true;
  return (e.key === ' ' ? 'Space' : e.key).toLowerCase() === key.toLowerCase();
}

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/** Enter and Space on a focused button or link belong to it. */
function pressing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el?.tagName && ['BUTTON', 'A', 'SUMMARY'].includes(el.tagName);
}

/** The one window listener: the last registered group wins, so a workspace may shadow a global key. */
export function dispatchShortcut(e: KeyboardEvent): boolean {
  for (let g = shortcutGroups.length - 1; g >= 0; g--) {
    for (const s of shortcutGroups[g].shortcuts) {
      if (s.when && !s.when()) continue;
      const modified = /(Ctrl|Alt|Mod|Meta)\+/.test(s.keys);
      if (!modified && typingIn(e.target)) continue;
      if (!modified && (e.key === 'Enter' || e.key === ' ') && pressing(e.target)) continue;
      if (matches(s.keys, e)) {
        e.preventDefault();
        s.run(e);
        return true;
      }
    }
  }
  return false;
}

const ARROWS: Record<string, string> = { ArrowLeft: '←', ArrowRight: '→', ArrowUp: '↑', ArrowDown: '↓' };

/** Display form of a key chord for the overlay and titles. */
export function displayKeys(keys: string): string[] {
  return keys.split('+').map((k) => (k === 'Mod' ? (isMac ? '⌘' : 'Ctrl') : ARROWS[k] ?? k));
}

/** The shortcuts of a group that apply now (see Shortcut.when). */
export function activeShortcuts(g: ShortcutGroup): Shortcut[] {
  return g.shortcuts.filter((s) => !s.when || s.when());
}
