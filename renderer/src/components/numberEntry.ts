/**
 * Number boxes refuse what they cannot hold, visibly. Chromium's <input type="number"> drops, as it
 * is typed or pasted, every character that is not part of a number: '0,4' (a decimal comma) becomes
 * '04', which reads as 4, and '5 cm' in a box in mm becomes 5, with no sign to the user. A number ten
 * times too large is worse than a refusal, so such a character is not entered, the box says why
 * (the browser's own message at the field), and it stays flagged (validity.customError, which
 * numberValue.ts reads as no number: the form names the field) until the user deletes something to
 * correct it, empties the box or types over all of its text.
 */

/** The characters of a number as these boxes read it (Number(), with a decimal point). */
const NUMBER_CHARACTERS = /^[0-9.eE+-]*$/;

export function refusalMessage(text: string): string {
  const stray = [...text].find((c) => !NUMBER_CHARACTERS.test(c)) ?? text;
  const shown = stray.trim() === '' ? 'a space' : `'${stray}'`;
  return `${shown} was not entered: a number here has digits, a decimal point (0.4, not 0,4) and an exponent (1e-3) only, in the unit shown beside the box`;
}

function isNumberBox(target: EventTarget | null): target is HTMLInputElement {
  return target instanceof HTMLInputElement && target.type === 'number';
}

function onBeforeInput(e: Event): void {
  const input = e.target;
  if (!isNumberBox(input)) return;
  const { data, dataTransfer } = e as InputEvent;
  const text = data ?? dataTransfer?.getData('text/plain') ?? null;
  if (text === null || NUMBER_CHARACTERS.test(text)) return;
  e.preventDefault();
  input.setCustomValidity(refusalMessage(text));
  input.reportValidity();
}

function onInput(e: Event): void {
  const input = e.target;
  if (!isNumberBox(input) || !input.validity.customError) return;
  const { inputType, data, dataTransfer } = e as InputEvent;
  // A deletion is the user correcting the box; an empty box holds nothing wrong; a box that holds
  // just what was typed or pasted now had all its text selected and replaced (Ctrl+A, then '3').
  const inserted = data ?? dataTransfer?.getData('text/plain');
  if (inputType?.startsWith('delete') || input.value === '' || (!!inserted && input.value === inserted)) input.setCustomValidity('');
}

/** Installs the refusal on every number box under `root` (capture: before the forms read the box). */
export function guardNumberEntry(root: Document | HTMLElement): void {
  root.addEventListener('beforeinput', onBeforeInput, true);
  root.addEventListener('input', onInput, true);
}
