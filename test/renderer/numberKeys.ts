/**
 * Keys typed into a number box as Chromium handles them, with the app's refusal installed
 * (numberEntry.ts, as main.ts installs it): beforeinput (which may refuse the key), then the box drops
 * any character of no number ('0,4' holds '04') and reports an input event. happy-dom keeps what is
 * set, so the dropping is done here.
 */
import { nextTick } from 'vue';
import { guardNumberEntry } from '../../renderer/src/components/numberEntry';

guardNumberEntry(document);

/** One key: a character (typed at the end, or over the whole text when `overAll`), or 'Backspace'. */
export async function key(input: HTMLInputElement, k: string, overAll = false): Promise<void> {
  const deleting = k === 'Backspace';
  const before = new InputEvent('beforeinput', { inputType: deleting ? 'deleteContentBackward' : 'insertText', data: deleting ? null : k, cancelable: true, bubbles: true });
  if (!input.dispatchEvent(before)) return;
  input.value = deleting ? input.value.slice(0, -1) : ((overAll ? '' : input.value) + k).replace(/[^0-9.eE+-]/g, '');
  input.dispatchEvent(new InputEvent('input', { inputType: before.inputType, data: before.data, bubbles: true }));
  await nextTick();
}

/**
 * Types `text` over what the box holds (its text selected, as a click-and-select or Ctrl+A leaves it),
 * one key at a time; `change` when the user leaves the box.
 */
export async function typeKeys(input: HTMLInputElement, text: string): Promise<void> {
  for (const [i, k] of [...text].entries()) await key(input, k, i === 0);
  input.dispatchEvent(new Event('change', { bubbles: true }));
  await nextTick();
}
