/** Light/dark theme: follows the OS unless the user picked one; the choice is remembered. */
import { reactive } from 'vue';

export type ThemePref = 'system' | 'light' | 'dark';
const KEY = 'packbench.theme';

function loadPref(): ThemePref {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export const theme = reactive({ pref: loadPref(), effective: 'light' as 'light' | 'dark' });

function osPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

function apply(): void {
  theme.effective = theme.pref === 'system' ? (osPrefersDark() ? 'dark' : 'light') : theme.pref;
  document.documentElement.dataset.theme = theme.effective;
}

export function setThemePref(pref: ThemePref): void {
  theme.pref = pref;
  try {
    if (pref === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, pref);
  } catch {
    // Storage may be unavailable (private mode): the choice then lasts for this session only.
  }
  apply();
}

/** Toggle between light and dark (an explicit choice from then on). */
export function toggleTheme(): void {
  setThemePref(theme.effective === 'dark' ? 'light' : 'dark');
}

export function initTheme(): void {
  apply();
  if (typeof matchMedia === 'function') {
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      if (theme.pref === 'system') apply();
    });
  }
}
