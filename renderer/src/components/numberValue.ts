import type { Directive } from 'vue';

/**
 * `v-number-value="x"`: shows the number x in an <input type="number"> without rewriting what the
 * user is typing. A `:value` binding sets the box to String(x) whenever x changes, and text on its way
 * to a number reads as another number first: '-0' (typing -0.25) is written back as '0', dropping the
 * sign, and '1e-1' (typing 1e-12) as '0.1', so that the next digit makes 0.12. The box is set only
 * when its text does not already read as x. NaN (what readNumber makes of an empty or unreadable
 * entry) leaves the text being typed; undefined or null (an optional field unset) show as an empty box.
 * A box flagged as holding refused text (numberEntry.ts) reads as NaN only: x set to anything else came
 * from the app (a preset, Clear filters), which the box then shows, unflagged.
 */
export const vNumberValue: Directive<HTMLInputElement, unknown> = {
  mounted: show,
  updated: show,
};

function show(el: HTMLInputElement, { value }: { value: unknown }): void {
  const typed = el.value.trim();
  if (typeof value === 'number' && Number.isNaN(value)) {
    if (typed === '' || unreadable(el) || Number.isNaN(Number(typed))) return;
  } else if (value === undefined || value === null) {
    if (typed === '' && !unreadable(el)) return;
  } else if (typed !== '' && Number(typed) === value && el.validity?.customError !== true) return;
  writeNumber(el, value as number | null | undefined);
}

/**
 * Sets a number box to x (empty for NaN, undefined or null) as the app, not the user: the text it
 * held goes, and with it any refusal flag (numberEntry.ts), so that what is typed next is read.
 */
export function writeNumber(el: HTMLInputElement, x: number | null | undefined): void {
  el.value = x === undefined || x === null || Number.isNaN(x) ? '' : String(x);
  el.setCustomValidity('');
}

/**
 * What a number input holds, the reading every form of the app shares: its number; NaN for an empty
 * entry, which validation names at the field, never a default; or, when the field is `optional`,
 * undefined for an empty entry (the field unset). Unreadable text ('1e', '-', '1e-'; Chromium drops
 * other stray characters as they are typed) also leaves the input's value empty, but it is not an
 * empty entry (validity.badInput): NaN, optional or not, so that what the user typed is refused at
 * the field instead of unsetting it.
 */
export function readNumber(e: Event): number;
export function readNumber(e: Event, optional: boolean): number | undefined;
export function readNumber(e: Event, optional = false): number | undefined {
  const input = e.target as HTMLInputElement;
  const raw = input.value.trim();
  if (raw === '') return optional && !unreadable(input) ? undefined : Number.NaN;
  // Text typed after a character the box refused (numberEntry.ts): '0,4' holds '04', not what was meant.
  if (input.validity?.customError === true) return Number.NaN;
  return Number(raw);
}

/**
 * Whether a number input holds text that does not read as a number (its value is then ''), or text
 * typed after a character it refused (numberEntry.ts: '0,4' holds '04', which is not what was meant).
 */
export function unreadable(input: HTMLInputElement): boolean {
  return input.validity?.badInput === true || input.validity?.customError === true;
}
