/** Transient messages in the corner (errors of background actions, finished batches). */
import { reactive } from 'vue';

export interface Toast {
  id: number;
  kind: 'info' | 'ok' | 'error';
  text: string;
}

export const toasts = reactive<Toast[]>([]);
let nextId = 1;

/** Shows a toast for `ms` (null: until the user dismisses it). */
export function toast(kind: Toast['kind'], text: string, ms: number | null = kind === 'error' ? 8000 : 4000): void {
  const id = nextId++;
  toasts.push({ id, kind, text });
  if (ms !== null) setTimeout(() => dismissToast(id), ms);
}

export function dismissToast(id: number): void {
  const i = toasts.findIndex((t) => t.id === id);
  if (i >= 0) toasts.splice(i, 1);
}
