import { toRaw } from 'vue';

/**
 * `:key="rowKey(row)"` for the rows of an editable list: an id the row object gets when it is first
 * shown, and keeps while it lives (pushed, spliced, filtered, moved). Keyed by its index, a row that
 * follows a removed one took over the removed row's elements: text the user is typing that is no
 * number yet ('1e', which the model holds as NaN) was left in the wrong box or cleared from its own.
 * The id is kept beside the row (a WeakMap on the raw object), not in it: rows are sent as they are.
 */
const ids = new WeakMap<object, number>();
let next = 1;

export function rowKey(row: object): number {
  const raw = toRaw(row);
  let id = ids.get(raw);
  if (id === undefined) {
    id = next++;
    ids.set(raw, id);
  }
  return id;
}

/**
 * `:key="listKeys(list)[i]"` for a list whose items have no identity of their own (numbers: a sieve
 * curve's sizes): an id for each position, kept by the list and given to new positions as it grows.
 * Remove a row with removeRow, which takes its id with it, so that the rows after it keep theirs.
 */
const listIds = new WeakMap<object, number[]>();

export function listKeys(list: readonly unknown[]): number[] {
  const raw = toRaw(list);
  let keys = listIds.get(raw);
  if (keys === undefined) {
    keys = [];
    listIds.set(raw, keys);
  }
  while (keys.length < raw.length) keys.push(next++);
  keys.length = raw.length;
  return keys;
}

export function removeRow(list: unknown[], i: number): void {
  listKeys(list).splice(i, 1);
  list.splice(i, 1);
}

/** Swaps rows i and j of a list keyed by listKeys, their ids with them. */
export function swapRows(list: unknown[], i: number, j: number): void {
  const keys = listKeys(list);
  [keys[i], keys[j]] = [keys[j], keys[i]];
  [list[i], list[j]] = [list[j], list[i]];
}
